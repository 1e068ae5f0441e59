// Replays inputs through the loaders exactly as the fuzz targets (fuzz/*_fuzz.cpp) do:
//   - tests/fuzz_regressions/<target>/*: every crasher the fuzzers found (kept once fixed);
//   - every corpus file and importer fixture through every loader (the CI smoke: cheap, and
//     cross-format bytes are hostile input for the other loaders).
// A crash, hang or sanitizer report here is a regression; the test itself only needs "no crash".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "importers/nnapi_testmodel.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace condlint;
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The body of each fuzz target. Returns the number of findings (any number is fine).
size_t replay(const std::string& target, const std::string& bytes) {
  if (target == "ir_loader_fuzz") {
    auto m = load_ir("fuzz.xml", bytes);
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "onnx_loader_fuzz") {
    auto m = load_onnx("fuzz.onnx", bytes);
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "nnapi_loader_fuzz") {
    auto m = load_nnapi("fuzz.nnapi.json", bytes);
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "nnapi_testmodel_fuzz") {
    std::vector<ImportedModel> out;
    std::string error;
    (void)convert_nnapi_testmodels(bytes, out, error);
    size_t n = 0;
    for (const auto& im : out) {
      auto m = load_nnapi(im.name + ".nnapi.json", im.json);
      if (m) n += run_rules(*m, RuleSelection{}).size();
    }
    return n;
  }
  ADD_FAILURE() << "unknown fuzz target " << target << " (a directory under tests/fuzz_regressions/)";
  return 0;
}

const char* const kTargets[] = {"ir_loader_fuzz", "onnx_loader_fuzz", "nnapi_loader_fuzz", "nnapi_testmodel_fuzz"};

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> v;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "README.md") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(FuzzRegressions, EveryKeptCrasherReplaysWithoutCrashing) {
  const fs::path root = test::source_dir() / "tests/fuzz_regressions";
  size_t replayed = 0;
  for (const auto& f : files_under(root)) {
    const std::string target = f.lexically_relative(root).begin()->string();
    SCOPED_TRACE(f.string());
    (void)replay(target, slurp(f));
    ++replayed;
  }
  std::printf("[ figures  ] %zu fuzz regressions replayed\n", replayed);
}

TEST(FuzzSmoke, CorpusAndFixturesThroughEveryLoader) {
  std::vector<fs::path> inputs = files_under(test::source_dir() / "corpus");
  for (const auto& f : files_under(test::source_dir() / "tests/fixtures")) inputs.push_back(f);
  ASSERT_GT(inputs.size(), 50u);
  size_t runs = 0;
  for (const auto& f : inputs) {
    SCOPED_TRACE(f.string());
    const std::string bytes = slurp(f);
    for (const char* t : kTargets) {
      (void)replay(t, bytes);
      ++runs;
    }
  }
  std::printf("[ figures  ] %zu files x %zu loaders replayed\n", inputs.size(), std::size(kTargets));
  EXPECT_EQ(runs, inputs.size() * std::size(kTargets));
}

}  // namespace
