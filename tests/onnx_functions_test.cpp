// Ifs inside ONNX model-local functions (FunctionProto): each body linted once as a root of its own
// (function:DOMAIN.NAME), typed as its calls agree; calls typed through their bodies; the executors run calls inline,
// so coverage names a function's If per call.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include "exec/branch_policy.hpp"
#include "model/onnx_data.hpp"
#include "test_support.hpp"

using namespace condlint;
using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

// A tensor type of element `elem` and the given dims.
onnx::TypeProto fn_tensor(int elem, std::vector<int64_t> dims) {
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(elem);
  auto* sh = t.mutable_tensor_type()->mutable_shape();
  for (int64_t d : dims) sh->add_dim()->set_dim_value(d);
  return t;
}

onnx::NodeProto* fn_node(google::protobuf::RepeatedPtrField<onnx::NodeProto>* list, const std::string& op,
                         std::vector<std::string> in, std::vector<std::string> out, const std::string& name,
                         const std::string& domain = "") {
  onnx::NodeProto* n = list->Add();
  n->set_op_type(op);
  n->set_name(name);
  n->set_domain(domain);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

// local.f(x) -> y: c = Cast<bool>(ReduceSum(Shape(x))); y = If(c)
// then Identity(x) else Neg(x). Main calls it on `inputs` (one call each) and returns every call's output.
onnx::ModelProto fn_model(const std::vector<onnx::TypeProto>& inputs, bool recursive) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_version(17);
  auto* lo = m.add_opset_import();
  lo->set_domain("local");
  lo->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto* vi = g->add_input();
    vi->set_name("in" + std::to_string(k));
    *vi->mutable_type() = inputs[k];
    // The call's output is not declared (the graph output after the Identity is): its type is the call's own.
    fn_node(g->mutable_node(), "f", {"in" + std::to_string(k)}, {"mid" + std::to_string(k)},
            "Call_f_" + std::to_string(k), "local");
    fn_node(g->mutable_node(), "Identity", {"mid" + std::to_string(k)}, {"out" + std::to_string(k)},
            "Identity_" + std::to_string(k));
    g->add_output()->set_name("out" + std::to_string(k));
    *g->mutable_output(static_cast<int>(k))->mutable_type() = inputs[k];
  }
  onnx::FunctionProto* f = m.add_functions();
  f->set_name("f");
  f->set_domain("local");
  f->add_input("x");
  f->add_output("y");
  auto* fo = f->add_opset_import();
  fo->set_version(17);
  auto* flo = f->add_opset_import();
  flo->set_domain("local");
  flo->set_version(1);
  fn_node(f->mutable_node(), "Shape", {"x"}, {"sh"}, "Shape_x");
  fn_node(f->mutable_node(), "ReduceSum", {"sh"}, {"n"}, "ReduceSum_dims")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("keepdims");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  fn_node(f->mutable_node(), "Cast", {"n"}, {"c"}, "Cast_bool")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(onnx::TensorProto::BOOL);
    return a;
  }());
  onnx::NodeProto* iff = fn_node(f->mutable_node(), "If", {"c"}, {"y"}, "If_in_f");
  for (const char* b : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = iff->add_attribute();
    a->set_name(b);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* bg = a->mutable_g();
    bg->set_name(b);
    const bool then = std::string(b) == "then_branch";
    if (then && recursive) fn_node(bg->mutable_node(), "f", {"x"}, {"r"}, "Call_f_again", "local");
    else fn_node(bg->mutable_node(), then ? "Identity" : "Neg", {"x"}, {"r"}, then ? "Identity_x" : "Neg_x");
    bg->add_output()->set_name("r");
  }
  return m;
}

std::unique_ptr<Model> fn_load(const onnx::ModelProto& m, const std::string& name) {
  const fs::path p = temp_dir("fn") / name;
  write_file(p, m.SerializeAsString());
  LoadResult lr = load_file(p.string());
  return std::move(lr.model);
}

// The type of output 0 of the main graph's node named `name`.
std::string fn_output_type(const Model& m, const std::string& name) {
  for (const Node& n : m.graphs[0].nodes)
    if (n.name.str() == name && !n.outputs.empty()) return n.outputs[0].type().str() + " " + n.outputs[0].shape().str();
  return "(no node " + name + ")";
}

// The declared-or-inferred type of input 0 of the body of function:local.f, as its walk typed it.
std::string fn_body_input_type(const Model& m) {
  for (const Graph& g : m.graphs)
    if (g.own_root && g.role == "function:local.f")
      for (const Node& n : g.nodes)
        if (!n.inputs.empty()) return n.inputs[0].type().str() + " " + n.inputs[0].shape().str();
  return "(no body)";
}

// torch_lib's rank test, as torch 2.4's dynamo_export writes it: local.Rank(x) = Size(Shape(x)) and
// local.g(x) = If(Equal(Rank(x), 2)) then Identity(x) else Neg(x). Main calls g on `inputs` (one call each).
onnx::ModelProto fn_rank_model(const std::vector<onnx::TypeProto>& inputs) {
  onnx::ModelProto m = fn_model(inputs, false);
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == "f") n.set_op_type("g");
  onnx::FunctionProto* g = m.mutable_functions(0);
  g->set_name("g");
  onnx::FunctionProto* rank = m.add_functions();
  rank->set_name("Rank");
  rank->set_domain("local");
  rank->add_input("t");
  rank->add_output("r");
  rank->add_opset_import()->set_version(17);
  fn_node(rank->mutable_node(), "Shape", {"t"}, {"s"}, "Shape_t");
  fn_node(rank->mutable_node(), "Size", {"s"}, {"r"}, "Size_s");
  // g's condition: Equal(Rank(x), 2) in place of Cast(ReduceSum(Shape(x))).
  onnx::NodeProto iff = g->node(3);
  g->clear_node();
  fn_node(g->mutable_node(), "Rank", {"x"}, {"rank"}, "Call_Rank", "local");
  onnx::NodeProto* two = fn_node(g->mutable_node(), "Constant", {}, {"two"}, "Constant_2");
  onnx::AttributeProto* v = two->add_attribute();
  v->set_name("value_int");
  v->set_type(onnx::AttributeProto::INT);
  v->set_i(2);
  fn_node(g->mutable_node(), "Equal", {"rank", "two"}, {"c"}, "Equal_rank");
  *g->add_node() = iff;
  return m;
}

}  // namespace

TEST(OnnxFunctions, AnIfInAFunctionIsAConditionalNamedByItsFunction) {
  LoadResult lr = load_file((source_dir() / "corpus/onnx/invalid/C006_if_in_function.onnx").string());
  ASSERT_TRUE(lr.model);
  const Model& m = *lr.model;
  ASSERT_EQ(m.conditionals.size(), 1u);
  const ConditionalView& c = m.conditionals[0];
  EXPECT_EQ(m.path_of(c.graph, c.node), "function:local.pick/If_in_pick");
  EXPECT_EQ(m.full_path_of(c.graph, c.node), "function:local.pick/If_in_pick");
  EXPECT_EQ(m.path_of(c.branch[1].graph), "function:local.pick/If_in_pick/else");
  // The executors' path through the call names the same If.
  EXPECT_EQ(m.body_path_of("main/Call_pick/If_in_pick"), "function:local.pick/If_in_pick");
  EXPECT_EQ(m.body_path_of("main/Call_pick/If_in_pick/then/Identity_float"),
            "function:local.pick/If_in_pick/then/Identity_float");
  EXPECT_EQ(m.body_path_of("main/Other"), "main/Other");
  // Pinning decisions read the body's If for each call.
  const exec::BranchPolicy policy(m);
  EXPECT_FALSE(policy.condition("function:local.pick/If_in_pick").empty());
  EXPECT_EQ(policy.condition("main/Call_pick/If_in_pick"), policy.condition("function:local.pick/If_in_pick"));
  const auto findings = run_rules(m, RuleSelection{});
  ASSERT_EQ(findings.size(), 1u) << dump_findings(findings);
  EXPECT_EQ(findings[0].rule, "C006");
}

TEST(OnnxFunctions, CallsAreTypedThroughTheirBodies) {
  LoadResult lr = load_file((source_dir() / "corpus/onnx/valid/opset18_if_in_function.onnx").string());
  ASSERT_TRUE(lr.model);
  // gate's If gives what both branches give: a call of local.double (Add) and a LeakyRelu whose alpha is gate's.
  EXPECT_EQ(fn_output_type(*lr.model, "Call_gate_a"), "f32 [2,4]");
  EXPECT_EQ(fn_output_type(*lr.model, "Call_gate_b"), "f32 [2,4]");
  EXPECT_TRUE(run_rules(*lr.model, RuleSelection{}).empty());
}

TEST(OnnxFunctions, ABodyIsTypedOnlyAsAllItsCallsAgree) {
  const auto f32 = fn_tensor(onnx::TensorProto::FLOAT, {2, 3});
  const auto agree = fn_load(fn_model({f32, f32}, false), "agree.onnx");
  ASSERT_TRUE(agree);
  EXPECT_EQ(fn_body_input_type(*agree), "f32 [2,3]");
  EXPECT_EQ(fn_output_type(*agree, "Call_f_0"), "f32 [2,3]");
  // Two calls with different shapes: the body's input is unknown (sound), each call is still typed by its own.
  const auto differ = fn_load(fn_model({f32, fn_tensor(onnx::TensorProto::FLOAT, {5})}, false), "differ.onnx");
  ASSERT_TRUE(differ);
  EXPECT_EQ(fn_body_input_type(*differ), "unknown [...]");
  EXPECT_EQ(fn_output_type(*differ, "Call_f_0"), "f32 [2,3]");
  EXPECT_EQ(fn_output_type(*differ, "Call_f_1"), "f32 [5]");
  // Only the note that the condition's shape is not known in the body.
  for (const auto& f : run_rules(*differ, RuleSelection{})) EXPECT_EQ(f.rule, "C004") << f.message;
}

TEST(OnnxFunctions, ARankTestThroughACallIsTypedWhateverTheInput) {
  // The calls differ, so g's body is walked with x untyped; Rank(x) is still an int64 scalar (Size of a Shape),
  // so the condition is a bool scalar and C004 has nothing to say.
  const auto m =
      fn_load(fn_rank_model({fn_tensor(onnx::TensorProto::FLOAT, {2, 3}), fn_tensor(onnx::TensorProto::FLOAT, {5})}),
              "rank_test.onnx");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->conditionals.size(), 1u);
  const auto findings = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(findings.empty()) << dump_findings(findings);
  // The condition is traced into Rank's body: a test of x's rank (a shape guard, never pinned), undecided here.
  const ConditionProvenance& p = m->conditionals[0].provenance;
  EXPECT_TRUE(p.on_shapes) << p.text;
  EXPECT_FALSE(p.on_values) << p.text;
  EXPECT_EQ(p.decided, -1) << p.text;
  // One call of rank 2: the body is typed, and the rank test is decided for it.
  const auto one = fn_load(fn_rank_model({fn_tensor(onnx::TensorProto::FLOAT, {2, 3})}), "rank_test_one.onnx");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->conditionals.size(), 1u);
  EXPECT_EQ(one->conditionals[0].provenance.decided, 1) << one->conditionals[0].provenance.text;
}

TEST(OnnxFunctions, RecursionIsBoundedAndSilent) {
  const auto m = fn_load(fn_model({fn_tensor(onnx::TensorProto::FLOAT, {2})}, true), "recursive.onnx");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->conditionals.size(), 1u);
  // A recursive function's calls are not typed through its body: unknown, never an ONNX013 warning.
  EXPECT_EQ(fn_output_type(*m, "Call_f_0"), "unknown [...]");
  for (const auto& f : run_rules(*m, RuleSelection{})) EXPECT_NE(f.rule, "ONNX013") << f.message;
}

TEST(OnnxFunctions, VerboseCountsTheIfsInsideFunctionsAndTheExportIsClean) {
  const fs::path model =
      source_dir() /
      "corpus-modern/onnx/dynamo_nested_cond_functions_opset18/dynamo_nested_cond_functions_opset18.onnx";
  const CmdResult r = run(condlint_cmd() + " -v lint " + shell_quote(model.string()) + " 2>&1");
  EXPECT_NE(r.out.find("2 conditionals"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 errors, 0 warnings"), std::string::npos) << r.out;
}

TEST(OnnxFunctions, RunCoversAFunctionsIfPerCall) {
  const fs::path model = source_dir() / "corpus/onnx/valid/opset18_if_in_function.onnx";
  const CmdResult r = run(condlint_cmd() + " run --random 2 " + shell_quote(model.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("If main/Call_gate_a/If_in_gate:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("If main/Call_gate_b/If_in_gate:"), std::string::npos) << r.out;
  // The calls ran the body's If: it is not listed again as an If no run reached.
  EXPECT_EQ(r.out.find("If function:local.gate/If_in_gate:"), std::string::npos) << r.out;
}

TEST(OnnxFunctions, ADefectOnlyOneCallsTypesExposeIsReportedAtThatCall) {
  // The calls differ (f32 and bool), so the body is walked untyped; Neg rejects bool, for the second call only.
  const auto m =
      fn_load(fn_model({fn_tensor(onnx::TensorProto::FLOAT, {2, 3}), fn_tensor(onnx::TensorProto::BOOL, {2})}, false),
              "one_call_fails.onnx");
  ASSERT_TRUE(m);
  std::vector<std::string> errors;
  for (const auto& f : run_rules(*m, RuleSelection{}))
    if (f.rule != "C004") errors.push_back(f.rule + " " + m->path_of(f.loc.graph, f.loc.node_index) + " " + f.message);
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_EQ(errors[0].rfind("ONNX008 main/Call_f_1 ", 0), 0u) << errors[0];
  EXPECT_NE(errors[0].find("Neg 'Neg_x'"), std::string::npos) << errors[0];
}

namespace {

// local.f(a, b) -> y with the given body op on its inputs; main calls f(x) without b.
onnx::ModelProto fn_omitted_input_model(const std::string& op, std::vector<std::string> body_inputs) {
  onnx::ModelProto m;
  m.set_ir_version(9);
  auto* os = m.add_opset_import();
  os->set_version(18);
  auto* ls = m.add_opset_import();
  ls->set_domain("local");
  ls->set_version(1);
  auto* f = m.add_functions();
  f->set_domain("local");
  f->set_name("f");
  f->add_input("a");
  f->add_input("b");
  f->add_output("y");
  f->add_opset_import()->set_version(18);
  fn_node(f->mutable_node(), op, std::move(body_inputs), {"y"}, "body_op");
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* x = g->add_input();
  x->set_name("x");
  *x->mutable_type() = fn_tensor(onnx::TensorProto::FLOAT, {2});
  auto* z = g->add_output();
  z->set_name("z");
  *z->mutable_type() = fn_tensor(onnx::TensorProto::FLOAT, {2});
  fn_node(g->mutable_node(), "f", {"x"}, {"z"}, "call", "local");
  return m;
}

}  // namespace

// A call may leave out an input its function declares: onnx's checker accepts it, and ONNX Runtime runs it when the
// body never reads that input (Identity(a)) — no finding — and refuses it when the body reads it where the operator
// needs a value (Add(a, b): "input 1 is marked single but has an empty string") — ONNX008 at the call.
TEST(OnnxFunctions, AnOmittedInputIsAFindingOnlyWhereTheBodyNeedsIt) {
  const auto unused = fn_load(fn_omitted_input_model("Identity", {"a"}), "omitted_unused.onnx");
  ASSERT_TRUE(unused);
  for (const auto& f : run_rules(*unused, RuleSelection{}))
    EXPECT_NE(f.level, Level::Error) << f.rule << " " << f.message;
  const auto used = fn_load(fn_omitted_input_model("Add", {"a", "b"}), "omitted_used.onnx");
  ASSERT_TRUE(used);
  std::vector<std::string> errors;
  for (const auto& f : run_rules(*used, RuleSelection{}))
    if (f.level == Level::Error) errors.push_back(f.rule + " " + f.message);
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_EQ(errors[0].rfind("ONNX008 ", 0), 0u) << errors[0];
  EXPECT_NE(errors[0].find("leaves out input 1 'b' of function 'local.f'"), std::string::npos) << errors[0];
}
