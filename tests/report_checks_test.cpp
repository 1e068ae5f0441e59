// Issue 7, the rest: executor and diff results in the HTML report (per conditional, per branch: max abs/rel
// error against the tolerance, first mismatching index), HTML pages of `condlint run` and `condlint diff`,
// and SARIF columns in Unicode code points.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "report/checks.hpp"
#include "exec/branch_policy.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;
using nlohmann::json;

namespace {

// Rows of the per-branch tables (class "check") and of the list of every run (class "run-check").
int branch_rows(const std::string& html, const std::string& verdict, const std::string& branch) {
  return count(html,
               "<tr class=\"check " + verdict + "\" data-verdict=\"" + verdict + "\" data-branch=\"" + branch + "\"");
}
int run_rows(const std::string& html, const std::string& verdict) {
  return count(html, "<tr class=\"run-check " + verdict + "\" data-verdict=\"" + verdict + "\"");
}

fs::path python_onnx_ok() {
  return run("/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null").exit_code == 0 ? fs::path("/usr/bin/python3")
                                                                                    : fs::path();
}

// The If of a corpus/ir/exec-cases model, renamed to a name that is a script when pasted into HTML.
const std::string kHostile = "<script>document.body.setAttribute('data-pwned','1')</script>";
const std::string kHostileXml =
    "&lt;script&gt;document.body.setAttribute(&apos;data-pwned&apos;,&apos;1&apos;)&lt;/script&gt;";

fs::path hostile_exec_case(const std::string& name, const fs::path& parent) {
  const fs::path from = source_dir() / "corpus/ir/exec-cases" / name;
  const fs::path to = parent / name;
  fs::remove_all(to);
  fs::create_directories(parent);
  fs::copy(from, to, fs::copy_options::recursive);
  fs::remove(to / (name + ".expect"));
  const fs::path xml = to / (name + ".xml");
  std::string text = slurp(xml.string());
  const std::string sel = "name=\"sel\"";
  EXPECT_NE(text.find(sel), std::string::npos);
  text.replace(text.find(sel), sel.size(), "name=\"" + kHostileXml + "\"");
  std::ofstream(xml, std::ios::binary) << text;
  return xml;
}

// No script of the page came from a model string: the two of the report (data + code) and nothing else.
void expect_no_injection(const std::string& html, const std::string& dom) {
  EXPECT_EQ(html.find(kHostile), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;document.body.setAttribute("), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 2);
  if (!dom.empty()) {
    ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "report.js did not run";
    EXPECT_EQ(dom.find("data-pwned=\""), std::string::npos);
    EXPECT_EQ(count(dom, "<script"), 2);
  }
}

// ---------------- lint --exec ----------------

TEST(HtmlChecks, LintExecShowsPerBranchExecutorTables) {
  const fs::path dir = temp_dir() / "lint-exec";
  fs::remove_all(dir);
  hostile_exec_case("golden_mismatch", dir);
  hostile_exec_case("branch_failed", dir);
  const std::string out = (temp_dir() / "lint-exec.html").string();
  const auto r =
      run(condlint_cmd() + " lint --exec --format html -o " + shell_quote(out) + " " + shell_quote(dir.string()));
  EXPECT_EQ(r.exit_code, 1);
  const std::string html = slurp(out);
  // golden_mismatch: the data takes then and misses its golden output; else (pinned) has no golden data.
  // branch_failed: then matches; else (pinned) fails at a Gather.
  EXPECT_EQ(count(html, "<div class=\"branch-checks\""), 2);
  EXPECT_EQ(branch_rows(html, "fail", "then"), 1);
  EXPECT_EQ(branch_rows(html, "pass", "then"), 1);
  EXPECT_EQ(branch_rows(html, "fail", "else"), 1);
  EXPECT_EQ(branch_rows(html, "info", "else"), 1);
  EXPECT_EQ(branch_rows(html, "pass", "else"), 0);
  EXPECT_EQ(run_rows(html, "fail"), 2);
  EXPECT_EQ(run_rows(html, "pass"), 1);
  // The mismatch row carries the numbers and marks them: max abs 0.25 > atol 1e-05, first index [1].
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      html, m, std::regex("<tr class=\"check fail\" data-verdict=\"fail\" data-branch=\"then\">(.*?)</tr>")));
  const std::string row = m[1].str();
  EXPECT_NE(row.find("<td class=\"bad\">0.25</td>"), std::string::npos) << row;
  EXPECT_NE(row.find("<td>1e-05</td><td>0.001</td>"), std::string::npos) << row;
  EXPECT_NE(row.find("<td class=\"mono bad\">[1]"), std::string::npos) << row;
  EXPECT_NE(row.find(">mismatch<"), std::string::npos) << row;
  // Both panels are tied to their conditional (no executor-only panel).
  EXPECT_EQ(count(html, "exec-only"), 0);
  // Without --exec: no tables; JSON and text outputs are the same as before.
  const std::string plain = (temp_dir() / "lint-plain.html").string();
  run(condlint_cmd() + " lint --format html -o " + shell_quote(plain) + " " + shell_quote(dir.string()));
  EXPECT_EQ(count(slurp(plain), "<div class=\"branch-checks\""), 0);
  if (browser().empty()) GTEST_SKIP() << "rendering skipped: no chromium-headless-shell or chromium (Debian packages)";
  const std::string dom = dump_dom(out);
  EXPECT_EQ(count(dom, "<div class=\"branch-checks\""), 2);
  EXPECT_EQ(branch_rows(dom, "fail", "then"), 1);
  EXPECT_EQ(branch_rows(dom, "pass", "then"), 1);
  EXPECT_EQ(branch_rows(dom, "fail", "else"), 1);
  EXPECT_EQ(run_rows(dom, "fail"), 2);
  expect_no_injection(html, dom);
}

// ---------------- run ----------------

// Per-branch rows a `run --format json` report implies: each output of each run, on every branch of every If
// the run went through; a run that gave no outputs is one row.
std::map<std::string, int> expected_run_rows(const json& j) {
  std::map<std::string, int> n;  // "then/pass", "else/fail", "all/pass", ...
  for (const auto& c : j["cases"]) {
    std::vector<std::string> verdicts;
    const std::string st = c["status"];
    if (st == "failed" || st == "unsupported" || c["outputs"].empty())
      verdicts.push_back(st == "unsupported" ? "unsupported" : st == "passed" ? "info" : "fail");
    for (const auto& o : c["outputs"]) {
      if ((st == "failed" || st == "unsupported") && o["ok"]) continue;
      verdicts.push_back(!o["ok"].get<bool>() ? "fail" : o["compared"].get<bool>() ? "pass" : "info");
    }
    for (const auto& v : verdicts) ++n["all/" + v];
    for (const auto& [path, branches] : c["ifs"].items())
      for (const auto& b : branches)
        for (const auto& v : verdicts) ++n[b.get<std::string>() + "/" + v];
  }
  return n;
}

TEST(HtmlChecks, RunReportHasPerBranchTables) {
  const std::string model = "corpus/ir/exec/nested_if/nested_if.xml";
  const json j = json::parse(condlint_in_checkout("run --format json " + model).out);
  const auto want = expected_run_rows(j);
  ASSERT_GT(want.at("all/pass"), 0);
  const std::string out = (temp_dir() / "run.html").string();
  const auto r = condlint_in_checkout("run --format html -o " + shell_quote(out) + " " + model);
  EXPECT_EQ(r.exit_code, 0);
  const std::string html = slurp(out);
  EXPECT_NE(html.find("<h1>condlint run report</h1>"), std::string::npos);
  EXPECT_EQ(count(html, "<div class=\"branch-checks\""), 2);  // outer and inner
  EXPECT_EQ(count(html, "{{"), 0);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  auto get = [&](const std::string& k) { return want.count(k) ? want.at(k) : 0; };
  for (const char* b : {"then", "else"})
    for (const char* v : {"pass", "fail", "info"})
      EXPECT_EQ(branch_rows(html, v, b), get(std::string(b) + "/" + v)) << b << " " << v;
  EXPECT_EQ(run_rows(html, "pass"), get("all/pass"));
  EXPECT_EQ(run_rows(html, "info"), get("all/info"));
  EXPECT_EQ(run_rows(html, "fail"), 0);

  // --html next to the text report, on a failing model with a hostile If name.
  const fs::path xml = hostile_exec_case("golden_mismatch", temp_dir() / "run-hostile");
  const std::string out2 = (temp_dir() / "run-hostile.html").string();
  const auto r2 = run(condlint_cmd() + " run --html " + shell_quote(out2) + " " + shell_quote(xml.string()));
  EXPECT_EQ(r2.exit_code, 1);
  EXPECT_NE(r2.out.find("summary: 1 passed, 1 failed"), std::string::npos) << r2.out;  // text unchanged on stdout
  const std::string html2 = slurp(out2);
  EXPECT_EQ(branch_rows(html2, "fail", "then"), 1);
  EXPECT_EQ(branch_rows(html2, "info", "else"), 1);
  EXPECT_EQ(run_rows(html2, "fail"), 1);
  EXPECT_GE(count(html2, "class=\"bad\""), 2);  // max abs and max rel over the tolerance
  if (browser().empty()) GTEST_SKIP() << "rendering skipped: no chromium-headless-shell or chromium (Debian packages)";
  const std::string dom = dump_dom(out);
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos);
  for (const char* b : {"then", "else"}) EXPECT_EQ(branch_rows(dom, "pass", b), get(std::string(b) + "/pass")) << b;
  EXPECT_EQ(run_rows(dom, "pass"), get("all/pass"));
  const std::string dom2 = dump_dom(out2);
  EXPECT_EQ(branch_rows(dom2, "fail", "then"), 1);
  expect_no_injection(html2, dom2);
}

// ---------------- diff ----------------

// Per-branch rows a `diff --format json` report implies (pinned variants: the pins; the model as given:
// the branches ref saw the data take).
std::map<std::string, int> expected_diff_rows(const json& j) {
  std::map<std::string, int> n;
  for (const auto& m : j["models"])
    for (const auto& c : m["cases"]) {
      std::vector<std::string> verdicts;
      if (c["status"] == "failed" || c["outputs"].empty())
        verdicts.push_back(c["status"] == "failed" ? "fail" : "info");
      if (c["status"] != "failed")
        for (const auto& o : c["outputs"])
          verdicts.push_back(o["status"] == "agree" ? "pass" : o["status"] == "diverge" ? "fail" : "info");
      for (const auto& v : verdicts) ++n["all/" + v];
      json where = c["pins"].empty() ? c.value("took", json::object()) : c["pins"];
      for (const auto& [path, b] : where.items())
        for (const auto& v : verdicts) ++n[b.get<std::string>() + "/" + v];
    }
  return n;
}

TEST(HtmlChecks, DiffReportHasPerBranchTablesAndBothRuntimeNames) {
  // The model in a directory whose name is markup.
  const fs::path dir = temp_dir() / "<script>x" / "nested_if";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir.parent_path());
  fs::copy(source_dir() / "tests/data/diff/nested_if", dir, fs::copy_options::recursive);
  const std::string model = (dir / "model.onnx").string();

  // ref against itself: everything agrees.
  const std::string same = (temp_dir() / "diff-same.html").string();
  const auto r = run(condlint_cmd() + " diff " + shell_quote(model) + " --runtime ref --runtime ref --format html -o " +
                     shell_quote(same));
  EXPECT_EQ(r.exit_code, 0);
  const json jsame = json::parse(
      run(condlint_cmd() + " diff " + shell_quote(model) + " --runtime ref --runtime ref --format json").out);
  const auto want_same = expected_diff_rows(jsame);
  const std::string html = slurp(same);
  EXPECT_NE(html.find("<h1>condlint diff report</h1>"), std::string::npos);
  EXPECT_EQ(count(html, "<div class=\"branch-checks\""), 2);
  EXPECT_GT(want_same.at("all/pass"), 0);
  EXPECT_EQ(run_rows(html, "pass"), want_same.at("all/pass"));
  EXPECT_EQ(run_rows(html, "fail"), 0);
  EXPECT_EQ(branch_rows(html, "pass", "then"), want_same.at("then/pass"));
  EXPECT_EQ(branch_rows(html, "pass", "else"), want_same.at("else/pass"));
  EXPECT_EQ(html.find("<script>x"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x/nested_if/model.onnx"), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 2);

  // ref against a runtime that perturbs the else-pinned runs: the divergences sit in the right branches.
  if (python_onnx_ok().empty())
    GTEST_SKIP() << "/usr/bin/python3 with python3-onnx is absent (the perturbing runtime needs it)";
  const std::string perturb = "cmd:/usr/bin/python3 " + (source_dir() / "tests/diff_runtime_perturb.py").string() +
                              " --condlint " + condlint::test::condlint_binary() +
                              " --when else {model} {inputs} {outputs}";
  const std::string bad = (temp_dir() / "diff-perturbed.html").string();
  const auto j = json::parse(run(condlint_cmd() + " diff " + shell_quote(model) + " --runtime ref --runtime " +
                                 shell_quote(perturb) + " --format json --html " + shell_quote(bad) + " 2>/dev/null")
                                 .out);
  const auto want = expected_diff_rows(j);
  ASSERT_GT(want.at("all/fail"), 0);
  const std::string html2 = slurp(bad);
  auto get = [&](const std::string& k) { return want.count(k) ? want.at(k) : 0; };
  for (const char* b : {"then", "else"})
    for (const char* v : {"pass", "fail"})
      EXPECT_EQ(branch_rows(html2, v, b), get(std::string(b) + "/" + v)) << b << " " << v;
  EXPECT_EQ(run_rows(html2, "fail"), get("all/fail"));
  EXPECT_EQ(run_rows(html2, "pass"), get("all/pass"));
  EXPECT_NE(html2.find("<th class=\"mono\">ref</th><th class=\"mono\">cmd:python3</th>"), std::string::npos);
  EXPECT_NE(html2.find("ref vs cmd:python3"), std::string::npos);
  // The divergent value of the second runtime is marked.
  EXPECT_GE(count(html2, "<td class=\"mono bad\">[2]"), 1);
  if (browser().empty()) GTEST_SKIP() << "rendering skipped: no chromium-headless-shell or chromium (Debian packages)";
  const std::string dom = dump_dom(bad);
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos);
  EXPECT_EQ(count(dom, "<div class=\"branch-checks\""), 2);
  for (const char* b : {"then", "else"})
    for (const char* v : {"pass", "fail"})
      EXPECT_EQ(branch_rows(dom, v, b), get(std::string(b) + "/" + v)) << b << " " << v;
  EXPECT_EQ(count(dom, "<script"), 2);
  EXPECT_EQ(dom.find("<script>x"), std::string::npos);
}

TEST(HtmlChecks, ExecutorPathsMeetTheModelsConditionals) {
  // An If no summary matches stays visible in a panel of its own.
  FileResult f;
  f.path = "m.onnx";
  ConditionalSummary s;
  s.name = "If 'a'";
  s.path = "main/a";
  s.exec_path = "main/a";
  f.conditionals.push_back(s);
  CheckReport c;
  c.kind = "exec";
  c.ifs.resize(2);
  c.ifs[0].if_path = "main/a";
  c.ifs[1].if_path = "main/zz/body/b";
  c.ifs[1].branch[0].push_back(
      BranchCheck{"d0", "", false, "y", "passed", "pass", true, 0, 0, "1e-05", "0.001", "", "", "", "", 0, ""});
  attach_checks(f, c);
  ASSERT_TRUE(f.checks);
  EXPECT_EQ(f.checks->ifs[0].cond_path, "main/a");
  EXPECT_EQ(f.checks->ifs[1].cond_path, "");
  RunResult rr;
  rr.files.push_back(f);
  std::ostringstream os;
  write_html(os, rr);
  EXPECT_EQ(count(os.str(), "<details class=\"cond exec-only"), 1);
  EXPECT_EQ(branch_rows(os.str(), "pass", "then"), 1);
}

// ---------------- SARIF columns ----------------

// 1-based code point column of a 1-based byte column on `line` of the file (computed here independently).
int code_points_before(const std::string& file_text, int line, int byte_col) {
  size_t start = 0;
  for (int l = 1; l < line; ++l) start = file_text.find('\n', start) + 1;
  int n = 0;
  for (size_t i = start; i < start + static_cast<size_t>(byte_col - 1); ++i)
    if ((static_cast<unsigned char>(file_text[i]) & 0xC0) != 0x80) ++n;
  return n + 1;
}

struct ColumnCase {
  int line = 0, byte_col = 0, sarif_col = 0;
  std::string rule;
};

ColumnCase columns_of(const std::string& model, const std::string& sarif_out) {
  ColumnCase c;
  const json lint = json::parse(run(condlint_cmd() + " lint --format json " + shell_quote(model)).out);
  const auto& f = lint["files"][0]["findings"];
  EXPECT_EQ(f.size(), 1u) << lint.dump();
  if (f.empty()) return c;
  c.rule = f[0]["rule"];
  c.line = f[0]["location"]["line"];
  c.byte_col = f[0]["location"]["column"];
  run(condlint_cmd() + " lint --sarif " + shell_quote(sarif_out) + " " + shell_quote(model) + " >/dev/null");
  const json doc = json::parse(slurp(sarif_out));
  EXPECT_EQ(doc["runs"][0]["columnKind"], "unicodeCodePoints");
  const auto& region = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
  EXPECT_EQ(region["startLine"], c.line);
  c.sarif_col = region["startColumn"];
  return c;
}

// Validates with the SARIF Multitool; "" = no error or warning, "SKIP" when it is absent.
std::string validate(const std::string& file) { return condlint::test::sarif_validate(file); }

// IR: the Parameter 'y' (renamed with multi-byte characters) and the If on one line: the C006 finding at the If's
// <layer> has 4 two-, three- and four-byte characters before it. Returns the file's path ("" when the corpus file
// changed shape) and its text in `xml`.
std::string write_utf8_ir(const fs::path& dir, std::string& xml) {
  xml = slurp((source_dir() / "corpus/ir/invalid/C006_branch_types.xml").string());
  const size_t a = xml.find("<layer id=\"2\""), b = xml.find("<layer id=\"3\"");
  if (a == std::string::npos || b == std::string::npos || a > b) return "";
  std::string joined = std::regex_replace(xml.substr(a, b - a), std::regex("\\n\\s*"), "");
  joined.replace(joined.find("name=\"y\""), 8,
                 "name=\"y\xC3\xBF\xE5\x90\x8D\xE5\x89\x8D\xF0\x9F\x98\x80\"");  // yÿ名前😀
  xml = xml.substr(0, a) + joined + xml.substr(b);
  const std::string ir = (dir / "branch_types_utf8.xml").string();
  std::ofstream(ir, std::ios::binary) << xml;
  return ir;
}

TEST(SarifColumns, CodePointsNotBytesOnNonAsciiLines) {
  EXPECT_EQ(CodePointColumns::column_in("ab", 0, 3), 3);
  EXPECT_EQ(CodePointColumns::column_in("\xC3\xA9x", 0, 3), 2);                      // é is 2 bytes
  EXPECT_EQ(CodePointColumns::column_in("\xE5\x90\x8D\xF0\x9F\x98\x80<", 0, 8), 3);  // 3-byte + 4-byte
  EXPECT_EQ(CodePointColumns::column_in("x\n\xC3\xA9y", 2, 3), 2);                   // from the line's start
  EXPECT_EQ(CodePointColumns::column_in("\x80\x80z", 0, 3), 1);  // stray continuation bytes count nothing

  const fs::path dir = temp_dir() / "sarif-columns";
  fs::create_directories(dir);
  std::string xml;
  const std::string ir = write_utf8_ir(dir, xml);
  ASSERT_FALSE(ir.empty());
  const ColumnCase c1 = columns_of(ir, (dir / "ir.sarif").string());
  EXPECT_EQ(c1.rule, "C006");
  EXPECT_EQ(c1.sarif_col, code_points_before(xml, c1.line, c1.byte_col));
  EXPECT_EQ(c1.byte_col - c1.sarif_col, 1 + 2 + 2 + 3);  // the extra bytes of ÿ 名 前 😀

  // NNAPI JSON: the operand name before the offending "scale" key.
  std::string nn = slurp((source_dir() / "corpus/nnapi/invalid/NN007_scale.nnapi.json").string());
  const std::string from = "{\"name\": \"ten\", \"type\": 3, \"dimensions\": [1], \"scale\"";
  ASSERT_NE(nn.find(from), std::string::npos);
  nn.replace(nn.find(from), from.size(),
             "{\"name\": \"t\xC3\xA9n_\xE5\x8D\x81\", \"type\": 3, \"dimensions\": [1], \"scale\"");  // tén_十
  const std::string nnapi = (dir / "scale_utf8.nnapi.json").string();
  std::ofstream(nnapi, std::ios::binary) << nn;
  const ColumnCase c2 = columns_of(nnapi, (dir / "nnapi.sarif").string());
  EXPECT_EQ(c2.rule, "NN007");
  EXPECT_EQ(c2.sarif_col, code_points_before(nn, c2.line, c2.byte_col));
  EXPECT_EQ(c2.byte_col - c2.sarif_col, 1 + 2);

  // An ASCII line keeps its column.
  const ColumnCase c3 =
      columns_of((source_dir() / "corpus/ir/invalid/C006_branch_types.xml").string(), (dir / "ascii.sarif").string());
  EXPECT_EQ(c3.sarif_col, c3.byte_col);

  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  for (const char* f : {"ir.sarif", "nnapi.sarif"}) {
    const std::string v = validate((dir / f).string());
    if (v == "SKIP")
      GTEST_SKIP() << "validation skipped: SARIF Multitool absent (scripts/install-deps.sh installs it with npm)";
    EXPECT_EQ(v, "") << f;
  }
}

// The code point column is computed where the model is judged and kept with the finding (and in the result
// cache): the writer reads no model for it, and a run from the cache gives the same column.
TEST(SarifColumns, ComputedWhereTheModelIsJudgedAndKeptInTheCache) {
  const fs::path dir = temp_dir() / "sarif-columns-kept";
  fs::create_directories(dir);
  std::string xml;
  const std::string ir = write_utf8_ir(dir, xml);
  ASSERT_FALSE(ir.empty());
  const ColumnCase c = columns_of(ir, (dir / "plain.sarif").string());
  ASSERT_GT(c.byte_col, c.sarif_col);

  FileResult f;
  f.path = ir;
  Finding x;
  x.rule = "C006";
  x.message = "m.";
  x.loc.line = c.line;
  x.loc.column = c.byte_col;
  f.findings.push_back(x);
  compute_code_point_columns(f);
  EXPECT_EQ(f.findings[0].loc.code_point_column, c.sarif_col);

  // The writer takes the kept column as it is: the file named here does not exist.
  auto sarif_column = [](const FileResult& one) {
    RunResult rr;
    rr.files.push_back(one);
    std::ostringstream os;
    write_sarif(os, rr);
    return json::parse(os.str())["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"]
        .get<int>();
  };
  f.path = (dir / "absent.xml").string();
  EXPECT_EQ(sarif_column(f), c.sarif_col);
  f.findings[0].loc.code_point_column = 0;
  EXPECT_EQ(sarif_column(f), c.byte_col) << "an unreadable file keeps the byte column";

  const std::string cache = (dir / "cache").string();
  for (const char* pass : {"cold", "warm"}) {
    const std::string out = (dir / (std::string(pass) + ".sarif")).string();
    run(condlint_cmd() + " lint --cache " + shell_quote(cache) + " --sarif " + shell_quote(out) + " " +
        shell_quote(ir) + " >/dev/null");
    EXPECT_EQ(slurp(out), slurp((dir / "plain.sarif").string())) << pass;
  }
}

}  // namespace

namespace {

// SARIF results carry the fixes of an IR's fixable findings (issue 49): valid SARIF, and the replacements applied to
// the file give what `condlint fix` writes.
TEST(SarifFixes, ReplacementsAreWhatCondlintFixWrites) {
  const fs::path dir = temp_dir() / "sarif-fixes";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(source_dir() / "corpus-openvino/valid/downstream_dead_branch/fp32", dir, fs::copy_options::recursive);
  const fs::path m = dir / "model.xml";
  const std::string sarif = (dir / "r.sarif").string();
  run(condlint_cmd() + " lint --format sarif -o " + shell_quote(sarif) + " " + shell_quote(m.string()) + " 2>/dev/null");
  const json doc = json::parse(slurp(sarif));
  const json& result = doc["runs"][0]["results"][0];
  ASSERT_TRUE(result.contains("fixes")) << result.dump();
  std::string text = slurp(m);
  const json& repl = result["fixes"][0]["artifactChanges"][0]["replacements"];
  // Applied from the last to the first, so that every region still names the original bytes.
  for (size_t k = repl.size(); k-- > 0;) {
    const int64_t at = repl[k]["deletedRegion"]["byteOffset"], len = repl[k]["deletedRegion"]["byteLength"];
    text.replace(static_cast<size_t>(at), static_cast<size_t>(len), repl[k].value("insertedContent", json::object()).value("text", ""));
  }
  const fs::path out = dir / "fixed.xml";
  run(condlint_cmd() + " fix --no-runtime-proof " + shell_quote(m.string()) + " -o " + shell_quote(out.string()) +
      " >/dev/null 2>&1");
  EXPECT_EQ(text, slurp(out));
  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  const std::string v = validate(sarif);
  if (v == "SKIP") GTEST_SKIP() << "validation skipped: SARIF Multitool absent";
  EXPECT_EQ(v, "");
}

}  // namespace
