// corpus-modern/kernels (one-node models with ONNX Runtime's outputs, tools/onnx_oracle/gen_kernel_cases.py): the
// kernels of src/exec/kernels_norm.cpp agree with ONNX Runtime on every case, and each kernel has a case.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::test;

namespace {

// The case folders (each holds model.onnx), in path order.
std::vector<fs::path> kernel_cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(source_dir() / "corpus-modern" / "kernels"))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// "RoiAlign" of "RoiAlign_op16_max".
std::string op_of(const fs::path& dir) {
  const std::string n = dir.filename().string();
  return n.substr(0, n.find('_'));
}

}  // namespace

TEST(OnnxKernelsOracle, EveryCaseAgreesWithOnnxRuntime) {
  int cases = 0;
  for (const fs::path& dir : kernel_cases()) {
    ++cases;
    const auto [r, summary] = run_model(dir / "model.onnx");
    ASSERT_FALSE(summary.empty()) << dir << "\n" << r.out;
    EXPECT_NE(summary.find(" 1 passed"), std::string::npos) << dir << "\n" << r.out;
    EXPECT_NE(summary.find(" 0 failed"), std::string::npos) << dir << "\n" << r.out;
    EXPECT_NE(summary.find(" 0 unsupported"), std::string::npos) << dir << "\n" << r.out;
  }
  EXPECT_GE(cases, 20);
}

TEST(OnnxKernelsOracle, EachNewKernelHasCases) {
  std::multiset<std::string> ops;
  for (const fs::path& dir : kernel_cases()) ops.insert(op_of(dir));
  for (const char* op : {"RMSNormalization", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization",
                         "RoiAlign"})
    EXPECT_GE(ops.count(op), 4u) << op << " has fewer than 4 cases in corpus-modern/kernels";
}
