// C014: the nodes after an If judged once per branch (loaders/onnx_branch_consumers). The corpus cases are run in
// ONNX Runtime (tools/venv): each one C014 reports fails under its breaking branch and runs under the other, and the
// silent ones run under both; the loader's budget falls back to the union with a note.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <string>

#include "bench/onnx_gen.hpp"
#include "loaders/loader.hpp"
#include "model/onnx_data.hpp"
#include "rules/engine.hpp"
#include "test_support.hpp"

using namespace condlint;
using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

std::vector<Finding> c014_of(const std::vector<Finding>& all) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (f.rule == "C014") out.push_back(f);
  return out;
}

std::vector<Finding> c014_in(const std::string& corpus_case) {
  return c014_of(lint_file((source_dir() / "corpus/onnx" / corpus_case).string()));
}

// A model: If 'pick' on input 'c' whose then branch is a constant of then_dims and else branch one of else_dims,
// `relus` Relu nodes after it, then MatMul 'proj' by W [1,2].
std::string relu_chain(std::initializer_list<int64_t> then_dims, std::initializer_list<int64_t> else_dims, int relus) {
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto branch = [&](onnx::GraphProto* b, const char* out, std::initializer_list<int64_t> dims) {
    b->set_name(out);
    auto* n = gen::onnx_node(b, "Constant", std::string(out) + "_c", {}, {out});
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t count = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i) t->add_float_data(1.0f);
    gen::onnx_value(b->add_output(), out, onnx::TensorProto::FLOAT, dims);
  };
  auto* node = gen::onnx_node(g, "If", "pick", {"c"}, {"r0"});
  auto* ta = node->add_attribute();
  ta->set_name("then_branch");
  ta->set_type(onnx::AttributeProto::GRAPH);
  branch(ta->mutable_g(), "t_out", then_dims);
  auto* ea = node->add_attribute();
  ea->set_name("else_branch");
  ea->set_type(onnx::AttributeProto::GRAPH);
  branch(ea->mutable_g(), "e_out", else_dims);
  for (int k = 0; k < relus; ++k)
    gen::onnx_node(g, "Relu", "relu" + std::to_string(k), {"r" + std::to_string(k)}, {"r" + std::to_string(k + 1)});
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1);
  w->add_dims(2);
  w->add_float_data(1.0f);
  w->add_float_data(2.0f);
  gen::onnx_node(g, "MatMul", "proj", {"r" + std::to_string(relus), "W"}, {"out"});
  gen::onnx_value(g->add_output(), "out", onnx::TensorProto::FLOAT, {2, 2});
  return m.SerializeAsString();
}

}  // namespace

TEST(BranchConsumers, TheIssuesMatMulIsAnErrorNamingBothSides) {
  const auto f = c014_in("invalid/C014_matmul.onnx");
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Error);
  EXPECT_EQ(f[0].loc.node, "main/proj");
  for (const char* part : {"when 'cond' is false", "If 'pick' output 0 is f32[2] (the then branch gives f32[2,1])",
                           "MatMul 'proj' cannot multiply f32[2] by f32[1,2]", "onnx's MatMul-13 inference fails"})
    EXPECT_NE(f[0].message.find(part), std::string::npos) << part << " not in: " << f[0].message;
}

TEST(BranchConsumers, AConditionFromDataIsAnErrorAndAShapeGuardANote) {
  const auto data = c014_in("invalid/C014_data_condition.onnx");
  ASSERT_EQ(data.size(), 1u) << dump_findings(data);
  EXPECT_EQ(data[0].level, Level::Error);
  const auto guard = c014_in("invalid/C014_shape_guard_note.onnx");
  ASSERT_EQ(guard.size(), 1u) << dump_findings(guard);
  EXPECT_EQ(guard[0].level, Level::Note);
  EXPECT_NE(guard[0].message.find("dim 0 of 'x' == 1 is false"), std::string::npos) << guard[0].message;
}

TEST(BranchConsumers, NestedIfsNameEveryBranchOfTheCase) {
  const auto f = c014_in("invalid/C014_nested.onnx");
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Error);
  EXPECT_NE(f[0].message.find("when 'cond' is true, and 'inner_cond' is false"), std::string::npos) << f[0].message;
}

TEST(BranchConsumers, TheConsumerBehindOthersIsFoundAndOnlyTheFirstFailure) {
  const auto f = c014_in("invalid/C014_gemm_behind_relu.onnx");
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].loc.node, "main/dense");
  EXPECT_NE(f[0].message.find("1 node further on"), std::string::npos) << f[0].message;
}

TEST(BranchConsumers, SilentWhereTheConsumerTakesBothOrTheBranchIsDead) {
  for (const char* c : {"valid/downstream_broadcast.onnx", "valid/downstream_shape_agnostic.onnx",
                        "valid/downstream_dead_branch.onnx", "valid/if_opset11.onnx", "valid/nested_ifs.onnx"})
    EXPECT_TRUE(c014_in(c).empty()) << c << ": " << dump_findings(c014_in(c));
}

// Past the nodes followed per If, the consumers are judged on the union (silent here) and a note says so; within
// it, the MatMul at the end of the chain is found.
TEST(BranchConsumers, TheBudgetFallsBackToTheUnionWithANote) {
  const int budget = 256;
  auto near = load_onnx("near.onnx", relu_chain({2, 1}, {2}, budget - 1));
  auto f = c014_of(run_rules(*near, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Error);
  EXPECT_EQ(f[0].loc.node, "main/proj");
  auto far = load_onnx("far.onnx", relu_chain({2, 1}, {2}, budget + 10));
  f = c014_of(run_rules(*far, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Note);
  EXPECT_NE(f[0].message.find("followed per branch for 256 nodes"), std::string::npos) << f[0].message;
  // Branches that agree leave nothing to follow.
  auto same = load_onnx("same.onnx", relu_chain({2, 1}, {2, 1}, 3));
  EXPECT_TRUE(same->onnx->branch_breaks.empty());
  EXPECT_TRUE(c014_of(run_rules(*same, RuleSelection{})).empty());
}

// Every corpus case of C014 in ONNX Runtime: onnx's checker and ORT's loader accept it; it fails under the branch
// C014 names and runs under the other. The silent cases run under every branch.
TEST(BranchConsumers, OnnxRuntimeFailsWhereC014SaysAndRunsElsewhere) {
  const fs::path py = source_dir() / "tools/venv/bin/python";
  if (!fs::exists(py) || run(shell_quote(py.string()) + " -c 'import onnxruntime' 2>/dev/null").exit_code != 0)
    GTEST_SKIP() << "tools/venv with onnxruntime is absent (scripts/install-deps.sh creates it)";
  const std::string script = R"(import sys, numpy as np, onnx, onnxruntime as ort
ort.set_default_logger_severity(4)
T, F = np.array(True), np.array(False)
cases = {
 "invalid/C014_matmul.onnx": ({"cond": F}, [{"cond": T}]),
 "invalid/C014_add_broadcast.onnx": ({"cond": F}, [{"cond": T}]),
 "invalid/C014_reshape.onnx": ({"cond": F}, [{"cond": T}]),
 "invalid/C014_concat_rank.onnx": ({"cond": F}, [{"cond": T}]),
 "invalid/C014_gemm_behind_relu.onnx": ({"cond": F}, [{"cond": T}]),
 "invalid/C014_data_condition.onnx": ({"x": np.array([-1, -2, -3], np.float32)},
                                      [{"x": np.array([1, 2, 3], np.float32)}]),
 "invalid/C014_nested.onnx": ({"cond": T, "inner_cond": F},
                              [{"cond": T, "inner_cond": T}, {"cond": F, "inner_cond": F}]),
 "invalid/C014_shape_guard_note.onnx": ({"x": np.ones((2, 4), np.float32)}, [{"x": np.ones((1, 4), np.float32)}]),
 "invalid/C014_if_in_loop.onnx": ({"flag": F}, [{"flag": T}]),
 "invalid/C011_shape_guard_union.onnx": ({"c": T, "x": np.ones((2, 3), np.float32)},
                                         [{"c": F, "x": np.ones((2, 3), np.float32)}]),
 "invalid/OV002_dynamic_rank_if.onnx": ({"c": T, "x": np.ones((2, 3), np.float32)},
                                        [{"c": F, "x": np.ones((2, 3), np.float32)}]),
 "valid/downstream_broadcast.onnx": (None, [{"cond": T}, {"cond": F}]),
 "valid/downstream_shape_agnostic.onnx": (None, [{"cond": T}, {"cond": F}]),
 "valid/downstream_dead_branch.onnx": (None, [{"x": np.ones(2, np.float32)}]),
}
for p, (breaking, working) in cases.items():
    path = sys.argv[1] + "/" + p
    onnx.checker.check_model(onnx.load(path))
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    if breaking is not None:
        try:
            s.run(None, breaking)
            print("RAN", p)
        except Exception:
            print("fails", p)
    for w in working:
        try:
            s.run(None, w)
            print("runs", p)
        except Exception as e:
            print("FAILED", p, str(e).splitlines()[0][:200])
)";
  const fs::path s = fresh_dir("branch_consumers_ort") / "ort_cases.py";
  write_file(s, script);
  const auto r = run(shell_quote(py.string()) + " " + shell_quote(s.string()) + " " +
                     shell_quote((source_dir() / "corpus/onnx").string()) + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("RAN"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "fails "), 11) << r.out;
  // Every corpus case whose expectations name C014 is among the script's, and fails there.
  int cases = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "corpus/onnx/invalid")) {
    if (e.path().extension() != ".expect" || slurp(e.path()).find("C014") == std::string::npos) continue;
    const std::string name = "invalid/" + e.path().stem().string() + ".onnx";
    EXPECT_NE(r.out.find("fails " + name), std::string::npos) << name << " is not run in ONNX Runtime";
    EXPECT_EQ(c014_in(name).size(), 1u) << name;
    ++cases;
  }
  EXPECT_EQ(cases, 11);
}

// The executor agrees with every error of C014: `run --random` synthesizes both values of the condition and fails
// at the consumer C014 names.
TEST(BranchConsumers, RunRandomFailsAtTheConsumerOfEveryError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"C014_matmul", "main/proj (MatMul)"},          {"C014_add_broadcast", "main/bias (Add)"},
      {"C014_reshape", "main/flat (Reshape)"},        {"C014_concat_rank", "main/join (Concat)"},
      {"C014_gemm_behind_relu", "main/dense (Gemm)"}, {"C014_data_condition", "main/proj (MatMul)"},
      {"C014_nested", "main/proj (MatMul)"},          {"C014_if_in_loop", "main/loop/body/proj (MatMul)"}};
  for (const auto& [name, at] : cases) {
    const std::string model = "corpus/onnx/invalid/" + name + ".onnx";
    const auto f = c014_in("invalid/" + name + ".onnx");
    ASSERT_EQ(f.size(), 1u) << name;
    ASSERT_EQ(f[0].level, Level::Error) << name;
    const auto r = condlint_in_checkout("run --random 4 " + model);
    EXPECT_EQ(r.exit_code, 1) << name << ":\n" << r.out;
    EXPECT_NE(r.out.find("at " + at + ":"), std::string::npos) << name << ":\n" << r.out;
    // The run fails where the static finding is.
    EXPECT_NE(r.out.find("at " + f[0].loc.node + " ("), std::string::npos) << name << ": " << f[0].loc.node;
  }
}
