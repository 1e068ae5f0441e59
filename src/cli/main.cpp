// condlint command line: argument parsing and wiring only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "diff/diff.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"
#include "report/report.hpp"
#include "rules/engine.hpp"

namespace {

using namespace condlint;

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

struct LintOptions {
  std::string format = "text";
  std::string output;
  std::string fail_on = "error";
  std::vector<std::string> enable, disable;
  std::vector<std::string> paths;
  std::string nnapi_target = "runtime";
};

bool valid_rule_selector(const std::string& s) {
  for (const RuleDef* r : all_rules())
    if (r->id.substr(0, s.size()) == s) return true;
  return false;
}

int run_lint(const LintOptions& o) {
  for (const auto* list : {&o.enable, &o.disable})
    for (const auto& id : *list)
      if (!valid_rule_selector(id)) {
        std::cerr << "condlint: unknown rule or rule prefix '" << id << "' (see `condlint rules`)\n";
        return kExitError;
      }
  Level threshold = Level::Error;
  const bool never = o.fail_on == "never";
  if (!never && !parse_level(o.fail_on, threshold)) {
    std::cerr << "condlint: --fail-on must be error, warning, note or never\n";
    return kExitError;
  }
  RuleSelection sel;
  sel.enable = o.enable;
  sel.disable = o.disable;
  sel.options.nnapi_target = o.nnapi_target;

  const Collected inputs = collect_inputs(o.paths);
  RunResult result;
  bool io_failure = false;
  for (const auto& e : inputs.errors) {
    spdlog::error("{}", e);
    io_failure = true;
  }
  for (const auto& path : inputs.files) {
    const auto t0 = std::chrono::steady_clock::now();
    FileResult fr;
    fr.path = path;
    if (auto fmt = format_from_name(path)) fr.format = std::string(to_string(*fmt));
    LoadResult lr = load_file(path);
    if (!lr.model) {
      fr.io_error = lr.io_error;
      io_failure = true;
      spdlog::error("{}: {}", path, lr.io_error);
    } else {
      fr.findings = run_rules(*lr.model, sel);
      const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      spdlog::debug("{}: {} graphs, {} conditionals, {} findings in {:.1f} ms", path, lr.model->graphs.size(),
                    lr.model->conditionals.size(), fr.findings.size(), ms);
    }
    result.files.push_back(std::move(fr));
  }

  std::ofstream file;
  std::ostream* os = &std::cout;
  if (!o.output.empty()) {
    file.open(o.output, std::ios::binary);
    if (!file) {
      std::cerr << "condlint: cannot write " << o.output << "\n";
      return kExitError;
    }
    os = &file;
  }
  if (o.format == "json") write_json(*os, result);
  else write_text(*os, result, os == &std::cout && isatty(STDOUT_FILENO));
  os->flush();

  if (io_failure) return kExitError;
  if (never) return kExitClean;
  for (const auto& f : result.files)
    for (const auto& x : f.findings)
      if (x.level >= threshold) return kExitFindings;
  return kExitClean;
}

int run_rules_list(const std::string& format) {
  if (format == "json") {
    std::cout << "[";
    bool first = true;
    for (const RuleDef* r : all_rules()) {
      std::cout << (first ? "\n" : ",\n") << "  {\"id\": \"" << r->id << "\", \"name\": \"" << r->name
                << "\", \"level\": \"" << to_string(r->level) << "\", \"formats\": [";
      bool f1 = true;
      for (auto [bit, name] : {std::pair{kIR, "ir"}, {kONNX, "onnx"}, {kNNAPI, "nnapi"}})
        if (r->formats & bit) {
          std::cout << (f1 ? "" : ", ") << "\"" << name << "\"";
          f1 = false;
        }
      std::cout << "], \"summary\": \"" << r->summary << "\"}";
      first = false;
    }
    std::cout << "\n]\n";
    return kExitClean;
  }
  std::cout << "ID      NAME                          LEVEL    FORMATS        SUMMARY\n";
  for (const RuleDef* r : all_rules()) {
    std::string formats;
    if (r->formats == kAllFormats) formats = "all";
    else {
      if (r->formats & kIR) formats += "ir ";
      if (r->formats & kONNX) formats += "onnx ";
      if (r->formats & kNNAPI) formats += "nnapi ";
    }
    std::printf("%-7s %-29s %-8s %-14s %s\n", std::string(r->id).c_str(), std::string(r->name).c_str(),
                std::string(to_string(r->level)).c_str(), formats.c_str(), std::string(r->summary).c_str());
  }
  std::cout << "\nEach rule is explained in rules/<ID>.md.\n";
  return kExitClean;
}

struct RunCmdOptions {
  std::string model;
  std::vector<std::string> data;
  std::string branches = "both";
  std::vector<std::string> pins;
  std::optional<double> atol, rtol;
  std::string save;
  std::string format = "text";
  std::string output;
  int64_t max_elements = 0, max_bytes = 0, max_iterations = 0, timeout_ms = 0;
};

int run_exec(const RunCmdOptions& o) {
  exec::RunConfig cfg;
  for (const auto& d : o.data) cfg.data_dirs.emplace_back(d);
  cfg.both_branches = o.branches == "both";
  for (const auto& p : o.pins) {
    const auto eq = p.rfind('=');
    const std::string v = eq == std::string::npos ? "" : p.substr(eq + 1);
    if (eq == std::string::npos || eq == 0 || (v != "true" && v != "false")) {
      std::cerr << "condlint: --pin takes NODE=true|false (NODE is the If's path, e.g. main/if_0), got '" << p << "'\n";
      return kExitError;
    }
    cfg.pins[p.substr(0, eq)] = v == "true";
  }
  cfg.atol = o.atol;
  cfg.rtol = o.rtol;
  if ((o.atol && *o.atol < 0) || (o.rtol && *o.rtol < 0)) {
    std::cerr << "condlint: --atol and --rtol must not be negative\n";
    return kExitError;
  }
  cfg.save_dir = o.save;
  if (o.max_elements > 0) cfg.limits.max_elements = o.max_elements;
  if (o.max_bytes > 0) cfg.limits.max_total_bytes = o.max_bytes;
  if (o.max_iterations > 0) cfg.limits.max_loop_iterations = o.max_iterations;
  if (o.timeout_ms > 0) cfg.limits.timeout_ms = o.timeout_ms;
  const bool nnapi = exec::is_nnapi_path(o.model);
  if (nnapi && o.timeout_ms <= 0) cfg.limits.timeout_ms = 2000;  // Android's default loop timeout
  if (nnapi && o.max_iterations <= 0) cfg.limits.max_loop_iterations = INT64_MAX;  // NNAPI stops loops by time
  const exec::ModelResult r = nnapi ? exec::run_nnapi_model(o.model, cfg) : exec::run_model(o.model, cfg);
  std::ofstream file;
  std::ostream* os = &std::cout;
  if (!o.output.empty()) {
    file.open(o.output, std::ios::binary);
    if (!file) {
      std::cerr << "condlint: cannot write " << o.output << "\n";
      return kExitError;
    }
    os = &file;
  }
  if (o.format == "json") exec::write_run_json(*os, r);
  else exec::write_run_text(*os, r);
  os->flush();
  if (!r.error.empty()) {
    if (os != &std::cout || o.format == "json") std::cerr << "condlint: " << r.error << "\n";
    return kExitError;
  }
  return r.failed == 0 && r.unsupported == 0 ? kExitClean : kExitFindings;
}

struct DiffCmdOptions {
  std::vector<std::string> models;
  std::vector<std::string> runtimes;
  std::vector<std::string> data;
  int random = 0;
  uint64_t seed = 0;
  std::vector<std::string> ranges, tolerances;
  std::string branches = "both";
  std::optional<double> atol, rtol;
  std::string format = "text";
  std::string output;
  std::string work_dir;
  int64_t timeout_ms = 0;
};

bool parse_pair(const std::string& s, std::string& name, double& a, double& b) {
  const auto eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  const std::string v = s.substr(eq + 1);
  const auto comma = v.find(',');
  if (comma == std::string::npos) return false;
  try {
    size_t n1 = 0, n2 = 0;
    a = std::stod(v.substr(0, comma), &n1);
    b = std::stod(v.substr(comma + 1), &n2);
    return n1 == comma && n2 == v.size() - comma - 1;
  } catch (...) {
    return false;
  }
}

int run_diff_cmd(const DiffCmdOptions& o) {
  if (o.runtimes.size() != 2) {
    std::cerr << "condlint: diff takes exactly two --runtime options (ref, onnxruntime, cmd:TEMPLATE)\n";
    return kExitError;
  }
  diff::DiffConfig cfg;
  for (const auto& d : o.data) cfg.data_dirs.emplace_back(d);
  if (o.random < 0) {
    std::cerr << "condlint: --random must not be negative\n";
    return kExitError;
  }
  cfg.random = o.random;
  cfg.seed = o.seed;
  for (const auto& r : o.ranges) {
    std::string name;
    double lo, hi;
    if (!parse_pair(r, name, lo, hi) || lo > hi) {
      std::cerr << "condlint: --range takes NAME=LO,HI with LO <= HI, got '" << r << "'\n";
      return kExitError;
    }
    cfg.ranges[name] = {lo, hi};
  }
  for (const auto& t : o.tolerances) {
    std::string name;
    double a, r;
    if (!parse_pair(t, name, a, r) || a < 0 || r < 0) {
      std::cerr << "condlint: --tolerance takes OUTPUT=ATOL,RTOL (not negative), got '" << t << "'\n";
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
  cfg.both_branches = o.branches == "both";
  if (!o.work_dir.empty()) {
    cfg.work_dir = o.work_dir;
    cfg.keep = true;
  }
  diff::RuntimeOptions ro;
  if (o.timeout_ms > 0) ro.timeout_ms = ro.limits.timeout_ms = o.timeout_ms;
  std::vector<std::unique_ptr<diff::Runtime>> owned;
  std::vector<diff::Runtime*> rts;
  for (const auto& spec : o.runtimes) {
    std::string err;
    auto rt = diff::make_runtime(spec, ro, err);
    if (!rt) {
      std::cerr << "condlint: " << err << "\n";
      return kExitError;
    }
    rts.push_back(rt.get());
    owned.push_back(std::move(rt));
  }
  std::vector<std::filesystem::path> models(o.models.begin(), o.models.end());
  const diff::DiffResult r = diff::run_diff(models, rts, cfg);
  std::ofstream file;
  std::ostream* os = &std::cout;
  if (!o.output.empty()) {
    file.open(o.output, std::ios::binary);
    if (!file) {
      std::cerr << "condlint: cannot write " << o.output << "\n";
      return kExitError;
    }
    os = &file;
  }
  if (o.format == "json") diff::write_diff_json(*os, r);
  else diff::write_diff_text(*os, r);
  os->flush();
  if (r.usage_error()) {
    for (const auto& m : r.models)
      if (!m.error.empty() && (os != &std::cout || o.format == "json")) std::cerr << "condlint: " << m.model << ": " << m.error << "\n";
    return kExitError;
  }
  return r.all_agree() ? kExitClean : kExitFindings;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    auto logger = spdlog::stderr_color_mt("condlint");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("condlint: %^%l%$: %v");
    spdlog::set_level(spdlog::level::warn);

    CLI::App app{
        "condlint checks conditional operations (If in OpenVINO IR and ONNX, IF in Android NNAPI):\n"
        "port maps, output counts, element types, shapes and the condition, at every nesting depth.\n\n"
        "Examples:\n"
        "  condlint lint model.xml                     lint one OpenVINO IR file (model.bin beside it)\n"
        "  condlint lint models/ --format json -o r.json   lint a tree, JSON report\n"
        "  condlint lint m.xml --fail-on warning       exit 1 on warnings too\n"
        "  condlint lint m.xml --disable C011 --disable IR019\n"
        "  condlint rules                              list every rule\n\n"
        "Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 usage, I/O or internal error.",
        "condlint"};
    app.set_version_flag("--version", std::string("condlint ") + CONDLINT_VERSION);
    bool verbose = false, quiet = false;
    app.add_flag("-v,--verbose", verbose, "Log what is loaded and how long it takes (stderr)");
    app.add_flag("-q,--quiet", quiet, "Log nothing but internal errors (stderr)");
    app.require_subcommand(1);

    LintOptions lint;
    auto* lint_cmd = app.add_subcommand("lint", "Lint model files or directories (walked recursively)");
    lint_cmd->add_option("paths", lint.paths,
                         "Model files (.xml + .bin) or directories; in a directory, .xml files whose root is <net>")
        ->required();
    lint_cmd->add_option("--format", lint.format, "Report format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    lint_cmd->add_option("-o,--output", lint.output, "Write the report to FILE instead of standard output");
    lint_cmd->add_option("--fail-on", lint.fail_on, "Lowest level that makes the exit code 1: error|warning|note|never")
        ->check(CLI::IsMember({"error", "warning", "note", "never"}))
        ->capture_default_str();
    lint_cmd->add_option("--enable", lint.enable,
                         "Run only these rules; an ID (C006) or a prefix (IR, C0); repeatable");
    lint_cmd->add_option("--disable", lint.disable, "Do not run these rules; an ID or a prefix; repeatable");
    lint_cmd->add_option("--nnapi-target", lint.nnapi_target,
                         "NNAPI: judge IF/WHILE operands of unknown size as Android's runtime does (runtime: note)\n"
                         "or as HAL drivers must (hal: error)")
        ->check(CLI::IsMember({"runtime", "hal"}))
        ->capture_default_str();

    std::string rules_format = "text";
    auto* rules_cmd = app.add_subcommand("rules", "List every rule with its ID, name, default level and formats");
    rules_cmd->add_option("--format", rules_format, "text or json")->check(CLI::IsMember({"text", "json"}));

    RunCmdOptions runo;
    auto* run_cmd = app.add_subcommand(
        "run", "Run an ONNX model (or an NNAPI .nnapi.json model with examples) on its golden data (test_data_set_N/input_K.pb, output_K.pb or .npy), running\n"
               "both branches of every If, and compare the outputs (exit 0 all ran and matched, 1 otherwise)");
    run_cmd->add_option("model", runo.model, "ONNX model file")->required();
    run_cmd->add_option("--data", runo.data,
                        "A test_data_set_N directory or a directory holding them; repeatable\n"
                        "(default: the test_data_set_* beside the model)");
    run_cmd->add_option("--branches", runo.branches,
                        "both: also run the branch the data does not select, by pinning each If's condition")
        ->check(CLI::IsMember({"taken", "both"}))
        ->capture_default_str();
    run_cmd->add_option("--pin", runo.pins, "Pin an If's condition: NODE=true|false, NODE its path (main/if_0); repeatable");
    run_cmd->add_option("--atol", runo.atol, "Absolute tolerance (default per element type, docs/golden-data.md)");
    run_cmd->add_option("--rtol", runo.rtol, "Relative tolerance (default per element type)");
    run_cmd->add_option("--save", runo.save, "Record inputs, pins and outputs of every run as golden data under DIR");
    run_cmd->add_option("--format", runo.format, "Report format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    run_cmd->add_option("-o,--output", runo.output, "Write the report to FILE instead of standard output");
    run_cmd->add_option("--max-elements", runo.max_elements, "Largest tensor, in elements (default 1e8)");
    run_cmd->add_option("--max-bytes", runo.max_bytes, "Most bytes all live tensors may hold (default 2 GiB)");
    run_cmd->add_option("--max-iterations", runo.max_iterations, "Most iterations of one Loop (default 1e6)");
    run_cmd->add_option("--timeout-ms", runo.timeout_ms, "Time limit of one run in ms (default 60000)");

    DiffCmdOptions diffo;
    auto* diff_cmd = app.add_subcommand(
        "diff", "Run an ONNX model on two runtimes with the same inputs, once per branch of every If (the If's\n"
                "condition pinned to a constant), and compare the outputs (exit 0 agree, 1 divergence or runtime failure)");
    diff_cmd->add_option("model", diffo.models, "ONNX model file(s)")->required();
    diff_cmd->add_option("--runtime", diffo.runtimes,
                         "ref | onnxruntime | cmd:TEMPLATE (with {model} {inputs} {outputs}; docs/diff.md); give two")
        ->required();
    diff_cmd->add_option("--data", diffo.data, "A test_data_set_N directory or a directory holding them; repeatable\n"
                                               "(default: the test_data_set_* beside the model unless --random)");
    diff_cmd->add_option("--random", diffo.random, "Also run N random input sets");
    diff_cmd->add_option("--seed", diffo.seed, "Seed of --random (default 0)");
    diff_cmd->add_option("--range", diffo.ranges, "Value range of a random input: NAME=LO,HI; repeatable");
    diff_cmd->add_option("--branches", diffo.branches, "both: also run every If pinned to each branch; taken: the model as given")
        ->check(CLI::IsMember({"taken", "both"}))
        ->capture_default_str();
    diff_cmd->add_option("--atol", diffo.atol, "Absolute tolerance (default per element type, docs/golden-data.md)");
    diff_cmd->add_option("--rtol", diffo.rtol, "Relative tolerance (default per element type)");
    diff_cmd->add_option("--tolerance", diffo.tolerances, "Tolerance of one output: OUTPUT=ATOL,RTOL; repeatable");
    diff_cmd->add_option("--format", diffo.format, "Report format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    diff_cmd->add_option("-o,--output", diffo.output, "Write the report to FILE instead of standard output");
    diff_cmd->add_option("--work-dir", diffo.work_dir, "Keep variants, inputs and outputs in DIR (default: a temp dir, removed)");
    diff_cmd->add_option("--timeout-ms", diffo.timeout_ms, "Time limit of one run in ms (default 60000)");

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? kExitClean : kExitError;
    }
    if (verbose) spdlog::set_level(spdlog::level::debug);
    if (quiet) spdlog::set_level(spdlog::level::critical);

    if (*lint_cmd) return run_lint(lint);
    if (*rules_cmd) return run_rules_list(rules_format);
    if (*run_cmd) return run_exec(runo);
    if (*diff_cmd) return run_diff_cmd(diffo);
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "condlint: internal error: " << e.what() << "\n";
    return kExitError;
  }
}
