// corpus-openvino/ops: one tiny IR per OpenVINO op and attribute variant, with OpenVINO's own CPU outputs (f32) as
// golden data (tools/openvino_corpus/op_oracle.py wrote them). `condlint run` must run each whole and agree with
// OpenVINO within docs/golden-data.md's tolerances; every op the IR executor runs beyond the ops other tests hold
// must have a case here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "exec/ir_exec.hpp"
#include "exec/onnx_io.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::test;

namespace {

fs::path ops_dir() { return source_dir() / "corpus-openvino" / "ops"; }

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(ops_dir()))
    if (fs::exists(e.path() / "model.xml")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The ops the executor ran before the oracle cases, held by other tests (exec_ir_test, the OpenVINO corpus).
const std::set<std::string>& held_elsewhere() {
  static const std::set<std::string> ops{
      "Abs",        "Add",         "Broadcast",    "Ceiling",      "Concat",       "Const",        "Constant",
      "Convert",    "Divide",      "Equal",        "Exp",          "Floor",        "Gather",       "Greater",
      "GreaterEqual", "Identity",  "If",           "Less",         "LessEqual",    "Log",          "LogicalAnd",
      "LogicalNot", "LogicalOr",   "LogicalXor",   "Loop",         "MatMul",       "Maximum",      "Minimum",
      "Multiply",   "Negative",    "NotEqual",     "Parameter",    "Power",        "ReLU",         "ReduceMax",
      "ReduceMean", "ReduceMin",   "ReduceProd",   "ReduceSum",    "Relu",         "Reshape",      "Result",
      "Select",     "ShapeOf",     "Sigmoid",      "SoftMax",      "Softmax",      "Sqrt",         "Squeeze",
      "StridedSlice", "Subtract",  "Tanh",         "Transpose",    "Unsqueeze"};
  return ops;
}

}  // namespace

TEST(IrOpsOracle, EveryCaseRunsWholeAndAgreesWithOpenVino) {
  const auto all = cases();
  ASSERT_GE(all.size(), 40u) << ops_dir();
  for (const auto& d : all) {
    ASSERT_TRUE(fs::exists(d / "test_data_set_0" / "output_0.pb")) << d;
    const auto [r, summary] = run_model(d / "model.xml");
    ASSERT_FALSE(summary.empty()) << d << "\n" << r.out;
    EXPECT_NE(summary.find(" 0 failed"), std::string::npos) << d << "\n" << r.out;
    EXPECT_NE(summary.find(" 0 unsupported"), std::string::npos) << d << "\n" << r.out;
    EXPECT_EQ(summary.find(" 0 passed"), std::string::npos) << d << "\n" << r.out;
    EXPECT_EQ(r.exit_code, 0) << d << "\n" << r.out;
  }
}

TEST(IrOpsOracle, EveryOpOfTheExecutorBeyondTheOlderOnesHasACase) {
  std::set<std::string> covered;
  for (const auto& d : cases()) {
    const std::string xml = read_text(d / "model.xml");
    for (size_t at = xml.find(" type=\""); at != std::string::npos; at = xml.find(" type=\"", at + 1)) {
      const size_t b = at + 7, e = xml.find('"', b);
      covered.insert(xml.substr(b, e - b));
    }
  }
  int added = 0;
  for (const std::string& op : condlint::exec::ir_op_types()) {
    if (held_elsewhere().count(op)) continue;
    ++added;
    EXPECT_TRUE(covered.count(op)) << op << " has no case in " << ops_dir() << " (tools/openvino_corpus/op_oracle.py)";
  }
  EXPECT_GE(added, 25);
}

// Hostile region coordinates: a bin too large (or NaN) to count its samples fails the run with a message, never a
// cast of an out-of-range double or a loop of 1e30 samples.
TEST(IrOpsOracle, RoiAlignRefusesRegionsTooLargeToSample) {
  using namespace condlint::exec;
  const fs::path src = ops_dir() / "ROIAlign_avg_half_pixel_for_nn_adaptive";
  const fs::path dir = fs::temp_directory_path() / ("condlint_ir_ops_roi_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "test_data_set_0");
  for (const char* f : {"model.xml", "model.bin"}) fs::copy_file(src / f, dir / f);
  fs::copy_file(src / "test_data_set_0" / "input_0.pb", dir / "test_data_set_0" / "input_0.pb");
  for (const double v : {1e30, std::nan("")}) {
    Tensor rois(DT::F32, {3, 4});
    for (int64_t k = 0; k < rois.numel(); ++k) rois.f[k] = k % 4 < 2 ? 0.0 : v;
    write_file(dir / "test_data_set_0" / "input_1.pb", write_pb_value(Value::tensor(rois), "in1"));
    const ModelResult r = condlint::test::run_file(dir / "model.xml", RunConfig{});
    ASSERT_EQ(r.cases.size(), 1u) << r.error;
    EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
    EXPECT_NE(r.cases[0].message.find("ROIAlign region 0 has a bin of"), std::string::npos) << r.cases[0].message;
  }
  fs::remove_all(dir);
}
