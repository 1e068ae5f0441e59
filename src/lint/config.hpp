// The configuration file (.condlint.yaml): rule levels, ignores, suppressions, tolerances.
#pragma once

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
};

// Loads a config file. On error returns nullopt and sets `error` to "FILE:LINE: what".
std::optional<Config> load_config(const std::string& path, std::string& error);

// Finds .condlint.yaml in the directory of `model_path` or the nearest directory above it.
// Returns the empty string when there is none.
std::string find_config(const std::string& model_path);

// Glob over '/'-separated paths: `*` and `?` stay within a segment, `**` spans segments.
bool glob_match(std::string_view pattern, std::string_view text);
// A node path (or node glob) written in the spelling of condlint 0.1 for ONNX, in the current one: the root
// "graph" is "main", an If's "then_branch" / "else_branch" segments are "then" / "else". Read from suppressions and
// baselines through 0.2, so that they keep matching; anything else is returned as it is.
std::string node_path_from_legacy(const std::string& path);

// The model path relative to the config's directory ('/'-separated), for matching globs.
std::string config_relative(const Config& c, const std::string& model_path);

}  // namespace condlint
