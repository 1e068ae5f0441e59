// condlint command line: argument parsing and wiring only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "importers/nnapi_testmodel.hpp"
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

    std::vector<std::string> import_files;
    std::string import_out;
    auto* import_cmd = app.add_subcommand("import", "Convert models from other formats into ones condlint reads");
    import_cmd->require_subcommand(1);
    auto* import_nnapi = import_cmd->add_subcommand(
        "nnapi-testmodel", "AOSP NNAPI generated test models (spec_*/NAME.example.cpp) -> DIR/NAME.nnapi.json with goldens");
    import_nnapi->add_option("files", import_files, "*.example.cpp files")->required();
    import_nnapi->add_option("-o,--output", import_out, "Directory to write the .nnapi.json files to")->required();

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
    if (*import_nnapi) {
      const ImportSummary s = import_nnapi_testmodels(import_files, import_out);
      for (const auto& e : s.errors) std::cerr << "condlint: error: " << e << "\n";
      std::cout << s.written.size() << " model(s) written to " << import_out << "\n";
      return s.errors.empty() ? kExitClean : kExitError;
    }
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "condlint: internal error: " << e.what() << "\n";
    return kExitError;
  }
}
