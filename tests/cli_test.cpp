// The command line contract: exit codes, text and JSON output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/ir_gen.hpp"
#include "test_support.hpp"

using namespace condlint::test;

namespace {

const std::string kValid = "corpus/ir/valid/spec_if_example.xml";

std::string in_source(const std::string& rel) { return "\"" + (source_dir() / rel).string() + "\""; }

TEST(Cli, HelpAndVersionExitZero) {
  auto h = run(condlint_cmd() + " --help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("Exit codes"), std::string::npos);
  auto lh = run(condlint_cmd() + " lint --help");
  EXPECT_EQ(lh.exit_code, 0);
  EXPECT_NE(lh.out.find("--fail-on"), std::string::npos);
  auto v = run(condlint_cmd() + " --version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("condlint "), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run(condlint_cmd() + " 2>/dev/null").exit_code, 2);
  EXPECT_EQ(run(condlint_cmd() + " lint --no-such-flag x.xml 2>/dev/null").exit_code, 2);
  EXPECT_EQ(run(condlint_cmd() + " lint --format yaml " + in_source(kValid) + " 2>/dev/null").exit_code, 2);
  EXPECT_EQ(run(condlint_cmd() + " lint --disable NOPE " + in_source(kValid) + " 2>/dev/null").exit_code, 2);
}

TEST(Cli, MissingFileIsAnIoErrorButOtherFilesAreStillLinted) {
  auto r = run(condlint_cmd() + " lint /nonexistent/model.xml " + in_source("corpus/ir/invalid/C006_branch_types.xml") +
               " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("[C006]"), std::string::npos) << r.out;
}

TEST(Cli, ExitCodesFollowFailOn) {
  EXPECT_EQ(run(condlint_cmd() + " lint " + in_source(kValid)).exit_code, 0);
  const std::string bad = in_source("corpus/ir/invalid/C006_branch_types.xml");
  EXPECT_EQ(run(condlint_cmd() + " lint " + bad).exit_code, 1);
  EXPECT_EQ(run(condlint_cmd() + " lint --fail-on never " + bad).exit_code, 0);
  EXPECT_EQ(run(condlint_cmd() + " lint --disable C006 --disable C007 " + bad).exit_code, 0);
  // A warning-only model: clean at the default threshold, findings with --fail-on warning.
  const std::string warn = in_source("corpus/ir/invalid/C010_both_branches.xml");
  EXPECT_EQ(run(condlint_cmd() + " lint " + warn).exit_code, 0);
  EXPECT_EQ(run(condlint_cmd() + " lint --fail-on warning " + warn).exit_code, 1);
}

TEST(Cli, TextLinesHavePathLineColumnLevelAndRule) {
  auto r = run(condlint_cmd() + " lint " + in_source("corpus/ir/invalid/C006_branch_types.xml"));
  EXPECT_NE(r.out.find("C006_branch_types.xml:"), std::string::npos);
  EXPECT_NE(r.out.find(": error: "), std::string::npos);
  EXPECT_NE(r.out.find("[C006]"), std::string::npos);
  EXPECT_NE(r.out.find("checked:"), std::string::npos);
}

TEST(Cli, JsonReportHasTheContractFields) {
  auto r = run(condlint_cmd() + " lint --format json " + in_source("corpus/ir/invalid/C006_branch_types.xml"));
  ASSERT_EQ(r.exit_code, 1);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["tool"]["name"], "condlint");
  ASSERT_EQ(doc["files"].size(), 1u);
  EXPECT_EQ(doc["files"][0]["format"], "ir");
  const auto& f = doc["files"][0]["findings"][0];
  EXPECT_TRUE(f.contains("rule") && f.contains("name") && f.contains("level") && f.contains("message"));
  EXPECT_TRUE(f["location"].contains("node"));
  EXPECT_TRUE(f["location"].contains("line"));
  EXPECT_GE(doc["summary"]["errors"].get<int>(), 1);
}

TEST(Cli, JsonReportValidatesAgainstSchema) {
  if (run("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null").exit_code != 0)
    GTEST_SKIP() << "skipped: /usr/bin/python3 has no jsonschema (Debian package python3-jsonschema)";
  const std::string out = write_temp("report.json", "");
  auto r = run(condlint_cmd() + " lint --format json -o " + out + " " + in_source("corpus"));
  ASSERT_LT(r.exit_code, 2);
  const std::string script =
      "import json,sys,jsonschema\n"
      "s=json.load(open(sys.argv[1]));d=json.load(open(sys.argv[2]))\n"
      "jsonschema.validators.validator_for(s).check_schema(s)\n"
      "jsonschema.validate(d,s)\nprint('valid', sum(len(f['findings']) for f in d['files']))\n";
  const std::string py = write_temp("validate.py", script);
  auto v = run("/usr/bin/python3 " + py + " " + in_source("schemas/report.schema.json") + " " + out + " 2>&1");
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_NE(v.out.find("valid"), std::string::npos) << v.out;
}

TEST(Cli, RulesListsEveryRule) {
  auto r = run(condlint_cmd() + " rules");
  EXPECT_EQ(r.exit_code, 0);
  for (const auto* rule : condlint::all_rules()) EXPECT_NE(r.out.find(std::string(rule->id)), std::string::npos);
  auto j = run(condlint_cmd() + " rules --format json");
  EXPECT_EQ(nlohmann::json::parse(j.out).size(), condlint::all_rules().size());
}

TEST(Cli, DirectoryWalkSkipsXmlThatIsNotAnIr) {
  const std::string dir =
      std::filesystem::path(write_temp("walk/a/model.xml", "")).parent_path().parent_path().string();
  std::filesystem::create_directories(dir + "/a");
  std::ofstream(dir + "/a/model.xml") << condlint::gen::nested_if_ir(2);
  std::ofstream(dir + "/a/other.xml") << "<config><x/></config>";
  std::ofstream(dir + "/a/readme.txt") << "hello";
  auto r = run(condlint_cmd() + " lint --format json \"" + dir + "\"");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["files"].size(), 1u);
  EXPECT_NE(doc["files"][0]["path"].get<std::string>().find("model.xml"), std::string::npos);
}

}  // namespace

namespace {

// diff --random with --input-shapes: the given shape is used (a symbolic dim), a shape that contradicts a declared
// dim is a usage error naming it.
TEST(Cli, DiffInputShapesFixSymbolicDimsAndRefuseDeclaredOnes) {
  const std::string model = (source_dir() / "corpus/onnx/invalid/C011_shape_guard_union.onnx").string();
  const std::string base =
      std::string(condlint_binary()) + " diff " + model + " --runtime ref --runtime ref --random 1 --format json";
  auto ok = run(base + " --input-shapes x:5,3 --branches taken");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("\"agree\": 1"), std::string::npos) << ok.out;
  auto bad = run(base + " --input-shapes x:5,4 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("dim 1 = 4; the model declares 3"), std::string::npos) << bad.out;
  auto unknown = run(base + " --input-shapes nosuch:1 2>&1");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("not an input of the model"), std::string::npos) << unknown.out;
}

}  // namespace
