// Writers. They all render the same in-memory results, so they cannot drift apart.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
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
  bool offending = false;     // a finding points at this binding or value
};

// One row of a conditional's panel: an input (outer value -> branch parameters) or an output
// (branch results -> the conditional's declared output).
struct CondRow {
  std::string kind;           // "input" | "output"
  int index = -1;
  CondCell outer;             // input: the outer value; output: the conditional's declared output
  CondCell branch[2];         // 0 = then, 1 = else
  bool type_differs = false, shape_differs = false;  // then and else disagree
};

struct ConditionalSummary {
  std::string name, path;     // display name and logical node path
  int line = 0;               // 0 when the format has no lines
  bool has_condition = false;
  CondCell condition;
  bool has_branch[2] = {false, false};
  std::vector<CondRow> rows;
  size_t findings = 0;        // findings located at this conditional (any rule)
};

// Summaries of every conditional of a model, with cells marked where a finding points.
// Called by the CLI (the writers never see the Model).
std::vector<ConditionalSummary> summarize_conditionals(const Model& m, const std::vector<Finding>& findings);

// A result of the baseline that is gone from this run (SARIF baselineState "absent").
struct AbsentResult {
  Finding finding;
  std::string uri;
  std::string fingerprint;
};

struct RuleOverride {
  std::string rule;
  Level level = Level::Off;   // Off = disabled
  std::string source;         // config file or "command line"
};

struct RunInfo {
  bool execution_successful = true;
  int exit_code = 0;
  std::string automation_id = "condlint/";
  std::vector<RuleOverride> overrides;
  std::vector<std::string> notifications;  // tool execution problems (unreadable files, ...)
  bool has_baseline = false;
  std::vector<AbsentResult> absent;
};

struct FileResult;
// The artifact URI of a path: relative to the working directory when below it, else a file:// URI.
std::string artifact_uri(const std::string& path);
// Fills FileResult::info (and suppressed[].info) with stable fingerprints from rule, file and
// logical location, numbered per repeat ("<16 hex>:<n>").
void compute_fingerprints(FileResult& f);
// Ends a message with a period, as SARIF viewers expect complete sentences.
std::string sentence(std::string s);

struct FileResult {
  std::string path;
  std::string format;        // "ir" | "onnx" | "nnapi" | "" when unknown
  std::string io_error;      // set when the file could not be read
  std::vector<Finding> findings;
  // ---- Added for SARIF / HTML (issue 7). All optional: writers cope with them empty. ----
  std::vector<ResultInfo> info;                    // parallel to findings once annotate() ran
  std::vector<SuppressedFinding> suppressed;       // kept out of findings, counts and exit code
  std::vector<ConditionalSummary> conditionals;    // from the Model's ConditionalView (CLI fills)
  int64_t size = -1;                               // file size in bytes, -1 unknown
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

void write_text(std::ostream& os, const RunResult& r, bool color);
void write_json(std::ostream& os, const RunResult& r);
void write_sarif(std::ostream& os, const RunResult& r);
void write_html(std::ostream& os, const RunResult& r);

}  // namespace condlint
