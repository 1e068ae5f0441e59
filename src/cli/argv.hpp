// The command line as people type it, made into what CLI11 parses, and the hints a mistyped one gets.
//
// - A command's options may come before the command (`condlint --fail-on warning lint m.onnx`): they are moved after
//   it, with their values. Global options (-v, -q, --help, --version) stay where they are.
// - An unknown command is a usage error (exit 2) whatever follows it, `--help` included, with the nearest command.
// - An unknown option gets the nearest option of its command; an unknown rule ID the nearest rule IDs.
// - Every option that may be repeated takes one value each time it appears (`--disable C011 m.onnx`: m.onnx is a
//   path), as ruff's --ignore and ESLint's --rule do; `--` ends the options.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace condlint::cli {

// The candidates nearest to `word` by edit distance (an adjacent swap counts one; case ignored), within a distance
// that grows with the word's length (1 up to 4 characters, 2 up to 8, then 3); best first, at most `max_count`.
std::vector<std::string> nearest_words(const std::string& word, const std::vector<std::string>& candidates,
                                       size_t max_count = 3);
// " (did you mean 'a' or 'b'?)" for nearest_words' answer; "" when there is none.
std::string did_you_mean(const std::vector<std::string>& words);

// Every repeatable option of the app's commands takes one value per occurrence. Call once the commands are added.
void one_value_per_occurrence(CLI::App& app);

// A subcommand's one-line summary in `condlint --help` (the first line of its description; the rest is in its own
// --help): the formatter main() gives the app.
class SummaryFormatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override;
};

struct CommandLine {
  std::vector<std::string> args;  // argv[1..], reordered: globals, the command, its options moved, the rest
  std::string command;            // the command named; empty when none was
  std::string error;              // a usage error already worded (unknown command, none given); exit 2
};
// Reads argv: finds the command, moves its options given before it after it, refuses an unknown command.
CommandLine normalize_command_line(const CLI::App& app, int argc, char** argv);

// For a command line CLI11 refused with "arguments were not expected": the first unknown option and the nearest
// options of its command, worded; "" when the extras are not options (CLI11's message then stands).
std::string unknown_option_hint(const CLI::App& app, const CommandLine& line);

// "unknown rule or rule prefix 'C06' (did you mean C006?)"-style hint for a rule selector: the rule IDs nearest
// to it, an ID of the same letters and number first (C06, c6 -> C006).
std::vector<std::string> nearest_rule_ids(const std::string& selector);

}  // namespace condlint::cli
