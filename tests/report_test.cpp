// Reports for CI (issue 7): SARIF (validated with the SARIF Multitool), HTML (rendered in a real
// browser), configuration, suppressions, baseline, --max-warnings and -j.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "exec/runner.hpp"
#include "lint/config.hpp"
#include "report/checks.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;
using nlohmann::json;

namespace {

const std::string kC006 = "corpus/ir/invalid/C006_branch_types.xml";
const std::string kWarn = "corpus/ir/invalid/C010_both_branches.xml";

std::string in_source_quoted(const std::string& rel) { return shell_quote((source_dir() / rel).string()); }
// Runs condlint in the source directory, so artifact URIs are relative to it.
fs::path multitool() { return condlint::test::sarif_multitool(); }
std::string validate_sarif(const std::string& file) { return condlint::test::sarif_validate(file); }

std::string attr(const std::string& dom, const std::string& element_id, const std::string& name) {
  std::smatch m;
  const std::regex re("id=\"" + element_id + "\"[^>]*" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? m[1].str() : std::string("<missing>");
}

// A copy of the C006 model whose If has a hostile name.
std::string hostile_model() {
  std::string xml = slurp((source_dir() / kC006).string());
  const std::string from = "name=\"if\"";
  xml.replace(xml.find(from), from.size(),
              "name=\"&lt;img src=x onerror=&quot;document.body.setAttribute('data-pwned','1')&quot;&gt;&amp;&apos;\"");
  const std::string p = temp_dir().string() + "/hostile/model.xml";
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << xml;
  return p;
}

// ---------------- SARIF ----------------

TEST(Sarif, DriverListsEveryRuleWithHelpFromItsPage) {
  const auto r = condlint_in_checkout("lint --format sarif " + kC006);
  ASSERT_EQ(r.exit_code, 1);
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["version"], "2.1.0");
  const auto& run_ = doc["runs"][0];
  const auto& driver = run_["tool"]["driver"];
  EXPECT_EQ(driver["name"], "condlint");
  EXPECT_TRUE(driver.contains("version") && driver.contains("semanticVersion") && driver.contains("informationUri"));
  ASSERT_EQ(driver["rules"].size(), all_rules().size());
  for (size_t i = 0; i < all_rules().size(); ++i) {
    const auto& rule = driver["rules"][i];
    const RuleDef& d = *all_rules()[i];
    EXPECT_EQ(rule["id"], std::string(d.id));
    EXPECT_EQ(rule["name"], std::string(d.name));
    EXPECT_EQ(rule["shortDescription"]["text"].get<std::string>().rfind(std::string(d.summary), 0), 0u);
    EXPECT_EQ(rule["defaultConfiguration"]["level"], std::string(to_string(d.level)));
    EXPECT_FALSE(rule["properties"]["tags"].empty());
    const fs::path page = source_dir() / "rules" / (std::string(d.id) + ".md");
    if (fs::exists(page)) {
      EXPECT_EQ(rule["help"]["markdown"], slurp(page.string())) << d.id;
      EXPECT_NE(rule["fullDescription"]["text"], rule["shortDescription"]["text"]) << d.id;
    }
  }
}

TEST(Sarif, ResultsHaveRelativeUrisRegionsFingerprintsAndInvocation) {
  const auto r = condlint_in_checkout("lint --format sarif --automation-id ci/nightly/ " + kC006);
  const json doc = json::parse(r.out);
  const auto& run_ = doc["runs"][0];
  ASSERT_EQ(run_["results"].size(), 1u);
  const auto& res = run_["results"][0];
  EXPECT_EQ(res["ruleId"], "C006");
  EXPECT_EQ(run_["tool"]["driver"]["rules"][res["ruleIndex"].get<int>()]["id"], "C006");
  EXPECT_EQ(res["level"], "error");
  const auto& phys = res["locations"][0]["physicalLocation"];
  EXPECT_EQ(phys["artifactLocation"]["uri"], kC006);
  EXPECT_EQ(phys["region"]["startLine"], 26);
  EXPECT_GT(phys["region"]["startColumn"].get<int>(), 0);
  EXPECT_EQ(res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "main/if");
  const std::string fp = res["partialFingerprints"]["primaryLocationLineHash"];
  EXPECT_TRUE(std::regex_match(fp, std::regex("[0-9a-f]{16}:1"))) << fp;
  EXPECT_EQ(run_["invocations"][0]["exitCode"], 1);
  EXPECT_EQ(run_["invocations"][0]["executionSuccessful"], true);
  EXPECT_EQ(run_["automationDetails"]["id"], "ci/nightly/");
  EXPECT_EQ(run_["artifacts"][0]["mimeType"], "application/xml");
  EXPECT_EQ(run_["artifacts"][0]["location"]["uri"], kC006);
  // Stable across runs, and independent of the message.
  EXPECT_EQ(
      json::parse(
          condlint_in_checkout("lint --format sarif " + kC006).out)["runs"][0]["results"][0]["partialFingerprints"],
      res["partialFingerprints"]);
}

TEST(Sarif, SarifFileNextToAnotherFormat) {
  const std::string out = temp_dir().string() + "/side.sarif";
  const auto r = condlint_in_checkout("lint --sarif " + shell_quote(out) + " " + kC006);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("[C006]"), std::string::npos);  // text on stdout
  EXPECT_EQ(json::parse(slurp(out))["runs"][0]["results"].size(), 1u);
}

// The media type follows the format the front door decided; a file whose format is unknown (it could not be read)
// is bytes whatever its name ends with.
TEST(Sarif, MimeTypeFollowsTheDecidedFormatNotTheName) {
  auto mime = [](const std::string& path, const std::string& format) {
    RunResult rr;
    FileResult f;
    f.path = path;
    f.format = format;
    rr.files.push_back(f);
    std::ostringstream os;
    write_sarif(os, rr);
    return json::parse(os.str())["runs"][0]["artifacts"][0]["mimeType"].get<std::string>();
  };
  EXPECT_EQ(mime("a.onnx", "ir"), "application/xml");  // IR content saved under another name
  EXPECT_EQ(mime("a.bin", "nnapi"), "application/json");
  EXPECT_EQ(mime("a.xml", "onnx"), "application/octet-stream");
  EXPECT_EQ(mime("unreadable.xml", ""), "application/octet-stream");
  EXPECT_EQ(mime("unreadable.nnapi.json", ""), "application/octet-stream");
}

// A file without lines (as binary ONNX is): whole-file region + the node path as logical location.
TEST(Sarif, FileWithoutLinesGetsWholeFileRegionAndLogicalLocation) {
  RunResult rr;
  FileResult f;
  f.path = "models/net.onnx";
  f.format = "onnx";
  f.size = 1234;
  Finding x{"C006", "branch-type-mismatch", Level::Error, "If 'cond' output 0: then gives f32, else gives i64", {}};
  x.loc.file = f.path;
  x.loc.node = "main/cond/then/Add_7";
  f.findings.push_back(x);
  compute_fingerprints(f);
  rr.files.push_back(f);
  std::ostringstream os;
  write_sarif(os, rr);
  const json doc = json::parse(os.str());
  const auto& loc = doc["runs"][0]["results"][0]["locations"][0];
  EXPECT_EQ(loc["physicalLocation"]["region"], (json{{"byteOffset", 0}, {"byteLength", 1234}}));
  EXPECT_EQ(loc["logicalLocations"][0]["fullyQualifiedName"], "main/cond/then/Add_7");
  EXPECT_EQ(doc["runs"][0]["artifacts"][0]["mimeType"], "application/octet-stream");
  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  if (multitool().empty())
    GTEST_SKIP() << "skipped validation: SARIF Multitool absent (scripts/install-deps.sh installs it with npm)";
  const std::string file = temp_dir().string() + "/binary.sarif";
  std::ofstream(file) << os.str();
  EXPECT_EQ(validate_sarif(file), "");
}

TEST(Sarif, CorpusReportPassesSarifMultitoolValidation) {
  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  if (multitool().empty())
    GTEST_SKIP()
        << "skipped: SARIF Multitool absent; run scripts/install-deps.sh (npm @microsoft/sarif-multitool-linux)";
  // The whole IR corpus plus suppressed and baseline-absent results: every SARIF feature we emit.
  const std::string dir = temp_dir().string();
  const std::string cfg = dir + "/validate.yaml";
  std::ofstream(cfg) << "rules:\n  C011: warning\nsuppress:\n  - rule: C003\n    justification: tracked elsewhere\n";
  const std::string base = dir + "/base.sarif";
  std::ofstream(base) << condlint_in_checkout("lint --format sarif corpus/ir/invalid/C002_cond_f32.xml").out;
  const std::string out = dir + "/corpus.sarif";
  const auto r = condlint_in_checkout("lint corpus/ir --config " + shell_quote(cfg) + " --baseline " +
                                      shell_quote(base) + " --sarif " + shell_quote(out) + " >/dev/null");
  EXPECT_EQ(r.exit_code, 1);
  const json doc = json::parse(slurp(out));
  EXPECT_GT(doc["runs"][0]["results"].size(), 30u);
  EXPECT_EQ(validate_sarif(out), "");
  // The validator itself must be able to fail: a broken copy yields errors.
  json broken = doc;
  broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] = json{{"startLine", 0}};
  const std::string bad = dir + "/broken.sarif";
  std::ofstream(bad) << broken.dump();
  EXPECT_NE(validate_sarif(bad), "");
}

// ---------------- HTML ----------------

TEST(Html, SelfContainedAndEscaped) {
  const std::string model = hostile_model();
  const std::string out = temp_dir().string() + "/hostile.html";
  const auto r = run(condlint_cmd() + " lint --html " + shell_quote(out) + " " + shell_quote(model) + " >/dev/null");
  EXPECT_EQ(r.exit_code, 1);
  const std::string html = slurp(out);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=&quot;"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);  // no network
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("{{"), std::string::npos);  // every placeholder filled
  EXPECT_NE(html.find("id=\"rule-C006\""), std::string::npos);
  EXPECT_NE(html.find("href=\"#rule-C006\""), std::string::npos);
}

TEST(Html, RendersInABrowserWithCountsFiltersSortingAndPanels) {
  if (browser().empty())
    GTEST_SKIP() << "skipped: no chromium-headless-shell or chromium (Debian packages; scripts/install-deps.sh)";
  const std::string out = temp_dir().string() + "/corpus.html";
  condlint_in_checkout("lint corpus/ir --html " + shell_quote(out) + " >/dev/null");
  const json counts = json::parse(condlint_in_checkout("lint corpus/ir --format json").out)["summary"];
  const int total = counts["errors"].get<int>() + counts["warnings"].get<int>() + counts["notes"].get<int>();
  const std::string dom = dump_dom(out);
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "report.js did not run";
  EXPECT_EQ(attr(dom, "shown", "data-visible"), std::to_string(total));
  EXPECT_EQ(attr(dom, "shown", "data-error"), std::to_string(counts["errors"].get<int>()));
  EXPECT_EQ(attr(dom, "shown", "data-warning"), std::to_string(counts["warnings"].get<int>()));
  EXPECT_EQ(attr(dom, "shown", "data-note"), std::to_string(counts["notes"].get<int>()));
  EXPECT_NE(dom.find("data-count-error=\"" + std::to_string(counts["errors"].get<int>()) + "\""), std::string::npos);
  EXPECT_EQ(count(dom, "<tr class=\"finding"), total);
  EXPECT_GT(count(dom, "<details class=\"cond"), 10);
  EXPECT_GT(count(dom, "offending"), 2);  // CSS rule + marked cells
  // Filter from the address: only notes.
  const std::string notes = dump_dom(out, "#level=note");
  EXPECT_EQ(attr(notes, "shown", "data-visible"), std::to_string(counts["notes"].get<int>()));
  // Sort by line, descending: the first row has the largest line.
  const std::string sorted = dump_dom(out, "#sort=line:desc");
  EXPECT_NE(sorted.find("data-key=\"line\" data-type=\"number\" aria-sort=\"descending\""), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      sorted, m, std::regex("<tbody>\\s*<tr class=\"finding[^>]*>(?:<td[^>]*>.*?</td>){3}<td data-sort=\"(\\d+)\"")));
  int max_line = 0;
  const std::regex line_cell("<td data-sort=\"(\\d+)\">\\d*</td><td class=\"mono path\">");
  for (std::sregex_iterator it(sorted.begin(), sorted.end(), line_cell), end; it != end; ++it)
    max_line = std::max(max_line, std::stoi((*it)[1].str()));
  EXPECT_GT(max_line, 20);
  EXPECT_EQ(std::stoi(m[1].str()), max_line);
}

TEST(Html, HostileNamesDoNotExecuteInTheBrowser) {
  if (browser().empty()) GTEST_SKIP() << "skipped: no chromium-headless-shell or chromium";
  const std::string out = temp_dir().string() + "/hostile2.html";
  run(condlint_cmd() + " lint --format html -o " + shell_quote(out) + " " + shell_quote(hostile_model()));
  const std::string dom = dump_dom(out);
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos);
  EXPECT_EQ(dom.find("data-pwned"), dom.find("data-pwned','1')"));  // only as escaped text
  EXPECT_EQ(dom.find("<img"), std::string::npos);
}

// ---------------- Configuration ----------------

TEST(Config, LevelsIgnoresAndOverridesInSarif) {
  const std::string dir = temp_dir().string() + "/cfg1";
  fs::create_directories(dir + "/models/sub");
  fs::copy_file(source_dir() / kC006, dir + "/models/sub/a.xml", fs::copy_options::overwrite_existing);
  fs::copy_file(source_dir() / kC006, dir + "/models/skip.xml", fs::copy_options::overwrite_existing);
  std::ofstream(dir + "/.condlint.yaml")
      << "# found from the model's directory upwards\nrules:\n  C006: warning\n"
         "ignore:\n  - \"models/skip.xml\"\ntolerances:\n  run: {atol: 1e-5, rtol: 1e-3}\n";
  const auto r = run(condlint_cmd() + " lint --format sarif " + shell_quote(dir + "/models"));
  EXPECT_EQ(r.exit_code, 0);  // C006 is a warning now
  const json doc = json::parse(r.out);
  const auto& run_ = doc["runs"][0];
  ASSERT_EQ(run_["artifacts"].size(), 1u);  // skip.xml ignored
  EXPECT_EQ(run_["results"][0]["level"], "warning");
  const auto& ov = run_["invocations"][0]["ruleConfigurationOverrides"];
  ASSERT_EQ(ov.size(), 1u);
  EXPECT_EQ(ov[0]["descriptor"]["id"], "C006");
  EXPECT_EQ(ov[0]["configuration"]["level"], "warning");
  // Off in the config: the rule does not run.
  std::ofstream(dir + "/off.yaml") << "rules:\n  C0: off\n";
  EXPECT_EQ(run(condlint_cmd() + " lint --config " + shell_quote(dir + "/off.yaml") + " " +
                shell_quote(dir + "/models/sub/a.xml"))
                .exit_code,
            0);
}

TEST(Config, BadConfigNamesTheLineAndExitsTwo) {
  const std::string dir = temp_dir().string() + "/cfg2";
  fs::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"rules:\n  C006: loud\n", ":2:"},
      {"rules:\n  C006: off\nignore:\n  - path: x\n    rulez: [C006]\n", ":5:"},
      {"rules:\n  NOPE1: off\n", ":2:"},
      {"rules: [unclosed\n", ":"},
      {"tolerances:\n  run: {atol: -1}\n", ":2:"},
      {"colour: red\n", ":1:"}};
  for (const auto& [text, where] : cases) {
    std::ofstream(dir + "/bad.yaml") << text;
    const auto r = run(condlint_cmd() + " lint --config " + shell_quote(dir + "/bad.yaml") + " " +
                       in_source_quoted(kC006) + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_NE(r.out.find("bad.yaml" + where), std::string::npos) << text << "\n" << r.out;
  }
}

TEST(Config, GlobMatching) {
  EXPECT_TRUE(glob_match("models/*.xml", "models/a.xml"));
  EXPECT_FALSE(glob_match("models/*.xml", "models/sub/a.xml"));
  EXPECT_TRUE(glob_match("models/**/*.xml", "models/a.xml"));
  EXPECT_TRUE(glob_match("models/**/*.xml", "models/x/y/a.xml"));
  EXPECT_TRUE(glob_match("**", "a/b/c"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "a/c"));
  EXPECT_FALSE(glob_match("*.onnx", "a.xml"));
  EXPECT_TRUE(glob_match("main/if*", "main/if_3"));
  EXPECT_FALSE(glob_match(std::string(40, '*') + "b", std::string(2000, 'a')));  // no blow-up
}

// ---------------- Suppressions ----------------

std::string with_comment(const std::string& name, const std::string& before, const std::string& inside) {
  std::string xml = slurp((source_dir() / kC006).string());
  const std::string tag = "<layer id=\"3\" name=\"if\" type=\"If\" version=\"opset8\">";
  const size_t p = xml.find(tag);
  xml.insert(p + tag.size(), inside);
  xml.insert(p, before);
  const std::string path = temp_dir().string() + "/sup/" + name;
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << xml;
  return path;
}

TEST(Suppressions, CommentBeforeOrInsideTheLayerSuppressesButStaysInSarif) {
  for (const auto& path : {with_comment("before.xml", "<!-- condlint-disable C006 -->\n        ", ""),
                           with_comment("inside.xml", "", "<!-- condlint-disable C007,C006 -->")}) {
    const auto text = run(condlint_cmd() + " lint " + shell_quote(path));
    EXPECT_EQ(text.exit_code, 0) << path;
    EXPECT_EQ(text.out.find("[C006]"), std::string::npos);
    EXPECT_NE(text.out.find("0 errors, 0 warnings, 0 notes (1 suppressed)"), std::string::npos) << text.out;
    const json doc = json::parse(run(condlint_cmd() + " lint --format sarif " + shell_quote(path)).out);
    const auto& res = doc["runs"][0]["results"];
    ASSERT_EQ(res.size(), 1u);
    EXPECT_EQ(res[0]["ruleId"], "C006");
    EXPECT_EQ(res[0]["suppressions"][0]["kind"], "inSource");
    EXPECT_EQ(doc["runs"][0]["invocations"][0]["exitCode"], 0);
  }
  // Another rule's ID does not suppress; nor does a comment elsewhere.
  EXPECT_EQ(
      run(condlint_cmd() + " lint " + shell_quote(with_comment("other.xml", "<!-- condlint-disable C007 -->", "")))
          .exit_code,
      1);
  EXPECT_EQ(run(condlint_cmd() + " lint " +
                shell_quote(with_comment(
                    "far.xml",
                    "<!-- condlint-disable C006 --><!-- x --><layer id=\"99\" type=\"Foo\" version=\"opset1\"/>", "")))
                .exit_code,
            1);
}

TEST(Suppressions, ConfigEntryIsExternal) {
  const std::string dir = temp_dir().string() + "/sup2";
  fs::create_directories(dir);
  std::ofstream(dir + "/c.yaml")
      << "suppress:\n  - rule: C006\n    node: \"main/if\"\n    justification: known, tracked\n";
  const auto r = condlint_in_checkout("lint --format sarif --config " + shell_quote(dir + "/c.yaml") + " " + kC006);
  EXPECT_EQ(r.exit_code, 0);
  const auto res = json::parse(r.out)["runs"][0]["results"][0];
  EXPECT_EQ(res["suppressions"][0]["kind"], "external");
  EXPECT_EQ(res["suppressions"][0]["justification"], "known, tracked");
}

// ---------------- Baseline, --max-warnings, -j ----------------

TEST(Baseline, NewUnchangedAbsentAndFailOnCountsOnlyNew) {
  const std::string dir = temp_dir().string() + "/base";
  fs::create_directories(dir);
  const std::string base = dir + "/old.sarif";
  std::ofstream(base)
      << condlint_in_checkout("lint --format sarif " + kC006 + " corpus/ir/invalid/C002_cond_f32.xml").out;
  // Same findings minus C002's file: C006 unchanged, C002 absent; nothing new -> exit 0.
  auto r = condlint_in_checkout("lint --format sarif --baseline " + shell_quote(base) + " " + kC006);
  EXPECT_EQ(r.exit_code, 0);
  json res = json::parse(r.out)["runs"][0]["results"];
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(res[0]["baselineState"], "unchanged");
  EXPECT_EQ(res[1]["baselineState"], "absent");
  EXPECT_EQ(res[1]["ruleId"], "C002");
  // A file that was not in the baseline: its results are new -> exit 1.
  r = condlint_in_checkout("lint --format sarif --baseline " + shell_quote(base) +
                           " corpus/ir/invalid/C005_output_count.xml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(json::parse(r.out)["runs"][0]["results"][0]["baselineState"], "new");
  EXPECT_EQ(condlint_in_checkout("lint --baseline /nonexistent.sarif " + kC006 + " 2>/dev/null").exit_code, 2);
}

TEST(MaxWarnings, ExitOneAboveTheLimit) {
  EXPECT_EQ(condlint_in_checkout("lint " + kWarn).exit_code, 0);
  EXPECT_EQ(condlint_in_checkout("lint --max-warnings 0 " + kWarn + " 2>/dev/null").exit_code, 1);
  EXPECT_EQ(condlint_in_checkout("lint --max-warnings 1 " + kWarn).exit_code, 0);
}

TEST(Jobs, ParallelOutputIsIdenticalToSerial) {
  const auto one = condlint_in_checkout("lint corpus/ir --format json -j 1");
  const auto two = condlint_in_checkout("lint corpus/ir --format json -j 2");
  const auto many = condlint_in_checkout("lint corpus/ir --format sarif -j 8");
  const auto serial_sarif = condlint_in_checkout("lint corpus/ir --format sarif -j 1");
  EXPECT_EQ(one.exit_code, two.exit_code);
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(many.out, serial_sarif.out);
  // Not a terminal: no progress bar on stderr.
  EXPECT_EQ(condlint_in_checkout("lint corpus/ir -j 2 2>&1 >/dev/null").out, "");
}

}  // namespace

// tolerances: run: / diff: of the configuration apply to `condlint run` and `condlint diff` where --atol / --rtol
// are not given (found from the model's directory upwards, or --config FILE); a bad file is a usage error.
TEST(Config, TolerancesApplyToRunAndDiff) {
  const std::string dir = temp_dir().string() + "/cfgtol";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // golden_mismatch: the then branch computes 0 where the golden data says 0.25.
  fs::copy(source_dir() / "corpus/ir/exec-cases/golden_mismatch", dir + "/m", fs::copy_options::recursive);
  const std::string model = shell_quote(dir + "/m/golden_mismatch.xml");
  EXPECT_EQ(run(condlint_cmd() + " run " + model).exit_code, 1);  // no configuration yet: a mismatch
  std::ofstream(dir + "/.condlint.yaml") << "tolerances:\n  run: {atol: 0.5}\n  diff: {atol: 0, rtol: 0}\n";
  EXPECT_EQ(run(condlint_cmd() + " run " + model).exit_code, 0) << "the configuration's atol 0.5 covers 0.25";
  EXPECT_EQ(run(condlint_cmd() + " run --atol 0.1 " + model).exit_code, 1) << "--atol wins over the configuration";
  std::ofstream(dir + "/other.yaml") << "tolerances:\n  run: {atol: 0.01}\n";
  EXPECT_EQ(run(condlint_cmd() + " run --config " + shell_quote(dir + "/other.yaml") + " " + model).exit_code, 1);
  std::ofstream(dir + "/bad.yaml") << "tolerances:\n  run: {atol: 0.5, colour: red}\n";
  const auto bad = run(condlint_cmd() + " run --config " + shell_quote(dir + "/bad.yaml") + " " + model + " 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("bad.yaml:2"), std::string::npos) << bad.out;
  // diff reads the same file: ref against itself agrees whatever the tolerance; a broken file stops it.
  EXPECT_EQ(run(condlint_cmd() + " diff " + model + " --runtime ref --runtime ref").exit_code, 0);
  EXPECT_EQ(run(condlint_cmd() + " diff --config " + shell_quote(dir + "/bad.yaml") + " " + model +
                " --runtime ref --runtime ref 2>/dev/null")
                .exit_code,
            2);
}

TEST(Sarif, ArtifactUrisAreRelativeUnderTheWorkingDirectoryElseFileUris) {
  const std::string cwd = std::filesystem::current_path().generic_string();
  ASSERT_EQ(cwd.front(), '/');
  const std::string parent = std::filesystem::current_path().parent_path().generic_string();
  const std::string up = parent == "/" ? "" : parent;  // "/" + "x" is "/x", not "//x"
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"m/a b.onnx", "m/a%20b.onnx"},
      {"./m/./a.onnx", "m/a.onnx"},
      {"m//a.onnx", "m/a.onnx"},
      {"m/x/../a.onnx", "m/a.onnx"},
      {cwd + "/m/a.onnx", "m/a.onnx"},
      {cwd + "x/a.onnx", "file://" + cwd + "x/a.onnx"},  // a sibling whose name starts with the directory's
      {"/nowhere-condlint/a\xc3\xa9.onnx", "file:///nowhere-condlint/a%C3%A9.onnx"},
      {"../a.onnx", "file://" + up + "/a.onnx"},
  };
  for (const auto& [path, uri] : cases) EXPECT_EQ(condlint::artifact_uri(path), uri) << path;
}

// `run`'s text report says every branch problem: a mismatch says its first as its message, and a run that failed
// later (an op refused what a branch gave it) lists them after its error, where the cause usually is.
TEST(RunText, AFailedRunListsTheBranchProblemsBeforeIt) {
  exec::ModelResult r;
  r.model = "m.onnx";
  exec::CaseResult failed;
  failed.status = exec::CaseStatus::Failed;
  failed.message = "at main/LSTM (LSTM): X, W and R must be 3-D";
  failed.branch_problems = {"If 'main/If_1' then branch output 0 has shape [1,1,128,4], declared f32[1,?,128]"};
  exec::CaseResult mismatch;
  mismatch.status = exec::CaseStatus::Mismatch;
  mismatch.branch_problems = {"If 'a' then branch output 0 has element type i64, declared f32", "If 'b' second"};
  mismatch.message = mismatch.branch_problems.front();
  r.cases = {failed, mismatch};
  std::ostringstream os;
  write_run_text(os, r);
  const std::string out = os.str();
  EXPECT_NE(out.find("before it: If 'main/If_1' then branch output 0 has shape [1,1,128,4]"), std::string::npos) << out;
  EXPECT_EQ(count(out, "If 'a' then branch output 0"), 1) << out;
  EXPECT_NE(out.find("      If 'b' second"), std::string::npos) << out;
}
