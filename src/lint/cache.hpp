// `condlint lint --cache DIR`: a model's findings are reused when the same bytes (the model and every file it read
// or looked for: .bin, external data, Blobs, golden data with --exec) were judged by the same condlint under the
// same effective configuration and rule selection. Keys are content hashes, never times.
//
// An entry is one file DIR/<2 hex>/<30 hex>: a header line with the format version, the condlint version and a
// digest of the body, then the body (JSON). An entry that does not parse, whose digest, version or key differs, or
// whose dependencies changed is not used (the model is judged again and the entry replaced). Entries are written
// to a temporary name and renamed, so a process sharing DIR never reads half an entry.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.hpp"
#include "rules/engine.hpp"

namespace condlint::lint {

// A 128-bit content hash (not cryptographic: it tells changed bytes from unchanged ones).
class Hasher {
 public:
  void update(std::string_view bytes);
  std::string hex() const;  // 32 hex digits

 private:
  uint64_t a_ = 0x243f6a8885a308d3ull, b_ = 0x13198a2e03707344ull, length_ = 0;
  unsigned char tail_[16] = {};
  size_t tail_size_ = 0;
  void block(const unsigned char* p);
};

std::string hash_bytes(std::string_view bytes);
// The hash of a regular file's bytes, read in pieces; nullopt when it is not a readable regular file.
std::optional<std::string> hash_file(const std::string& path);

// What is reused: the findings and the suppressed findings of one model (fingerprints and baseline states are
// computed afresh, as they depend on the working directory and the baseline).
struct CachedResult {
  std::vector<Finding> findings;
  std::vector<SuppressedFinding> suppressed;
};

// The dependencies `lint --exec` adds: the list of test_data_set_* directories beside the model and every file in
// them (the golden data the executor reads).
std::vector<std::string> golden_data_dependencies(const std::string& model_path);

class ResultCache {
 public:
  // Uses DIR, creating it when needed; error() is non-empty when it cannot.
  explicit ResultCache(std::string dir);
  const std::string& error() const { return error_; }

  // The key of a model's result: its bytes, the condlint version and `context` (everything else its findings
  // depend on: rule selection, configuration). nullopt when the model cannot be read.
  std::optional<std::string> key(const std::string& model_path, std::string_view context) const;
  // The result stored under `key` when its entry is intact and every dependency still has the bytes it had.
  std::optional<CachedResult> find(const std::string& key, const std::string& model_path);
  // Stores a result with the files it depends on besides the model. Not stored when a dependency resolves
  // outside the model's directory (its bytes are not read) or the directory cannot be written.
  void store(const std::string& key, const std::string& model_path, const std::vector<std::string>& dependencies,
             const CachedResult& r);

  struct Stats {
    std::atomic<size_t> reused{0}, judged{0}, rejected{0}, stored{0}, not_stored{0}, write_errors{0};
  };
  const Stats& stats() const { return stats_; }

 private:
  std::string entry_path(const std::string& key) const;
  std::string dir_, error_;
  Stats stats_;
  std::atomic<uint64_t> temp_counter_{0};
};

}  // namespace condlint::lint
