// condlint diff: branch variants, pinned models, runtimes, divergence reports, exit codes, and ref vs ONNX
// Runtime on Debian's libonnx-testdata node tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "diff/diff.hpp"
#include "exec/interpreter.hpp"
#include "exec/onnx_io.hpp"
#include "exec/runner.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::diff;
using condlint::test::kOnnxNodeTestDir;
using condlint::test::shell_quote;

namespace {

const fs::path kNested = test::source_dir() / "tests/data/diff/nested_if/model.onnx";
onnx::ModelProto load(const fs::path& p) {
  std::string b;
  EXPECT_EQ(exec::read_file_bytes(p, b), "");
  onnx::ModelProto m;
  EXPECT_EQ(exec::parse_proto(b, m), "");
  return m;
}

bool have_python_onnx() { return test::run("/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null").exit_code == 0; }

// The perturbing test runtime as a cmd: spec.
std::string perturb_runtime(const std::string& args) {
  return "cmd:/usr/bin/python3 " + (test::source_dir() / "tests/diff_runtime_perturb.py").string() + " --condlint " +
         condlint::test::condlint_binary() + " " + args + " {model} {inputs} {outputs}";
}

test::CmdResult diff_cli(const std::string& args) {
  return test::run(test::condlint_cmd() + " diff " + args + " 2>/dev/null");
}

std::string ort_unavailable() {
  std::string err;
  RuntimeOptions o;
  auto rt = make_runtime("onnxruntime", o, err);
  return rt ? "" : err;
}

}  // namespace

TEST(DiffVariants, NestedIfsArePinnedAlongThePath) {
  const auto m = load(kNested);
  const auto ifs = find_ifs(m);
  ASSERT_EQ(ifs.size(), 2u);
  EXPECT_EQ(ifs[0].path, "main/outer");
  EXPECT_TRUE(ifs[0].along.empty());
  EXPECT_EQ(ifs[1].path, "main/outer/then/inner");
  EXPECT_EQ(ifs[1].along, (std::map<std::string, bool>{{"main/outer", true}}));
  const auto vs = branch_variants(ifs, 256);
  ASSERT_EQ(vs.size(), 4u);
  EXPECT_EQ(vs[1], (std::map<std::string, bool>{{"main/outer", false}}));
  EXPECT_EQ(vs[3], (std::map<std::string, bool>{{"main/outer", true}, {"main/outer/then/inner", false}}));
  EXPECT_EQ(branch_variants(ifs, 3).size(), 3u);
}

TEST(DiffVariants, PinnedModelRunsThePinnedBranch) {
  const auto m = load(kNested);
  // x = [0.5, -1.25, 4]; then/then: x+1, then/else: x*2, else: x-3
  const std::vector<exec::Value> inputs = [] {
    std::vector<exec::Value> v;
    exec::Tensor x(exec::DT::F32, {3});
    x.f = {0.5, -1.25, 4.0};
    v.push_back(exec::Value::tensor(std::move(x)));
    for (int k = 0; k < 2; ++k) {
      exec::Tensor c(exec::DT::Bool, {});
      c.i = {1};
      v.push_back(exec::Value::tensor(std::move(c)));
    }
    return v;
  }();
  const std::vector<std::pair<std::map<std::string, bool>, double>> cases = {
      {{{"main/outer", false}}, 0.5 - 3},
      {{{"main/outer", true}, {"main/outer/then/inner", true}}, 1.5},
      {{{"main/outer", true}, {"main/outer/then/inner", false}}, 1.0},
  };
  for (const auto& [pins, want] : cases) {
    onnx::ModelProto pinned;
    ASSERT_EQ(pin_model(m, pins, pinned), "") << pins_label(pins);
    exec::Interpreter ip(pinned, {});
    const auto outs = ip.run(inputs);
    ASSERT_EQ(outs.size(), 1u);
    EXPECT_DOUBLE_EQ(outs[0].t->f[0], want) << pins_label(pins);
    // The data says then/then; the pinned model must not depend on it.
    EXPECT_EQ(m.graph().node_size(), 1);
  }
  onnx::ModelProto out;
  EXPECT_NE(pin_model(m, {{"main/nope", true}}, out), "");
}

namespace {

// main: y = local.f(c, x); f's body: If(c) then x + x else x - x. Opset 15 (model-local functions).
onnx::ModelProto function_with_if() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_version(15);
  auto* ls = m.add_opset_import();
  ls->set_domain("local");
  ls->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto input = [](onnx::ValueInfoProto* v, const char* name, int elem, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* sh = t->mutable_shape();
    for (int64_t d : dims) sh->add_dim()->set_dim_value(d);
  };
  input(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  input(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  input(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  auto* call = g->add_node();
  call->set_op_type("f");
  call->set_domain("local");
  call->add_input("c");
  call->add_input("x");
  call->add_output("y");
  auto* f = m.add_functions();
  f->set_name("f");
  f->set_domain("local");
  f->add_input("c");
  f->add_input("x");
  f->add_output("y");
  auto* fo = f->add_opset_import();
  fo->set_version(15);
  auto* n = f->add_node();
  n->set_op_type("If");
  n->set_name("choose");
  n->add_input("c");
  n->add_output("y");
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* bg = a->mutable_g();
    bg->set_name(b == 0 ? "then" : "else");
    auto* op = bg->add_node();
    op->set_op_type(b == 0 ? "Add" : "Sub");
    op->add_input("x");
    op->add_input("x");
    op->add_output(b == 0 ? "t" : "e");
    input(bg->add_output(), b == 0 ? "t" : "e", onnx::TensorProto::FLOAT, {2});
  }
  return m;
}

}  // namespace

TEST(DiffVariants, IfInAModelLocalFunctionIsPinnedInTheFunctionBody) {
  const auto m = function_with_if();
  const auto ifs = find_ifs(m);
  ASSERT_EQ(ifs.size(), 1u);
  EXPECT_EQ(ifs[0].path, "function:local.f/choose");
  std::vector<exec::Value> inputs;
  exec::Tensor c(exec::DT::Bool, {});
  c.i = {0};  // the data takes the else branch: x - x = 0
  exec::Tensor x(exec::DT::F32, {2});
  x.f = {1.5, -2.0};
  inputs.push_back(exec::Value::tensor(std::move(c)));
  inputs.push_back(exec::Value::tensor(std::move(x)));
  {
    exec::Interpreter ip(m, {});
    const auto outs = ip.run(inputs);
    ASSERT_EQ(outs.size(), 1u);
    EXPECT_DOUBLE_EQ(outs[0].t->f[0], 0.0);
  }
  for (bool branch : {true, false}) {
    onnx::ModelProto pinned;
    ASSERT_EQ(pin_model(m, {{"function:local.f/choose", branch}}, pinned), "");
    exec::Interpreter ip(pinned, {});
    const auto outs = ip.run(inputs);
    ASSERT_EQ(outs.size(), 1u);
    EXPECT_DOUBLE_EQ(outs[0].t->f[0], branch ? 3.0 : 0.0) << "pinned " << branch;
    EXPECT_DOUBLE_EQ(outs[0].t->f[1], branch ? -4.0 : 0.0) << "pinned " << branch;
  }
}

TEST(DiffRef, RefAgreesWithItselfOnEveryBranch) {
  std::string err;
  RuntimeOptions o;
  auto a = make_runtime("ref", o, err), b = make_runtime("ref", o, err);
  const DiffResult r = condlint::test::diff_files({kNested}, {a.get(), b.get()}, DiffConfig{});
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_EQ(r.models[0].error, "");
  // as given, 2 synthesized input sets (c1 = false, c2 = false: they select the else branches), 4 pinned variants
  EXPECT_EQ(r.models[0].cases.size(), 7u);
  EXPECT_EQ(r.models[0].agree, 7);
  EXPECT_TRUE(r.all_agree());
  EXPECT_EQ(r.runtimes, (std::vector<std::string>{"ref#1", "ref#2"}));
}

TEST(DiffRef, RandomInputsAreReproducible) {
  std::string err;
  RuntimeOptions o;
  auto a = make_runtime("ref", o, err), b = make_runtime("ref", o, err);
  DiffConfig cfg;
  cfg.random.count = 3;
  cfg.random.seed = 7;
  cfg.random.ranges["x"] = {10, 20};
  cfg.work_dir = fs::temp_directory_path() / ("condlint-difftest-" + std::to_string(getpid()));
  const DiffResult r = condlint::test::diff_files({kNested}, {a.get(), b.get()}, cfg);
  ASSERT_EQ(r.models[0].error, "");
  size_t synthesized = 0;
  for (const auto& c : r.models[0].cases) synthesized += c.data_set.rfind("synthesized: ", 0) == 0;
  EXPECT_EQ(r.models[0].cases.size() - synthesized, 15u);  // 3 random sets x (as given + 4 pinned variants)
  EXPECT_TRUE(r.all_agree());
  EXPECT_NE(r.models[0].cases[0].data_set.find("random_0"), std::string::npos);
  // The inputs written for the runtimes honour --range.
  std::string b0;
  ASSERT_EQ(exec::read_file_bytes(cfg.work_dir / "model_0/inputs_0/input_0.pb", b0), "");
  const exec::Value x = exec::read_pb_value(b0, nullptr);
  for (double v : x.t->f) {
    EXPECT_GE(v, 10);
    EXPECT_LE(v, 20);
  }
  // Same seed, same inputs; another seed, other inputs.
  const fs::path w1 = cfg.work_dir;
  cfg.work_dir = w1.string() + "-again";
  condlint::test::diff_files({kNested}, {a.get(), b.get()}, cfg);
  std::string b1;
  ASSERT_EQ(exec::read_file_bytes(cfg.work_dir / "model_0/inputs_0/input_0.pb", b1), "");
  EXPECT_EQ(b0, b1);
  cfg.random.seed = 8;
  cfg.work_dir = w1.string() + "-seed8";
  condlint::test::diff_files({kNested}, {a.get(), b.get()}, cfg);
  std::string b2;
  ASSERT_EQ(exec::read_file_bytes(cfg.work_dir / "model_0/inputs_0/input_0.pb", b2), "");
  EXPECT_NE(b0, b2);
  std::error_code ec;
  for (const auto& d : {w1, fs::path(w1.string() + "-again"), fs::path(w1.string() + "-seed8")}) fs::remove_all(d, ec);
}

TEST(DiffCli, UsageErrorsExit2) {
  EXPECT_EQ(diff_cli(shell_quote(kNested.string()) + " --runtime ref").exit_code, 2);
  EXPECT_EQ(diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime tflite").exit_code, 2);
  EXPECT_EQ(diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime 'cmd:echo {model}'").exit_code, 2);
  EXPECT_EQ(diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime ref --random 1 --range x=3").exit_code,
            2);
  EXPECT_EQ(diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime ref --tolerance y=1").exit_code, 2);
  EXPECT_EQ(diff_cli("/nonexistent/m.onnx --runtime ref --runtime ref").exit_code, 2);
  EXPECT_EQ(diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime ref --data /nonexistent").exit_code, 2);
  const auto nnapi = test::write_temp("diff/m.nnapi.json", "{}");
  EXPECT_EQ(diff_cli(shell_quote(nnapi) + " --runtime ref --runtime ref").exit_code, 2);
}

TEST(DiffCli, MissingOrtAdapterIsAUsageError) {
  const auto r = test::run("CONDLINT_ORT_ADAPTER=/nonexistent/ort_run.js " + test::condlint_cmd() + " diff " +
                           shell_quote(kNested.string()) + " --runtime ref --runtime onnxruntime 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("adapter tools/ort/ort_run.js was not found"), std::string::npos) << r.out;
}

TEST(DiffCli, AgreeExit0) {
  const auto r = diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime ref");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("main/outer=then, main/outer/then/inner=else"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7 agree, 0 diverge, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agree  synthesized: 'c1' = false  branch: as the data takes it (main/outer=else)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("branch: as the data takes it (main/outer=then, main/outer/then/inner=then)"), std::string::npos)
      << r.out;
}

TEST(DiffCli, WorkDirKeepsVariantsInputsAndOutputs) {
  const fs::path w = fs::temp_directory_path() / ("condlint-diffwork-" + std::to_string(getpid()));
  const auto r =
      diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime ref --work-dir " + shell_quote(w.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(fs::exists(w / "model_0/inputs_0/input_2.pb"));
  // variant 4: outer=then, inner=else; its pins are Constants named as docs/diff.md says
  const auto v = load(w / "model_0/variant_4.onnx");
  ASSERT_GE(v.graph().node_size(), 2);
  EXPECT_EQ(v.graph().node(0).op_type(), "Constant");
  EXPECT_EQ(v.graph().node(0).name(), "condlint_pin_0_true");
  EXPECT_EQ(v.graph().node(1).input(0), "condlint_pin_0_true");
  std::error_code ec;
  fs::remove_all(w, ec);
}

TEST(DiffCmd, PerturbedOutputIsCaughtEverywhere) {
  if (!have_python_onnx()) GTEST_SKIP() << "/usr/bin/python3 with python3-onnx is absent (the test runtime needs it)";
  const auto r = diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--delta 0.5")) + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto& m = j["models"][0];
  EXPECT_EQ(m["summary"]["diverge"], 7);
  for (const auto& c : m["cases"]) {
    EXPECT_EQ(c["status"], "diverge");
    const auto& o = c["outputs"][0];
    EXPECT_EQ(o["status"], "diverge");
    EXPECT_EQ(o["first_mismatch"], "[2]");
    EXPECT_NEAR(o["max_abs_error"].get<double>(), 0.5, 1e-6);
    EXPECT_NE(o["value_a"], o["value_b"]);
  }
  EXPECT_EQ(j["runtimes"][1], "cmd:python3");
}

TEST(DiffCmd, ThreeRuntimesLabelEachValueWithItsOwnRuntime) {
  // ref, ref and a perturbing runtime: every row compares the first with one other, and its values carry that
  // other's name (the third's values were printed under the second's name).
  if (!have_python_onnx()) GTEST_SKIP() << "/usr/bin/python3 with python3-onnx is absent (the test runtime needs it)";
  const std::string args = shell_quote(kNested.string()) + " --runtime ref --runtime ref --runtime " +
                           shell_quote(perturb_runtime("--delta 0.5"));
  const auto text = diff_cli(args);
  EXPECT_EQ(text.exit_code, 1) << text.out;
  EXPECT_NE(text.out.find("(ref#1 vs ref#2 vs cmd:python3)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(ref#1 vs cmd:python3)': diverge"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(", ref#2 "), std::string::npos) << text.out;  // no value is labelled with the agreeing ref
  EXPECT_NE(text.out.find(", cmd:python3 "), std::string::npos) << text.out;
  const auto j = nlohmann::json::parse(diff_cli(args + " --format json").out);
  for (const auto& c : j["models"][0]["cases"])
    for (const auto& o : c["outputs"]) {
      EXPECT_EQ(o["runtime_a"], "ref#1");
      const bool third = o["name"].get<std::string>().find("cmd:python3") != std::string::npos;
      EXPECT_EQ(o["runtime_b"], third ? "cmd:python3" : "ref#2") << o.dump();
    }
}

TEST(DiffCmd, DivergenceInOneBranchOnlyIsNamed) {
  if (!have_python_onnx()) GTEST_SKIP() << "/usr/bin/python3 with python3-onnx is absent (the test runtime needs it)";
  const auto r = diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--when else")));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  // Both variants with an else pin diverge, nothing else does.
  EXPECT_NE(r.out.find("diverge  test_data_set_0  branch: main/outer=else\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("diverge  test_data_set_0  branch: main/outer=then, main/outer/then/inner=else\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("agree  test_data_set_0  branch: main/outer=then, main/outer/then/inner=then\n"),
            std::string::npos)
      << r.out;
  // (The synthesized inputs that select the else branches pin nothing, and the test runtime perturbs pinned
  // variants only.)
  EXPECT_NE(r.out.find("5 agree, 2 diverge"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first mismatch at [2]: ref 8, cmd:python3 9"), std::string::npos) << r.out;
  // --branches taken never pins, so the data's branch (then/then) hides the problem.
  const auto t = diff_cli(shell_quote(kNested.string()) + " --branches taken --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--when else")));
  EXPECT_EQ(t.exit_code, 0) << t.out;
  // A tolerance wide enough for the perturbation accepts it.
  const auto w = diff_cli(shell_quote(kNested.string()) + " --tolerance y=1.5,0 --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--when else")));
  EXPECT_EQ(w.exit_code, 0) << w.out;
  const auto n = diff_cli(shell_quote(kNested.string()) + " --tolerance z=1.5,0 --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--when else")));
  EXPECT_EQ(n.exit_code, 1) << n.out;
}

TEST(DiffCmd, RuntimeFailureAndUnsupportedOutputs) {
  if (!have_python_onnx()) GTEST_SKIP() << "/usr/bin/python3 with python3-onnx is absent (the test runtime needs it)";
  const auto f = diff_cli(shell_quote(kNested.string()) + " --branches taken --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--fail")));
  EXPECT_EQ(f.exit_code, 1) << f.out;
  EXPECT_NE(f.out.find("cmd:python3 failed: exit code 3: perturb runtime: asked to fail"), std::string::npos) << f.out;
  const auto u = diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime " +
                          shell_quote(perturb_runtime("--unsupported 0")));
  EXPECT_EQ(u.exit_code, 1) << u.out;  // nothing could be compared: not agreement
  EXPECT_NE(u.out.find("not comparable (cmd:python3: this test runtime cannot return output 0)"), std::string::npos)
      << u.out;
  EXPECT_NE(u.out.find("0 agree, 0 diverge, 0 failed, 7 not comparable"), std::string::npos) << u.out;
  // A runtime that writes nothing fails the run.
  const auto e = diff_cli(shell_quote(kNested.string()) +
                          " --branches taken --runtime ref --runtime 'cmd:true {model} {inputs} {outputs}'");
  EXPECT_EQ(e.exit_code, 1) << e.out;
  EXPECT_NE(e.out.find("wrote no output_0.pb"), std::string::npos) << e.out;
}

TEST(DiffOrt, NestedIfAgreesWithRef) {
  if (auto why = ort_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const auto r = diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime onnxruntime --random 2 --data " +
                          shell_quote((kNested.parent_path() / "test_data_set_0").string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // 3 input sets x (as given + 4 pinned variants), + 2 synthesized sets (c1 = false, c2 = false)
  EXPECT_NE(r.out.find("17 agree, 0 diverge"), std::string::npos) << r.out;
}

// Why `--runtime openvino` cannot run here ("" when it can): the python it uses (CONDLINT_PYTHON, else
// tools/venv/bin/python) must import openvino.
std::string openvino_unavailable() {
  const char* env = std::getenv("CONDLINT_PYTHON");
  const std::string py = env && *env ? env : (condlint::test::source_dir() / "tools/venv/bin/python").string();
  if (condlint::test::run(shell_quote(py) + " -c 'import openvino, onnx, numpy' 2>/dev/null").exit_code != 0)
    return py + " with openvino is absent (scripts/install-deps.sh installs it)";
  return "";
}

TEST(DiffOpenvino, NestedIfBothBranchesAgreeWithRef) {
  if (auto why = openvino_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const auto r = diff_cli(shell_quote(kNested.string()) + " --runtime ref --runtime openvino --random 2 --data " +
                          shell_quote((kNested.parent_path() / "test_data_set_0").string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("17 agree, 0 diverge"), std::string::npos) << r.out;
}

// ONNX Runtime where it differs from the ONNX reference outputs (ref matches the golden data on these), or
// cannot load the model. docs/diff.md keeps the same list.
const std::map<std::string, std::string> kOrtKnown = {
    {"test_adagrad", "ORT: no kernel for ai.onnx.preview.training"},
    {"test_adagrad_multiple", "ORT: no kernel for ai.onnx.preview.training"},
    {"test_adam", "ORT: no kernel for ai.onnx.preview.training"},
    {"test_momentum", "ORT: no kernel for ai.onnx.preview.training"},
    {"test_momentum_multiple", "ORT: no kernel for ai.onnx.preview.training"},
    {"test_nesterov_momentum", "ORT: no kernel for ai.onnx.preview.training"},
    {"test_bitshift_left_uint16", "ORT: no BitShift kernel for uint16"},
    {"test_bitshift_right_uint16", "ORT: no BitShift kernel for uint16"},
    {"test_max_int16", "ORT: no Max kernel for int16"},
    {"test_max_uint16", "ORT: no Max kernel for uint16"},
    {"test_min_int16", "ORT: no Min kernel for int16"},
    {"test_min_uint16", "ORT: no Min kernel for uint16"},
    {"test_pow_types_float32_uint32", "ORT: no Pow kernel for a uint32 exponent"},
    {"test_pow_types_float32_uint64", "ORT: no Pow kernel for a uint64 exponent"},
    {"test_cast_BFLOAT16_to_FLOAT", "onnxruntime-node: no bfloat16 tensors"},
    {"test_cast_FLOAT_to_BFLOAT16", "onnxruntime-node: no bfloat16 tensors"},
    {"test_castlike_BFLOAT16_to_FLOAT", "onnxruntime-node: no bfloat16 tensors"},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded", "onnxruntime-node: no bfloat16 tensors"},
    {"test_castlike_FLOAT_to_BFLOAT16", "onnxruntime-node: no bfloat16 tensors"},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", "onnxruntime-node: no bfloat16 tensors"},
    {"test_gru_batchwise", "ORT: layout=1 not supported by the CPU RNN kernels"},
    {"test_lstm_batchwise", "ORT: layout=1 not supported by the CPU RNN kernels"},
    {"test_simple_rnn_batchwise", "ORT: layout=1 not supported by the CPU RNN kernels"},
    {"test_strnormalizer_export_monday_casesensintive_lower", "ORT: StringNormalizer needs a locale the system lacks"},
    {"test_strnormalizer_export_monday_casesensintive_upper", "ORT: StringNormalizer needs a locale the system lacks"},
    {"test_strnormalizer_export_monday_empty_output", "ORT: StringNormalizer needs a locale the system lacks"},
    {"test_strnormalizer_export_monday_insensintive_upper_twodim",
     "ORT: StringNormalizer needs a locale the system lacks"},
    {"test_cast_FLOAT_to_STRING", "ORT prints floats with 9 significant digits, ONNX with the shortest round trip"},
    {"test_castlike_FLOAT_to_STRING", "ORT prints floats with 9 significant digits, ONNX with the shortest round trip"},
    {"test_castlike_FLOAT_to_STRING_expanded",
     "ORT prints floats with 9 significant digits, ONNX with the shortest round trip"},
    {"test_maxunpool_export_with_output_shape", "ORT places the values differently when output_shape pads"},
    {"test_resize_downsample_scales_cubic_align_corners", "ORT's align_corners downsampling differs from ONNX's"},
    {"test_resize_downsample_scales_linear_align_corners", "ORT's align_corners downsampling differs from ONNX's"},
};

TEST(DiffOrt, NodeTestsRefAgreesWithOnnxRuntime) {
  std::error_code ec;
  if (!fs::is_directory(kOnnxNodeTestDir, ec))
    GTEST_SKIP() << "libonnx-testdata is not installed (" << kOnnxNodeTestDir << " absent)";
  if (auto why = ort_unavailable(); !why.empty()) GTEST_SKIP() << why;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kOnnxNodeTestDir, ec))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  // The tests the executor passes (golden data matched).
  std::vector<fs::path> passed;
  for (const auto& d : dirs) {
    exec::RunConfig cfg;
    cfg.limits.timeout_ms = 30'000;
    const auto r = condlint::test::run_file(d / "model.onnx", cfg);
    if (r.error.empty() && r.failed == 0 && r.unsupported == 0) passed.push_back(d / "model.onnx");
  }
  ASSERT_GT(passed.size(), 800u);
  std::string err;
  RuntimeOptions o;
  auto ref = make_runtime("ref", o, err);
  auto ort = make_runtime("onnxruntime", o, err);
  ASSERT_TRUE(ort) << err;
  const auto t0 = std::chrono::steady_clock::now();
  const DiffResult r = condlint::test::diff_files(passed, {ref.get(), ort.get()}, DiffConfig{});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int agree = 0, not_comparable = 0, known = 0, runs = 0, if_models = 0, if_runs = 0;
  for (const auto& m : r.models) {
    const std::string name = fs::path(m.model).parent_path().filename().string();
    runs += static_cast<int>(m.cases.size());
    EXPECT_EQ(m.error, "") << name;
    if (m.diverge || m.failed) {
      if (kOrtKnown.count(name)) {
        ++known;
        continue;
      }
      for (const auto& c : m.cases)
        if (c.status == CaseDiff::Status::Diverge || c.status == CaseDiff::Status::Failed)
          ADD_FAILURE() << name << " [" << (c.pins.empty() ? "as given" : pins_label(c.pins)) << "]: " << c.message;
      continue;
    }
    EXPECT_FALSE(kOrtKnown.count(name)) << name << " agrees now: drop it from kOrtKnown";
    if (m.agree > 0) ++agree;
    else ++not_comparable;
    if (!m.ifs.empty()) {
      ++if_models;
      if_runs += static_cast<int>(m.cases.size());
      size_t synthesized = 0;
      for (const auto& c : m.cases) synthesized += c.data_set.rfind("synthesized: ", 0) == 0;
      EXPECT_EQ(m.cases.size() - synthesized, 1 + 2 * m.ifs.size()) << name << ": each If pinned both ways";
    }
  }
  std::cout << "ref vs onnxruntime on " << passed.size() << " node tests the executor passes (" << runs
            << " runs, both branches of every If): " << agree << " agree, " << not_comparable
            << " not comparable (sequence/optional values), " << known << " known ORT differences or gaps; "
            << if_models << " models with Ifs in " << if_runs << " runs; " << secs << " s\n";
  for (const char* t : {"test_if"}) {
    auto it = std::find_if(r.models.begin(), r.models.end(), [&](const ModelDiff& m) {
      return m.model.find(std::string("/") + t + "/") != std::string::npos;
    });
    ASSERT_NE(it, r.models.end());
    EXPECT_EQ(it->agree, 4) << t;  // as given, inputs synthesized with cond = true, cond pinned both ways
  }
  EXPECT_GE(agree, 800);
}

namespace {

// Synthesized inputs run on the model as given only; --save writes each input set's run (data and synthesized) as
// a data set for review, with every runtime's outputs, and that data then covers those branches by itself.
TEST(DiffRef, SynthesizedInputsAreComparedAndSaved) {
  std::string err;
  RuntimeOptions o;
  auto a = make_runtime("ref", o, err), b = make_runtime("ref", o, err);
  const fs::path model = test::source_dir() / "corpus/onnx/exec/branch_coverage/branch_coverage.onnx";
  DiffConfig cfg;
  cfg.save_dir = test::temp_dir("diff-save");
  fs::remove_all(cfg.save_dir);
  const DiffResult r = condlint::test::diff_files({model}, {a.get(), b.get()}, cfg);
  ASSERT_EQ(r.models[0].error, "");
  EXPECT_TRUE(r.all_agree());
  std::vector<std::string> synthesized;
  for (const auto& c : r.models[0].cases)
    if (c.data_set.rfind("synthesized: ", 0) == 0) {
      synthesized.push_back(c.data_set);
      EXPECT_TRUE(c.pins.empty()) << c.data_set;
      EXPECT_FALSE(c.saved_to.empty());
    }
  EXPECT_EQ(synthesized, (std::vector<std::string>{"synthesized: 'mode' = 1", "synthesized: dim 'n' = 1 ('x' [1,1])"}));
  EXPECT_TRUE(fs::exists(cfg.save_dir / "test_data_set_2" / "runtime_1" / "output_0.pb"));
  EXPECT_EQ(test::slurp(cfg.save_dir / "test_data_set_2" / "runtimes.txt"), "runtime_0: ref#1\nruntime_1: ref#2\n");
  exec::RunConfig rc;
  rc.data_dirs = {cfg.save_dir};
  const exec::ModelResult run = condlint::test::run_file(model, rc);
  EXPECT_EQ(run.failed, 0);
  EXPECT_EQ(run.passed, 6);  // three saved data sets, each also with the overflow branch pinned
  for (const auto& c : exec::branch_coverage(run))
    if (c.if_path == "main/guard" || c.if_path == "main/mode_switch") EXPECT_EQ(c.how, "data") << c.if_path;
  fs::remove_all(cfg.save_dir);
}

}  // namespace
