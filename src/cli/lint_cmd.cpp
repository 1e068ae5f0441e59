// condlint lint: options -> a lint session (src/lint/session) -> reports.
#include "cli/cli.hpp"

#include "cli/argv.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <spdlog/spdlog.h>

#include "lint/session.hpp"
#include "loaders/loader.hpp"
#include "report/report.hpp"
#include "report/terminal.hpp"
#include "rules/engine.hpp"

namespace condlint::cli {

namespace {

struct LintOptions {
  lint::SessionOptions session;
  std::string format = "text";
  std::string output;
  std::string sarif_file, html_file;  // --sarif FILE, --html FILE
  std::string dump_types;             // --dump-types FILE: every value's type as condlint knows it (JSON)
  std::string shard;                  // --shard K/N
  std::string files_from;             // --files-from FILE|-
  std::string paths0_from;            // --paths0-from FILE|-
  std::string show = "default";       // --show: the levels the text report prints
  bool models_only = false;           // --models-only: named files that are not models are left out
  bool fix = false, unsafe_fixes = false;  // --fix, --unsafe-fixes: condlint fix --in-place first
};

// The paths of the list FILE (- : standard input) as `read` reads them; false (message printed) when it cannot be
// read. A pipe or FIFO is the usual list (`<(git diff --name-only)`), so only a directory is refused by its kind.
bool read_list(const std::string& file, const char* what,
               bool (*read)(std::istream&, std::vector<std::string>&, std::string&), std::vector<std::string>& out) {
  std::ifstream in;
  if (file != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
      std::cerr << "condlint: the " << what << " " << term_safe(file) << " is a directory\n";
      return false;
    }
    in.open(file, std::ios::binary);
    if (!in) {
      std::cerr << "condlint: cannot read the " << what << " " << term_safe(file) << "\n";
      return false;
    }
  }
  std::string err;
  if (!read(file == "-" ? std::cin : in, out, err)) {
    std::cerr << "condlint: the " << what << " " << term_safe(file == "-" ? std::string("(standard input)") : file)
              << ": " << err << "\n";
    return false;
  }
  return true;
}

// The session's options from the command line's; false (message printed) on a usage error.
bool session_options(const LintOptions& o, bool quiet, lint::SessionOptions& s) {
  s = o.session;
  for (const auto* list : {&s.enable, &s.disable})
    for (const auto& id : *list)
      if (!lint::valid_rule_selector(id)) {
        std::cerr << "condlint: unknown rule or rule prefix '" << term_safe(id) << "'"
                  << term_safe(did_you_mean(nearest_rule_ids(id))) << " (`condlint rules` lists them)\n";
        return false;
      }
  if (!o.shard.empty() && !lint::parse_shard(o.shard, s.shard_index, s.shard_count)) {
    std::cerr << "condlint: --shard takes K/N with 1 <= K <= N <= 10000, got '" << term_safe(o.shard) << "'\n";
    return false;
  }
  if (!o.paths0_from.empty()) {
    if (o.paths0_from == "-" && o.files_from == "-") {
      std::cerr << "condlint: --files-from - and --paths0-from - cannot both read standard input\n";
      return false;
    }
    std::vector<std::string> listed;
    if (!read_list(o.paths0_from, "path list", read_path_list0, listed)) return false;
    for (auto& p : listed) s.paths.push_back(std::move(p));
  }
  if (o.models_only) {
    // What a pre-commit hook names: every file its pattern matches, models or not. Directories are walked as always.
    std::vector<std::string> kept;
    for (auto& p : s.paths) {
      std::error_code ec;
      if (std::filesystem::is_directory(p, ec) || listed_model_file(p)) kept.push_back(std::move(p));
      else spdlog::debug("{}: not a model, left out (--models-only)", term_safe(p));
    }
    s.paths = std::move(kept);
  }
  if (!o.files_from.empty()) {
    std::vector<std::string> listed;
    if (!read_list(o.files_from, "file list", read_path_list, listed)) return false;
    for (auto& p : listed) s.paths.push_back(std::move(p));
  } else if (s.paths.empty() && !o.models_only && o.paths0_from.empty()) {
    std::cerr << "condlint: lint needs model files or directories (or --files-from FILE)\n";
    return false;
  }
  s.progress = !quiet && isatty(STDERR_FILENO);
  // A share summarizes its conditionals for the page `merge --html` writes (with --cache, the cache keeps them).
  s.html = o.format == "html" || !o.html_file.empty();
  s.conditionals = s.html || !o.shard.empty();
  s.value_types = !o.dump_types.empty();
  return true;
}

// --show: "default" (errors and warnings, notes too under --fail-on note), "all", "failing" (the levels --fail-on
// fails on) or levels joined by commas (error,warning); false (message printed) when it is none of these.
bool show_levels(const std::string& show, const std::string& fail_on, std::vector<Level>& out) {
  out.clear();
  const std::vector<std::pair<std::string, Level>> levels = {
      {"error", Level::Error}, {"warning", Level::Warning}, {"note", Level::Note}};
  if (show == "default") {
    // Errors and warnings, as compilers, clang-tidy and ESLint print them; notes too when --fail-on note fails on them.
    out = {Level::Error, Level::Warning};
    if (fail_on == "note") out.push_back(Level::Note);
    return true;
  }
  if (show == "all" || (show == "failing" && fail_on == "never")) {
    for (const auto& [name, l] : levels) out.push_back(l);
    return true;
  }
  if (show == "failing") {
    for (const auto& [name, l] : levels) {
      out.push_back(l);
      if (name == fail_on) break;
    }
    return true;
  }
  size_t start = 0;
  while (start <= show.size()) {
    const size_t comma = std::min(show.find(',', start), show.size());
    const std::string word = show.substr(start, comma - start);
    auto it = std::find_if(levels.begin(), levels.end(), [&](const auto& e) { return e.first == word; });
    if (it == levels.end()) {
      std::cerr << "condlint: --show takes default, all, failing or levels joined by commas (error,warning,note), got '"
                << term_safe(show) << "'\n";
      return false;
    }
    out.push_back(it->second);
    start = comma + 1;
  }
  return true;
}

int run_lint(const LintOptions& o, bool quiet) {
  if (o.fix || o.unsafe_fixes) {
    // ruff's --fix: the fixes applied in place first (each proven, as `condlint fix --in-place`), what they did said
    // on standard error (standard output is the report's), then the lint of what is left.
    if (!o.files_from.empty() || !o.paths0_from.empty()) {
      std::cerr << "condlint: --fix takes the models as arguments, not from --files-from or --paths0-from\n";
      return kExitError;
    }
    if (o.session.paths.empty()) {
      std::cerr << "condlint: --fix needs the models to fix\n";
      return kExitError;
    }
    if (fix_in_place(o.session.paths, o.unsafe_fixes, std::cerr) == kExitError) return kExitError;
  }
  lint::SessionOptions so;
  if (!session_options(o, quiet, so)) return kExitError;
  TextOptions text;
  // -q: only what fails, unless --show says otherwise.
  if (!show_levels(quiet && o.show == "default" ? "failing" : o.show, o.session.fail_on, text.show)) return kExitError;
  lint::SessionResult s = lint::run_session(so);
  if (!s.error.empty()) {
    std::cerr << "condlint: " << term_safe(s.error) << "\n";
    return kExitError;
  }
  if (s.result.run.shard) s.result.run.shard->conditionals = so.conditionals;
  const RunResult& result = s.result;
  io::InputFiles inputs = s.inputs;
  if (!o.files_from.empty() && o.files_from != "-") inputs.add(o.files_from, "the file list");
  if (!o.paths0_from.empty() && o.paths0_from != "-") inputs.add(o.paths0_from, "the path list");
  if (!outputs_allowed({{o.output, "the report"},
                        {o.sarif_file, "the SARIF report"},
                        {o.html_file, "the HTML report"},
                        {o.dump_types, "the types report"}},
                       inputs))
    return kExitError;
  const bool color = o.output.empty() && isatty(STDOUT_FILENO);
  if (!write_report(o.output, "the report", [&](std::ostream& os) {
        if (o.format == "json") write_json(os, result);
        else if (o.format == "sarif") write_sarif(os, result);
        else if (o.format == "html") write_html(os, result);
        else {
          text.color = color;
          write_text(os, result, text);
        }
      }))
    return kExitError;
  if (!o.sarif_file.empty() &&
      !write_report(o.sarif_file, "the SARIF report", [&](std::ostream& f) { write_sarif(f, result); }))
    return kExitError;
  if (!o.html_file.empty() &&
      !write_report(o.html_file, "the HTML report", [&](std::ostream& f) { write_html(f, result); }))
    return kExitError;
  if (!o.dump_types.empty() &&
      !write_report(o.dump_types, "the types report", [&](std::ostream& f) { write_types_json(f, result); }))
    return kExitError;
  return s.exit_code;
}

}  // namespace

Command add_lint_command(CLI::App& app, const Globals& g) {
  auto opts = std::make_shared<LintOptions>();
  LintOptions& lint = *opts;
  auto* lint_cmd = app.add_subcommand("lint", "Lint model files or directories (walked recursively)");
  // Not required: --files-from and --paths0-from give paths too (session_options says when there are none).
  lint_cmd->add_option("paths", lint.session.paths,
                       "Model files (.xml + .bin, .onnx, .nnapi.json, .tflite) or directories, walked recursively\n"
                       "(there: .onnx, .nnapi.json, and .xml files whose root element is <net>); anywhere on the line,\n"
                       "or after -- when a name starts with a dash");
  lint_cmd->add_option("--format", lint.format, "Report format")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
      ->capture_default_str();
  lint_cmd->add_option("-o,--output", lint.output, "Write the report to FILE instead of standard output");
  lint_cmd
      ->add_option("--fail-on", lint.session.fail_on,
                   "Lowest level that makes the exit code 1: error|warning|note|never")
      ->check(CLI::IsMember({"error", "warning", "note", "never"}))
      ->capture_default_str();
  lint_cmd->add_option("--enable", lint.session.enable,
                       "Run only these rules; an ID (C006) or a prefix (IR, C0); repeatable");
  lint_cmd->add_option("--disable", lint.session.disable, "Do not run these rules; an ID or a prefix; repeatable");
  lint_cmd->add_flag("--fix", lint.fix,
                     "Apply the safe fixes in place first (as condlint fix --in-place: each proven, what it did on "
                     "standard error), then lint what is left");
  lint_cmd->add_flag("--unsafe-fixes", lint.unsafe_fixes, "With --fix: the unsafe fixes too (implies --fix)");
  lint_cmd->add_flag("--exec", lint.session.exec,
                     "Also run the reference executor wherever golden data sits beside a model (test_data_set_*,\n"
                     "NNAPI examples); mismatches and failing branches become findings EX001-EX004");
  lint_cmd->add_option("--dump-types", lint.dump_types,
                       "Also write, as JSON to FILE, the type and shape condlint knows for every value a node\n"
                       "produces (declared, refined by inference; a null dim is unknown)");
  CLI::Option* nnapi_target_opt = lint_cmd
      ->add_option("--nnapi-target", lint.session.nnapi_target,
                   "NNAPI: judge IF/WHILE operands of unknown size as Android's runtime does (runtime: note)\n"
                   "or as HAL drivers must (hal: error); a TFLite model, given either, is judged as the NNAPI\n"
                   "delegate would hand it to NNAPI (TFL009, TFL010: as --target nnapi)")
      ->check(CLI::IsMember({"runtime", "hal"}))
      ->capture_default_str();
  lint_cmd->add_option("--target", lint.session.targets,
                       "Also judge the models for a runtime they will run on; repeatable: onnxruntime>=1.17,\n"
                       "openvino>=2025.0, tensorrt>=10.0, nnapi>=fl4 (a name alone: every release condlint knows).\n"
                       "Findings ORT, OV, TRT and FL name the oldest release of the range that refuses the model;\n"
                       "the facts and their sources: docs/targets.md. Replaces `targets:` of .condlint.yaml.\n"
                       "--nnapi-target stays a separate option: it says who runs an NNAPI model (Android's runtime\n"
                       "or a HAL driver), --target nnapi>=flN which feature levels");

  lint_cmd->add_option("--sarif", lint.sarif_file, "Also write a SARIF 2.1.0 report to FILE (any --format)");
  lint_cmd->add_option("--html", lint.html_file, "Also write a self-contained HTML report to FILE (any --format)");
  lint_cmd->add_option("--config", lint.session.config_file,
                       "Configuration file (default: .condlint.yaml in the model's directory or above)");
  lint_cmd->add_option("--baseline", lint.session.baseline,
                       "Earlier SARIF report: mark results new/unchanged/absent; --fail-on counts new ones only");
  lint_cmd->add_option("--max-warnings", lint.session.max_warnings, "Exit 1 when more than N warnings remain")
      ->check(CLI::NonNegativeNumber);
  lint_cmd->add_option("-j,--jobs", lint.session.jobs, "Lint N files in parallel (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  lint_cmd->add_option("--automation-id", lint.session.automation_id, "SARIF runAutomationDetails.id (category/run)")
      ->capture_default_str();
  lint_cmd->add_option("--shard", lint.shard,
                       "Lint only share K of N (K/N, 1 <= K <= N): files are split by a stable hash of their path\n"
                       "relative to the directory given, the same on every machine; for a CI matrix (docs/ci.md)");
  lint_cmd->add_option("--cache", lint.session.cache_dir,
                       "Reuse the findings of models judged before: same bytes (and .bin, external data, Blobs,\n"
                       "golden data with --exec), same condlint, configuration and rules. DIR is created; entries are\n"
                       "keyed by content hashes, safe to share between processes and to delete at any time.\n"
                       "Not used with --html/--format html/--dump-types, which read the models themselves (a share's\n"
                       "page data for merge --html is kept in the cache)");
  lint_cmd->add_option("--files-from", lint.files_from,
                       "Also lint the model files listed in FILE, one per line (- reads standard input; e.g.\n"
                       "`git diff --name-only`): other names and paths that do not exist are left out");
  lint_cmd->add_option("--paths0-from", lint.paths0_from,
                       "Also lint the paths in FILE, separated by NUL bytes (- reads standard input; e.g.\n"
                       "`find models -name '*.onnx' -print0`), each as if named on the command line: any name, any\n"
                       "number, no argument list too long");
  lint_cmd
      ->add_option("--show", lint.show,
                   "The levels whose findings the text report prints: default (errors and warnings; notes too\n"
                   "with --fail-on note), failing (only those --fail-on fails on; with --fail-on never, all; -q\n"
                   "implies it), all, or levels joined by commas (error,warning); the summary line counts the rest\n"
                   "and says `--show all` prints them")
      ->capture_default_str();
  lint_cmd->add_flag("--models-only", lint.models_only,
                     "Leave out the files named that are not models, as --files-from does (other names, an .xml\n"
                     "whose root is not <net>, paths that do not exist): for a pre-commit hook, which names every\n"
                     "file its pattern matches. Without it a file named is linted whatever it holds");
  return {lint_cmd, [opts, &g, nnapi_target_opt] {
            opts->session.nnapi_target_given = nnapi_target_opt->count() > 0;
            return run_lint(*opts, g.quiet);
          }};
}

}  // namespace condlint::cli
