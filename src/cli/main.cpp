// condlint command line: the global options, then one command per file (src/cli/*_cmd.cpp), dispatched by table.
#include <csignal>
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/argv.hpp"
#include "cli/cli.hpp"
#include "exec/tensor.hpp"
#include "report/terminal.hpp"

int main(int argc, char** argv) {
  using namespace condlint::cli;
  // A file size limit (ulimit -f) makes a write fail with EFBIG, which every writer reports (exit 2, the temporary
  // removed, the target untouched), rather than killing condlint between the two. Children get SIGXFSZ back
  // (diff/process.cpp): their output limit is that signal.
  std::signal(SIGXFSZ, SIG_IGN);
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
        "  condlint lint model.onnx m.nnapi.json       ONNX and Android NNAPI (JSON) models too\n"
        "  condlint lint models/ --format json -o r.json   lint a tree, JSON report\n"
        "  condlint lint m.xml --fail-on warning       exit 1 on warnings too\n"
        "  condlint lint m.xml --disable C011 --disable IR019\n"
        "  condlint lint models/ --sarif r.sarif       text on stdout, SARIF for code scanning\n"
        "  condlint lint models/ --format html -o r.html   a self-contained HTML report\n"
        "  condlint lint models/ --shard 2/4 --sarif s2.sarif   one share of four (CI matrix, docs/ci.md)\n"
        "  condlint merge s1.sarif s2.sarif s3.sarif s4.sarif -o all.sarif   the shares -> the unsharded report\n"
        "  condlint lint models/ --cache .condlint-cache   reuse findings of models that did not change\n"
        "  condlint rules                              list every rule (pages: rules/<ID>.md)\n"
        "  condlint import nnapi-testmodel X.example.cpp -o DIR   AOSP test vectors -> .nnapi.json\n"
        "  condlint run m.xml                          run a model on its golden data, both branches of every If\n"
        "  condlint diff m.xml --runtime ref --runtime onnxruntime   compare two runtimes, per branch\n"
        "  condlint export m.xml --to onnx -o m.onnx   OpenVINO IR / NNAPI -> ONNX (exact, or says why not)\n"
        "  condlint fix m.xml --diff                   the fixes of the findings marked fixable, proven first\n\n"
        "Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 usage, I/O or internal error.",
        "condlint"};
    app.set_version_flag("--version", std::string("condlint ") + CONDLINT_VERSION);
    Globals g{false, false, argc, argv};
    app.add_flag("-v,--verbose", g.verbose, "Log what is loaded and how long it takes (stderr)");
    app.add_flag("-q,--quiet", g.quiet, "Log nothing but internal errors (stderr)");
    app.require_subcommand(1);
    app.formatter(std::make_shared<SummaryFormatter>());
    // -v and -q after the command too (`condlint lint -v models/`): what a command does not know goes to the app.
    // Set before the commands are added, which inherit it.
    app.fallthrough();

    // The commands, in the order --help lists them.
    static constexpr CommandAdder kCommands[] = {add_lint_command,  add_merge_command,  add_rules_command,
                                                 add_run_command,   add_import_command, add_diff_command,
                                                 add_export_command, add_fix_command};
    std::vector<Command> commands;
    for (const CommandAdder add : kCommands) commands.push_back(add(app, g));

    one_value_per_occurrence(app);

    // A command's options before the command are moved after it; an unknown command is refused here, whatever
    // follows it (argv.hpp).
    const CommandLine line = normalize_command_line(app, argc, argv);
    if (!line.error.empty()) {
      std::cerr << "condlint: " << condlint::term_safe(line.error) << "\n";
      return kExitError;
    }
    try {
      std::vector<std::string> reversed(line.args.rbegin(), line.args.rend());
      app.parse(reversed);
    } catch (const CLI::ParseError& e) {
      if (dynamic_cast<const CLI::ExtrasError*>(&e))
        if (const std::string hint = unknown_option_hint(app, line); !hint.empty()) {
          std::cerr << "condlint: " << condlint::term_safe(hint) << "\n";
          return kExitError;
        }
      const int code = app.exit(e);
      return code == 0 ? kExitClean : kExitError;
    }
    if (g.verbose) spdlog::set_level(spdlog::level::debug);
    if (g.quiet) spdlog::set_level(spdlog::level::critical);
    for (const Command& c : commands)
      if (*c.sub) return c.run();
    return kExitError;
  } catch (const condlint::exec::ExecError& e) {
    // A limit the executor enforces (--max-elements, --max-bytes, nesting) refused what a command asked of it:
    // said as that, not as a defect of condlint.
    const char* what = e.kind == condlint::exec::ErrKind::Resource  ? "resource limit: "
                       : e.kind == condlint::exec::ErrKind::Timeout ? "stopped: "
                                                                    : "cannot run: ";
    std::cerr << "condlint: " << what << condlint::term_safe(e.what()) << "\n";
    return kExitError;
  } catch (const std::bad_alloc&) {
    std::cerr << "condlint: out of memory: the input needs more memory than this machine gives (try smaller inputs "
                 "or a lower --max-bytes)\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "condlint: internal error: " << condlint::term_safe(e.what()) << "\n";
    return kExitError;
  }
}
