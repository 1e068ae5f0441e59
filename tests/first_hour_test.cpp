// What a new user meets in the first hour (issue 39): global options after the command, the pre-commit hook's
// files, paths that yield no model, unknown formats, help texts, the baseline in text, --show, --pin's "did you
// mean", rule pages, Git LFS pointers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace condlint::test;

namespace {

std::string fh_src(const std::string& rel) { return shell_quote((source_dir() / rel).string()); }

TEST(FirstHour, GlobalOptionsAfterTheCommand) {
  const std::string valid = fh_src("corpus/ir/valid/spec_if_example.xml");
  auto v = run(condlint_cmd() + " lint -v " + valid + " 2>&1");
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_NE(v.out.find("debug"), std::string::npos) << v.out;  // -v took effect: debug lines on stderr
  auto q = run(condlint_cmd() + " lint " + valid + " --quiet 2>&1");
  EXPECT_EQ(q.exit_code, 0) << q.out;
  auto r = run(condlint_cmd() + " rules -q 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace

namespace {

// The hook's command as .pre-commit-hooks.yaml defines it, run the way pre-commit runs it: every matching file named.
TEST(FirstHour, PreCommitHookLeavesOrdinaryXmlOut) {
  std::ifstream hooks(source_dir() / ".pre-commit-hooks.yaml");
  std::string line, entry;
  while (std::getline(hooks, line))
    if (line.rfind("  entry: ", 0) == 0)
      entry = line.substr(9, line.find('#') == std::string::npos ? std::string::npos : line.find('#') - 9);
  ASSERT_EQ(entry.rfind("condlint lint", 0), 0u) << entry;
  entry = entry.substr(std::string("condlint").size());
  const auto dir = temp_dir("hook");
  std::ofstream(dir / "AndroidManifest.xml") << "<?xml version=\"1.0\"?>\n<manifest package=\"x\"/>\n";
  std::ofstream(dir / "layout.xml") << "<LinearLayout/>";
  const std::string cmd = condlint_cmd() + entry + " " + shell_quote((dir / "AndroidManifest.xml").string()) + " " +
                          shell_quote((dir / "layout.xml").string());
  auto only_xml = run(cmd + " 2>&1");
  EXPECT_EQ(only_xml.exit_code, 0) << only_xml.out;
  EXPECT_EQ(only_xml.out.find("IR002"), std::string::npos) << only_xml.out;
  // A model among them is still linted.
  auto with_model = run(cmd + " " + fh_src("corpus/ir/invalid/C006_branch_types.xml") + " 2>&1");
  EXPECT_EQ(with_model.exit_code, 1) << with_model.out;
  EXPECT_NE(with_model.out.find("[C006]"), std::string::npos) << with_model.out;
  EXPECT_NE(with_model.out.find("1 file checked"), std::string::npos) << with_model.out;
  // Named directly, without the hook's flag, ordinary XML is still said not to be a model.
  auto direct = run(condlint_cmd() + " lint " + shell_quote((dir / "AndroidManifest.xml").string()));
  EXPECT_EQ(direct.exit_code, 1) << direct.out;
  EXPECT_NE(direct.out.find("[IR002]"), std::string::npos) << direct.out;
}

}  // namespace

namespace {

// Silero VAD (npm, tools/models): its first If tests dim 1 of 'input' == 1. With --input-shapes input:1,512 the
// inputs `run` and `diff` synthesize keep that shape, and both name the shapes of the random inputs they ran.
TEST(FirstHour, SynthesizedInputsKeepTheShapesGiven) {
  const auto model = source_dir() / "tools/models/@livekit+agents-plugin-silero@1.6.2/src/silero_vad.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model << " (npm install in tools/models)";
  const std::string m = shell_quote(model.string());
  for (const std::string cmd : {" run " + m + " --random 1 --input-shapes input:1,512",
                                " diff " + m + " --runtime ref --runtime ref --random 1 --input-shapes input:1,512"}) {
    auto r = run(condlint_cmd() + cmd + " 2>&1");
    EXPECT_EQ(r.out.find("'input' [1,1]"), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("random_0 (seed 0): 'input' [1,512], 'state' [2,1,128], 'sr' []"), std::string::npos)
        << cmd << "\n"
        << r.out;
  }
  // A range given is a range the synthesized values keep to.
  auto r = run(condlint_cmd() + " run " + m + " --random 1 --input-shapes input:1,512 --range sr=8000,8000 2>&1");
  EXPECT_EQ(r.out.find("'sr' = 16000"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// A path named that yields no model is exit 2 with a message naming it, said once (stderr; the text report on
// stdout does not repeat it); a tree whose models the configuration all ignores stays 0 and says so.
TEST(FirstHour, PathsThatYieldNoModel) {
  const auto dir = temp_dir("nomodel");
  std::filesystem::create_directories(dir / "empty");
  std::filesystem::create_directories(dir / "tflite");
  std::ofstream(dir / "tflite" / "m.tflite") << "TFL3";
  std::ofstream(dir / "a.json") << "{}";
  const auto err = dir / "stderr.txt";
  auto lint = [&](const std::string& path) {
    auto r = run(condlint_cmd() + " lint " + shell_quote((dir / path).string()) + " 2>" + shell_quote(err.string()));
    return std::make_pair(r, slurp(err));
  };
  for (const char* p : {"empty", "tflite"}) {
    auto [r, e] = lint(p);
    EXPECT_EQ(r.exit_code, 2) << p << "\n" << r.out;
    EXPECT_NE(e.find("no model in this directory"), std::string::npos) << p << "\n" << e;
  }
  for (const char* p : {"tflite/m.tflite", "a.json"}) {
    auto [r, e] = lint(p);
    EXPECT_EQ(r.exit_code, 2) << p << "\n" << r.out;
    EXPECT_NE(e.find("not a model condlint reads"), std::string::npos) << p << "\n" << e;
    EXPECT_EQ(r.out.find(p), std::string::npos) << "said twice:\n" << r.out;
  }
  // Models all ignored by the configuration: clean, and the summary says why nothing was checked.
  std::filesystem::create_directories(dir / "ignored" / "legacy");
  std::filesystem::copy_file(source_dir() / "corpus/ir/invalid/C006_branch_types.xml",
                             dir / "ignored" / "legacy" / "m.xml");
  std::ofstream(dir / "ignored" / ".condlint.yaml") << "ignore:\n  - \"legacy/**\"\n";
  auto [r, e] = lint("ignored");
  EXPECT_EQ(r.exit_code, 0) << r.out << e;
  EXPECT_NE(r.out.find("0 files checked: 0 errors, 0 warnings, 0 notes; 1 file ignored by the configuration"),
            std::string::npos)
      << r.out;
}

}  // namespace
