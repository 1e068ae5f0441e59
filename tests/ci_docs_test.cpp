// docs/ci.md's workflows are code: every YAML block there parses, and the condlint command lines of the sharded
// GitHub Actions matrix and the GitLab `parallel:` job run on the corpus, and their merge jobs give, byte for byte,
// the SARIF of the unsharded run.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
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

}  // namespace
