// Conformance: every model of Debian's libonnx-testdata (node, simple, pytorch-converted,
// pytorch-operator) loads with no error-level finding, except the few that onnx's own strict check rejects too. The
// package is listed in scripts/install-deps.sh; without it the test skips and says so.
#include <gtest/gtest.h>

#include <map>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;

namespace {

const fs::path kData = "/usr/share/libonnx-testdata/data";

// Models that are true spec violations, with the reason (documented on the rule page).
// Each is rejected by onnx 1.12's check_model(full_check=True) for the same reason.
const std::map<std::string, std::string> kExpectedErrors = {
    {"pytorch-converted/test_PixelShuffle/model.onnx:ONNX008", "Constant-1 allows float types only; it holds int64"},
    {"pytorch-operator/test_operator_repeat/model.onnx:ONNX008", "Constant-1 allows float types only; it holds int64"},
    {"pytorch-operator/test_operator_repeat_dim_overflow/model.onnx:ONNX008",
     "Constant-1 allows float types only; it holds int64"},
};

TEST(OnnxConformance, LibOnnxTestdataLoadsWithoutErrors) {
  if (!fs::is_directory(kData))
    GTEST_SKIP() << kData << " is absent: install Debian's libonnx-testdata (scripts/install-deps.sh) to run this test";
  std::map<std::string, int> models, with_if, errors;
  int notes = 0, warnings = 0;
  for (const char* suite : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
    const fs::path dir = kData / suite;
    if (!fs::is_directory(dir)) continue;
    for (const auto& f : collect_inputs({dir.string()}).files) {
      if (fs::path(f).extension() != ".onnx") continue;
      ++models[suite];
      LoadResult lr = load_file(f);
      ASSERT_TRUE(lr.model) << f << ": " << lr.io_error;
      if (!lr.model->conditionals.empty()) ++with_if[suite];
      for (const auto& x : run_rules(*lr.model, RuleSelection{})) {
        const std::string rel = fs::relative(f, kData).string();
        if (x.level == Level::Error) {
          ++errors[suite];
          auto it = kExpectedErrors.find(rel + ":" + x.rule);
          EXPECT_TRUE(it != kExpectedErrors.end()) << rel << ": " << x.rule << " " << x.message;
        } else if (x.level == Level::Warning) {
          ++warnings;
        } else {
          ++notes;
        }
      }
    }
  }
  int total = 0;
  for (const auto& [suite, n] : models) {
    std::printf("libonnx-testdata %-18s %4d models, %2d with If, %d error findings\n", suite.c_str(), n, with_if[suite],
                errors[suite]);
    total += n;
  }
  std::printf("libonnx-testdata total %d models; %d warnings, %d notes\n", total, warnings, notes);
  EXPECT_GE(models["node"], 900) << "the node suite should hold about 932 models";
  EXPECT_GT(with_if["node"], 0) << "the node suite has If tests (test_if, test_if_seq, test_if_opt)";
}

}  // namespace
