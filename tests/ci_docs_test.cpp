// docs/ci.md's workflows are code: every YAML block there parses, the GitHub workflows among them and the repository's
// own (.github/workflows/) pass actionlint, their `pip install` lines install the wheel the release attaches (of this
// version), every `condlint lint` command line runs on the corpus, and the condlint command lines of the sharded
// GitHub Actions matrix and the GitLab `parallel:` job run on the corpus, and their merge jobs give, byte for byte,
// the SARIF of the unsharded run.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;
namespace fs = std::filesystem;

std::vector<std::string> yaml_blocks() {
  const std::string doc = slurp(condlint::test::source_dir() / "docs/ci.md");
  std::vector<std::string> out;
  for (size_t p = doc.find("```yaml\n"); p != std::string::npos; p = doc.find("```yaml\n", p + 1)) {
    const size_t start = p + 8, end = doc.find("```", start);
    if (end == std::string::npos) break;
    out.push_back(doc.substr(start, end - start));
  }
  return out;
}

// Every string value in a YAML tree (the `run:` and `script:` lines among them).
void strings_of(const YAML::Node& n, std::vector<std::string>& out) {
  if (n.IsScalar()) out.push_back(n.as<std::string>());
  else if (n.IsSequence())
    for (const auto& x : n) strings_of(x, out);
  else if (n.IsMap())
    for (const auto& kv : n) strings_of(kv.second, out);
}

TEST(CiDocs, EveryYamlBlockParses) {
  const auto blocks = yaml_blocks();
  ASSERT_GE(blocks.size(), 5u);
  for (const auto& b : blocks) EXPECT_NO_THROW((void)YAML::Load(b)) << b;
}

// The results (rule, file, message) of a SARIF file.
std::multiset<std::string> sarif_results(const fs::path& p) {
  std::multiset<std::string> out;
  const auto doc = nlohmann::json::parse(slurp(p), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << p;
  if (doc.is_discarded()) return out;
  for (const auto& r : doc["runs"][0]["results"])
    out.insert(r["ruleId"].get<std::string>() + " " +
               r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>() + " " +
               r["message"]["text"].get<std::string>());
  return out;
}

std::string with_shard(std::string c, int k) {
  c = std::regex_replace(c, std::regex(R"(\$\{\{ matrix\.shard \}\})"), std::to_string(k));
  c = std::regex_replace(c, std::regex(R"(\$\{CI_NODE_INDEX\})"), std::to_string(k));
  c = std::regex_replace(c, std::regex(R"(\$\{CI_NODE_TOTAL\})"), "4");
  // The documents run the condlint that `pip install condlint` puts on PATH: here, this build's.
  return std::regex_replace(c, std::regex(R"((^|&& |; )condlint )"), "$1" + condlint::test::condlint_cmd() + " ");
}

TEST(CiDocs, ShardedCommandLinesRunAndTheirMergeIsTheUnshardedReport) {
  // Per workflow, the command lines of the matrix job and of the merge job.
  std::vector<std::pair<std::string, std::string>> workflows;
  for (const auto& b : yaml_blocks()) {
    std::vector<std::string> lines;
    strings_of(YAML::Load(b), lines);
    std::string shard, merge;
    for (const auto& l : lines) {
      if (l.find("--shard") != std::string::npos) shard = l;
      if (l.find("condlint merge") != std::string::npos) merge = l;
    }
    if (!shard.empty()) workflows.emplace_back(shard, merge);
  }
  ASSERT_EQ(workflows.size(), 2u) << "the GitHub Actions matrix and the GitLab parallel job";
  const fs::path work = condlint::test::temp_dir("ci-docs");
  fs::remove_all(work);
  fs::create_directories(work);
  fs::copy(condlint::test::source_dir() / "corpus/onnx", work / "models",
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const std::string in_work = "cd " + shell_quote(work.string()) + " && ";
  run(in_work + condlint::test::condlint_cmd() + " lint models/ --sarif all.sarif >/dev/null");
  const auto all = sarif_results(work / "all.sarif");
  ASSERT_GT(all.size(), 20u);
  for (const auto& [shard, merge] : workflows) {
    SCOPED_TRACE(shard);
    ASSERT_FALSE(merge.empty()) << "a merge job follows the matrix";
    for (const auto& old : fs::directory_iterator(work))
      if (old.path().filename().string().rfind("condlint", 0) == 0) fs::remove(old.path());
    std::multiset<std::string> joined;
    for (int k = 1; k <= 4; ++k) {
      const std::string c = with_shard(shard, k);
      const auto r = run(in_work + c + " >/dev/null 2>&1");
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << c << " -> " << r.exit_code;
      const auto part = sarif_results(work / ("condlint-" + std::to_string(k) + ".sarif"));
      joined.insert(part.begin(), part.end());
    }
    EXPECT_EQ(joined, all);
    const auto m = run(in_work + with_shard(merge, 0) + " 2>&1");
    EXPECT_EQ(m.exit_code, 1) << m.out;
    EXPECT_TRUE(slurp(work / "condlint.sarif") == slurp(work / "all.sarif")) << "the merged SARIF is the unsharded one";
    EXPECT_NE(slurp(work / "condlint.html").find("<h1>condlint report</h1>"), std::string::npos) << "and its page";
  }
}

// The YAML blocks of docs/ci.md that are GitHub Actions workflows (a `jobs:` map whose jobs have `steps:`).
std::vector<std::string> github_workflow_blocks() {
  std::vector<std::string> out;
  for (const auto& b : yaml_blocks()) {
    const YAML::Node doc = YAML::Load(b);
    if (!doc.IsMap() || !doc["jobs"] || !doc["jobs"].IsMap()) continue;
    bool steps = false;
    for (const auto& job : doc["jobs"])
      if (job.second.IsMap() && job.second["steps"]) steps = true;
    if (steps) out.push_back(b);
  }
  return out;
}

// actionlint (scripts/install-deps.sh builds the pinned one into tools/venv/bin) on the release workflow and every other
// file of .github/workflows/, and on each GitHub workflow of docs/ci.md (a fragment without `on:` gets `on: push`).
// Shellcheck and pyflakes are left out, so that the verdict does not depend on what else the machine has.
TEST(CiDocs, WorkflowsPassActionlint) {
  const fs::path actionlint = condlint::test::source_dir() / "tools/venv/bin/actionlint";
  if (!fs::exists(actionlint))
    GTEST_SKIP() << "skipped: no tools/venv/bin/actionlint (scripts/install-deps.sh builds it with go)";
  const fs::path work = condlint::test::fresh_dir("ci-docs-actionlint");
  std::string files;
  int repo_workflows = 0;
  for (const auto& e : fs::directory_iterator(condlint::test::source_dir() / ".github/workflows"))
    if (e.path().extension() == ".yml" || e.path().extension() == ".yaml") {
      files += " " + shell_quote(e.path().string());
      ++repo_workflows;
    }
  EXPECT_TRUE(fs::exists(condlint::test::source_dir() / ".github/workflows/release.yml"));
  const auto blocks = github_workflow_blocks();
  ASSERT_GE(blocks.size(), 4u) << "the action's, the three steps', the sharded matrix's and the fuzzing workflows";
  for (size_t i = 0; i < blocks.size(); ++i) {
    const fs::path f = work / ("docs-ci-" + std::to_string(i + 1) + ".yml");
    std::ofstream(f) << (YAML::Load(blocks[i])["on"] ? "" : "on: push\n") << blocks[i];
    files += " " + shell_quote(f.string());
  }
  const auto r = run(shell_quote(actionlint.string()) + " -no-color -shellcheck= -pyflakes=" + files + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::cout << "actionlint: " << repo_workflows << " workflow(s) of .github/workflows and " << blocks.size()
            << " of docs/ci.md pass\n";
}

// Until condlint is on PyPI, the workflows of docs/ci.md install the wheel the release workflow attaches to the GitHub
// release: each `pip install` names that wheel, of this version, under the name scripts/wheel.sh gives it (dist/'s,
// when a wheel was built), and the action is named at this version.
TEST(CiDocs, InstallCommandsNameTheReleasedWheelOfThisVersion) {
  const std::string v = CONDLINT_VERSION;
  const std::string wheel = "condlint-" + v + "-py3-none-manylinux_2_35_x86_64.whl";
  const std::string url = "https://github.com/OWNER/condlint/releases/download/v" + v + "/" + wheel;
  const fs::path dist = condlint::test::source_dir() / "dist";
  if (fs::is_directory(dist))
    for (const auto& w : fs::directory_iterator(dist))
      if (w.path().filename().string().rfind("condlint-" + v + "-", 0) == 0 && w.path().extension() == ".whl")
        EXPECT_EQ(w.path().filename().string(), wheel) << "scripts/wheel.sh's wheel has another name";
  int installs = 0, uses = 0;
  for (const auto& b : yaml_blocks()) {
    std::vector<std::string> lines;
    strings_of(YAML::Load(b), lines);
    for (const auto& l : lines) {
      if (l.find("pip install") != std::string::npos) {
        ++installs;
        EXPECT_NE(l.find("pip install " + url), std::string::npos) << l;
      }
      if (l.rfind("OWNER/condlint@", 0) == 0) {
        ++uses;
        EXPECT_EQ(l, "OWNER/condlint@v" + v);
      }
    }
  }
  EXPECT_GE(installs, 4) << "the three steps, the matrix and its merge job, GitLab";
  EXPECT_GE(uses, 1);
}

// Every `condlint lint` command line of docs/ci.md's workflows (the sharded ones are run below), and the local
// pre-commit hook's entry with the file names pre-commit gives it, run on a copy of the ONNX corpus: findings or none,
// never a usage error.
TEST(CiDocs, LintCommandLinesRun) {
  const fs::path work = condlint::test::fresh_dir("ci-docs-lint");
  fs::copy(condlint::test::source_dir() / "corpus/onnx", work / "models", fs::copy_options::recursive);
  std::ofstream(work / "notes.txt") << "not a model\n";
  const std::string in_work = "cd " + shell_quote(work.string()) + " && ";
  int n = 0;
  for (const auto& b : yaml_blocks()) {
    const YAML::Node doc = YAML::Load(b);
    std::vector<std::string> lines;
    strings_of(doc, lines);
    for (std::string l : lines) {
      if (l.find("--shard") != std::string::npos) continue;
      if (l.rfind("condlint lint --models-only --", 0) == 0) l += " models/valid/computed_condition.onnx notes.txt";
      else if (l.rfind("condlint lint ", 0) != 0) continue;
      l = std::regex_replace(l, std::regex(R"(\$\{\{ github\.workflow \}\})"), "docs");
      const std::string c = with_shard(l, 0);
      const auto r = run(in_work + c + " >/dev/null 2>&1");
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << l << " -> " << r.exit_code;
      ++n;
    }
  }
  EXPECT_GE(n, 2) << "the three steps' lint and the local pre-commit hook";
}

}  // namespace
