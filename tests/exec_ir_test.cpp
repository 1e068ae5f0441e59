// OpenVINO IR execution: corpus/ir/exec models on their numpy-derived golden data, both branches of every If,
// mismatches, branch problems, unsupported ops and hostile Const data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unistd.h>

#include "exec/ir_exec.hpp"
#include "exec/onnx_io.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"
#include "bench/ir_gen.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::exec;
using condlint::test::source_dir;
using condlint::test::write_file;

namespace {

fs::path corpus_model(const std::string& name) { return source_dir() / "corpus/ir/exec" / name / (name + ".xml"); }

// A temporary model directory with one data set.
struct TmpModel {
  fs::path dir;
  explicit TmpModel(const std::string& tag) {
    dir = fs::temp_directory_path() / ("condlint_ir_exec_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "test_data_set_0");
  }
  ~TmpModel() { fs::remove_all(dir); }
  void input(int k, const Tensor& t) {
    write_file(dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb"), write_pb_value(Value::tensor(t), ""));
  }
  void output(int k, const Tensor& t) {
    write_file(dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb"), write_pb_value(Value::tensor(t), ""));
  }
};

Tensor ir_f32(std::vector<double> v) {
  Tensor t(DT::F32, {static_cast<int64_t>(v.size())});
  t.f = v;
  return t;
}
Tensor ir_bool(bool b) {
  Tensor t(DT::Bool, {});
  t.i[0] = b;
  return t;
}

// cond, x f32[2] -> If(then: Relu(x), else: <else_op>(x)) declared `out_prec`.
std::string relu_if_ir(const std::string& else_op, const std::string& out_prec = "FP32") {
  return condlint::gen::if_relu_ir(else_op, "f32", "FP32", out_prec);
}

}  // namespace

TEST(ExecIr, CorpusModelsPassWithBothBranches) {
  for (const char* name : {"spec_if", "nested_if", "ops", "if_in_loop"}) {
    SCOPED_TRACE(name);
    const ModelResult r = condlint::test::run_file(corpus_model(name), RunConfig{});
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.failed, 0);
    EXPECT_EQ(r.unsupported, 0);
    EXPECT_GT(r.passed, 0);
    int golden = 0;
    for (const auto& c : r.cases) {
      EXPECT_EQ(c.status, CaseStatus::Passed) << c.data_set << ": " << c.message;
      golden += c.golden;
    }
    EXPECT_GT(golden, 0);
    for (const auto& [path, branches] : r.if_coverage) EXPECT_EQ(branches.size(), 2u) << path;
  }
  const ModelResult n = condlint::test::run_file(corpus_model("nested_if"), RunConfig{});
  EXPECT_EQ(n.if_coverage.size(), 2u);
  EXPECT_TRUE(n.if_coverage.count("main/outer/then/inner"));
}

// corpus/ir/exec/shape_guard: If(dim 1 of x == 1) with x f32[1,?] and data of shape [1,4]. The IR loader traces the
// condition (ShapeOf, Gather, Equal), so the then branch is never pinned (pinning would feed it a shape its
// condition excludes): inputs synthesized with the open dim set to 1 reach it. Without those (a search with no
// runs) it stays behind the shape guard. The lint view carries the condition as text.
TEST(ExecIr, AShapeGuardIsTracedAndReachedBySynthesizedInputs) {
  const fs::path m = corpus_model("shape_guard");
  const ModelResult r = condlint::test::run_file(m, RunConfig{});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.failed, 0);
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[1].synthesized, "dim 1 of 'x' = 1 ('x' [1,1])");
  for (const auto& c : r.cases) EXPECT_TRUE(c.pins.empty());
  std::map<bool, BranchCoverage> by_branch;
  for (const auto& c : branch_coverage(r)) by_branch[c.branch] = c;
  EXPECT_EQ(by_branch[false].how, "data");
  EXPECT_EQ(by_branch[true].how, "synthesized");
  RunConfig taken;
  taken.both_branches = false;
  EXPECT_EQ(condlint::test::run_file(m, taken).cases.size(), 1u);
  const auto lr = condlint::load_file(m.string());
  ASSERT_TRUE(lr.model);
  ASSERT_EQ(lr.model->conditionals.size(), 1u);
  const auto& p = lr.model->conditionals[0].provenance;
  EXPECT_TRUE(p.traced);
  EXPECT_TRUE(p.on_shapes);
  EXPECT_FALSE(p.on_values);
  EXPECT_EQ(p.text, "dim 1 of 'x' == 1");
  EXPECT_EQ(p.decided, -1);  // 'x' is declared [1,?]: dim 1 is open, so either branch can run
}

// --random makes IR inputs from the main graph's Parameters: a declared dim as declared, an open one from
// --input-shapes (else 1); a given shape that contradicts a declared dim is an error.
TEST(ExecIr, RandomInputsFromTheParameters) {
  const fs::path m = corpus_model("shape_guard");
  RunConfig cfg;
  cfg.random.count = 2;
  cfg.random.shapes["x"] = {1, 3};
  const ModelResult r = condlint::test::run_file(m, cfg);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.failed, 0);
  int random_runs = 0;
  for (const auto& c : r.cases) random_runs += c.data_set.rfind("random_", 0) == 0;
  EXPECT_EQ(random_runs, 2);
  RunConfig bad;
  bad.random.count = 1;
  bad.random.shapes["x"] = {2, 3};
  EXPECT_EQ(condlint::test::run_file(m, bad).error, "--input-shapes gives 'x' dim 0 = 2; the model declares 1");
}

TEST(ExecIr, GoldenDataForBothBranchesIsCompared) {
  // spec_if has a data set per branch: each branch's outputs are compared with golden data (no derived run
  // needed once both data sets exist for the same inputs? they differ in cond, so derived runs are added too).
  const ModelResult r = condlint::test::run_file(corpus_model("spec_if"), RunConfig{});
  std::set<bool> compared;
  for (const auto& c : r.cases)
    if (c.golden) compared.insert(c.if_branches.at("main/if_cond").at(0));
  EXPECT_EQ(compared, (std::set<bool>{true, false}));
}

TEST(ExecIr, PinningAgainstTheDataGivesAMismatch) {
  RunConfig cfg;
  cfg.pins["main/if_cond"] = false;  // data set 0 expects x + y (then); pinned else gives x + z
  cfg.data_dirs.push_back(corpus_model("spec_if").parent_path() / "test_data_set_0");
  const ModelResult r = condlint::test::run_file(corpus_model("spec_if"), cfg);
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases[0].status, CaseStatus::Mismatch) << r.cases[0].message;
  EXPECT_GT(r.failed, 0);
}

TEST(ExecIr, PinThatMatchesNoIfIsAnError) {
  RunConfig cfg;
  cfg.pins["main/nope"] = true;
  const ModelResult r = condlint::test::run_file(corpus_model("spec_if"), cfg);
  EXPECT_TRUE(r.cases.empty());
  EXPECT_NE(r.error.find("--pin: no If at main/nope"), std::string::npos) << r.error;
}

TEST(ExecIr, WrongGoldenValueIsAMismatchWithIndex) {
  TmpModel m("mismatch");
  write_file(m.dir / "m.xml", relu_if_ir("Negative"));
  m.input(0, ir_bool(false));
  m.input(1, ir_f32({1.0, -2.0}));
  m.output(0, ir_f32({-1.0, 2.5}));  // -x would be 2.0 at index 1
  const ModelResult r = condlint::test::run_file(m.dir / "m.xml", RunConfig{});
  ASSERT_EQ(r.error, "");
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases[0].status, CaseStatus::Mismatch);
  ASSERT_FALSE(r.cases[0].outputs.empty());
  EXPECT_EQ(r.cases[0].outputs[0].first_index, "[1]");
  // The other branch (then: Relu) ran too, without golden data, on inputs synthesized to select it.
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[1].synthesized, "'cond' = true");
  EXPECT_FALSE(r.cases[1].golden);
  EXPECT_EQ(r.cases[1].status, CaseStatus::Passed);
}

TEST(ExecIr, BranchOutputContradictingTheIfTypeIsABranchProblem) {
  TmpModel m("branchtype");
  write_file(m.dir / "m.xml", relu_if_ir("Negative", "I64"));
  m.input(0, ir_bool(true));
  m.input(1, ir_f32({1.0, -2.0}));
  const ModelResult r = condlint::test::run_file(m.dir / "m.xml", RunConfig{});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.cases.size(), 2u);
  for (const auto& c : r.cases) {
    EXPECT_EQ(c.status, CaseStatus::Mismatch);
    ASSERT_FALSE(c.branch_problems.empty());
    EXPECT_NE(c.branch_problems[0].find("If 'sel'"), std::string::npos) << c.branch_problems[0];
    EXPECT_NE(c.branch_problems[0].find("output 0"), std::string::npos);
    EXPECT_NE(c.branch_problems[0].find("i64"), std::string::npos);
  }
}

TEST(ExecIr, UnsupportedOpInTheOtherBranchIsReportedWithItsPath) {
  TmpModel m("unsupported");
  write_file(m.dir / "m.xml", relu_if_ir("HSwish"));
  m.input(0, ir_bool(true));
  m.input(1, ir_f32({1.0, -2.0}));
  m.output(0, ir_f32({1.0, 0.0}));
  const ModelResult r = condlint::test::run_file(m.dir / "m.xml", RunConfig{});
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].status, CaseStatus::Passed) << r.cases[0].message;
  EXPECT_EQ(r.cases[1].status, CaseStatus::Unsupported);
  EXPECT_EQ(r.cases[1].message, "unsupported op HSwish at main/sel/else/op");
  EXPECT_EQ(r.unsupported, 1);
}

TEST(ExecIr, ConstOutsideTheWeightsFileFailsCleanly) {
  TmpModel m("const");
  write_file(m.dir / "m.xml", R"(<?xml version="1.0"?>
<net name="c" version="11"><layers>
<layer id="0" name="k" type="Const" version="opset1"><data element_type="f32" shape="4" offset="4" size="16"/><output><port id="0" precision="FP32"><dim>4</dim></port></output></layer>
<layer id="1" name="out" type="Result" version="opset1"><input><port id="0"><dim>4</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>
)");
  write_file(m.dir / "m.bin", std::string(8, '\0'));
  fs::remove_all(m.dir / "test_data_set_0");
  // lint reports IR017, so run refuses the file with lint's verdict.
  const ModelResult refused = condlint::test::run_file(m.dir / "m.xml", RunConfig{});
  EXPECT_NE(refused.error.find("IR017: "), std::string::npos) << refused.error;
  EXPECT_TRUE(refused.cases.empty());
  // The executor's own bounds check stays behind that verdict: past it (a model whose recorded verdict is
  // "readable"), the run fails cleanly.
  condlint::LoadResult past_the_gate = condlint::test::open_for_exec(m.dir / "m.xml");
  ASSERT_TRUE(past_the_gate.model);
  past_the_gate.model->unreadable = "";
  const ModelResult r = run_ir_model(*past_the_gate.model, m.dir / "m.xml", RunConfig{});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].status, CaseStatus::Failed);
  EXPECT_NE(r.cases[0].message.find("outside the weights file"), std::string::npos) << r.cases[0].message;
  // In bounds: runs and gives zeros.
  write_file(m.dir / "m.bin", std::string(20, '\0'));
  const ModelResult ok = condlint::test::run_file(m.dir / "m.xml", RunConfig{});
  ASSERT_EQ(ok.cases.size(), 1u);
  EXPECT_EQ(ok.cases[0].status, CaseStatus::Passed) << ok.cases[0].message;
}

TEST(ExecIr, RunCommandDispatchesXml) {
  using namespace condlint::test;
  const auto r = run(condlint_cmd() + " run \"" + corpus_model("nested_if").string() + "\" --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"main/outer/then/inner\""), std::string::npos);
}

TEST(ExecIr, LoopRunsIfAtEveryIterationAndStopsAtTheIterationLimit) {
  const ModelResult r = condlint::test::run_file(corpus_model("if_in_loop"), RunConfig{});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.failed, 0);
  ASSERT_TRUE(r.if_coverage.count("main/loop/body/step_if"));
  EXPECT_EQ(r.if_coverage.at("main/loop/body/step_if").size(), 2u);
  // Pinned else at every iteration: data set 1 expects -a after 3 iterations and is compared.
  bool pinned_compared = false;
  for (const auto& c : r.cases)
    if (!c.derived && c.golden && c.pins.count("main/loop/body/step_if") && c.status == CaseStatus::Passed)
      pinned_compared = true;
  EXPECT_TRUE(pinned_compared);
  RunConfig cfg;
  cfg.limits.max_loop_iterations = 2;
  const ModelResult lim = condlint::test::run_file(corpus_model("if_in_loop"), cfg);
  ASSERT_FALSE(lim.cases.empty());
  EXPECT_EQ(lim.cases[0].status, CaseStatus::Failed);
  EXPECT_NE(lim.cases[0].message.find("iteration limit of 2"), std::string::npos) << lim.cases[0].message;
}

TEST(ExecIr, LintExecReportsOnlyWithTheFlag) {
  using namespace condlint::test;
  const std::string m = (source_dir() / "corpus/ir/exec-cases/golden_mismatch/golden_mismatch.xml").string();
  const auto plain = run(condlint_cmd() + " lint \"" + m + "\"");
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_EQ(plain.out.find("EX001"), std::string::npos);
  const auto ex = run(condlint_cmd() + " lint --exec \"" + m + "\"");
  EXPECT_EQ(ex.exit_code, 1) << ex.out;
  EXPECT_NE(ex.out.find("[EX001]"), std::string::npos) << ex.out;
  // Models whose golden data matches stay silent with --exec.
  const auto ok = run(condlint_cmd() + " lint --exec \"" + (source_dir() / "corpus/ir/exec").string() + "\"");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}
