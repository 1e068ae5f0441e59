// condlint merge: the shares' reports of a sharded lint -> the unsharded report.
#include "cli/cli.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <spdlog/spdlog.h>

#include "loaders/loader.hpp"
#include "report/merge.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

namespace {

struct MergeOptions {
  std::vector<std::string> reports;
  std::string output, html_file, fail_on;
  int max_warnings = -2;  // -2: the shares' own
};

int run_merge(const MergeOptions& o) {
  std::vector<ShardReport> shares;
  for (const auto& path : o.reports) {
    ShardReport r{path, {}};
    std::string err;
    if (!read_file(path, r.text, err)) {
      std::cerr << "condlint: cannot read the report " << term_safe(path) << ": " << term_safe(err) << "\n";
      return kExitError;
    }
    shares.push_back(std::move(r));
  }
  std::optional<ExitPolicy> policy;
  if (!o.fail_on.empty() || o.max_warnings != -2) policy = ExitPolicy{};
  MergeResult m = merge_reports(shares, std::nullopt);
  if (m.error.empty() && policy) {
    policy->fail_on = o.fail_on.empty() ? m.policy.fail_on : o.fail_on;
    policy->max_warnings = o.max_warnings == -2 ? m.policy.max_warnings : o.max_warnings;
    m = merge_reports(shares, policy);
  }
  if (!m.error.empty()) {
    std::cerr << "condlint: cannot merge: " << term_safe(m.error) << "\n";
    return kExitError;
  }
  if (!o.html_file.empty() && !m.page_error.empty()) {
    std::cerr << "condlint: cannot write the HTML page: " << term_safe(m.page_error) << "\n";
    return kExitError;
  }
  io::InputFiles inputs;
  for (const auto& share : o.reports) inputs.add(share, "a share");
  if (!outputs_allowed({{o.output, "the merged report"}, {o.html_file, "the HTML report"}}, inputs)) return kExitError;
  if (!write_report(o.output, "the merged report", [&](std::ostream& os) { os << m.text; })) return kExitError;
  if (!o.html_file.empty() &&
      !write_report(o.html_file, "the HTML report", [&](std::ostream& f) { write_html(f, m.results); }))
    return kExitError;
  if (!m.io_failure && m.policy.max_warnings >= 0 && m.warnings > static_cast<size_t>(m.policy.max_warnings))
    spdlog::warn("{} warnings, more than --max-warnings {}", m.warnings, m.policy.max_warnings);
  return lint_exit_code(m.io_failure, m.failing, m.warnings, m.policy.max_warnings);
}

}  // namespace

Command add_merge_command(CLI::App& app, const Globals&) {
  auto opts = std::make_shared<MergeOptions>();
  MergeOptions& mergeo = *opts;
  auto* merge_cmd =
      app.add_subcommand("merge", "Merge the reports of the shares of a sharded lint into the unsharded report");
  merge_cmd->footer(
      "The reports of the N shares of a sharded lint (lint --shard K/N) become the report the unsharded run\n"
      "writes, byte for byte: SARIF with SARIF, JSON with JSON. Every share must be there once, from the same\n"
      "condlint, options, configuration and file list; anything else is an error (exit 2), never a smaller report.\n"
      "The exit code is the unsharded lint's: 0 clean, 1 findings, 2 an input could not be read.\n\n"
      "Example (docs/ci.md):\n"
      "  condlint lint models/ --shard 1/2 --format sarif -o s1.sarif\n"
      "  condlint lint models/ --shard 2/2 --format sarif -o s2.sarif\n"
      "  condlint merge s1.sarif s2.sarif -o condlint.sarif --html condlint.html");
  merge_cmd->add_option("reports", mergeo.reports, "The shares' reports (.sarif or .json), in any order")->required();
  merge_cmd->add_option("-o,--output", mergeo.output, "Write the merged report to FILE instead of standard output");
  merge_cmd->add_option("--html", mergeo.html_file,
                        "Also write the HTML page the unsharded lint writes (--html) to FILE, from SARIF or JSON\n"
                        "shares (linted with or without --cache)");
  merge_cmd
      ->add_option("--fail-on", mergeo.fail_on,
                   "Lowest level that makes the exit code 1 (default: the one the shares ran with)")
      ->check(CLI::IsMember({"error", "warning", "note", "never"}));
  merge_cmd
      ->add_option("--max-warnings", mergeo.max_warnings,
                   "Exit 1 when more than N warnings remain (default: the shares' --max-warnings)")
      ->check(CLI::NonNegativeNumber);
  return {merge_cmd, [opts] { return run_merge(*opts); }};
}

}  // namespace condlint::cli
