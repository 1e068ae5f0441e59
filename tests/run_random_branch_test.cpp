// `run --random`: a branch that fails under inputs the declared types allow fails the run whichever way it is
// reached: drawn by the seed, or synthesized from the seed's draw to select the branch the draw did not take.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "bench/onnx_gen.hpp"
#include "tests/test_support.hpp"

namespace run_random_branch_test {

using condlint::gen::onnx_node;
using condlint::gen::onnx_value;
constexpr int kF32 = onnx::TensorProto::FLOAT, kBool = onnx::TensorProto::BOOL;

// z = Add(If(cond) then {a: f32[2,4]} else {b: f32[3]}, c: f32[`c_dims`]).
std::string if_then_add(std::vector<int64_t> c_dims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("m");
  onnx_value(g.add_input(), "cond", kBool, {});
  onnx_value(g.add_input(), "a", kF32, {2, 4});
  onnx_value(g.add_input(), "b", kF32, {3});
  onnx_value(g.add_input(), "c", kF32, c_dims);
  auto* iff = onnx_node(&g, "If", "", {"cond"}, {"y"});
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* a = iff->add_attribute();
    a->set_name(which);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto& b = *a->mutable_g();
    const bool then = std::string(which) == "then_branch";
    b.set_name(then ? "then" : "else");
    onnx_node(&b, "Identity", "", {then ? "a" : "b"}, {then ? "t" : "e"});
    onnx_value(b.add_output(), then ? "t" : "e", kF32, then ? std::vector<int64_t>{2, 4} : std::vector<int64_t>{3});
  }
  onnx_node(&g, "Add", "", {"y", "c"}, {"z"});
  onnx::ValueInfoProto z;
  z.set_name("z");
  z.mutable_type()->mutable_tensor_type()->set_elem_type(1);
  *g.add_output() = z;
  return m.SerializeAsString();
}

// The then branch gives [2,4], which Add cannot broadcast with [3]: every seed fails the run, those whose draw takes
// the else branch on the inputs synthesized to take the then branch ('cond' = true).
TEST(RunRandom, ABranchThatFailsUnderSynthesizedInputsFailsTheRunForEverySeed) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  const std::string m = condlint::test::write_temp("run_random_then_fails.onnx", if_then_add({3}));
  int synthesized = 0;
  for (int seed = 0; seed < 8; ++seed) {
    const auto r = run(condlint_cmd() + " run " + m + " --random 1 --seed " + std::to_string(seed));
    EXPECT_EQ(r.exit_code, 1) << "seed " << seed << ":\n" << r.out;
    EXPECT_NE(r.out.find("summary: 1 passed, 1 failed, 0 unsupported"), std::string::npos)
        << "seed " << seed << ":\n" << r.out;
    EXPECT_NE(r.out.find("under the then branch of If 'main/If#0': shapes [2,4] and [3] cannot be broadcast"),
              std::string::npos)
        << "seed " << seed << ":\n" << r.out;
    EXPECT_EQ(r.out.find("not covered (synthesized"), std::string::npos) << "seed " << seed << ":\n" << r.out;
    if (r.out.find("[synthesized: 'cond' = true]") != std::string::npos) ++synthesized;
  }
  EXPECT_GT(synthesized, 0) << "no seed drew 'cond' = false: the synthesized case is not exercised";
}

// Where both branches broadcast (c: [1]), every seed passes, the synthesized run included.
TEST(RunRandom, BothBranchesThatRunPassForEverySeed) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  const std::string m = condlint::test::write_temp("run_random_both_run.onnx", if_then_add({1}));
  for (int seed = 0; seed < 4; ++seed) {
    const auto r = run(condlint_cmd() + " run " + m + " --random 1 --seed " + std::to_string(seed));
    EXPECT_EQ(r.exit_code, 0) << "seed " << seed << ":\n" << r.out;
    EXPECT_NE(r.out.find("summary: 2 passed, 0 failed, 0 unsupported"), std::string::npos)
        << "seed " << seed << ":\n" << r.out;
  }
}

}  // namespace run_random_branch_test
