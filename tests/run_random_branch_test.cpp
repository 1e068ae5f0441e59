// `run --random`: a branch that fails under inputs the declared types allow fails the run whichever way it is
// reached: drawn by the seed, or synthesized from the seed's draw to select the branch the draw did not take.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace run_random_branch_test {

onnx::ValueInfoProto f32_info(const std::string& name, std::vector<int64_t> dims, int elem = 1) {
  onnx::ValueInfoProto v;
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* sh = tt->mutable_shape();
  for (auto d : dims) sh->add_dim()->set_dim_value(d);
  return v;
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                          std::vector<std::string> out) {
  auto* n = g.add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

// z = Add(If(cond) then {a: f32[2,4]} else {b: f32[3]}, c: f32[`c_dims`]).
std::string if_then_add(std::vector<int64_t> c_dims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("m");
  *g.add_input() = f32_info("cond", {}, 9);
  *g.add_input() = f32_info("a", {2, 4});
  *g.add_input() = f32_info("b", {3});
  *g.add_input() = f32_info("c", c_dims);
  auto* iff = add_node(g, "If", {"cond"}, {"y"});
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* a = iff->add_attribute();
    a->set_name(which);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto& b = *a->mutable_g();
    const bool then = std::string(which) == "then_branch";
    b.set_name(then ? "then" : "else");
    add_node(b, "Identity", {then ? "a" : "b"}, {then ? "t" : "e"});
    *b.add_output() = f32_info(then ? "t" : "e", then ? std::vector<int64_t>{2, 4} : std::vector<int64_t>{3});
  }
  add_node(g, "Add", {"y", "c"}, {"z"});
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
