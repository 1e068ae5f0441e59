// `condlint merge`: the reports of the N shares of a sharded lint (`lint --shard K/N`) -> the report the unsharded
// run writes, byte for byte (SARIF or JSON; the shares carry the bookkeeping in ShardInfo).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace condlint {

// The most shares a lint may be split into (`lint --shard K/N`, N <= kMaxShards); a share that claims more is not one.
constexpr int kMaxShards = 10000;

struct ShardReport {
  std::string name;  // where it was read from, for messages
  std::string text;
};

// The exit policy of a lint over its results; a merge uses the shares' unless told otherwise.
struct ExitPolicy {
  std::string fail_on = "error";  // error | warning | note | never
  int max_warnings = -1;          // -1: no limit
};

struct MergeResult {
  std::string error;        // non-empty: the shares do not make one run (missing, truncated, foreign); nothing merged
  std::string kind;         // "sarif" | "json"
  std::string text;         // the merged report
  bool io_failure = false;  // some share could not read an input (exit code 2 of the unsharded run)
  size_t failing = 0;       // results at or above fail_on (with a baseline: new ones only) under the policy used
  size_t warnings = 0;      // warnings counted for max_warnings
  ExitPolicy policy;        // the policy the counts were made with
  RunResult results;        // the page data of the merged files, for `merge --html`: the page the unsharded lint writes
  std::string page_error;   // why the shares give no page ("" when they do)
};

// Merges the shares. `policy`, when given, replaces the shares' own for the counts (the merged SARIF's
// invocation.exitCode always follows the shares' policy, as the unsharded run's does).
MergeResult merge_reports(const std::vector<ShardReport>& shares, const std::optional<ExitPolicy>& policy);

// The lint exit code of a run: 2 when an input could not be read, 1 when results fail the policy, else 0.
int lint_exit_code(bool io_failure, size_t failing, size_t warnings, int max_warnings);

}  // namespace condlint
