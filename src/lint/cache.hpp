// `condlint lint --cache DIR`: a model's findings are reused when the same bytes (the model and every file it read
// or looked for: .bin, external data, Blobs, golden data with --exec) were judged by the same condlint under the
// same effective configuration and rule selection. What decides is content hashes, never times.
//
// One entry per model and context: DIR/<32 hex>, named by a hash of the condlint version, the context (rules,
// configuration) and the model's path. It holds the hash of the bytes the loader read and judged (never of the file
// read again afterwards) and of each dependency's, and the findings: a header line (format version, condlint
// version, a digest of the body together with the version and the context, so an entry is valid only under its own
// key), then the body (length-prefixed fields, see cache.cpp; the conditionals' summaries when the run had them). An
// entry that does not parse, whose digest, version, name or path differs, whose hashes no longer match the files, or
// that is not a regular file with one name (a symbolic or hard link) is not used: the model is judged again and the
// entry replaced. Nothing is stored when a dependency changed after the judging started. Entries are written through
// io::OutputFile (an exclusive temporary, renamed over the entry: a link planted there is replaced, never followed), so
// a process sharing DIR never reads half an entry; temporaries a killed run left are swept after an hour.
//
// Hashing a file costs about as much as parsing it, so an entry also records each file's identity (device, inode,
// size, modification and change times in ns) when it hashed it: a file whose identity is unchanged is not read
// again, one whose identity changed (a fresh checkout) is hashed and compared (the entry is not rewritten: in CI
// every checkout is fresh, and writing costs more than hashing). A file changed less than two
// seconds before it was hashed gets no identity (its times may not yet tell a second change from the first); user
// programs cannot set the change time back.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/content_hash.hpp"
#include "report/report.hpp"
#include "rules/engine.hpp"

namespace condlint::lint {

using io::hash_bytes;
using io::hash_file;
using io::Hasher;

// What is reused: the findings and the suppressed findings of one model (fingerprints and baseline states are
// computed afresh, as they depend on the working directory and the baseline) and, when the run that stored it
// summarized them, the model's conditionals: what a share's page data needs of the model, so a share linted with
// --cache carries the panels `merge --html` draws without loading the model.
struct CachedResult {
  std::vector<Finding> findings;
  std::vector<SuppressedFinding> suppressed;
  bool has_conditionals = false;
  std::vector<ConditionalSummary> conditionals;  // summarize_conditionals over findings and suppressed ones
};

// The dependencies `lint --exec` adds: the list of test_data_set_* directories beside the model and every file in
// them (the golden data the executor reads).
std::vector<std::string> golden_data_dependencies(const std::string& model_path);

class ResultCache {
 public:
  // Uses DIR, creating it when needed; error() is non-empty when it cannot.
  explicit ResultCache(std::string dir);
  const std::string& error() const { return error_; }

  // What find learnt about a model, for store.
  struct Probe {
    std::string entry;                      // the entry's file name
    std::string model;                      // the model's path
    std::string identity;                   // the model's identity now ("" none or too recent)
    std::string content;                    // the hash of its bytes: for store, of the bytes the loader read ("" none)
    int64_t size = -1;                      // its size in bytes when it is a regular file
    std::vector<std::string> dependencies;  // on a hit: the files the entry depends on besides the model
    int64_t started_ns = 0;                 // when find was called (wall clock): the judging started after it
  };
  // The result stored for this model and context when its entry is intact and the model and every dependency
  // still have the bytes they had; with `need_conditionals`, only an entry that holds the conditionals answers (one
  // without is judged again, not counted as damaged).
  std::optional<CachedResult> find(const std::string& model_path, std::string_view context, Probe& probe,
                                   bool need_conditionals = false);
  // Stores a result with the files it depends on besides the model, under probe.content: the hash of the bytes the
  // loader read (load_file's content_hash). Not stored when there is none, a dependency resolves outside the model's
  // directory (its bytes are not read) or changed after the judging started (what was judged is then not what
  // would be vouched for), or DIR cannot be written.
  void store(Probe& probe, std::string_view context, const std::vector<std::string>& dependencies,
             const CachedResult& r);

  struct Stats {
    std::atomic<size_t> reused{0}, judged{0}, rejected{0}, stored{0}, not_stored{0}, write_errors{0};
  };
  const Stats& stats() const { return stats_; }

 private:
  std::optional<CachedResult> find_entry(const std::string& model_path, std::string_view context, Probe& probe,
                                         bool need_conditionals);
  std::optional<std::string> dependency_state(const std::string& dep, const std::string& base) const;
  std::string dir_, error_;
  Stats stats_;
};

}  // namespace condlint::lint
