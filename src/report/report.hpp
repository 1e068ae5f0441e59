// Writers. They all render the same in-memory results, so they cannot drift apart.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "rules/engine.hpp"

namespace condlint {

// ---- Per-result data beyond the Finding (fingerprint, baseline state, suppression) ----
struct ResultInfo {
  std::string fingerprint;  // SARIF partialFingerprints.primaryLocationLineHash ("hex:occurrence")
  std::string baseline;     // "" (no baseline), "new" or "unchanged"
};

struct SuppressedFinding {
  Finding finding;
  std::string kind;           // SARIF suppression kind: "inSource" (comment in the model) or "external" (config)
  std::string justification;  // where it came from / why
  ResultInfo info;
};

// One side of a then/else panel cell: what a branch binds or produces.
struct CondCell {
  bool present = false;
  std::string label, type, shape;
  bool offending = false;  // a finding points at this binding or value
};

// One row of a conditional's panel: an input (outer value -> branch parameters) or an output
// (branch results -> the conditional's declared output).
struct CondRow {
  std::string kind;  // "input" | "output"
  int index = -1;
  CondCell outer;      // input: the outer value; output: the conditional's declared output
  CondCell branch[2];  // 0 = then, 1 = else
  bool type_differs = false, shape_differs = false;  // then and else disagree
};

struct ConditionalSummary {
  std::string name, path;  // display name and logical node path (Model::path_of: a deep one is elided)
  std::string exec_path;   // the path the executors name it by (Model::full_path_of)
  int line = 0;            // 0 when the format has no lines
  bool has_condition = false;
  CondCell condition;
  std::string provenance;        // what the condition is computed from ("dim 0 of 'state' != 0"), "" when not traced
  std::string branch_status[2];  // "dead: ..." when a branch is proven never to run, else ""
  bool has_branch[2] = {false, false};
  std::vector<CondRow> rows;
  size_t findings = 0;  // findings located at this conditional (any rule)
};

// Summaries of every conditional of a model, with cells marked where a finding points.
// Called by the CLI (the writers never see the Model).
std::vector<ConditionalSummary> summarize_conditionals(const Model& m, const std::vector<Finding>& findings);

// A result of the baseline that is gone from this run (SARIF baselineState "absent").
struct AbsentResult {
  Finding finding;
  std::string uri;
  std::string fingerprint;
  size_t baseline_index = 0;  // its place among the baseline's results (absent results are written in that order)
};

// What the report of one share of a sharded run (`lint --shard K/N`) carries beyond the unsharded report, so that
// `condlint merge` can rebuild, byte for byte, the report of the unsharded run: where each file stood in it, which
// notifications and baseline results belong to whom, and the identity of the run that every share must agree on.
// Writers put it in SARIF run.properties["condlint.shard"] and in the JSON report's "shard"; merge removes it.
struct ShardInfo {
  int index = 1, count = 1;       // K and N
  std::string run;                // hash of the version, the options that change results and the file list
  size_t total_files = 0;         // files of the unsharded run
  std::vector<size_t> positions;  // parallel to RunResult::files: the file's place in the unsharded run
  size_t input_errors = 0;        // the first notifications: inputs that do not exist (every share has them)
  std::vector<size_t> matched;    // baseline results (by index) that this share's results match
  std::string fail_on = "error";  // the exit policy the share ran with
  int max_warnings = -1;
  bool conditionals = false;  // the share summarized its conditionals: its page data holds the HTML panels
};

struct RuleOverride {
  std::string rule;
  Level level = Level::Off;  // Off = disabled
  std::string source;        // config file or "command line"
};

struct RunInfo {
  bool execution_successful = true;
  int exit_code = 0;
  std::string automation_id = "condlint/";
  std::vector<RuleOverride> overrides;
  std::vector<std::string> notifications;  // tool execution problems (unreadable files, ...)
  size_t ignored_files = 0;                // models the configuration ignores altogether (not in `files`)
  bool has_baseline = false;
  std::vector<AbsentResult> absent;
  std::string report_kind = "lint";  // HTML page: "lint" | "run" | "diff"
  std::string meta;                  // HTML: extra words for the page header (the runtimes of a diff)
  std::optional<ShardInfo> shard;    // set by `lint --shard K/N`
};

// ---- Executor (`lint --exec`, `run`) and diff (`diff`) results, per conditional and branch (HTML) ----
// One row of a per-branch table: one data set x pin set x output of one run.
struct BranchCheck {
  std::string data_set;   // "test_data_set_0", "(no inputs)", ...
  std::string pins;       // "main/outer=else" or "" (the model as the data takes it)
  bool derived = false;   // a pinned run condlint added to reach the other branch
  std::string output;     // output name; "" when the run failed before giving outputs
  std::string status;     // "passed" | "mismatch" | "failed" | "unsupported" | "no golden data" |
                          // "agree" | "diverge" | "not comparable"
  std::string verdict;    // "pass" | "fail" | "info" (ran, nothing to compare) | "unsupported"
  bool compared = false;  // max_abs, max_rel and the tolerance mean something
  double max_abs = 0, max_rel = 0;
  std::string atol, rtol;        // as applied ("1e-05", "0.001"); "" when unknown
  std::string tolerance;         // the applied tolerance as the executor words it
  std::string first_index;       // first mismatching index ("[2]"), "" when none
  std::string value_a, value_b;  // diff: both runtimes' values at first_index
  int64_t mismatches = 0;
  std::string detail;  // mismatch reason, error message
};

// Every run of one If, split by the branch it took (or was pinned to).
struct IfChecks {
  std::string if_path;                 // as the executor names it ("main/outer/then/inner")
  std::string cond_path;               // the ConditionalSummary::path it belongs to ("" when none matched)
  std::vector<BranchCheck> branch[2];  // 0 = then, 1 = else
  // `run`: how each branch was covered (exec::BranchCoverage::how: "data", "synthesized", "pinned", "dead",
  // "guarded", "not run") and why, when it says more; "" when unknown (diff).
  std::string coverage[2], coverage_why[2];
};

struct CheckReport {
  std::string kind;         // "exec" (executor vs golden data) | "diff" (runtime A vs runtime B)
  std::string runtimes[2];  // diff: the two runtime names
  std::string error;        // the model could not be run at all
  std::vector<std::string> notes;
  std::vector<BranchCheck> runs;  // every run x output, Ifs or not
  std::vector<IfChecks> ifs;
  std::string coverage_summary;           // `run`: "If branches: 4 taken by the data, ..." ("" for diff)
  int passed = 0, failed = 0, other = 0;  // runs (not rows) by outcome: passed/agree, failed/mismatch/diverge, rest
};

struct FileResult;
// The artifact URI of a path: relative to the working directory when below it, else a file:// URI.
std::string artifact_uri(const std::string& path);
// The path a relative artifact URI names (percent escapes decoded); nullopt for a file:// or other absolute URI, a
// bad escape, or a NUL.
std::optional<std::string> relative_uri_path(const std::string& uri);
// Fills FileResult::info (and suppressed[].info) with stable fingerprints from rule, file and
// logical location, numbered per repeat ("<16 hex>:<n>").
void compute_fingerprints(FileResult& f);
// The hash part of one fingerprint ("<16 hex>"), from what compute_fingerprints reads of a finding.
std::string fingerprint_hash(const std::string& rule, const std::string& uri, const std::string& node,
                             const std::string& pointer);
// Fills loc.code_point_column of each finding (and suppressed finding) that has a line and a column past 1, from
// the bytes of its file: done where the model was judged, in parallel, and kept in the result cache. The SARIF
// writer reads no file: it writes this column, or the byte column where none was computed.
void compute_code_point_columns(FileResult& f);
// SARIF columns: the loaders record 1-based byte columns; SARIF's run.columnKind "unicodeCodePoints" counts
// code points. Converts from the file's bytes, read once per file and only when a column is asked for;
// an unreadable file keeps the byte column.
class CodePointColumns {
 public:
  int column(const std::string& path, int line, int byte_column);
  // The code point column of `byte_column` on the line starting at `line_start` of `text` (UTF-8; a stray
  // continuation byte counts as nothing, so a broken sequence never inflates the column).
  static int column_in(std::string_view text, size_t line_start, int byte_column);

 private:
  struct File {
    bool ok = false;
    std::string text;
    std::vector<size_t> starts;  // byte offset of each line
  };
  std::map<std::string, File> files_;
};

// Ends a message with a period, as SARIF viewers expect complete sentences.
std::string sentence(std::string s);

// The type condlint knows for one value a node produces (`condlint lint --dump-types`): what the file declares,
// refined by what inference proves. Read from the Model by the CLI; written by write_types_json.
struct ValueTypeEntry {
  std::string node;  // logical path of the producing node (main/if_0/then/Add)
  std::string name;  // the value's name (ONNX) or port id
  std::string type;  // "tensor(f32)", "seq(tensor(i64))", "unknown"
  std::string elem;  // tensor element type ("f32"), "" when not a tensor or unknown
  bool rank_known = false;
  std::vector<int64_t> dims;  // -1: unknown dim
};
std::vector<ValueTypeEntry> collect_value_types(const Model& m);

struct FileResult {
  std::string path;
  std::string format;    // "ir" | "onnx" | "nnapi" | "" when unknown
  std::string io_error;  // set when the file could not be read
  std::vector<Finding> findings;
  // ---- Added for SARIF / HTML (issue 7). All optional: writers cope with them empty. ----
  std::vector<ResultInfo> info;                  // parallel to findings once annotate() ran
  std::vector<SuppressedFinding> suppressed;     // kept out of findings, counts and exit code
  std::vector<ConditionalSummary> conditionals;  // from the Model's ConditionalView (CLI fills)
  int64_t size = -1;                             // file size in bytes, -1 unknown
  std::shared_ptr<const CheckReport> checks;     // executor or diff results (lint --exec, run, diff)
  std::vector<ValueTypeEntry> value_types;       // --dump-types only
};

struct RunResult {
  std::vector<FileResult> files;
  RunInfo run;  // invocation data for SARIF/HTML (issue 7)
};

struct Summary {
  size_t files = 0, errors = 0, warnings = 0, notes = 0, io_errors = 0;
  size_t suppressed = 0;  // suppressed results (not in errors/warnings/notes)
};
Summary summarize(const RunResult& r);

// The text report: one line per finding, then the summary line. `show` holds the levels whose findings are printed
// (`lint --show`, which prints what `--fail-on` fails on by default): the summary still counts every finding and says
// how many were not shown. With a
// baseline, a new result's line ends in "(new)" and the summary counts new, unchanged and absent results.
struct TextOptions {
  bool color = false;
  std::vector<Level> show = {Level::Error, Level::Warning, Level::Note};
};
void write_text(std::ostream& os, const RunResult& r, const TextOptions& o);
void write_text(std::ostream& os, const RunResult& r, bool color);
void write_json(std::ostream& os, const RunResult& r);
void write_sarif(std::ostream& os, const RunResult& r);
void write_html(std::ostream& os, const RunResult& r);
// {"files":[{"path", "format", "values":[{"node","name","type","elem","shape"}]}]}; shape null = unknown rank, a dim
// null = unknown.
void write_types_json(std::ostream& os, const RunResult& r);

}  // namespace condlint
