// Reference executor: tensors, guards, golden data, comparison, both-branch runs, the `run` command.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exec/compare.hpp"
#include "exec/lint_exec.hpp"
#include "exec/interpreter.hpp"
#include "exec/onnx_io.hpp"
#include "exec/ir_exec.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"
#include "model/onnx_data.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::exec;
using condlint::test::write_file;

namespace {

// ---- small model builder
onnx::ValueInfoProto vi(const std::string& name, int elem, std::vector<int64_t> dims) {
  onnx::ValueInfoProto v;
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* sh = tt->mutable_shape();
  for (auto d : dims) sh->add_dim()->set_dim_value(d);
  return v;
}

onnx::NodeProto* node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                      std::vector<std::string> out, const std::string& name = "") {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

void add_const(onnx::GraphProto& g, const std::string& name, float v) {
  auto* n = node(g, "Constant", {}, {name});
  auto* a = n->add_attribute();
  a->set_name("value_float");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

onnx::GraphProto* add_graph_attr(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

onnx::ModelProto model_with(const onnx::GraphProto& g, int opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_version(opset);
  *m.mutable_graph() = g;
  return m;
}

// main: y = If(c1) then { If(c2) then {x + 1} else {x + 2} } else { x * 3 }; x, c1, c2 are inputs.
// `bad_else` makes the outer else branch produce i64 instead of f32.
onnx::ModelProto nested_if_model(bool bad_else = false) {
  onnx::GraphProto g;
  g.set_name("main");
  *g.add_input() = vi("x", 1, {2});
  *g.add_input() = vi("c1", 9, {});
  *g.add_input() = vi("c2", 9, {});
  *g.add_output() = vi("y", 1, {2});
  auto* outer = node(g, "If", {"c1"}, {"y"}, "outer");
  auto* then1 = add_graph_attr(outer, "then_branch");
  then1->set_name("then1");
  *then1->add_output() = vi("t1", 1, {2});
  auto* inner = node(*then1, "If", {"c2"}, {"t1"}, "inner");
  auto* then2 = add_graph_attr(inner, "then_branch");
  add_const(*then2, "one", 1.0f);
  node(*then2, "Add", {"x", "one"}, {"t2"});
  *then2->add_output() = vi("t2", 1, {2});
  auto* else2 = add_graph_attr(inner, "else_branch");
  add_const(*else2, "two", 2.0f);
  node(*else2, "Add", {"x", "two"}, {"e2"});
  *else2->add_output() = vi("e2", 1, {2});
  auto* else1 = add_graph_attr(outer, "else_branch");
  add_const(*else1, "three", 3.0f);
  node(*else1, "Mul", {"x", "three"}, {"e1f"});
  if (bad_else) {
    auto* cast = node(*else1, "Cast", {"e1f"}, {"e1"});
    auto* a = cast->add_attribute();
    a->set_name("to");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(7);
    *else1->add_output() = vi("e1", 1, {2});
  } else {
    node(*else1, "Identity", {"e1f"}, {"e1"});
    *else1->add_output() = vi("e1", 1, {2});
  }
  return model_with(g);
}

Value f32(std::vector<double> v, Dims shape) {
  Tensor t(DT::F32, std::move(shape));
  for (size_t k = 0; k < v.size(); ++k) t.f[k] = v[k];
  return Value::tensor(std::move(t));
}
Value boolean(bool b) {
  Tensor t(DT::Bool, {});
  t.i[0] = b;
  return Value::tensor(std::move(t));
}

struct TempDir {
  fs::path p;
  TempDir() {
    p = fs::temp_directory_path() /
        ("condlint_exec_" + std::to_string(::getpid()) + "_" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~TempDir() { fs::remove_all(p); }
};

// Writes model.onnx and test_data_set_0 (inputs; outputs when given).
void write_case(const fs::path& dir, const onnx::ModelProto& m, const std::vector<Value>& in,
                const std::vector<Value>& out) {
  write_file(dir / "model.onnx", m.SerializeAsString());
  for (size_t k = 0; k < in.size(); ++k)
    write_file(dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb"), write_pb_value(in[k], ""));
  for (size_t k = 0; k < out.size(); ++k)
    write_file(dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb"), write_pb_value(out[k], ""));
}

}  // namespace

TEST(ExecTensor, HugeTensorIsAResourceErrorNotAnAllocation) {
  guard().limits = Limits{};
  try {
    Tensor t(DT::F32, {1000000, 1000000});
    FAIL() << "a 10^12-element tensor was allocated";
  } catch (const ExecError& e) {
    EXPECT_EQ(e.kind, ErrKind::Resource);
    EXPECT_NE(std::string(e.what()).find("1000000000000 elements"), std::string::npos) << e.what();
  }
  // A TensorProto that declares 10^12 elements but carries none is rejected before any allocation.
  onnx::TensorProto tp;
  tp.set_data_type(1);
  tp.add_dims(1000000);
  tp.add_dims(1000000);
  EXPECT_THROW(tensor_from_proto(tp), ExecError);
  // Overflowing shapes are caught too.
  EXPECT_THROW(checked_numel({INT64_MAX, 4}), ExecError);
}

TEST(ExecTensor, LiveBytesLimitHolds) {
  guard().limits = Limits{};
  guard().limits.max_total_bytes = 1 << 20;
  Tensor a(DT::F32, {1000});
  EXPECT_THROW(Tensor(DT::F32, {200000}), ExecError);
  guard().limits = Limits{};
}

TEST(ExecTensor, HalfAndBfloatRoundTrip) {
  EXPECT_EQ(f16_bits_to_f32(f32_to_f16_bits(1.5f)), 1.5f);
  EXPECT_EQ(f16_bits_to_f32(f32_to_f16_bits(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(f16_bits_to_f32(f32_to_f16_bits(70000.0f))));
  EXPECT_EQ(bf16_bits_to_f32(f32_to_bf16_bits(3.0f)), 3.0f);
  EXPECT_EQ(round_to(DT::F16, 0.1), static_cast<double>(f16_bits_to_f32(0x2e66)));
  EXPECT_EQ(wrap_to(DT::I8, 130), -126);
  EXPECT_EQ(wrap_to(DT::U8, -1), 255);
}

TEST(ExecCompare, ToleranceNaNShapeAndFirstIndex) {
  EXPECT_TRUE(compare_values(f32({1.0, NAN}, {2}), f32({1.0, NAN}, {2}), {}, {}).ok);
  EXPECT_FALSE(compare_values(f32({1.0, 1.0}, {2}), f32({1.0, NAN}, {2}), {}, {}).ok);
  EXPECT_FALSE(compare_values(f32({1.0, NAN}, {2}), f32({1.0, 1.0}, {2}), {}, {}).ok);
  // f32 defaults: atol 1e-5, rtol 1e-3 -> 1000 vs 1000.9 passes, 1000 vs 1001.1 fails.
  EXPECT_TRUE(compare_values(f32({1000.9}, {1}), f32({1000}, {1}), {}, {}).ok);
  EXPECT_FALSE(compare_values(f32({1001.1}, {1}), f32({1000}, {1}), {}, {}).ok);
  EXPECT_TRUE(compare_values(f32({1001.1}, {1}), f32({1000}, {1}), 2.0, {}).ok);
  auto c = compare_values(f32({1, 2, 3, 5}, {2, 2}), f32({1, 2, 3, 4}, {2, 2}), {}, {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.first_index, "[1,1]");
  EXPECT_DOUBLE_EQ(c.max_abs, 1.0);
  EXPECT_FALSE(compare_values(f32({1, 2}, {2}), f32({1, 2}, {1, 2}), {}, {}).ok);
  Tensor i(DT::I64, {2});
  EXPECT_FALSE(compare_values(Value::tensor(i), f32({0, 0}, {2}), {}, {}).ok);
}

TEST(ExecGolden, NpyRoundTripAndPinsJson) {
  Tensor t(DT::F32, {2, 3});
  for (int k = 0; k < 6; ++k) t.f[k] = k * 0.5;
  Value v = read_npy(write_npy(t));
  ASSERT_TRUE(v.is_tensor());
  EXPECT_EQ(v.t->shape, (Dims{2, 3}));
  EXPECT_TRUE(compare_values(v, Value::tensor(t), 0.0, 0.0).ok);
  EXPECT_THROW(read_npy("not numpy"), ExecError);

  TempDir d;
  write_file(d.p / "test_data_set_0" / "input_0.npy", write_npy(t));
  write_file(d.p / "test_data_set_0" / "pins.json", pins_json({{"main/outer", false}}));
  write_file(d.p / "test_data_set_1" / "input_0.pb", write_pb_value(Value::tensor(t), "x"));
  write_file(d.p / "test_data_set_1" / "pins.json", "{\"pins\": {\"main/outer\": 3}}");
  auto sets = find_data_sets(d.p);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].pins.at("main/outer"), false);
  EXPECT_TRUE(sets[0].pins_error.empty());
  EXPECT_FALSE(sets[1].pins_error.empty());
}

TEST(ExecGolden, PbReaderFollowsTheDeclaredType) {
  // A SequenceProto read as a tensor would be garbage; the declared type picks the message.
  onnx::SequenceProto sp;
  sp.set_elem_type(onnx::SequenceProto::TENSOR);
  Tensor t(DT::F32, {1});
  t.f[0] = 4;
  tensor_to_proto(t, *sp.add_tensor_values());
  onnx::TypeProto seq_type;
  seq_type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  Value v = read_pb_value(sp.SerializeAsString(), &seq_type);
  ASSERT_EQ(v.kind, Value::Kind::Sequence);
  ASSERT_EQ(v.seq->size(), 1u);
  onnx::TypeProto opt_type;
  opt_type.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  onnx::OptionalProto op;
  op.set_elem_type(onnx::OptionalProto::TENSOR);
  Value o = read_pb_value(op.SerializeAsString(), &opt_type);
  ASSERT_EQ(o.kind, Value::Kind::Optional);
  EXPECT_EQ(o.opt, nullptr);
}

TEST(ExecRun, BothBranchesOfNestedIfsRun) {
  TempDir d;
  // Data selects outer=then, inner=then: x + 1.
  write_case(d.p, nested_if_model(), {f32({1, 2}, {2}), boolean(true), boolean(true)}, {f32({2, 3}, {2})});
  RunConfig cfg;
  ModelResult r = condlint::test::run_file(d.p / "model.onnx", cfg);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.failed, 0) << (r.cases.empty() ? "" : r.cases[0].message);
  ASSERT_TRUE(r.if_coverage.count("main/outer"));
  ASSERT_TRUE(r.if_coverage.count("main/outer/then/inner"));
  EXPECT_EQ(r.if_coverage["main/outer"].size(), 2u);
  EXPECT_EQ(r.if_coverage["main/outer/then/inner"].size(), 2u);
  EXPECT_EQ(r.cases.size(), 3u);  // data, then inputs synthesized with c1 = false and with c2 = false
  EXPECT_TRUE(r.cases[0].golden);
  EXPECT_FALSE(r.cases[1].golden);

  cfg.both_branches = false;
  r = condlint::test::run_file(d.p / "model.onnx", cfg);
  EXPECT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.if_coverage["main/outer"].size(), 1u);
}

// The outer If's condition is the input c1: inputs with c1 = false (synthesized, before any pin) reach its else
// branch, whose output has the wrong element type.
TEST(ExecRun, OtherBranchWithWrongTypeFails) {
  TempDir d;
  write_case(d.p, nested_if_model(true), {f32({1, 2}, {2}), boolean(true), boolean(true)}, {f32({2, 3}, {2})});
  ModelResult r = condlint::test::run_file(d.p / "model.onnx", RunConfig{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.passed, 2);
  ASSERT_EQ(r.failed, 1);
  const CaseResult* bad = nullptr;
  for (const auto& c : r.cases)
    if (c.status != CaseStatus::Passed) bad = &c;
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->synthesized, "'c1' = false");
  EXPECT_TRUE(bad->pins.empty());
  EXPECT_NE(bad->message.find("If 'main/outer' else branch output 0 has element type i64"), std::string::npos)
      << bad->message;
}

TEST(ExecRun, GoldenMismatchAndPinsFromDataSet) {
  TempDir d;
  write_case(d.p, nested_if_model(), {f32({1, 2}, {2}), boolean(true), boolean(true)}, {f32({2, 4}, {2})});
  ModelResult r = condlint::test::run_file(d.p / "model.onnx", RunConfig{});
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases[0].status, CaseStatus::Mismatch);
  EXPECT_EQ(r.cases[0].outputs[0].first_index, "[1]");
  // A second data set pins the outer If to else: golden x * 3 is compared, and no derived run repeats it.
  write_file(d.p / "test_data_set_0" / "output_0.pb", write_pb_value(f32({2, 3}, {2}), ""));
  for (int k = 0; k < 3; ++k)
    fs::copy_file(d.p / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb"),
                  d.p / "test_data_set_1" / ("input_" + std::to_string(k) + ".pb"),
                  (fs::create_directories(d.p / "test_data_set_1"), fs::copy_options::overwrite_existing));
  write_file(d.p / "test_data_set_1" / "output_0.pb", write_pb_value(f32({3, 6}, {2}), ""));
  write_file(d.p / "test_data_set_1" / "pins.json", pins_json({{"main/outer", false}}));
  r = condlint::test::run_file(d.p / "model.onnx", RunConfig{});
  EXPECT_EQ(r.failed, 0);
  int golden_pinned = 0, derived_outer = 0;
  for (const auto& c : r.cases) {
    if (c.golden && c.pins.count("main/outer")) ++golden_pinned;
    if (c.derived && c.pins.size() == 1 && c.pins.count("main/outer")) ++derived_outer;
  }
  EXPECT_EQ(golden_pinned, 1);
  EXPECT_EQ(derived_outer, 0);
  // Wrong golden data for the pinned branch is caught.
  write_file(d.p / "test_data_set_1" / "output_0.pb", write_pb_value(f32({2, 3}, {2}), ""));
  r = condlint::test::run_file(d.p / "model.onnx", RunConfig{});
  EXPECT_EQ(r.failed, 1);
}

TEST(ExecRun, SaveRecordsEveryBranchAsGoldenData) {
  TempDir d;
  write_case(d.p / "m", nested_if_model(), {f32({1, 2}, {2}), boolean(true), boolean(true)}, {});
  RunConfig cfg;
  cfg.save_dir = d.p / "saved";
  ModelResult r = condlint::test::run_file(d.p / "m" / "model.onnx", cfg);
  EXPECT_EQ(r.failed, 0);
  ASSERT_EQ(find_data_sets(d.p / "saved").size(), 3u);
  // The other branches were reached by synthesized inputs (c1 = false, c2 = false): no pins needed.
  EXPECT_TRUE(fs::exists(d.p / "saved" / "test_data_set_1" / "input_1.pb"));
  EXPECT_FALSE(fs::exists(d.p / "saved" / "test_data_set_1" / "pins.json"));
  RunConfig again;
  again.data_dirs = {d.p / "saved"};
  r = condlint::test::run_file(d.p / "m" / "model.onnx", again);
  EXPECT_EQ(r.failed, 0);
  EXPECT_EQ(r.passed, 3);
  int golden = 0;
  for (const auto& c : r.cases) golden += c.golden;
  EXPECT_EQ(golden, 3);  // every branch now has golden data; no derived run is needed
}

TEST(ExecRun, UnsupportedOpLoopLimitAndHugeTensorAreResultsNotCrashes) {
  TempDir d;
  {
    onnx::GraphProto g;
    *g.add_input() = vi("x", 1, {1});
    *g.add_output() = vi("y", 1, {1});
    node(g, "FancyOp", {"x"}, {"y"}, "fancy");
    write_case(d.p / "u", model_with(g), {f32({1}, {1})}, {});
    ModelResult r = condlint::test::run_file(d.p / "u" / "model.onnx", RunConfig{});
    ASSERT_EQ(r.cases.size(), 1u);
    EXPECT_EQ(r.cases[0].status, CaseStatus::Unsupported);
    EXPECT_NE(r.cases[0].message.find("unsupported op FancyOp at main/fancy"), std::string::npos) << r.cases[0].message;
  }
  {
    // Loop without trip count whose condition stays true.
    onnx::GraphProto g;
    *g.add_input() = vi("c", 9, {});
    *g.add_output() = vi("y", 1, {});
    add_const(g, "zero", 0.0f);
    auto* loop = node(g, "Loop", {"", "c", "zero"}, {"y"}, "forever");
    auto* body = add_graph_attr(loop, "body");
    *body->add_input() = vi("i", 7, {});
    *body->add_input() = vi("cin", 9, {});
    *body->add_input() = vi("acc", 1, {});
    node(*body, "Identity", {"cin"}, {"cout"});
    node(*body, "Identity", {"acc"}, {"acc_out"});
    *body->add_output() = vi("cout", 9, {});
    *body->add_output() = vi("acc_out", 1, {});
    write_case(d.p / "l", model_with(g), {boolean(true)}, {});
    RunConfig cfg;
    cfg.limits.max_loop_iterations = 1000;
    ModelResult r = condlint::test::run_file(d.p / "l" / "model.onnx", cfg);
    ASSERT_EQ(r.cases.size(), 1u);
    EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
    EXPECT_NE(r.cases[0].message.find("iteration limit"), std::string::npos) << r.cases[0].message;
  }
  {
    onnx::GraphProto g;
    *g.add_output() = vi("y", 1, {});
    auto* n = node(g, "Constant", {}, {"shape"});
    auto* a = n->add_attribute();
    a->set_name("value_ints");
    a->set_type(onnx::AttributeProto::INTS);
    a->add_ints(1000000);
    a->add_ints(1000000);
    node(g, "ConstantOfShape", {"shape"}, {"y"}, "huge");
    write_file(d.p / "h" / "model.onnx", model_with(g).SerializeAsString());
    ModelResult r = condlint::test::run_file(d.p / "h" / "model.onnx", RunConfig{});
    ASSERT_EQ(r.cases.size(), 1u);
    EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
    EXPECT_NE(r.cases[0].message.find("resource limit"), std::string::npos) << r.cases[0].message;
    EXPECT_NE(r.cases[0].message.find("main/huge"), std::string::npos) << r.cases[0].message;
  }
  {
    write_file(d.p / "g" / "model.onnx", "this is not protobuf");
    ModelResult r = condlint::test::run_file(d.p / "g" / "model.onnx", RunConfig{});
    EXPECT_FALSE(r.error.empty());
  }
}

// Initializers become tensors only when a node (or a graph inside one) reads them: a weight no node reads is never
// materialized, whatever its size. One a branch reads is held against the live-bytes limit, not the per-tensor one
// (the file bounds its size); what a node computes from it meets both.
TEST(ExecRun, OnlyTheInitializersANodeReadsBecomeTensors) {
  TempDir d;
  auto weight = [](onnx::GraphProto& g, const std::string& name) {
    auto* t = g.add_initializer();
    t->set_name(name);
    t->set_data_type(1);
    t->add_dims(1000);
    t->set_raw_data(std::string(4000, '\0'));
  };
  // The else branch: "none" reads no weight, "pick" gathers one element of 'read', "neg" computes a 1000-element
  // tensor from it first.
  auto model = [&](const std::string& use) {
    onnx::GraphProto g;
    *g.add_input() = vi("c", 9, {});
    *g.add_input() = vi("x", 1, {1});
    *g.add_output() = vi("y", 1, {1});
    weight(g, "unread");
    weight(g, "read");
    auto* zero = g.add_initializer();
    zero->set_name("zero");
    zero->set_data_type(7);
    zero->add_int64_data(0);
    auto* n = node(g, "If", {"c"}, {"y"}, "pick");
    auto* then_g = add_graph_attr(n, "then_branch");
    node(*then_g, "Identity", {"x"}, {"t"});
    *then_g->add_output() = vi("t", 1, {1});
    auto* else_g = add_graph_attr(n, "else_branch");
    if (use == "none") {
      node(*else_g, "Neg", {"x"}, {"e"});
    } else {
      std::string w = "read";
      if (use == "neg") node(*else_g, "Neg", {"read"}, {w = "negated"}, "negate");
      node(*else_g, "Gather", {w, "zero"}, {"s"});
      node(*else_g, "Add", {"x", "s"}, {"e"});
    }
    *else_g->add_output() = vi("e", 1, {1});
    return model_with(g, 13);
  };
  auto run = [&](const std::string& use, const RunConfig& cfg) {
    write_case(d.p / use, model(use), {boolean(false), f32({1}, {1})}, {});
    ModelResult r = condlint::test::run_file(d.p / use / "model.onnx", cfg);
    EXPECT_FALSE(r.cases.empty()) << use;
    return r;
  };
  RunConfig cfg;
  cfg.limits.max_elements = 100;
  for (const std::string use : {"none", "pick"}) {
    const ModelResult r = run(use, cfg);
    for (const auto& c : r.cases) EXPECT_EQ(c.status, CaseStatus::Passed) << use << ": " << c.message;
  }
  ModelResult r = run("neg", cfg);
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
  EXPECT_NE(r.cases[0].message.find("negate"), std::string::npos) << r.cases[0].message;
  EXPECT_NE(r.cases[0].message.find("above the limit of 100"), std::string::npos) << r.cases[0].message;

  RunConfig small;
  small.limits.max_total_bytes = 4000;  // 'read' is held as 1000 doubles
  r = run("pick", small);
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
  EXPECT_NE(r.cases[0].message.find("initializer 'read'"), std::string::npos) << r.cases[0].message;
  EXPECT_NE(r.cases[0].message.find("above the limit of 4000"), std::string::npos) << r.cases[0].message;
}

TEST(ExecCli, RunExitCodesAndJsonSummary) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  TempDir d;
  write_case(d.p, nested_if_model(), {f32({1, 2}, {2}), boolean(true), boolean(true)}, {f32({2, 3}, {2})});
  const std::string m = (d.p / "model.onnx").string();
  auto r = run(condlint_cmd() + " run " + m + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["passed"], 3);
  EXPECT_EQ(j["summary"]["failed"], 0);
  EXPECT_EQ(run(condlint_cmd() + " run " + m + " --pin main/outer=maybe").exit_code, 2);
  EXPECT_EQ(run(condlint_cmd() + " run " + m + " --branches sideways").exit_code, 2);
  EXPECT_EQ(run(condlint_cmd() + " run " + (d.p / "absent.onnx").string()).exit_code, 2);
  // Pinning the outer If against golden data made for the then branch is a mismatch.
  r = run(condlint_cmd() + " run " + m + " --pin main/outer=false --branches taken");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  // A pin that names no If of the model is a usage error, said with the closest If paths.
  EXPECT_EQ(run(condlint_cmd() + " run " + m + " --pin main/nowhere=true").exit_code, 2);
}

namespace {

// The reference LSTM is as strict as the spec (and ONNX Runtime): an initial_h of [1,1,1,4] holds the right number
// of values but not the shape [num_directions, batch, hidden] = [1,1,4], and fails the run.
TEST(ExecRun, LstmInitialStateMustHaveTheSpecShape) {
  TempDir d;
  for (const bool spec_shape : {true, false}) {
    onnx::GraphProto g;
    *g.add_input() = vi("x", 1, {1, 1, 2});
    *g.add_input() = vi("h0", 1, spec_shape ? std::vector<int64_t>{1, 1, 4} : std::vector<int64_t>{1, 1, 1, 4});
    *g.add_output() = vi("y", 1, {1, 1, 1, 4});
    for (const char* wr : {"W", "R"}) {
      auto* t = g.add_initializer();
      t->set_name(wr);
      t->set_data_type(1);
      const int64_t cols = wr[0] == 'W' ? 2 : 4;
      for (int64_t dim : {int64_t{1}, int64_t{16}, cols}) t->add_dims(dim);
      for (int64_t k = 0; k < 16 * cols; ++k) t->add_float_data(0.01f);
    }
    auto* n = node(g, "LSTM", {"x", "W", "R", "", "", "h0"}, {"y"}, "lstm");
    auto* a = n->add_attribute();
    a->set_name("hidden_size");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(4);
    const fs::path dir = d.p / (spec_shape ? "ok" : "bad");
    write_case(
        dir, model_with(g),
        {f32({0.5, -0.5}, {1, 1, 2}), spec_shape ? f32({0, 0, 0, 0}, {1, 1, 4}) : f32({0, 0, 0, 0}, {1, 1, 1, 4})}, {});
    ModelResult r = condlint::test::run_file(dir / "model.onnx", RunConfig{});
    ASSERT_EQ(r.cases.size(), 1u);
    if (spec_shape) {
      EXPECT_NE(r.cases[0].status, CaseStatus::Failed) << r.cases[0].message;
    } else {
      EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
      EXPECT_NE(r.cases[0].message.find("initial_h must have shape [1,1,4]"), std::string::npos) << r.cases[0].message;
    }
  }
}

}  // namespace

namespace {

using CoverageMap = std::map<std::pair<std::string, bool>, BranchCoverage>;
BranchCoverage at(const CoverageMap& m, const std::string& path, bool branch) {
  auto it = m.find({path, branch});
  return it == m.end() ? BranchCoverage{} : it->second;
}

CoverageMap coverage_by_branch(const ModelResult& r) {
  std::map<std::pair<std::string, bool>, BranchCoverage> out;
  for (const auto& c : branch_coverage(r)) out[{c.if_path, c.branch}] = c;
  return out;
}

// corpus/onnx/exec/branch_coverage: its data takes one branch of each If; the other is covered by synthesized
// inputs (a shape guard: another size for the symbolic dim; a value condition on an input: another value), by
// pinning (a value no search over the inputs reaches) or is proven dead. --save writes the synthesized inputs
// as golden data, so the next run covers those branches by data.
TEST(ExecRun, EachWayOfCoveringABranch) {
  TempDir d;
  const fs::path src = condlint::test::source_dir() / "corpus/onnx/exec/branch_coverage";
  fs::copy(src, d.p / "m", fs::copy_options::recursive);
  RunConfig cfg;
  cfg.save_dir = d.p / "saved";
  ModelResult r = condlint::test::run_file(d.p / "m" / "branch_coverage.onnx", cfg);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.failed, 0);
  auto cov = coverage_by_branch(r);
  EXPECT_EQ(at(cov, "main/guard", false).how, "data");
  EXPECT_EQ(at(cov, "main/guard", true).how, "synthesized");
  EXPECT_EQ(at(cov, "main/always", true).how, "data");
  EXPECT_EQ(at(cov, "main/always", false).how, "dead");
  EXPECT_EQ(at(cov, "main/mode_switch", true).how, "synthesized");
  EXPECT_EQ(at(cov, "main/overflow", true).how, "pinned");
  EXPECT_EQ(coverage_summary(branch_coverage(r)),
            "If branches: 4 taken by the data, 2 by synthesized inputs, 1 reached by pinning, 1 dead, 0 behind shape "
            "guards (not pinned), 0 not covered (reason given), 0 not run");
  std::set<std::string> what;
  for (const auto& c : r.cases)
    if (!c.synthesized.empty() && !c.derived) {
      what.insert(c.synthesized);
      EXPECT_TRUE(c.pins.empty());
      EXPECT_FALSE(c.saved_to.empty());
    }
  EXPECT_EQ(what, (std::set<std::string>{"'mode' = 1", "dim 'n' = 1 ('x' [1,1])"}));

  RunConfig again;
  again.data_dirs = {d.p / "saved"};
  r = condlint::test::run_file(d.p / "m" / "branch_coverage.onnx", again);
  EXPECT_EQ(r.failed, 0);
  cov = coverage_by_branch(r);
  EXPECT_EQ(at(cov, "main/guard", true).how, "data");
  EXPECT_EQ(at(cov, "main/mode_switch", true).how, "data");
}

// A synthesized input that selects a branch whose run then fails is not a failure of the model (the declared types
// allow it, but the model may assume more): the branch stays uncovered, and why says what was tried.
TEST(ExecRun, ASynthesizedInputThatFailsIsAReasonNotAFailure) {
  TempDir d;
  onnx::GraphProto g;
  g.set_name("main");
  auto x = vi("x", 1, {1, 0});
  x.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("n");
  *g.add_input() = x;
  auto y = x;
  y.set_name("y");
  *g.add_output() = y;
  node(g, "Shape", {"x"}, {"shape"});
  auto int_const = [&](const std::string& name, std::vector<int64_t> v, bool scalar) {
    auto* n = node(g, "Constant", {}, {name});
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(7);
    if (!scalar) a->mutable_t()->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t e : v) a->mutable_t()->add_int64_data(e);
  };
  int_const("i1", {1}, true);
  node(g, "Gather", {"shape", "i1"}, {"n"});
  node(g, "Equal", {"n", "i1"}, {"single"});
  auto* iff = node(g, "If", {"single"}, {"y"}, "guard");
  auto* then_g = add_graph_attr(iff, "then_branch");
  then_g->set_name("then");
  {
    auto* n = then_g->add_node();
    n->set_op_type("Constant");
    n->add_output("bad_shape");
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(7);
    a->mutable_t()->add_dims(2);
    a->mutable_t()->add_int64_data(2);
    a->mutable_t()->add_int64_data(-1);
    auto* r = then_g->add_node();
    r->set_op_type("Reshape");
    r->add_input("x");
    r->add_input("bad_shape");
    r->add_output("t");
  }
  auto ty = y;
  ty.set_name("t");
  ty.mutable_type()->mutable_tensor_type()->clear_shape();
  *then_g->add_output() = ty;
  auto* else_g = add_graph_attr(iff, "else_branch");
  else_g->set_name("else");
  node(*else_g, "Identity", {"x"}, {"e"});
  auto ey = ty;
  ey.set_name("e");
  *else_g->add_output() = ey;
  write_case(d.p, model_with(g), {f32({1, 2, 3, 4}, {1, 4})}, {f32({1, 2, 3, 4}, {1, 4})});
  ModelResult r = condlint::test::run_file(d.p / "model.onnx", RunConfig{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.failed, 0);
  for (const auto& c : r.cases) EXPECT_TRUE(c.synthesized.empty()) << c.synthesized;
  auto cov = coverage_by_branch(r);
  EXPECT_EQ(at(cov, "main/guard", false).how, "data");
  EXPECT_EQ(at(cov, "main/guard", true).how, "guarded");
  EXPECT_NE(at(cov, "main/guard", true).why.find("synthesized inputs select it, but the run fails (dim 'n' = 1"),
            std::string::npos)
      << at(cov, "main/guard", true).why;
}

}  // namespace

namespace {

// run --random: input sets made from the declared types (no golden data needed); --input-shapes and --range, or the
// configuration's inputs: entries, shape them; a shape that contradicts a declared dim is a usage error.
TEST(ExecCli, RandomInputsFromTheCommandLineAndTheConfiguration) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  TempDir d;
  write_file(d.p / "m" / "model.onnx", nested_if_model().SerializeAsString());
  const std::string m = (d.p / "m" / "model.onnx").string();
  EXPECT_EQ(run(condlint_cmd() + " run " + m).exit_code, 2);  // no data, no --random
  auto r = run(condlint_cmd() + " run " + m + " --random 2 --seed 3 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cases"][0]["data_set"], "random_0 (seed 3): 'x' [2], 'c1' [], 'c2' []");
  EXPECT_EQ(j["cases"][1]["data_set"], "random_1 (seed 3): 'x' [2], 'c1' [], 'c2' []");
  EXPECT_EQ(j["summary"]["branches"]["not_run"], 0);
  r = run(condlint_cmd() + " run " + m + " --random 1 --input-shapes x:3 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("--input-shapes gives 'x' dim 0 = 3; the model declares 2"), std::string::npos) << r.out;
  EXPECT_EQ(run(condlint_cmd() + " run " + m + " --random 1 --range x=2,1").exit_code, 2);

  // The configuration's ranges apply to the models its path glob matches; the command line wins.
  std::ofstream(d.p / "m" / ".condlint.yaml") << "inputs:\n  - path: \"*.onnx\"\n    ranges:\n      x: [10, 20]\n"
                                                 "  - path: \"other/*.onnx\"\n    ranges:\n      x: [-5, -4]\n";
  auto saved_x = [&](const std::string& extra) {
    fs::remove_all(d.p / "saved");
    const auto rr =
        run(condlint_cmd() + " run " + m + " --random 1 --branches taken --save " + (d.p / "saved").string() + extra);
    EXPECT_EQ(rr.exit_code, 0) << rr.out;
    std::string bytes;
    EXPECT_EQ(read_file_bytes(d.p / "saved" / "test_data_set_0" / "input_0.pb", bytes), "");
    return read_pb_value(bytes, nullptr);
  };
  const Value from_config = saved_x("");
  for (double v : from_config.t->f) {
    EXPECT_GE(v, 10);
    EXPECT_LE(v, 20);
  }
  const Value from_cli = saved_x(" --range x=100,101");
  for (double v : from_cli.t->f) EXPECT_GE(v, 100);
  std::ofstream(d.p / "m" / ".condlint.yaml") << "inputs:\n  - shapes:\n      x: 3\n";
  r = run(condlint_cmd() + " run " + m + " --random 1 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("the shape of 'x' must be a list"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// The search for inputs is bounded in time as well as in runs: with no time left, no candidate runs.
TEST(ExecSynthesis, TheSearchStopsAtItsTimeBudget) {
  const fs::path path = condlint::test::source_dir() / "corpus/onnx/exec/branch_coverage/branch_coverage.onnx";
  std::string bytes;
  ASSERT_EQ(read_file_bytes(path, bytes), "");
  onnx::ModelProto model;
  ASSERT_EQ(parse_proto(bytes, model), "");
  const auto linted = condlint::load_file(path.string());
  ASSERT_TRUE(linted.model);
  const BranchPolicy policy(*linted.model);
  Tensor x(DT::F32, {1, 4});
  Tensor mode(DT::I64, {});
  const std::vector<Value> base{Value::tensor(std::move(x)), Value::tensor(std::move(mode))};
  const std::set<BranchKey> wanted{{"main/guard", true}, {"main/mode_switch", true}};
  SynthesisOptions opt;
  EXPECT_EQ(synthesize_inputs(model, policy, base, wanted, opt).sets.size(), 2u);
  opt.max_ms = -1;
  const SynthesisResult none = synthesize_inputs(model, policy, base, wanted, opt);
  EXPECT_EQ(none.runs, 0);
  EXPECT_TRUE(none.sets.empty());
}

}  // namespace

namespace {

// `lint --exec` and `run` parse an ONNX file once: the front door keeps the loader's parsed protobuf when asked and
// the executor runs that. The executor never opens the file itself: a model opened without it is not run.
TEST(ExecRun, TheLoadersParsedModelIsRunAsIs) {
  const fs::path model = condlint::test::source_dir() / "corpus/onnx/exec/branch_coverage/branch_coverage.onnx";
  condlint::LoadResult kept = condlint::load_file(model.string(), /*keep_onnx_proto=*/true);
  ASSERT_TRUE(kept.model && kept.model->onnx);
  EXPECT_NE(kept.model->onnx->proto, nullptr);
  condlint::LoadResult plain = condlint::load_file(model.string());
  ASSERT_TRUE(plain.model && plain.model->onnx);
  EXPECT_EQ(plain.model->onnx->proto, nullptr);
  const ModelResult a = run_model(*kept.model, model, RunConfig{});
  const ModelResult b = run_model(*plain.model, model, RunConfig{});
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(b.error, model.string() + ": the parsed model was not kept");
  EXPECT_TRUE(b.cases.empty());
  EXPECT_EQ(a.failed, 0);
  // lint --exec runs the kept protobuf and drops it: the rules read the Model.
  attach_exec_results(*kept.model, model.string(), RunConfig{});
  EXPECT_EQ(kept.model->onnx->proto, nullptr);
  EXPECT_NE(kept.model->exec, nullptr);
}

// The executors name an If by the path the Model gives it (Model::full_path_of), in every format: the root "main",
// branches "then"/"else", loop parts "body" (NNAPI WHILE: "cond"/"body"), an unnamed node "Op#index". Coverage,
// `--pin`, lint --exec locations and the HTML panels all key on that one spelling.
std::set<std::string> model_if_paths(const condlint::Model& m) {
  std::set<std::string> out;
  for (const auto& c : m.conditionals) out.insert(m.full_path_of(c.graph, c.node));
  return out;
}

std::set<std::string> covered_if_paths(const ModelResult& r) {
  std::set<std::string> out;
  for (const auto& [p, b] : r.if_coverage) out.insert(p);
  return out;
}

TEST(ExecRun, EveryFormatNamesAnIfAsTheModelDoes) {
  TempDir d;
  onnx::ModelProto m = nested_if_model();
  // The inner If has no name: both sides call it If#0 (node 0 of the outer then branch).
  for (auto& a : *m.mutable_graph()->mutable_node(0)->mutable_attribute())
    if (a.name() == "then_branch") a.mutable_g()->mutable_node(0)->clear_name();
  write_case(d.p, m, {f32({1, 2}, {2}), boolean(true), boolean(true)}, {f32({2, 3}, {2})});
  condlint::LoadResult onnx_model = condlint::load_file((d.p / "model.onnx").string(), true);
  ASSERT_TRUE(onnx_model.model);
  const ModelResult r = run_model(*onnx_model.model, d.p / "model.onnx", RunConfig{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(model_if_paths(*onnx_model.model), (std::set<std::string>{"main/outer", "main/outer/then/If#0"}));
  EXPECT_EQ(covered_if_paths(r), model_if_paths(*onnx_model.model));

  const fs::path ir = condlint::test::source_dir() / "corpus/ir/exec/nested_if/nested_if.xml";
  condlint::LoadResult ir_model = condlint::load_file(ir.string());
  ASSERT_TRUE(ir_model.model);
  const ModelResult ri = run_ir_model(*ir_model.model, ir, RunConfig{});
  ASSERT_TRUE(ri.error.empty()) << ri.error;
  EXPECT_EQ(model_if_paths(*ir_model.model), (std::set<std::string>{"main/outer", "main/outer/then/inner"}));
  EXPECT_EQ(covered_if_paths(ri), model_if_paths(*ir_model.model));

  // NNAPI: a WHILE whose condition subgraph holds an IF.
  const fs::path nn = d.p / "while_if.nnapi.json";
  std::ofstream(nn) << condlint::test::kNnapiWhileWithIfInCondition;
  condlint::LoadResult nn_model = condlint::load_file(nn.string());
  ASSERT_TRUE(nn_model.model);
  const ModelResult rn = run_nnapi_model(*nn_model.model, nn, RunConfig{});
  ASSERT_TRUE(rn.error.empty()) << rn.error;
  EXPECT_EQ(model_if_paths(*nn_model.model), (std::set<std::string>{"main/WHILE#0/cond/IF#0"}));
  EXPECT_EQ(covered_if_paths(rn), model_if_paths(*nn_model.model));
}

}  // namespace
