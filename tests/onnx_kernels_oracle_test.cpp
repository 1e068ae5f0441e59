// corpus-modern/kernels (one-node models with ONNX Runtime's outputs, tools/onnx_oracle/gen_kernel_cases.py): the
// kernels of src/exec/kernels_norm.cpp and kernels_attention.cpp agree with ONNX Runtime on every case, and each
// kernel has a case; Attention also passes onnx's own node tests (corpus-modern/kernels/onnx_node_tests/).
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
    // In process, as `condlint run` runs it (a process each would take seconds for the 40 cases).
    const condlint::exec::ModelResult r = run_file(dir / "model.onnx");
    ASSERT_TRUE(r.error.empty()) << dir << ": " << r.error;
    EXPECT_EQ(r.passed, 1) << dir << (r.cases.empty() ? "" : ": " + r.cases[0].message);
    EXPECT_EQ(r.failed, 0) << dir;
    EXPECT_EQ(r.unsupported, 0) << dir;
  }
  EXPECT_GE(cases, 40);
}

TEST(OnnxKernelsOracle, EachNewKernelHasCases) {
  std::multiset<std::string> ops;
  for (const fs::path& dir : kernel_cases()) ops.insert(op_of(dir));
  for (const char* op : {"RMSNormalization", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization",
                         "RoiAlign", "Attention", "GroupQueryAttention"})
    EXPECT_GE(ops.count(op), 4u) << op << " has fewer than 4 cases in corpus-modern/kernels";
}

TEST(OnnxKernelsOracle, AttentionPassesOnnxNodeTests) {
  // onnx's node tests of Attention with the outputs of onnx's reference, run in this process (93 models; a process
  // each would take seconds). Those of opsets 23 and 24 pass; those that need nonpad_kv_seqlen (opset 24) or opset
  // 25's window attributes are unsupported, naming what, and none is a wrong answer.
  int passed = 0, unsupported = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "corpus-modern" / "kernels" / "onnx_node_tests")) {
    const condlint::exec::ModelResult r = run_file(e.path() / "model.onnx");
    ASSERT_TRUE(r.error.empty()) << e.path() << ": " << r.error;
    ASSERT_EQ(r.cases.size(), 1u) << e.path();
    const auto& c = r.cases[0];
    if (c.status == condlint::exec::CaseStatus::Unsupported) {
      ++unsupported;
      EXPECT_TRUE(c.message.find("with input nonpad_kv_seqlen") != std::string::npos ||
                  c.message.find("with opset 25") != std::string::npos)
          << e.path() << ": " << c.message;
      continue;
    }
    EXPECT_EQ(c.status, condlint::exec::CaseStatus::Passed) << e.path() << ": " << c.message;
    passed += c.status == condlint::exec::CaseStatus::Passed;
  }
  EXPECT_EQ(passed, 73);
  EXPECT_EQ(unsupported, 20);
}
