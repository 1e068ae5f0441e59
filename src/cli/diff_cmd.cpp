// condlint diff: two runtimes on the same inputs, per branch.
#include "cli/cli.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "diff/diff.hpp"
#include "report/checks.hpp"
#include "report/report.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

namespace {

struct DiffCmdOptions {
  std::vector<std::string> models;
  std::string config;  // --config FILE (else .condlint.yaml found from the first model's directory upwards)
  std::vector<std::string> runtimes;
  std::vector<std::string> data;
  int random = 0;
  int64_t open_dim = 1;  // --open-dim
  uint64_t seed = 0;
  std::vector<std::string> ranges, tolerances, input_shapes;
  std::string branches = "both";
  std::optional<double> atol, rtol;
  std::string format = "text";
  std::string output;
  std::string work_dir;
  std::string save;
  bool save_overwrite = false;
  int64_t timeout_ms = 0;
  int64_t timeout_s = kDefaultCommandTimeoutS;  // --timeout: the whole command
  std::string html_file;                        // --html FILE
};

int run_diff_cmd(const DiffCmdOptions& o) {
  if (o.runtimes.size() < 2) {
    std::cerr << "condlint: diff takes two or more --runtime options (ref, onnxruntime, openvino, cmd:TEMPLATE)\n";
    return kExitError;
  }
  diff::DiffConfig cfg;
  cfg.deadline = exec::Deadline::after(o.timeout_s);
  for (const auto& d : o.data) cfg.data_dirs.emplace_back(d);
  if (!random_inputs_options(o.random, o.seed, o.ranges, o.input_shapes, o.config,
                             o.models.empty() ? std::string() : o.models.front(), cfg.random))
    return kExitError;
  if (o.open_dim < 1 || o.open_dim > (int64_t{1} << 31)) {
    std::cerr << "condlint: --open-dim takes a dim from 1 to 2^31\n";
    return kExitError;
  }
  cfg.random.open_dim = o.open_dim;
  for (const auto& t : o.tolerances) {
    std::string name;
    double a, r;
    if (!parse_pair(t, name, a, r) || a < 0 || r < 0) {
      std::cerr << "condlint: --tolerance takes OUTPUT=ATOL,RTOL (not negative), got '" << term_safe(t) << "'\n";
      return kExitError;
    }
    cfg.tolerances[name] = {a, r};
  }
  if ((o.atol && *o.atol < 0) || (o.rtol && *o.rtol < 0)) {
    std::cerr << "condlint: --atol and --rtol must not be negative\n";
    return kExitError;
  }
  cfg.atol = o.atol;
  cfg.rtol = o.rtol;
  if (!o.models.empty() && !tolerances_from_config(o.config, o.models.front(), true, cfg.atol, cfg.rtol))
    return kExitError;
  cfg.both_branches = o.branches == "both";
  // Each model is read once, here, through the front door (with the parsed ONNX kept and lint's verdict on its
  // readability): diff, its exports and the writers take what was opened.
  std::vector<LoadResult> loaded;
  loaded.reserve(o.models.size());
  for (const auto& m : o.models) loaded.push_back(open_model(m, exec_open_options()));
  std::vector<diff::DiffModel> models;
  std::vector<const LoadResult*> opened;
  for (size_t i = 0; i < o.models.size(); ++i) {
    models.push_back({o.models[i], &loaded[i]});
    opened.push_back(&loaded[i]);
  }
  const std::vector<io::OutputTarget> outputs{{o.output, "the report"}, {o.html_file, "the HTML report"}};
  if (!save_dir_allowed(o.save, o.save_overwrite) ||
      !outputs_allowed(outputs, model_inputs(o.models, opened, o.data, o.config)))
    return kExitError;
  cfg.save_dir = o.save;
  if (!o.work_dir.empty()) {
    cfg.work_dir = o.work_dir;
    cfg.keep = true;
  }
  diff::RuntimeOptions ro;
  if (o.timeout_ms > 0) ro.timeout_ms = ro.limits.timeout_ms = o.timeout_ms;
  ro.limits.deadline = cfg.deadline;
  std::vector<std::unique_ptr<diff::Runtime>> owned;
  std::vector<diff::Runtime*> rts;
  for (const auto& spec : o.runtimes) {
    std::string err;
    auto rt = diff::make_runtime(spec, ro, err);
    if (!rt) {
      std::cerr << "condlint: " << term_safe(err) << "\n";
      return kExitError;
    }
    rts.push_back(rt.get());
    owned.push_back(std::move(rt));
  }
  const diff::DiffResult r = diff::run_diff(models, rts, cfg);
  const int diff_code = r.usage_error() ? kExitError : r.all_agree() ? kExitClean : kExitFindings;
  if (!write_report(o.output, "the report", [&](std::ostream& os) {
        if (o.format == "json") write_diff_json(os, r);
        else if (o.format == "html") write_diff_html(os, r, diff_code, opened);
        else write_diff_text(os, r);
      }))
    return kExitError;
  if (!o.html_file.empty() &&
      !write_report(o.html_file, "the HTML report", [&](std::ostream& h) { write_diff_html(h, r, diff_code, opened); }))
    return kExitError;
  if (r.usage_error()) {
    for (const auto& m : r.models)
      if (!m.error.empty() && (!o.output.empty() || o.format == "json"))
        std::cerr << "condlint: " << term_safe(m.model) << ": " << term_safe(m.error) << "\n";
    return kExitError;
  }
  if (cfg.deadline.passed()) {
    bool stopped = false;
    for (const auto& m : r.models)
      for (const auto& c : m.cases)
        for (const auto& e : c.runtime_errors) stopped |= e.find(cfg.deadline.reached()) != std::string::npos;
    if (stopped)
      std::cerr << "condlint: stopped: " << cfg.deadline.reached() << "; the report lists the runs not made\n";
  }
  return r.all_agree() ? kExitClean : kExitFindings;
}

}  // namespace

Command add_diff_command(CLI::App& app, const Globals&) {
  auto opts = std::make_shared<DiffCmdOptions>();
  DiffCmdOptions& diffo = *opts;
  auto* diff_cmd = app.add_subcommand(
      "diff",
      "Run a model (ONNX, OpenVINO IR, NNAPI) on two runtimes per branch of every If and compare\n\n"
      "Run a model (ONNX; OpenVINO IR and NNAPI exported to ONNX first) on two runtimes with the same\n"
      "inputs, once per branch of every If (the If's condition pinned to a constant), and compare the outputs\n"
      "(exit 0 agree, 1 divergence or runtime failure)");
  diff_cmd
      ->add_option("model", diffo.models,
                   "Model file(s): .onnx, or .xml (OpenVINO IR) / .nnapi.json, exported to ONNX first\n"
                   "(condlint export; exit 2 naming the ops when a model cannot be exported exactly)")
      ->required();
  diff_cmd
      ->add_option("--runtime", diffo.runtimes,
                   "ref | onnxruntime | openvino | cmd:TEMPLATE (with {model} {inputs} {outputs}; docs/diff.md); give\n"
                   "two, or more: each is compared with the first")
      ->required();
  diff_cmd->add_option("--data", diffo.data,
                       "A test_data_set_N directory or a directory holding them; repeatable\n"
                       "(default: the test_data_set_* beside the model unless --random)");
  diff_cmd->add_option("--random", diffo.random, "Also run N random input sets");
  diff_cmd->add_option("--open-dim", diffo.open_dim,
                      "What --random gives an open dim (symbolic, or -1 in an IR) that neither --input-shapes nor\n"
                      "the data sets beside the model (or --data) fix: those run with the shapes of the first data set\n"
                      "whose inputs fit the declarations, which the set's name says ('open dims as in\n"
                      "test_data_set_0'); else this value (default 1)")
      ->capture_default_str();
  diff_cmd->add_option("--seed", diffo.seed, "Seed of --random (default 0)");
  diff_cmd->add_option("--range", diffo.ranges, "Value range of a random input: NAME=LO,HI; repeatable");
  diff_cmd->add_option(
      "--input-shapes", diffo.input_shapes,
      "Shape of a random input: NAME:d0,d1,... (NAME: for a scalar); must agree with every dim the\n"
      "model declares; a symbolic dim it fixes applies to every input naming it (else --open-dim); repeatable.\n"
      "The configuration's inputs: entries give shapes and ranges of the inputs not named here");
  diff_cmd
      ->add_option("--branches", diffo.branches,
                   "both: also run inputs synthesized to select the branches the data does not take, and every If\n"
                   "pinned to each branch where that is sound; taken: the model as given")
      ->check(CLI::IsMember({"taken", "both"}))
      ->capture_default_str();
  diff_cmd->add_option("--atol", diffo.atol, "Absolute tolerance (default per element type, docs/golden-data.md)");
  diff_cmd->add_option("--rtol", diffo.rtol, "Relative tolerance (default per element type)");
  diff_cmd->add_option("--config", diffo.config,
                       "Configuration file whose tolerances: diff: applies where --atol/--rtol are not given (default: "
                       ".condlint.yaml in the first model's directory or above)");
  diff_cmd->add_option("--tolerance", diffo.tolerances, "Tolerance of one output: OUTPUT=ATOL,RTOL; repeatable");
  diff_cmd->add_option("--format", diffo.format, "Report format")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->capture_default_str();
  diff_cmd->add_option("--html", diffo.html_file,
                       "Also write a self-contained HTML report (per-branch tables) to FILE");
  diff_cmd->add_option("-o,--output", diffo.output, "Write the report to FILE instead of standard output");
  diff_cmd->add_option("--work-dir", diffo.work_dir,
                       "Keep variants, inputs and outputs in DIR (default: a temp dir, removed)");
  diff_cmd->add_option("--save", diffo.save,
                       "Write each input set's run of the model as given (data, random, synthesized) as a data set\n"
                       "under DIR for review: inputs, the first runtime's outputs, and each runtime's in runtime_R/");
  diff_cmd->add_option("--timeout-ms", diffo.timeout_ms, "Time limit of one run in ms (default 60000)");
  diff_cmd
      ->add_option("--timeout", diffo.timeout_s,
                   "Time limit of the whole command in seconds (0: none); past it no run starts, the run under way\n"
                   "stops, and the report lists the runs not made as failed (exit 1)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  return {diff_cmd, [opts] { return run_diff_cmd(*opts); }};
}

}  // namespace condlint::cli
