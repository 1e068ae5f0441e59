// The command-line layer: wiring only. Each command lives in its own file (lint_cmd.cpp, merge_cmd.cpp, ...): it
// adds its subcommand and options to the app and returns what runs it; main.cpp dispatches by the table of commands.
// Exit codes: 0 clean, 1 findings (or a failed run / divergence), 2 usage, I/O or internal error.
#pragma once

#include <CLI/CLI.hpp>
#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "exec/random_inputs.hpp"
#include "io/output.hpp"
#include "loaders/open_model.hpp"

namespace condlint::cli {

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;
// run's and diff's --timeout when none is given: the whole command's time limit in seconds (README's option tables).
constexpr int64_t kDefaultCommandTimeoutS = 600;

// The options every command sees, read once the command line is parsed.
struct Globals {
  bool verbose = false, quiet = false;
  int argc = 0;
  char** argv = nullptr;
};

struct Command {
  CLI::App* sub = nullptr;  // the subcommand; run it when the command line named it
  std::function<int()> run;
};
using CommandAdder = Command (*)(CLI::App& app, const Globals& g);

Command add_lint_command(CLI::App& app, const Globals& g);
Command add_merge_command(CLI::App& app, const Globals& g);
Command add_rules_command(CLI::App& app, const Globals& g);
Command add_run_command(CLI::App& app, const Globals& g);
Command add_import_command(CLI::App& app, const Globals& g);
Command add_diff_command(CLI::App& app, const Globals& g);
Command add_export_command(CLI::App& app, const Globals& g);
Command add_fix_command(CLI::App& app, const Globals& g);
// `condlint fix --in-place` (with --unsafe-fixes when `unsafe`) of `models`, its lines written to `messages`: what
// `lint --fix` runs before it lints. The fix command's exit status.
int fix_in_place(const std::vector<std::string>& models, bool unsafe, std::ostream& messages);

// ---- Shared by the commands (common.cpp) ----

// Writes a report whole to `path` (standard output when it is empty) through io::write_output: to a temporary
// renamed into place, every write error checked. False, after saying why, when it could not be written: exit 2.
bool write_report(const std::string& path, const std::string& what, const std::function<void(std::ostream&)>& writer);
// The files `run`, `diff` and `export` read for `models`: each model, the files its loader read (`opened`, parallel
// to `models`: Model::sources, an IR model's .bin among them), the golden data beside it (test_data_set_*) and
// under `data_dirs`, and the configuration that applies (`config`, else the one found).
io::InputFiles model_inputs(const std::vector<std::string>& models, const std::vector<const LoadResult*>& opened,
                            const std::vector<std::string>& data_dirs, const std::string& config);
// How `run`, `diff` and `export` open a model (open_model): with what the executor needs of the original kept and
// lint's readability verdict applied once.
OpenOptions exec_open_options();
// --save DIR of `run` and `diff`: false, after saying why, when DIR already holds golden data (test_data_set_*)
// and `overwrite` (--save-overwrite) is not given: recorded outputs never replace committed ones unasked.
bool save_dir_allowed(const std::string& dir, bool overwrite);
// False, after saying why, when an output would be written onto one of the inputs or two outputs are one file.
bool outputs_allowed(const std::vector<io::OutputTarget>& outputs, const io::InputFiles& inputs);
// "NODE=true|false" -> node, value; false when it is not that.
bool parse_pin(const std::string& p, std::string& node, bool& value);
// The configuration's tolerances (tolerances: run: / diff:) where --atol / --rtol are not given: from --config
// FILE, else from the .condlint.yaml found from the model's directory upwards. False (message printed) when the
// configuration cannot be read: a usage error, as for lint.
bool tolerances_from_config(const std::string& config, const std::string& model, bool for_diff,
                            std::optional<double>& atol, std::optional<double>& rtol);

// "NAME=A,B" -> name, a, b; false when it is not that.
bool parse_pair(const std::string& s, std::string& name, double& a, double& b);
// --random N, --seed S, --range NAME=LO,HI and --input-shapes NAME:d0,d1,... into `out`; the configuration's
// inputs: entries whose path matches `model` give the shapes and ranges of the inputs the command line does not
// name. False (message printed) on a bad argument or an unreadable configuration: a usage error.
bool random_inputs_options(int count, uint64_t seed, const std::vector<std::string>& ranges,
                           const std::vector<std::string>& shapes, const std::string& config, const std::string& model,
                           exec::RandomInputs& out);

}  // namespace condlint::cli
