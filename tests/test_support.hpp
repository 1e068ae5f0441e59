// Helpers shared by the test files.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "diff/diff.hpp"
#include "exec/ir_exec.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/runner.hpp"
#include "export/export.hpp"
#include "loaders/loader.hpp"
#include "loaders/open_model.hpp"
#include "rules/engine.hpp"
#include "rules/readability.hpp"

namespace condlint::test {

// The checkout and the built condlint (tests/test_support.cpp, the only file built with those paths).
// An NNAPI model whose WHILE has an IF in its condition subgraph (then: i < n, else: i > n; the IF's condition is
// the constant true), with one example: 0, 5 -> 5.
inline constexpr const char* kNnapiWhileWithIfInCondition = R"({"format":"nnapi-model","version":1,
  "main":{"operands":[
    {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":0}},
    {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":1}},
    {"name":"i","type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"name":"n","type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"name":"out","type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
   "operations":[{"type":"WHILE","inputs":[0,1,2,3],"outputs":[4]}],"inputIndexes":[2,3],"outputIndexes":[4]},
  "referenced":[
   {"operands":[
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"CONSTANT_COPY","value":[true]},
     {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":2}},
     {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":3}},
     {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"IF","inputs":[2,3,4,0,1],"outputs":[5]}],"inputIndexes":[0,1],"outputIndexes":[5]},
   {"operands":[
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"CONSTANT_COPY","value":[1]},
     {"type":"INT32","lifetime":"CONSTANT_COPY","value":[0]},
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"ADD","inputs":[0,2,3],"outputs":[4]}],"inputIndexes":[0,1],"outputIndexes":[4]},
   {"operands":[
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"LESS","inputs":[0,1],"outputs":[2]}],"inputIndexes":[0,1],"outputIndexes":[2]},
   {"operands":[
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_INT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
     {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"GREATER","inputs":[0,1],"outputs":[2]}],"inputIndexes":[0,1],"outputIndexes":[2]}],
  "examples":[{"inputs":[{"data":[0]},{"data":[5]}],"outputs":[{"data":[5]}]}]})";

std::filesystem::path source_dir();
const char* condlint_binary();
// Built under AddressSanitizer (g++ says so with __SANITIZE_ADDRESS__, clang with __has_feature).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

inline std::filesystem::path shared_dir() { return source_dir().parent_path() / "shared"; }

// The rule ids among findings.
inline std::set<std::string> rules_of(const std::vector<Finding>& f) {
  std::set<std::string> s;
  for (const auto& x : f) s.insert(x.rule);
  return s;
}

struct CmdResult {
  int exit_code = -1;
  std::string out;
};

// Runs a shell command, capturing standard output (stderr goes to the test log).
inline CmdResult run(const std::string& cmd) {
  CmdResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string condlint_cmd() { return std::string("\"") + condlint_binary() + "\""; }

inline std::vector<Finding> lint_file(const std::string& path) {
  LoadResult lr = load_file(path);
  if (!lr.model) return {};
  return run_rules(*lr.model, RuleSelection{});
}

// A model file opened as `run`, `diff` and `export` open it (open_model: what the executor needs kept, lint's
// readability verdict applied), for the tests that drive the executor, the exporters and diff from a path.
inline LoadResult open_for_exec(const std::filesystem::path& path) {
  OpenOptions o;
  o.keep_for_exec = true;
  o.verdict = unreadable_reason;
  return open_model(path.string(), o);
}

// `condlint run` on a file: opened once, run by the executor's one entry.
inline exec::ModelResult run_file(const std::filesystem::path& path, const exec::RunConfig& cfg = {}) {
  const LoadResult lr = open_for_exec(path);
  if (!lr.model) return exec::model_error(path, path.string() + ": " + lr.io_error);
  return exec::run_loaded(*lr.model, path, cfg);
}

// One NNAPI execution of a file (exec::run_nnapi_once on the model opened).
inline exec::NnapiRun run_nnapi_once_file(const std::filesystem::path& path, const std::vector<exec::Value>& inputs,
                                          const std::map<std::string, bool>& pins, const exec::Limits& limits) {
  const LoadResult lr = open_for_exec(path);
  if (!lr.model) {
    exec::NnapiRun r;
    r.error = lr.io_error;
    return r;
  }
  return exec::run_nnapi_once(*lr.model, inputs, pins, limits);
}

// The exporters on a file, past the front door; a file that cannot be opened is the export's error.
inline xport::ExportResult export_error(const std::filesystem::path& path, const LoadResult& lr) {
  xport::ExportResult r;
  r.error = path.string() + ": " + lr.io_error;
  r.problems.push_back(r.error);
  return r;
}
inline xport::ExportResult export_ir_file(const std::filesystem::path& path, const xport::ExportOptions& o = {}) {
  const LoadResult lr = open_for_exec(path);
  return lr.model ? xport::export_ir(*lr.model, path, o) : export_error(path, lr);
}
inline xport::ExportResult export_nnapi_file(const std::filesystem::path& path, const xport::ExportOptions& o = {}) {
  const LoadResult lr = open_for_exec(path);
  return lr.model ? xport::export_nnapi(*lr.model, path, o) : export_error(path, lr);
}

// `condlint diff` on files: each opened once, then diffed.
inline diff::DiffResult diff_files(const std::vector<std::filesystem::path>& paths,
                                   const std::vector<diff::Runtime*>& runtimes, const diff::DiffConfig& cfg) {
  std::vector<LoadResult> opened;
  opened.reserve(paths.size());
  std::vector<diff::DiffModel> models;
  for (const auto& p : paths) {
    opened.push_back(open_for_exec(p));
    models.push_back({p, &opened.back()});
  }
  return diff::run_diff(models, runtimes, cfg);
}

// A file's bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Removes `dir` (and what is in it) when the test process exits: the tests leave nothing under the temporary
// directory.
void remove_at_exit(const std::filesystem::path& dir);

// A directory of this test process under the system's temporary directory: condlint-<tag>-<pid>, removed when the
// process exits.
inline std::filesystem::path temp_dir(const std::string& tag = "test") {
  auto d = std::filesystem::temp_directory_path() / ("condlint-" + tag + "-" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  remove_at_exit(d);
  return d;
}

// A string as one shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `condlint run MODEL` (standard error too): its output, and the summary line ("summary: 1 passed, 0 failed, 0
// unsupported"), "" when it printed none.
struct RunSummary {
  CmdResult result;
  std::string summary;
};
inline RunSummary run_model(const std::filesystem::path& model) {
  RunSummary s;
  s.result = run(condlint_cmd() + " run " + shell_quote(model.string()) + " 2>&1");
  const auto at = s.result.out.rfind("summary: ");
  if (at != std::string::npos) s.summary = s.result.out.substr(at);
  return s;
}

// Headless chromium (Debian's chromium-headless-shell or chromium), "" when neither is installed.
inline std::string browser() {
  for (const char* b : {"/usr/bin/chromium-headless-shell", "/usr/bin/chromium"})
    if (std::filesystem::exists(b)) return b;
  return {};
}

// The DOM of an HTML file after its scripts ran (`hash`: a #fragment to open it at).
inline std::string dump_dom(const std::string& html_file, const std::string& hash = "") {
  return run(shell_quote(browser()) + " --headless --no-sandbox --disable-gpu --dump-dom " +
             shell_quote("file://" + html_file + hash) + " 2>/dev/null")
      .out;
}

// The SARIF Multitool (npm @microsoft/sarif-multitool-linux, scripts/install-deps.sh); an empty path when absent.
std::filesystem::path sarif_multitool();
// Validates a SARIF file with the Multitool (rule kinds Sarif and Gh): "" when it reports no error and no warning,
// else those results, one a line ("error RULE message"); "SKIP" when the Multitool is absent; why, when it wrote no
// verdict. It runs without a network where the system allows one (unshare -n): with one it spends ~20 s trying to
// reach github.com where there is none, and its verdict on the file is the same.
std::string sarif_validate(const std::string& file);

// How often `needle` occurs in `s`.
inline int count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// Writes `bytes` to `p`, creating its directory.
inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

// The sanitized suite (scripts/test.sh sets CONDLINT_SANITIZED_SUITE=1) leaves the external validators (the SARIF
// Multitool, a headless browser) to the unsanitized suite, which gives their verdict on the same bytes: a test runs
// condlint sanitized up to that point and skips the validator with this reason.
inline bool sanitized_suite() {
  const char* e = std::getenv("CONDLINT_SANITIZED_SUITE");
  return e && std::string(e) == "1";
}
constexpr const char* kValidatorLeftToUnsanitized =
    "external validator left to the unsanitized suite (CONDLINT_SANITIZED_SUITE=1)";

// temp_dir(tag), emptied.
inline std::filesystem::path fresh_dir(const std::string& tag) {
  const std::filesystem::path d = temp_dir(tag);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// The first findings, one per line ("RULE message"), for failure messages.
inline std::string dump_findings(const std::vector<Finding>& f, size_t limit = 12) {
  std::string s;
  for (size_t i = 0; i < f.size() && i < limit; ++i) s += f[i].rule + " " + f[i].message + "\n";
  return s;
}

// Runs condlint with `args` (a shell fragment) in the checkout, so that paths like corpus/... resolve.
inline CmdResult condlint_in_checkout(const std::string& args) {
  return run("cd " + shell_quote(source_dir().string()) + " && " + condlint_cmd() + " " + args);
}

// Debian's libonnx-testdata: one directory per ONNX node test.
inline const std::filesystem::path kOnnxNodeTestDir = "/usr/share/libonnx-testdata/data/node";

// The rows of a tab-separated manifest whose first line names the columns (MANIFEST.tsv of the pinned corpora),
// each a map from column to value.
inline std::vector<std::map<std::string, std::string>> read_tsv(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> columns;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) cells.push_back(cell);
    if (columns.empty()) {
      columns = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < columns.size(); ++k) row[columns[k]] = k < cells.size() ? cells[k] : "";
    rows.push_back(std::move(row));
  }
  return rows;
}

inline std::string write_temp(const std::string& name, const std::string& content) {
  const auto p = temp_dir("test") / name;
  write_file(p, content);
  return p.string();
}

}  // namespace condlint::test
