// The configuration file (.condlint.yaml): rule levels, ignores, suppressions, tolerances.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/engine.hpp"

namespace condlint {

struct Tolerance {
  std::optional<double> atol, rtol;
};

struct ConfigIgnore {
  std::string glob;                // relative to the config file's directory
  std::vector<std::string> rules;  // empty: the file is not linted at all
};

struct ConfigSuppression {
  std::string rule;       // ID or prefix
  std::string path_glob;  // empty: every file
  std::string node_glob;  // empty: every node
  std::string justification;
  int line = 0;  // where the entry is, for the SARIF justification
};

// Inputs `run --random` and `diff --random` make for the models a path glob matches (inputs: in the file): the
// shapes and value ranges of named inputs, as --input-shapes and --range give them.
struct ConfigInputs {
  std::string path_glob;  // empty: every model
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, std::pair<double, double>> ranges;
};

struct Config {
  std::string file;  // the config file as found
  std::string dir;   // its directory (absolute), base of every glob
  std::map<std::string, Level> levels;
  std::vector<std::pair<std::string, int>> level_lines;  // rule -> line, in file order
  std::vector<ConfigIgnore> ignores;
  std::vector<ConfigSuppression> suppressions;
  Tolerance run, diff;               // kept for `condlint run` / `condlint diff`
  std::vector<ConfigInputs> inputs;  // in file order; a later matching entry wins for the inputs it names
  std::vector<Target> targets;       // targets: the runtimes the models are judged for (`lint --target` replaces)
};

// Limits on a configuration (docs/hardening.md): a configuration is found and read automatically from a model's
// directory, so what it costs is bounded whoever wrote it. Real ones are a few hundred bytes.
// The file: a regular file of at most 1 MiB.
constexpr uint64_t kMaxConfigBytes = uint64_t{1} << 20;
// The document with every YAML alias written out (each scalar's bytes plus 4 per node): at most 4 MiB. Without
// aliases a document of 1 MiB weighs less than that, so only aliases that multiply what they name reach it.
constexpr uint64_t kMaxConfigExpandedBytes = uint64_t{4} << 20;
// One glob (ignore, suppress path and node, inputs path): at most 4096 bytes (PATH_MAX) and 64 wildcards (`*`, `**`).
constexpr size_t kMaxGlobBytes = 4096;
constexpr size_t kMaxGlobWildcards = 64;
// targets: at most 64 entries (a real list names a few runtimes).
constexpr size_t kMaxConfigTargets = 64;

// Loads a config file. On error returns nullopt and sets `error` to "FILE:LINE: what" (or "FILE: what" when the
// file cannot be read: not a regular file, larger than kMaxConfigBytes). One YAML document only.
std::optional<Config> load_config(const std::string& path, std::string& error);

// Finds .condlint.yaml in the directory of `model_path` or the nearest directory above it.
// Returns the empty string when there is none.
std::string find_config(const std::string& model_path);

// Glob over '/'-separated paths: `*` and `?` stay within a segment, `**` spans segments, `**/` is zero or more
// directories. Time linear in the text for each wildcard and literal of the pattern.
bool glob_match(std::string_view pattern, std::string_view text);
// A node path (or node glob) written in the spelling of condlint 0.1 for ONNX, in the current one: the root
// "graph" is "main", an If's "then_branch" / "else_branch" segments are "then" / "else". Read from suppressions and
// baselines through 0.2, so that they keep matching; anything else is returned as it is.
std::string node_path_from_legacy(const std::string& path);

// The model path relative to the config's directory ('/'-separated), for matching globs.
std::string config_relative(const Config& c, const std::string& model_path);

}  // namespace condlint
