// condlint run: a model on its golden data, both branches of every If.
#include "cli/cli.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "exec/ir_exec.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"
#include "report/checks.hpp"
#include "report/report.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

namespace {

struct RunCmdOptions {
  std::string model;
  std::string config;  // --config FILE (else .condlint.yaml found from the model's directory upwards)
  std::vector<std::string> data;
  int random = 0;
  int64_t open_dim = 1;  // --open-dim
  uint64_t seed = 0;
  std::vector<std::string> ranges, input_shapes;
  std::string branches = "both";
  std::vector<std::string> pins;
  std::optional<double> atol, rtol;
  std::string save;
  bool save_overwrite = false;
  std::string format = "text";
  std::string output;
  int64_t max_elements = 0, max_bytes = 0, max_iterations = 0, timeout_ms = 0;
  int64_t timeout_s = kDefaultCommandTimeoutS;  // --timeout: the whole command
  std::string html_file;                        // --html FILE
};

int run_exec(const RunCmdOptions& o) {
  exec::RunConfig cfg;
  cfg.limits.deadline = exec::Deadline::after(o.timeout_s);
  for (const auto& d : o.data) cfg.data_dirs.emplace_back(d);
  cfg.both_branches = o.branches == "both";
  for (const auto& p : o.pins) {
    std::string node;
    bool value = false;
    if (!parse_pin(p, node, value)) {
      std::cerr << "condlint: --pin takes NODE=true|false (NODE is the If's path, e.g. main/if_0), got '"
                << term_safe(p) << "'\n";
      return kExitError;
    }
    cfg.pins[node] = value;
  }
  cfg.atol = o.atol;
  cfg.rtol = o.rtol;
  if (!tolerances_from_config(o.config, o.model, false, cfg.atol, cfg.rtol)) return kExitError;
  if (!random_inputs_options(o.random, o.seed, o.ranges, o.input_shapes, o.config, o.model, cfg.random))
    return kExitError;
  if (o.open_dim < 1 || o.open_dim > (int64_t{1} << 31)) {
    std::cerr << "condlint: --open-dim takes a dim from 1 to 2^31\n";
    return kExitError;
  }
  cfg.random.open_dim = o.open_dim;
  if ((o.atol && *o.atol < 0) || (o.rtol && *o.rtol < 0)) {
    std::cerr << "condlint: --atol and --rtol must not be negative\n";
    return kExitError;
  }
  // The model is read once, here, through the front door: its loader's Model (with the parsed ONNX graph kept for the
  // interpreter, and lint's verdict on its readability) is what runs, and the files it read are inputs no output may
  // replace.
  const LoadResult loaded = open_model(o.model, exec_open_options());
  const io::InputFiles inputs = model_inputs({o.model}, {&loaded}, o.data, o.config);
  const std::vector<io::OutputTarget> outputs{{o.output, "the report"}, {o.html_file, "the HTML report"}};
  if (!save_dir_allowed(o.save, o.save_overwrite) || !outputs_allowed(outputs, inputs)) return kExitError;
  cfg.save_dir = o.save;
  if (o.max_elements > 0) cfg.limits.max_elements = o.max_elements;
  if (o.max_bytes > 0) cfg.limits.max_total_bytes = o.max_bytes;
  if (o.max_iterations > 0) cfg.limits.max_loop_iterations = o.max_iterations;
  if (o.timeout_ms > 0) cfg.limits.timeout_ms = o.timeout_ms;
  const bool nnapi = loaded.model && loaded.model->format == Format::NNAPI;
  if (nnapi && o.timeout_ms <= 0) cfg.limits.timeout_ms = 2000;                    // Android's default loop timeout
  if (nnapi && o.max_iterations <= 0) cfg.limits.max_loop_iterations = INT64_MAX;  // NNAPI stops loops by time
  const exec::ModelResult r = loaded.model ? exec::run_loaded(*loaded.model, o.model, cfg)
                                           : exec::model_error(o.model, o.model + ": " + loaded.io_error);
  const int run_code = !r.error.empty() ? kExitError : r.failed == 0 && r.unsupported == 0 ? kExitClean : kExitFindings;
  if (!write_report(o.output, "the report", [&](std::ostream& os) {
        if (o.format == "json") write_run_json(os, r);
        else if (o.format == "html") write_run_html(os, r, run_code, &loaded);
        else write_run_text(os, r);
      }))
    return kExitError;
  if (!o.html_file.empty() &&
      !write_report(o.html_file, "the HTML report", [&](std::ostream& h) { write_run_html(h, r, run_code, &loaded); }))
    return kExitError;
  if (!r.error.empty()) {
    if (!o.output.empty() || o.format == "json") std::cerr << "condlint: " << term_safe(r.error) << "\n";
    return kExitError;
  }
  if (cfg.limits.deadline.passed())
    for (const auto& c : r.cases)
      if (c.message.find(cfg.limits.deadline.reached()) != std::string::npos) {
        std::cerr << "condlint: stopped: " << cfg.limits.deadline.reached() << "; the report lists the cases not run\n";
        break;
      }
  return r.failed == 0 && r.unsupported == 0 ? kExitClean : kExitFindings;
}

}  // namespace

Command add_run_command(CLI::App& app, const Globals&) {
  auto opts = std::make_shared<RunCmdOptions>();
  RunCmdOptions& runo = *opts;
  auto* run_cmd = app.add_subcommand(
      "run",
      "Run a model (ONNX, OpenVINO IR, NNAPI) in the reference executor, both branches of every If\n\n"
      "Run a model (ONNX, OpenVINO IR or NNAPI) in the reference executor on its golden data\n"
      "(test_data_set_N/input_K.pb, output_K.pb or .npy; an NNAPI model's examples) or --random inputs, running\n"
      "both branches of every If, and compare the outputs (exit 0 all ran and matched, 1 otherwise)");
  run_cmd->add_option("model", runo.model, "Model file: .onnx, .xml (OpenVINO IR, .bin beside it) or .nnapi.json")
      ->required();
  run_cmd->add_option("--data", runo.data,
                      "A test_data_set_N directory or a directory holding them; repeatable\n"
                      "(default: the test_data_set_* beside the model unless --random)");
  run_cmd->add_option("--random", runo.random,
                      "Also run N random input sets made from the declared inputs (no golden outputs:\n"
                      "checked against the declared types; an NNAPI input is named by its operand's name, else\n"
                      "'operand N')");
  run_cmd->add_option("--open-dim", runo.open_dim,
                      "What --random gives an open dim (symbolic, or -1 in an IR) that neither --input-shapes nor\n"
                      "the data sets beside the model (or --data) fix: those run with the shapes of the first data set\n"
                      "whose inputs fit the declarations, which the set's name says ('open dims as in\n"
                      "test_data_set_0'); else this value (default 1)")
      ->capture_default_str();
  run_cmd->add_option("--seed", runo.seed, "Seed of --random (default 0)");
  run_cmd->add_option("--range", runo.ranges, "Value range of a random input: NAME=LO,HI; repeatable");
  run_cmd->add_option("--input-shapes", runo.input_shapes,
                      "Shape of a random input: NAME:d0,d1,... (NAME: for a scalar); must agree with every dim the\n"
                      "model declares; a symbolic dim it fixes applies to every input naming it (else --open-dim); repeatable.\n"
                      "The configuration's inputs: entries give shapes and ranges of the inputs not named here");
  run_cmd
      ->add_option("--branches", runo.branches,
                   "both: also reach the branches the data does not select: by inputs synthesized to select them,\n"
                   "else by pinning the If's condition where that is sound (never a dead branch or a shape guard)")
      ->check(CLI::IsMember({"taken", "both"}))
      ->capture_default_str();
  run_cmd->add_option("--pin", runo.pins,
                      "Pin an If's condition: NODE=true|false, NODE its path (main/if_0); repeatable");
  run_cmd->add_option("--atol", runo.atol, "Absolute tolerance (default per element type, docs/golden-data.md)");
  run_cmd->add_option("--rtol", runo.rtol, "Relative tolerance (default per element type)");
  run_cmd->add_option("--config", runo.config,
                      "Configuration file whose tolerances: run: applies where --atol/--rtol are not given (default: "
                      ".condlint.yaml in the model's directory or above)");
  run_cmd->add_option("--save", runo.save,
                      "Record inputs, pins and outputs of every run that passed as golden data under DIR\n"
                      "(refused when DIR already holds test_data_set_* unless --save-overwrite)");
  run_cmd->add_flag("--save-overwrite", runo.save_overwrite, "Let --save replace golden data already in DIR");
  run_cmd->add_option("--format", runo.format, "Report format")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->capture_default_str();
  run_cmd->add_option("--html", runo.html_file, "Also write a self-contained HTML report (per-branch tables) to FILE");
  run_cmd->add_option("-o,--output", runo.output, "Write the report to FILE instead of standard output");
  run_cmd->add_option("--max-elements", runo.max_elements, "Largest tensor, in elements (default 1e8)");
  run_cmd->add_option("--max-bytes", runo.max_bytes, "Most bytes all live tensors may hold (default 2 GiB)");
  run_cmd->add_option("--max-iterations", runo.max_iterations, "Most iterations of one Loop (default 1e6)");
  run_cmd->add_option("--timeout-ms", runo.timeout_ms, "Time limit of one run in ms (default 60000)");
  run_cmd
      ->add_option("--timeout", runo.timeout_s,
                   "Time limit of the whole command in seconds (0: none); past it no run starts, the run under way\n"
                   "stops, and the report lists the cases not run (exit 1)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  return {run_cmd, [opts] { return run_exec(*opts); }};
}

}  // namespace condlint::cli
