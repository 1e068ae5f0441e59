// `--random` and open dims (issue 47, item 3): a symbolic dim takes the size the data sets beside the model give it
// (the shapes the model is known to run), which the set's name says; else --open-dim (default 1).
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <string>

#include "exec/onnx_io.hpp"
#include "tests/test_support.hpp"

namespace random_dims_test {

using namespace condlint::test;
namespace fs = std::filesystem;

// y = Reshape(Relu(x), [-1, 2]) with x: f32[N, 3]: 3N elements make pairs only when N is even, so N = 1 fails.
std::string reshape_pairs() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("pairs");
  auto* x = g.add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("N");
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  auto* shape = g.add_initializer();
  shape->set_name("pair_shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(-1);
  shape->add_int64_data(2);
  auto* relu = g.add_node();
  relu->set_op_type("Relu");
  relu->add_input("x");
  relu->add_output("r");
  auto* reshape = g.add_node();
  reshape->set_op_type("Reshape");
  reshape->add_input("r");
  reshape->add_input("pair_shape");
  reshape->add_output("y");
  auto* y = g.add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return m.SerializeAsString();
}

fs::path model_in(const std::string& tag, bool with_data) {
  const fs::path dir = fresh_dir(tag);
  const fs::path m = dir / "pairs.onnx";
  std::ofstream(m, std::ios::binary) << reshape_pairs();
  if (with_data) {
    fs::create_directories(dir / "test_data_set_0");
    condlint::exec::Tensor t(condlint::exec::DT::F32, {4, 3});
    std::ofstream(dir / "test_data_set_0" / "input_0.pb", std::ios::binary)
        << condlint::exec::write_pb_value(condlint::exec::Value::tensor(t), "x");
  }
  return m;
}

TEST(RandomDims, AnOpenDimTakesTheSizeTheDataSetsGiveIt) {
  const fs::path m = model_in("rdims-data", true);
  auto r = run(condlint_cmd() + " run --random 1 " + shell_quote(m.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("random_0 (seed 0): 'x' [4,3] (open dims as in test_data_set_0)"), std::string::npos) << r.out;
  r = run(condlint_cmd() + " diff --runtime ref --runtime ref --random 1 " + shell_quote(m.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("random_0 (seed 0; open dims as in test_data_set_0): 'x' [4,3]"), std::string::npos) << r.out;
  // --input-shapes still decides.
  r = run(condlint_cmd() + " run --random 1 --input-shapes x:6,3 " + shell_quote(m.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("'x' [6,3]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("open dims as in"), std::string::npos) << r.out;
}

TEST(RandomDims, WithoutDataAnOpenDimIsOpenDim) {
  const fs::path m = model_in("rdims-none", false);
  auto r = run(condlint_cmd() + " run --random 1 " + shell_quote(m.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;  // N = 1: 3 elements make no pairs
  EXPECT_NE(r.out.find("'x' [1,3]"), std::string::npos) << r.out;
  r = run(condlint_cmd() + " run --random 1 --open-dim 2 " + shell_quote(m.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("'x' [2,3]"), std::string::npos) << r.out;
  EXPECT_EQ(run(condlint_cmd() + " run --random 1 --open-dim 0 " + shell_quote(m.string()) + " 2>&1").exit_code, 2);
}

}  // namespace random_dims_test
