// C014: the nodes after an If judged once per branch (loaders/onnx_branch_consumers; IR and NNAPI:
// loaders/branch_follow). The ONNX corpus cases are run in ONNX Runtime and the IR ones in OpenVINO (tools/venv): each
// one C014 reports fails under its breaking branch and runs under the other, and the silent ones run under both; the
// loaders' budgets fall back to the union with a note; `run` fails at every error's consumer, naming the branch.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <functional>
#include <sstream>
#include <string>

#include "bench/onnx_gen.hpp"
#include "loaders/loader.hpp"
#include "model/nnapi_data.hpp"
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

// An If `name` on `cond` whose then branch is a constant of then_dims and else branch one of else_dims.
void add_if_of_constants(onnx::GraphProto* g, const std::string& name, const std::string& cond, const std::string& out,
                         std::initializer_list<int64_t> then_dims, std::initializer_list<int64_t> else_dims) {
  auto* node = gen::onnx_node(g, "If", name, {cond}, {out});
  int k = 0;
  for (const auto* dims : {&then_dims, &else_dims}) {
    auto* a = node->add_attribute();
    a->set_name(k == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* b = a->mutable_g();
    const std::string o = name + (k == 0 ? "_t" : "_e");
    b->set_name(o);
    auto* c = gen::onnx_node(b, "Constant", o + "_c", {}, {o});
    auto* v = c->add_attribute();
    v->set_name("value");
    v->set_type(onnx::AttributeProto::TENSOR);
    auto* t = v->mutable_t();
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t count = 1;
    for (int64_t d : *dims) {
      t->add_dims(d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i) t->add_float_data(1.0f);
    gen::onnx_value(b->add_output(), o, onnx::TensorProto::FLOAT, *dims);
    ++k;
  }
}

// Inputs x and y (float scalars). If 'low' on `low_reads` > 0 gives [1] or [3], If 'high' on `high_reads` > 1 gives
// [4] or [high_else]; Add 'sum' of both breaks only when 'low' takes else and 'high' then (and, when high_else is
// neither 1 nor 3, when both take else). `extra`: nodes before the comparisons (what they read).
std::string two_comparisons(const std::string& low_reads, const std::string& high_reads,
                            const std::function<void(onnx::GraphProto*)>& extra = {}, int64_t high_else = 1) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("main");
  gen::onnx_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {});
  gen::onnx_value(g->add_input(), "y", onnx::TensorProto::FLOAT, {});
  for (const char* k : {"zero", "one"}) {
    auto* t = g->add_initializer();
    t->set_name(k);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(k[0] == 'z' ? 0.0f : 1.0f);
  }
  if (extra) extra(g);
  gen::onnx_node(g, "Greater", "above0", {low_reads, "zero"}, {"c_low"});
  gen::onnx_node(g, "Greater", "above1", {high_reads, "one"}, {"c_high"});
  add_if_of_constants(g, "low", "c_low", "lo", {1}, {3});
  add_if_of_constants(g, "high", "c_high", "hi", {4}, {high_else});
  gen::onnx_node(g, "Add", "sum", {"lo", "hi"}, {"out"});
  auto* out = g->add_output();
  out->set_name("out");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return m.SerializeAsString();
}

}  // namespace

// Two Ifs whose conditions read the same input through different comparisons: the one combination that breaks the
// Add (x <= 0 with x > 1) never happens, so C014 says it was not proven to happen, as a note; on two inputs, each
// condition is free on its own and the same break is an error.
TEST(BranchConsumers, ACombinationIsAnErrorOnlyWhenItsConditionsReadDisjointSources) {
  for (const char* c : {"corpus/onnx/valid/downstream_overlapping_conditions.onnx",
                        "corpus/ir/valid/downstream_overlapping_conditions.xml"}) {
    const auto f = c014_of(lint_file((source_dir() / c).string()));
    ASSERT_EQ(f.size(), 1u) << c << ": " << dump_findings(f);
    EXPECT_EQ(f[0].level, Level::Note) << c;
    EXPECT_NE(f[0].message.find("both read 'x', so"), std::string::npos) << f[0].message;
    EXPECT_NE(f[0].message.find("this combination of branches may never happen"), std::string::npos) << f[0].message;
  }
  auto one = load_onnx("one_input.onnx", two_comparisons("x", "x"));
  auto f = c014_of(run_rules(*one, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Note) << f[0].message;
  auto two = load_onnx("two_inputs.onnx", two_comparisons("x", "y"));
  f = c014_of(run_rules(*two, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Error) << f[0].message;
  EXPECT_NE(f[0].message.find("Add 'sum' cannot broadcast f32[3] with f32[4]"), std::string::npos) << f[0].message;
  // A break under either branch of 'high' needs only 'low''s else branch: an error as for one If.
  auto either = load_onnx("either.onnx", two_comparisons("x", "x", {}, 5));
  f = c014_of(run_rules(*either, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Error) << f[0].message;
  EXPECT_NE(f[0].message.find("(1 other case of branches break it too)"), std::string::npos) << f[0].message;
  // Through other nodes to one input: still one source.
  auto through = load_onnx("through.onnx", two_comparisons("xn", "xa", [](onnx::GraphProto* g) {
                             gen::onnx_node(g, "Neg", "neg", {"x"}, {"xn"});
                             gen::onnx_node(g, "Abs", "abs", {"x"}, {"xa"});
                           }));
  f = c014_of(run_rules(*through, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Note) << f[0].message;
  // A condition computed through more nodes than the walk visits reads an unknown source: a note, though y is not x.
  auto deep = load_onnx("deep.onnx", two_comparisons("x300", "y", [](onnx::GraphProto* g) {
                          for (int k = 0; k < 300; ++k)
                            gen::onnx_node(g, "Neg", "neg" + std::to_string(k),
                                           {k == 0 ? std::string("x") : "x" + std::to_string(k)},
                                           {"x" + std::to_string(k + 1)});
                        }));
  f = c014_of(run_rules(*deep, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Note) << f[0].message;
  EXPECT_NE(f[0].message.find("the condition of If 'low' reads values condlint does not trace"), std::string::npos)
      << f[0].message;
  // A random value both conditions read is a common source, though no input is.
  auto random = load_onnx("random.onnx", two_comparisons("xr", "yr", [](onnx::GraphProto* g) {
                            auto* r = gen::onnx_node(g, "RandomNormal", "noise", {}, {"r"});
                            auto* shape = r->add_attribute();
                            shape->set_name("shape");
                            shape->set_type(onnx::AttributeProto::INTS);
                            gen::onnx_node(g, "Add", "xr", {"x", "r"}, {"xr"});
                            gen::onnx_node(g, "Add", "yr", {"y", "r"}, {"yr"});
                          }));
  f = c014_of(run_rules(*random, RuleSelection{}));
  ASSERT_EQ(f.size(), 1u) << dump_findings(f);
  EXPECT_EQ(f[0].level, Level::Note) << f[0].message;
  EXPECT_NE(f[0].message.find("RandomNormal 'noise'"), std::string::npos) << f[0].message;
}

// The corpus cases of that note run in ONNX Runtime and OpenVINO for every x tried, infinities and NaN among them:
// no input selects the combination that breaks the Add.
TEST(BranchConsumers, OverlappingConditionsRunForEveryInput) {
  const fs::path py = source_dir() / "tools/venv/bin/python";
  if (!fs::exists(py) ||
      run(shell_quote(py.string()) + " -c 'import onnxruntime, openvino' 2>/dev/null").exit_code != 0)
    GTEST_SKIP() << "tools/venv with onnxruntime and openvino is absent (scripts/install-deps.sh creates it)";
  const std::string script = R"(import sys, numpy as np, onnxruntime as ort, openvino as ov
xs = [-5.0, -1.0, 0.0, 0.5, 1.0, 1.0000001, 1.5, 2.0, 100.0, float("inf"), float("-inf"), float("nan")]
s = ort.InferenceSession(sys.argv[1] + "/onnx/valid/downstream_overlapping_conditions.onnx",
                         providers=["CPUExecutionProvider"])
c = ov.Core().compile_model(sys.argv[1] + "/ir/valid/downstream_overlapping_conditions.xml", "CPU")
for x in xs:
    for name, go in (("onnxruntime", lambda: s.run(None, {"x": np.array(x, np.float32)})),
                     ("openvino", lambda: c.infer_new_request(
                         [np.array(x, np.float32)] + [np.ones(n, np.float32) for n in (1, 3, 4, 1)]))):
        try:
            go()
            print("runs", name, x)
        except Exception as e:
            print("FAILED", name, x, str(e).splitlines()[0][:200])
)";
  const fs::path s = fresh_dir("branch_consumers_overlap") / "overlap.py";
  write_file(s, script);
  const auto r = run(shell_quote(py.string()) + " " + shell_quote(s.string()) + " " +
                     shell_quote((source_dir() / "corpus").string()) + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "runs "), 24) << r.out;
}

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
 "invalid/C014_gemm_inner_dim.onnx": ({"cond": F}, [{"cond": T}]),
 "invalid/C014_reshape_count.onnx": ({"x": np.array([-1, -2, -3], np.float32)}, [{"x": np.ones(3, np.float32)}]),
 "invalid/C014_branch_outputs_without_shapes.onnx": ({"cond": F, "z": np.ones((1, 2), np.float32)},
                                                     [{"cond": T, "z": np.ones((1, 2), np.float32)}]),
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
  EXPECT_EQ(count(r.out, "fails "), 14) << r.out;
  // Every corpus case whose expectations name C014 is among the script's, and fails there.
  int cases = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "corpus/onnx/invalid")) {
    if (e.path().extension() != ".expect" || slurp(e.path()).find("C014") == std::string::npos) continue;
    const std::string name = "invalid/" + e.path().stem().string() + ".onnx";
    EXPECT_NE(r.out.find("fails " + name), std::string::npos) << name << " is not run in ONNX Runtime";
    EXPECT_EQ(c014_in(name).size(), 1u) << name;
    ++cases;
  }
  EXPECT_EQ(cases, 14);
}

// The executor agrees with every error of C014, in every format: `run --random` (its random conditions, and the
// other branch pinned) fails at the consumer the static finding names, and says under which branch of which If
// ("at main/proj (MatMul), under the else branch of If 'main/pick': ...").
TEST(BranchConsumers, RunFailsAtTheConsumerUnderTheBranchOfEveryError) {
  const std::vector<std::pair<std::string, std::string>> dirs = {
      {"corpus/onnx/invalid", ".onnx"}, {"corpus/ir/invalid", ".xml"}, {"corpus/nnapi/invalid", ".nnapi.json"}};
  int cases = 0;
  for (const auto& [dir, ext] : dirs) {
    for (const auto& e : fs::directory_iterator(source_dir() / dir)) {
      if (e.path().extension() != ".expect" || slurp(e.path()).find("C014") == std::string::npos) continue;
      const std::string stem = e.path().stem().string();
      const std::string model = dir + "/" + stem + ext;
      std::vector<Finding> errors;
      for (const auto& f : c014_of(lint_file((source_dir() / model).string())))
        if (f.level == Level::Error) errors.push_back(f);
      if (errors.empty()) continue;  // a note (a shape guard): no input of the declared shapes selects the branch
      ++cases;
      ASSERT_EQ(errors.size(), 1u) << model;
      // The case of branches the finding shows: the first If it names and its branch.
      const LoadResult loaded = load_file((source_dir() / model).string());
      ASSERT_TRUE(loaded.model) << model;
      const Model& m = *loaded.model;
      const std::vector<BranchBreak>& breaks = m.onnx ? m.onnx->branch_breaks
                                               : m.ir ? m.ir->branch_follow.breaks
                                                      : m.nnapi->branch_follow.breaks;
      const BranchBreak* shown = nullptr;
      for (const auto& b : breaks)
        if (m.path_of(b.graph, b.node) == errors[0].loc.node && (!shown || b.picks.size() < shown->picks.size()))
          shown = &b;
      ASSERT_NE(shown, nullptr) << model;
      // Every If of the case in the consumer's graph and its branch: a run fails at the consumer under all of them at
      // once (the run names the Ifs the consumer's inputs come from, not those nested in their branches).
      std::vector<std::string> under;
      for (const auto& p : shown->picks) {
        const ConditionalView& c = m.conditionals[static_cast<size_t>(p.conditional)];
        if (c.graph != shown->graph && !under.empty()) continue;
        under.push_back(std::string(p.branch == 0 ? "then" : "else") + " branch of If '" +
                        m.full_path_of(c.graph, c.node) + "'");
      }
      const std::string consumer = m.full_path_of(shown->graph, shown->node);
      const auto r = condlint_in_checkout("run --random 8 " + model);
      EXPECT_EQ(r.exit_code, 1) << model << ":\n" << r.out;
      bool agrees = false;
      std::istringstream lines(r.out);
      for (std::string line; std::getline(lines, line);) {
        bool all = line.find("at " + consumer) != std::string::npos && line.find(", under the ") != std::string::npos;
        for (const auto& u : under) all = all && line.find(u) != std::string::npos;
        agrees = agrees || all;
      }
      EXPECT_TRUE(agrees) << model << ": no failure at " << consumer << " under " << under[0] << " (and "
                          << under.size() - 1 << " more):\n"
                          << r.out;
    }
  }
  EXPECT_EQ(cases, 13 + 7 + 4);  // ONNX (with C011_shape_guard_union and OV002_dynamic_rank_if), IR, NNAPI error cases
}

namespace {

// An IR: If 'pick' on Parameter 'cond' returns x [2,1] (then) or y [2] (else), `relus` Relu layers follow it, then
// MatMul 'proj' by Const W [1,2]. Written with its .bin into a fresh directory; returns the .xml's path.
std::string ir_relu_chain(int relus) {
  auto port = [](int id, std::initializer_list<int> dims, const char* prec) {
    std::string s =
        "<port id=\"" + std::to_string(id) + "\"" + (prec ? std::string(" precision=\"") + prec + "\"" : "");
    if (dims.size() == 0) return s + "/>";
    s += ">";
    for (int d : dims) s += "<dim>" + std::to_string(d) + "</dim>";
    return s + "</port>";
  };
  auto param = [&](int id, const char* name, const char* et, const char* shape, std::initializer_list<int> dims,
                   const char* prec) {
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name +
           "\" type=\"Parameter\" version=\"opset1\"><data element_type=\"" + et + "\" shape=\"" + shape +
           "\"/><output>" + port(0, dims, prec) + "</output></layer>\n";
  };
  auto body = [&](const char* tag, const char* shape, std::initializer_list<int> dims) {
    return std::string("<") + tag + "><layers>" + param(0, "a", "f32", shape, dims, "FP32") +
           "<layer id=\"1\" name=\"r\" type=\"Result\" version=\"opset1\"><input>" + port(0, dims, nullptr) +
           "</input></layer></layers><edges><edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>" +
           "</edges></" + tag + ">";
  };
  std::string layers = param(0, "cond", "boolean", "", {}, "BOOL") + param(1, "x", "f32", "2,1", {2, 1}, "FP32") +
                       param(2, "y", "f32", "2", {2}, "FP32");
  layers += "<layer id=\"3\" name=\"pick\" type=\"If\" version=\"opset8\"><input>" + port(0, {}, nullptr) +
            port(1, {2, 1}, nullptr) + port(2, {2}, nullptr) + "</input><output>" + port(3, {}, "FP32") +
            "</output><then_port_map><input external_port_id=\"1\" internal_layer_id=\"0\"/><output "
            "external_port_id=\"0\" internal_layer_id=\"1\"/></then_port_map><else_port_map><input "
            "external_port_id=\"2\" internal_layer_id=\"0\"/><output external_port_id=\"0\" "
            "internal_layer_id=\"1\"/></else_port_map>" +
            body("then_body", "2,1", {2, 1}) + body("else_body", "2", {2}) + "</layer>\n";
  std::string edges =
      "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"3\" to-port=\"0\"/><edge from-layer=\"1\" "
      "from-port=\"0\" to-layer=\"3\" to-port=\"1\"/><edge from-layer=\"2\" from-port=\"0\" "
      "to-layer=\"3\" to-port=\"2\"/>\n";
  int prev = 3, prev_port = 3;
  for (int k = 0; k < relus; ++k) {
    const int id = 4 + k;
    layers += "<layer id=\"" + std::to_string(id) + "\" name=\"relu" + std::to_string(k) +
              "\" type=\"Relu\" version=\"opset1\"><input>" + port(0, {}, nullptr) + "</input><output>" +
              port(1, {}, "FP32") + "</output></layer>\n";
    edges += "<edge from-layer=\"" + std::to_string(prev) + "\" from-port=\"" + std::to_string(prev_port) +
             "\" to-layer=\"" + std::to_string(id) + "\" to-port=\"0\"/>\n";
    prev = id;
    prev_port = 1;
  }
  const int w = 4 + relus, mm = w + 1, out = w + 2;
  layers += "<layer id=\"" + std::to_string(w) +
            "\" name=\"W\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,2\" offset=\"0\" "
            "size=\"8\"/><output>" +
            port(0, {1, 2}, "FP32") + "</output></layer>\n";
  layers += "<layer id=\"" + std::to_string(mm) +
            "\" name=\"proj\" type=\"MatMul\" version=\"opset1\"><data transpose_a=\"false\" "
            "transpose_b=\"false\"/><input>" +
            port(0, {}, nullptr) + port(1, {1, 2}, nullptr) + "</input><output>" + port(2, {2, 2}, "FP32") +
            "</output></layer>\n";
  layers += "<layer id=\"" + std::to_string(out) + "\" name=\"out\" type=\"Result\" version=\"opset1\"><input>" +
            port(0, {2, 2}, nullptr) + "</input></layer>\n";
  edges += "<edge from-layer=\"" + std::to_string(prev) + "\" from-port=\"" + std::to_string(prev_port) +
           "\" to-layer=\"" + std::to_string(mm) + "\" to-port=\"0\"/><edge from-layer=\"" + std::to_string(w) +
           "\" from-port=\"0\" to-layer=\"" + std::to_string(mm) + "\" to-port=\"1\"/><edge from-layer=\"" +
           std::to_string(mm) + "\" from-port=\"2\" to-layer=\"" + std::to_string(out) + "\" to-port=\"0\"/>\n";
  const fs::path dir = fresh_dir("ir_relu_chain_" + std::to_string(relus));
  write_file(dir / "chain.bin", std::string(8, '\0'));
  write_file(dir / "chain.xml", "<?xml version=\"1.0\"?>\n<net name=\"chain\" version=\"11\"><layers>\n" + layers +
                                    "</layers><edges>\n" + edges + "</edges></net>\n");
  return (dir / "chain.xml").string();
}

}  // namespace

// OpenVINO IR: the else branch's [2] reaches the MatMul through Relus (one error, at the MatMul, counting them);
// past the budget of nodes per If, the MatMul is judged on the union (nothing) and a note says where it stopped.
TEST(BranchConsumers, IrFollowsRelusToTheMatMulWithinTheBudget) {
  const auto near = c014_of(lint_file(ir_relu_chain(3)));
  ASSERT_EQ(near.size(), 1u) << dump_findings(near);
  EXPECT_EQ(near[0].level, Level::Error);
  EXPECT_EQ(near[0].loc.node, "main/proj");
  EXPECT_NE(near[0].message.find("MatMul 'proj', 3 nodes further on, cannot multiply f32[2] by f32[1,2]"),
            std::string::npos)
      << near[0].message;
  const auto far = c014_of(lint_file(ir_relu_chain(300)));
  ASSERT_EQ(far.size(), 1u) << dump_findings(far);
  EXPECT_EQ(far[0].level, Level::Note);
  EXPECT_NE(far[0].message.find("followed per branch for 256 nodes, up to Relu 'relu256'"), std::string::npos)
      << far[0].message;
}

// The IR cases in OpenVINO (tools/venv): read_model accepts every one; where the branches differ in rank, the CPU
// plugin refuses the If at compile_model; where they differ in dims, the model compiles and fails at the consumer
// under the branch C014 names only. The silent case with a boolean condition runs under both.
TEST(BranchConsumers, OpenVinoFailsWhereC014SaysOnIr) {
  const fs::path py = source_dir() / "tools/venv/bin/python";
  if (!fs::exists(py) || run(shell_quote(py.string()) + " -c 'import openvino' 2>/dev/null").exit_code != 0)
    GTEST_SKIP() << "tools/venv with openvino is absent (scripts/install-deps.sh creates it)";
  // Every combination of the boolean inputs' values, in input order ("runs X True False").
  const std::string script = R"(import sys, itertools, numpy as np, openvino as ov
core = ov.Core()
for p in sys.argv[2:]:
    m = core.read_model(sys.argv[1] + "/" + p)
    try:
        c = core.compile_model(m, "CPU")
    except Exception as e:
        print("refused", p, "dynamic rank" if "dynamic rank" in str(e) else str(e).splitlines()[0])
        continue
    conds = [i for i in c.inputs if i.get_element_type() == ov.Type.boolean]
    for values in itertools.product((True, False), repeat=len(conds)):
        feeds = {i: np.ones([d.get_length() for d in i.get_partial_shape()], np.float32) for i in c.inputs
                 if i.get_element_type() != ov.Type.boolean}
        feeds.update({i: np.array(v) for i, v in zip(conds, values)})
        try:
            c.infer_new_request(feeds)
            print("runs", p, *values)
        except Exception:
            print("fails", p, *values)
)";
  const fs::path s = fresh_dir("branch_consumers_ov") / "ov_cases.py";
  write_file(s, script);
  const auto r = run(shell_quote(py.string()) + " " + shell_quote(s.string()) + " " +
                     shell_quote((source_dir() / "corpus/ir").string()) +
                     " invalid/C014_matmul.xml invalid/C014_add_broadcast.xml invalid/C014_concat_behind_relu.xml"
                     " invalid/C014_two_ifs_matmul.xml invalid/C014_reshape.xml invalid/C014_transpose.xml"
                     " invalid/C014_two_ifs_in_branch.xml"
                     " valid/downstream_broadcast.xml valid/downstream_two_ifs_broadcast.xml"
                     " valid/downstream_same_condition.xml valid/downstream_reshape_transpose.xml 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("refused invalid/C014_matmul.xml dynamic rank"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused invalid/C014_concat_behind_relu.xml dynamic rank"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs invalid/C014_add_broadcast.xml True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails invalid/C014_add_broadcast.xml False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs valid/downstream_broadcast.xml True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs valid/downstream_broadcast.xml False"), std::string::npos) << r.out;
  // Two Ifs on two conditions: only the mixed combinations break the MatMul; every one of the silent cases runs.
  EXPECT_NE(r.out.find("runs invalid/C014_two_ifs_matmul.xml True True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails invalid/C014_two_ifs_matmul.xml True False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails invalid/C014_two_ifs_matmul.xml False True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs invalid/C014_two_ifs_matmul.xml False False"), std::string::npos) << r.out;
  // The same MatMul in If 'outer''s then branch, its Ifs on what 'outer' binds to 'c1' and 'c2' ('c0' first).
  EXPECT_NE(r.out.find("runs invalid/C014_two_ifs_in_branch.xml True True True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails invalid/C014_two_ifs_in_branch.xml True True False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails invalid/C014_two_ifs_in_branch.xml True False True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs invalid/C014_two_ifs_in_branch.xml False True False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs invalid/C014_reshape.xml True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails invalid/C014_reshape.xml False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused invalid/C014_transpose.xml dynamic rank"), std::string::npos) << r.out;
  for (const char* silent :
       {"downstream_two_ifs_broadcast.xml", "downstream_same_condition.xml", "downstream_reshape_transpose.xml"}) {
    EXPECT_EQ(r.out.find(std::string("fails valid/") + silent), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(std::string("refused valid/") + silent), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string("runs valid/") + silent), std::string::npos) << r.out;
  }
  // What C014 says of each matches: the rank cases name compile_model, the other the run.
  const auto matmul = c014_of(lint_file((source_dir() / "corpus/ir/invalid/C014_matmul.xml").string()));
  ASSERT_EQ(matmul.size(), 1u);
  EXPECT_NE(matmul[0].message.find("refuses it earlier, at compile_model"), std::string::npos) << matmul[0].message;
  const auto add = c014_of(lint_file((source_dir() / "corpus/ir/invalid/C014_add_broadcast.xml").string()));
  ASSERT_EQ(add.size(), 1u);
  EXPECT_NE(add[0].message.find("OpenVINO fails there at run time"), std::string::npos) << add[0].message;
}

namespace {

// An NNAPI model: `ifs` IFs, each on its own boolean input (or all on one when `one_condition`), each giving x [1,2]
// (then) or y [1,3] (else) as an output of dims [1,0]; a CONCATENATION of all of them along axis 0. Two IFs that take
// different branches give it widths 2 and 3, which it cannot join.
std::string nnapi_ifs_into_concat(int ifs, bool one_condition) {
  const int conds = one_condition ? 1 : ifs;
  auto op = [](const std::string& name, const std::string& type, const std::string& dims, const std::string& life,
               const std::string& extra = "") {
    return "{\"name\":\"" + name + "\",\"type\":\"" + type + "\",\"dimensions\":" + dims + ",\"lifetime\":\"" + life +
           "\"" + extra + "}";
  };
  std::string operands, inputs;
  for (int k = 0; k < conds; ++k) {
    operands += op("c" + std::to_string(k), "TENSOR_BOOL8", "[1]", "SUBGRAPH_INPUT") + ",";
    inputs += std::to_string(k) + ",";
  }
  const int x = conds, y = conds + 1, then_g = conds + 2, else_g = conds + 3, first_out = conds + 4;
  const int axis = first_out + ifs, out = axis + 1;
  operands += op("x", "TENSOR_FLOAT32", "[1,2]", "SUBGRAPH_INPUT") + "," +
              op("y", "TENSOR_FLOAT32", "[1,3]", "SUBGRAPH_INPUT") + ",";
  inputs += std::to_string(x) + "," + std::to_string(y);
  operands += "{\"name\":\"then\",\"type\":\"SUBGRAPH\",\"lifetime\":\"SUBGRAPH\",\"location\":{\"offset\":0}},";
  operands += "{\"name\":\"else\",\"type\":\"SUBGRAPH\",\"lifetime\":\"SUBGRAPH\",\"location\":{\"offset\":1}},";
  std::string operations, joined;
  for (int k = 0; k < ifs; ++k) {
    operands += op("picked" + std::to_string(k), "TENSOR_FLOAT32", "[1,0]", "TEMPORARY_VARIABLE") + ",";
    operations += "{\"type\":\"IF\",\"inputs\":[" + std::to_string(one_condition ? 0 : k) + "," +
                  std::to_string(then_g) + "," + std::to_string(else_g) + "," + std::to_string(x) + "," +
                  std::to_string(y) + "],\"outputs\":[" + std::to_string(first_out + k) + "]},";
    joined += std::to_string(first_out + k) + ",";
  }
  operands += op("axis", "INT32", "[]", "CONSTANT_COPY", ",\"value\":[0]") + "," +
              op("out", "TENSOR_FLOAT32", "[0,0]", "SUBGRAPH_OUTPUT");
  operations += "{\"type\":\"CONCATENATION\",\"inputs\":[" + joined + std::to_string(axis) + "],\"outputs\":[" +
                std::to_string(out) + "]}";
  auto branch = [&](const char* name, int returns, const char* dims) {
    return std::string("{\"name\":\"") + name + "\",\"operands\":[" +
           op("a", "TENSOR_FLOAT32", "[1,2]", "SUBGRAPH_INPUT") + "," +
           op("b", "TENSOR_FLOAT32", "[1,3]", "SUBGRAPH_INPUT") + "," +
           op("r", "TENSOR_FLOAT32", dims, "SUBGRAPH_OUTPUT") + "," +
           op("zero", "TENSOR_FLOAT32", "[1]", "CONSTANT_COPY", ",\"value\":[0.0]") + "," +
           op("act", "INT32", "[]", "CONSTANT_COPY", ",\"value\":[0]") +
           "],\"operations\":[{\"type\":\"ADD\",\"inputs\":[" + std::to_string(returns) +
           ",3,4],\"outputs\":[2]}],\"inputIndexes\":[0,1],\"outputIndexes\":[2]}";
  };
  return "{\"format\":\"nnapi-model\",\"version\":1,\"name\":\"concat_ifs\",\"main\":{\"operands\":[" + operands +
         "],\"operations\":[" + operations + "],\"inputIndexes\":[" + inputs + "],\"outputIndexes\":[" +
         std::to_string(out) + "]},\"referenced\":[" + branch("then", 0, "[1,2]") + "," + branch("else", 1, "[1,3]") +
         "]}";
}

}  // namespace

// Several IFs meeting at one operation are judged per combination of their branches: two IFs on two conditions
// break the CONCATENATION when they take different branches (an error naming both); on one condition they always
// take the same branch (silent). Past 8 combinations at one operation (4 IFs: 16) it is judged on the union, with a
// note naming the operation where following stopped.
TEST(BranchConsumers, NnapiIfsMeetingAtOneOperationAreJudgedPerCombination) {
  const auto two = c014_of(lint_file(write_temp("two_ifs.nnapi.json", nnapi_ifs_into_concat(2, false))));
  ASSERT_EQ(two.size(), 1u) << dump_findings(two);
  EXPECT_EQ(two[0].level, Level::Error);
  EXPECT_NE(two[0].message.find("when 'c0' is true, and 'c1' is false, IF operation 0 in main output 0 is f32[1,2]"),
            std::string::npos)
      << two[0].message;
  EXPECT_NE(two[0].message.find("IF operation 1 in main output 0 is f32[1,3]"), std::string::npos) << two[0].message;
  EXPECT_NE(two[0].message.find("(1 other case of branches break it too)"), std::string::npos) << two[0].message;
  // Both conditions computed from one input 'v' (v > 0 and v > 1): which combinations happen is not proven, so the
  // break is a note naming what they both read.
  std::string computed = nnapi_ifs_into_concat(2, false);
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = computed.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    computed.replace(at, from.size(), to);
  };
  for (const char* c : {"c0", "c1"})
    replace(std::string("\"name\":\"") + c +
                "\",\"type\":\"TENSOR_BOOL8\",\"dimensions\":[1],\"lifetime\":\"SUBGRAPH_INPUT\"",
            std::string("\"name\":\"") + c +
                "\",\"type\":\"TENSOR_BOOL8\",\"dimensions\":[1],\"lifetime\":\"TEMPORARY_VARIABLE\"");
  replace("\"lifetime\":\"SUBGRAPH_OUTPUT\"}]",
          "\"lifetime\":\"SUBGRAPH_OUTPUT\"},"
          "{\"name\":\"v\",\"type\":\"TENSOR_FLOAT32\",\"dimensions\":[1],\"lifetime\":\"SUBGRAPH_INPUT\"},"
          "{\"name\":\"zero\",\"type\":\"TENSOR_FLOAT32\",\"dimensions\":[1],\"lifetime\":\"CONSTANT_COPY\",\"value\":["
          "0.0]},"
          "{\"name\":\"one\",\"type\":\"TENSOR_FLOAT32\",\"dimensions\":[1],\"lifetime\":\"CONSTANT_COPY\",\"value\":["
          "1.0]}]");
  replace("\"operations\":[{\"type\":\"IF\"",
          "\"operations\":[{\"type\":\"GREATER\",\"inputs\":[10,11],\"outputs\":[0]},"
          "{\"type\":\"GREATER\",\"inputs\":[10,12],\"outputs\":[1]},{\"type\":\"IF\"");
  replace("\"inputIndexes\":[0,1,", "\"inputIndexes\":[10,");
  const auto from_v = c014_of(lint_file(write_temp("computed_conditions.nnapi.json", computed)));
  ASSERT_EQ(from_v.size(), 1u) << dump_findings(from_v) << computed;
  EXPECT_EQ(from_v[0].level, Level::Note) << from_v[0].message;
  EXPECT_NE(from_v[0].message.find("both read 'v', so this combination of branches may never happen"),
            std::string::npos)
      << from_v[0].message;
  const auto same = c014_of(lint_file(write_temp("same_condition.nnapi.json", nnapi_ifs_into_concat(2, true))));
  EXPECT_TRUE(same.empty()) << dump_findings(same);
  const auto three = c014_of(lint_file(write_temp("three_ifs.nnapi.json", nnapi_ifs_into_concat(3, false))));
  ASSERT_EQ(three.size(), 1u) << dump_findings(three);
  EXPECT_EQ(three[0].level, Level::Error);
  const auto four = c014_of(lint_file(write_temp("four_ifs.nnapi.json", nnapi_ifs_into_concat(4, false))));
  ASSERT_EQ(four.size(), 4u) << dump_findings(four);
  for (const auto& f : four) {
    EXPECT_EQ(f.level, Level::Note);
    EXPECT_NE(f.message.find("more than 8 combinations of branches meet at CONCATENATION operation 4 in main"),
              std::string::npos)
        << f.message;
  }
}

namespace {

// An NNAPI model: IF on 'cond' gives x (then, `x_dims`) or y (else, `y_dims`) as operand 5 of unspecified dims; one
// operation `op` reads it as input 0, with the operands `extra` (from index 6; the output is the last one).
std::string nnapi_if_into(const std::string& x_dims, const std::string& y_dims, const std::string& op,
                          const std::vector<std::string>& extra, const std::string& op_inputs) {
  auto tensor = [](const std::string& name, const std::string& dims, const std::string& life) {
    return "{\"name\":\"" + name + "\",\"type\":\"TENSOR_FLOAT32\",\"dimensions\":" + dims + ",\"lifetime\":\"" + life +
           "\"}";
  };
  std::string operands =
      "{\"name\":\"cond\",\"type\":\"TENSOR_BOOL8\",\"dimensions\":[1],\"lifetime\":"
      "\"SUBGRAPH_INPUT\"},{\"name\":\"then\",\"type\":\"SUBGRAPH\",\"lifetime\":\"SUBGRAPH\","
      "\"location\":{\"offset\":0}},{\"name\":\"else\",\"type\":\"SUBGRAPH\",\"lifetime\":"
      "\"SUBGRAPH\",\"location\":{\"offset\":1}}," +
      tensor("x", x_dims, "SUBGRAPH_INPUT") + "," + tensor("y", y_dims, "SUBGRAPH_INPUT") + "," +
      tensor("picked", "[]", "TEMPORARY_VARIABLE");
  for (const auto& e : extra) operands += "," + e;
  const int out = 5 + static_cast<int>(extra.size());
  auto branch = [&](const char* name, int returns, const std::string& dims) {
    return std::string("{\"name\":\"") + name + "\",\"operands\":[" + tensor("a", x_dims, "SUBGRAPH_INPUT") + "," +
           tensor("b", y_dims, "SUBGRAPH_INPUT") + "," + tensor("r", dims, "SUBGRAPH_OUTPUT") +
           ",{\"name\":\"zero\",\"type\":\"TENSOR_FLOAT32\",\"dimensions\":[1],\"lifetime\":\"CONSTANT_COPY\","
           "\"value\":[0.0]},{\"name\":\"act\",\"type\":\"INT32\",\"dimensions\":[],\"lifetime\":\"CONSTANT_COPY\","
           "\"value\":[0]}],\"operations\":[{\"type\":\"ADD\",\"inputs\":[" +
           std::to_string(returns) + ",3,4],\"outputs\":[2]}],\"inputIndexes\":[0,1],\"outputIndexes\":[2]}";
  };
  return "{\"format\":\"nnapi-model\",\"version\":1,\"name\":\"if_into\",\"main\":{\"operands\":[" + operands +
         "],\"operations\":[{\"type\":\"IF\",\"inputs\":[0,1,2,3,4],\"outputs\":[5]},{\"type\":\"" + op +
         "\",\"inputs\":[" + op_inputs + "],\"outputs\":[" + std::to_string(out) +
         "]}],\"inputIndexes\":[0,3,4],\"outputIndexes\":[" + std::to_string(out) + "]},\"referenced\":[" +
         branch("then", 0, x_dims) + "," + branch("else", 1, y_dims) + "]}";
}

std::string nnapi_const(const std::string& name, const std::string& type, const std::string& dims,
                        const std::string& value) {
  return "{\"name\":\"" + name + "\",\"type\":\"" + type + "\",\"dimensions\":" + dims +
         ",\"lifetime\":\"CONSTANT_COPY\",\"value\":" + value + "}";
}

std::string nnapi_output(const std::string& dims) {
  return "{\"name\":\"out\",\"type\":\"TENSOR_FLOAT32\",\"dimensions\":" + dims + ",\"lifetime\":\"SUBGRAPH_OUTPUT\"}";
}

}  // namespace

// The NNAPI rules of RESHAPE, TRANSPOSE and BATCH_MATMUL judge each branch: each fails under the branch whose shape
// it cannot take (naming it), and takes a branch it can.
TEST(BranchConsumers, NnapiReshapeTransposeAndBatchMatmulJudgeEachBranch) {
  auto lint_case = [](const std::string& name, const std::string& json) {
    return c014_of(lint_file(write_temp(name + ".nnapi.json", json)));
  };
  const auto reshape = lint_case(
      "reshape", nnapi_if_into("[2,3]", "[2,2]", "RESHAPE",
                               {nnapi_const("shape", "TENSOR_INT32", "[2]", "[3,-1]"), nnapi_output("[3,2]")}, "5,6"));
  ASSERT_EQ(reshape.size(), 1u) << dump_findings(reshape);
  EXPECT_NE(reshape[0].message.find("when 'cond' is false"), std::string::npos) << reshape[0].message;
  EXPECT_NE(reshape[0].message.find("4 elements do not divide into parts of 3"), std::string::npos)
      << reshape[0].message;
  const auto transpose = lint_case(
      "transpose", nnapi_if_into("[2,3]", "[6]", "TRANSPOSE",
                                 {nnapi_const("perm", "TENSOR_INT32", "[2]", "[1,0]"), nnapi_output("[3,2]")}, "5,6"));
  ASSERT_EQ(transpose.size(), 1u) << dump_findings(transpose);
  EXPECT_NE(transpose[0].message.find("the order [1,0] has 2 entries for rank 1"), std::string::npos)
      << transpose[0].message;
  auto bmm = [&](const char* adj_x) {
    return lint_case(std::string("bmm_") + adj_x,
                     nnapi_if_into("[2,3]", "[3,2]", "BATCH_MATMUL",
                                   {nnapi_const("w", "TENSOR_FLOAT32", "[3,4]", "[1,1,1,1,1,1,1,1,1,1,1,1]"),
                                    nnapi_const("adj_x", "BOOL", "[]", std::string("[") + adj_x + "]"),
                                    nnapi_const("adj_y", "BOOL", "[]", "[false]"), nnapi_output("[2,4]")},
                                   "5,6,7,8"));
  };
  const auto plain = bmm("false");  // [3,2] by [3,4]: the else branch's inner 2 is not 3
  ASSERT_EQ(plain.size(), 1u) << dump_findings(plain);
  EXPECT_NE(plain[0].message.find("when 'cond' is false"), std::string::npos) << plain[0].message;
  EXPECT_NE(plain[0].message.find("the inner dimensions 2 and 3 differ"), std::string::npos) << plain[0].message;
  const auto adjoint = bmm("true");  // adj_x: [2,3] read as [3,2] fails, [3,2] read as [2,3] multiplies
  ASSERT_EQ(adjoint.size(), 1u) << dump_findings(adjoint);
  EXPECT_NE(adjoint[0].message.find("when 'cond' is true"), std::string::npos) << adjoint[0].message;
}
