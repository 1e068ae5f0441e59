// condlint import: models from other formats into ones condlint reads.
#include "cli/cli.hpp"

#include <iostream>
#include <memory>

#include "importers/nnapi_testmodel.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

namespace {

struct ImportOptions {
  std::vector<std::string> files;
  std::string output;
};

int run_import_nnapi(const ImportOptions& o) {
  const ImportSummary s = import_nnapi_testmodels(o.files, o.output);
  for (const auto& e : s.errors) std::cerr << "condlint: error: " << term_safe(e) << "\n";
  std::cout << s.written.size() << " model(s) written to " << term_safe(o.output) << "\n";
  return s.errors.empty() ? kExitClean : kExitError;
}

}  // namespace

Command add_import_command(CLI::App& app, const Globals&) {
  auto opts = std::make_shared<ImportOptions>();
  auto* import_cmd = app.add_subcommand("import", "Convert models from other formats into ones condlint reads");
  import_cmd->require_subcommand(1);
  auto* import_nnapi = import_cmd->add_subcommand(
      "nnapi-testmodel",
      "AOSP NNAPI generated test models (spec_*/NAME.example.cpp) -> DIR/NAME.nnapi.json with goldens");
  import_nnapi->add_option("files", opts->files, "*.example.cpp files")->required();
  import_nnapi->add_option("-o,--output", opts->output, "Directory to write the .nnapi.json files to")->required();
  return {import_cmd, [opts] { return run_import_nnapi(*opts); }};
}

}  // namespace condlint::cli
