// Real-world models that npm packages ship (tests/realworld/models.tsv, unpacked by scripts/install-deps.sh into
// tools/models/): every one lints with no error and no warning. A package that is not installed is named; the test
// skips when none is.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace {

struct RealModel {
  std::string package, version, path;
  fs::path file;
};

std::vector<RealModel> manifest() {
  std::vector<RealModel> out;
  std::ifstream in(source_dir() / "tests" / "realworld" / "models.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    RealModel m;
    if (!std::getline(ss, m.package, '\t') || !std::getline(ss, m.version, '\t') || !std::getline(ss, m.path, '\t'))
      continue;
    std::string dir = m.package;
    for (char& c : dir)
      if (c == '/') c = '+';
    m.file = source_dir() / "tools" / "models" / (dir + "@" + m.version) / m.path;
    out.push_back(m);
  }
  return out;
}

TEST(RealWorld, ShippedModelsLintWithoutErrorsOrWarnings) {
  const auto models = manifest();
  ASSERT_FALSE(models.empty()) << "tests/realworld/models.tsv lists no model";
  std::set<std::string> missing;
  int linted = 0;
  for (const auto& m : models) {
    if (!fs::is_regular_file(m.file)) {
      missing.insert(m.package + "@" + m.version);
      continue;
    }
    LoadResult lr = load_file(m.file.string());
    ASSERT_TRUE(lr.model) << m.file << ": " << lr.io_error;
    std::map<Level, int> by_level;
    std::string shown;
    for (const auto& f : run_rules(*lr.model, RuleSelection{})) {
      ++by_level[f.level];
      if (f.level >= Level::Warning) shown += "\n  " + f.rule + " " + f.loc.node + ": " + f.message;
    }
    ++linted;
    std::printf("real-world %s@%s %s: %d errors, %d warnings, %d notes\n", m.package.c_str(), m.version.c_str(),
                m.path.c_str(), by_level[Level::Error], by_level[Level::Warning], by_level[Level::Note]);
    EXPECT_EQ(by_level[Level::Error] + by_level[Level::Warning], 0) << m.package << " " << m.path << shown;
  }
  std::string names;
  for (const auto& p : missing) names += " " + p;
  if (linted == 0)
    GTEST_SKIP() << "skipped: no real-world model is installed (missing npm packages:" << names
                 << "); scripts/install-deps.sh unpacks them into tools/models/";
  if (!missing.empty()) std::printf("real-world: not installed, not linted:%s\n", names.c_str());
}

}  // namespace
