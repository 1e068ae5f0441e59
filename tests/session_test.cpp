// The lint session in-process (src/lint/session): files -> findings, configuration, suppressions, baseline, shards
// and the exit status, without the command line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lint/session.hpp"
#include "report/report.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::lint::run_session;
using condlint::lint::SessionOptions;

fs::path copy_of(const std::string& tag, const std::vector<std::string>& files) {
  const fs::path d = condlint::test::temp_dir(tag);
  fs::remove_all(d);
  fs::create_directories(d);
  for (const auto& f : files) fs::copy_file(condlint::test::source_dir() / f, d / fs::path(f).filename());
  return d;
}

size_t count(const condlint::RunResult& r, const std::string& rule) {
  size_t n = 0;
  for (const auto& f : r.files)
    for (const auto& x : f.findings) n += x.rule == rule;
  return n;
}

TEST(Session, FindingsExitStatusAndFailOn) {
  const fs::path d =
      copy_of("session-basic", {"corpus/onnx/invalid/C002_condition_float.onnx", "corpus/onnx/valid/nested_ifs.onnx"});
  SessionOptions o;
  o.paths = {d.string()};
  auto s = run_session(o);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.result.files.size(), 2u);
  EXPECT_EQ(count(s.result, "C002"), 1u);
  EXPECT_EQ(s.exit_code, 1);
  EXPECT_EQ(s.result.run.exit_code, 1);
  o.fail_on = "never";
  EXPECT_EQ(run_session(o).exit_code, 0);
  o.fail_on = "loud";
  EXPECT_FALSE(run_session(o).error.empty());
}

TEST(Session, ConfigurationLevelsSuppressionsAndIgnores) {
  const fs::path d = copy_of("session-config", {"corpus/onnx/invalid/C002_condition_float.onnx"});
  std::ofstream(d / ".condlint.yaml") << "suppress:\n  - rule: C002\n    justification: known\n";
  SessionOptions o;
  o.paths = {d.string()};
  auto s = run_session(o);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(count(s.result, "C002"), 0u);
  ASSERT_EQ(s.result.files.size(), 1u);
  ASSERT_EQ(s.result.files[0].suppressed.size(), 1u);
  EXPECT_EQ(s.result.files[0].suppressed[0].justification, "known");
  EXPECT_EQ(s.exit_code, 0) << "a suppressed result does not fail the run";

  std::ofstream(d / ".condlint.yaml") << "ignore:\n  - path: \"*.onnx\"\n";
  s = run_session(o);
  EXPECT_TRUE(s.result.files.empty()) << "an ignored file is not in the report";

  std::ofstream(d / ".condlint.yaml") << "rules: [unclosed\n";
  s = run_session(o);
  EXPECT_NE(s.error.find("bad configuration"), std::string::npos) << s.error;
}

TEST(Session, BaselineNewUnchangedAbsent) {
  const fs::path d = copy_of("session-baseline", {"corpus/onnx/invalid/C002_condition_float.onnx"});
  SessionOptions o;
  o.paths = {d.string()};
  o.baseline = (d / "no-such.sarif").string();
  EXPECT_NE(run_session(o).error.find("cannot read the baseline"), std::string::npos);

  // A baseline with this run's result (unchanged) and one that is gone (absent).
  o.baseline.clear();
  auto first = run_session(o);
  ASSERT_EQ(first.result.files.size(), 1u);
  ASSERT_FALSE(first.result.files[0].info.empty());
  const std::string fp = first.result.files[0].info[0].fingerprint;
  const std::string uri = condlint::artifact_uri(first.result.files[0].path);
  const fs::path baseline = d / "baseline.sarif";
  std::ofstream(baseline) << R"({"version": "2.1.0", "runs": [{"results": [
      {"ruleId": "C002", "level": "error", "message": {"text": "x"}, "partialFingerprints": {"primaryLocationLineHash": ")"
                          << fp << R"("}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": ")" << uri
                          << R"("}}}]},
      {"ruleId": "C006", "level": "error", "message": {"text": "gone"}, "partialFingerprints": {"primaryLocationLineHash": "0:1"},
       "locations": [{"physicalLocation": {"artifactLocation": {"uri": "gone.onnx"}}}]}]}]})";
  o.baseline = baseline.string();
  auto s = run_session(o);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_TRUE(s.result.run.has_baseline);
  EXPECT_EQ(s.result.files[0].info[0].baseline, "unchanged");
  ASSERT_EQ(s.result.run.absent.size(), 1u);
  EXPECT_EQ(s.result.run.absent[0].finding.message, "gone");
  EXPECT_EQ(s.result.run.absent[0].baseline_index, 1u);
  EXPECT_EQ(s.exit_code, 0) << "only new results fail";
}

// Node paths of ONNX findings were spelled "graph/If_0/then_branch/..." by condlint 0.1; a baseline or a suppression
// written then keeps matching the same results, now spelled "main/If_0/then/...".
TEST(Session, BaselinesAndSuppressionsInTheOldSpellingStillMatch) {
  const fs::path d = copy_of("session-legacy", {"corpus/onnx/invalid/ONNX007_declared_2_computes_3.onnx"});
  SessionOptions o;
  o.paths = {d.string()};
  auto first = run_session(o);
  ASSERT_EQ(first.result.files.size(), 1u);
  const auto& f = first.result.files[0];
  ASSERT_EQ(f.findings.size(), 1u);
  const std::string node = f.findings[0].loc.node;
  ASSERT_EQ(node, "main/If_0/then/Concat_t");
  const std::string old = "graph/If_0/then_branch/Concat_t";
  const std::string uri = condlint::artifact_uri(f.path);
  const fs::path baseline = d / "old.sarif";
  std::ofstream(baseline) << R"({"version": "2.1.0", "runs": [{"results": [
      {"ruleId": "ONNX007", "level": "error", "message": {"text": "x"}, "partialFingerprints": {"primaryLocationLineHash": ")"
                          << condlint::fingerprint_hash("ONNX007", uri, old, "") << R"(:1"}, "locations": [{
        "physicalLocation": {"artifactLocation": {"uri": ")"
                          << uri << R"("}},
        "logicalLocations": [{"fullyQualifiedName": ")"
                          << old << R"("}]}]}]}]})";
  o.baseline = baseline.string();
  auto s = run_session(o);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.result.files[0].info[0].baseline, "unchanged");
  EXPECT_TRUE(s.result.run.absent.empty());
  EXPECT_EQ(s.exit_code, 0);

  o.baseline.clear();
  std::ofstream(d / ".condlint.yaml") << "suppress:\n  - rule: ONNX007\n    node: \"graph/If_0/then_branch/*\"\n";
  s = run_session(o);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(count(s.result, "ONNX007"), 0u);
  EXPECT_EQ(s.exit_code, 0);
}

// A baseline is read as far as it makes sense: members of the wrong JSON type are absent, never an internal error.
TEST(Session, ABaselineWithMembersOfOtherTypesIsRead) {
  const fs::path d = copy_of("session-odd-baseline", {"corpus/onnx/invalid/C002_condition_float.onnx"});
  const fs::path baseline = d / "odd.sarif";
  std::ofstream(baseline) << R"({"runs": [{"results": [{"ruleId": "C002", "level": 3, "message": "m",
      "partialFingerprints": [], "locations": [{"physicalLocation": {"artifactLocation": {"uri": 5}, "region": []},
      "properties": "x", "logicalLocations": [{"fullyQualifiedName": 3}]}]}, 7, {"ruleId": ["C001"]}]}, []]})";
  SessionOptions o;
  o.paths = {d.string()};
  o.baseline = baseline.string();
  auto s = run_session(o);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.result.files[0].info[0].baseline, "new");
  EXPECT_EQ(s.exit_code, 1);
}

TEST(Session, AMissingInputIsAnIoFailure) {
  const fs::path d = copy_of("session-io", {"corpus/onnx/valid/nested_ifs.onnx"});
  SessionOptions o;
  o.paths = {d.string(), (d / "nothing-here").string()};
  auto s = run_session(o);
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_FALSE(s.result.run.execution_successful);
  ASSERT_EQ(s.result.run.notifications.size(), 1u);
  EXPECT_NE(s.result.run.notifications[0].find("nothing-here"), std::string::npos);
}

TEST(Session, AShardedRunRecordsWhereItsFilesStood) {
  SessionOptions o;
  o.paths = {(condlint::test::source_dir() / "corpus/onnx").string()};
  o.fail_on = "never";
  const auto whole = run_session(o);
  size_t total = 0;
  for (int k = 1; k <= 3; ++k) {
    o.shard_index = k;
    o.shard_count = 3;
    const auto s = run_session(o);
    ASSERT_TRUE(s.result.run.shard.has_value());
    const auto& sh = *s.result.run.shard;
    EXPECT_EQ(sh.total_files, whole.result.files.size());
    ASSERT_EQ(sh.positions.size(), s.result.files.size());
    for (size_t i = 0; i < sh.positions.size(); ++i)
      EXPECT_EQ(whole.result.files[sh.positions[i]].path, s.result.files[i].path);
    total += s.result.files.size();
  }
  EXPECT_EQ(total, whole.result.files.size());
}

TEST(Session, ShardAndRuleSelectorSyntax) {
  int k = 0, n = 0;
  EXPECT_TRUE(condlint::lint::parse_shard("2/7", k, n));
  EXPECT_EQ(k, 2);
  EXPECT_EQ(n, 7);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "1/3x", "1/10001"})
    EXPECT_FALSE(condlint::lint::parse_shard(bad, k, n)) << bad;
  EXPECT_TRUE(condlint::lint::valid_rule_selector("C0"));
  EXPECT_TRUE(condlint::lint::valid_rule_selector("IR"));
  EXPECT_FALSE(condlint::lint::valid_rule_selector("XY1"));
}

}  // namespace
