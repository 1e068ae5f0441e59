// The executor reads a tensor's external data from its file, by offset and length, after lint's checks (issue 47):
// `condlint run` of a model saved with its weights outside gives what the same model with its weights inside gives,
// and a file lint's checks refuse (ONNX014, ONNX015) is never read.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>

#include "test_support.hpp"

using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

void add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in, const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
}

void tensor_type(onnx::ValueInfoProto* v, const std::string& name, int elem, std::vector<int64_t> dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// y = If(c) then x + w else x - w, with w f32[4] (= 1, 2, 3, 4) inside the file or in `location` at offset 16.
onnx::ModelProto model_with_weights(const std::string& location) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("main");
  tensor_type(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  tensor_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {4});
  tensor_type(g->add_output(), "y", onnx::TensorProto::FLOAT, {4});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  const float values[4] = {1, 2, 3, 4};
  if (location.empty()) {
    w->set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));
  } else {
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair<std::string, std::string>{"location", location}, {"offset", "16"}, {"length", "16"}}) {
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
  }
  auto* n = g->add_node();
  n->set_op_type("If");
  n->set_name("if");
  n->add_input("c");
  n->add_output("y");
  for (auto [attr, op] : {std::pair<const char*, const char*>{"then_branch", "Add"}, {"else_branch", "Sub"}}) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(attr);
    add_node(b, op, {"x", "w"}, std::string(op) + "_out");
    tensor_type(b->add_output(), std::string(op) + "_out", onnx::TensorProto::FLOAT, {4});
  }
  return m;
}

void save(const onnx::ModelProto& m, const fs::path& p) {
  std::ofstream out(p, std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

TEST(ExecExternalData, RunReadsTheWeightsFileAndAgreesWithTheWeightsInside) {
  const fs::path d = fresh_dir("exec-external");
  save(model_with_weights(""), d / "inside.onnx");
  save(model_with_weights("weights.bin"), d / "outside.onnx");
  const float values[4] = {1, 2, 3, 4};
  write_file(d / "weights.bin", std::string(16, '\x7f') + std::string(reinterpret_cast<const char*>(values), 16));
  // The inside model's runs on random inputs, both branches, recorded; the outside model run against them.
  auto rec = run(condlint_cmd() + " run --random 1 --save " + shell_quote((d / "data").string()) + " " +
                 shell_quote((d / "inside.onnx").string()) + " 2>&1");
  ASSERT_EQ(rec.exit_code, 0) << rec.out;
  auto r = run(condlint_cmd() + " run --data " + shell_quote((d / "data").string()) + " " +
               shell_quote((d / "outside.onnx").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("summary: 2 passed, 0 failed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("external file"), std::string::npos) << r.out;
}

// diff: the reference runs the variants in memory and ONNX Runtime the variants written in a folder of their own,
// both with the external data inline.
TEST(ExecExternalData, DiffRunsTheModelWithItsWeightsOutside) {
  const fs::path d = fresh_dir("exec-external-diff");
  save(model_with_weights("weights.bin"), d / "outside.onnx");
  const float values[4] = {1, 2, 3, 4};
  write_file(d / "weights.bin", std::string(16, '\x7f') + std::string(reinterpret_cast<const char*>(values), 16));
  auto r = run(condlint_cmd() + " diff --runtime ref --runtime onnxruntime --random 1 " +
               shell_quote((d / "outside.onnx").string()) + " 2>&1");
  if (r.out.find("onnxruntime") != std::string::npos && r.out.find("not installed") != std::string::npos)
    GTEST_SKIP() << "ONNX Runtime is not installed here";
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("external file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 diverge, 0 failed"), std::string::npos) << r.out;
}

TEST(ExecExternalData, AFileLintRefusesIsNeverRead) {
  const fs::path d = fresh_dir("exec-external-refused");
  fs::create_directories(d / "model");
  save(model_with_weights("../weights.bin"), d / "model" / "m.onnx");
  write_file(d / "weights.bin", std::string(32, '\0'));
  auto r = run(condlint_cmd() + " run --random 1 " + shell_quote((d / "model" / "m.onnx").string()) + " 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.out;
  // Too short: lint's ONNX015, and run refuses to read past what was checked.
  save(model_with_weights("short.bin"), d / "model" / "s.onnx");
  write_file(d / "model" / "short.bin", std::string(20, '\0'));
  r = run(condlint_cmd() + " run --random 1 " + shell_quote((d / "model" / "s.onnx").string()) + " 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("summary: 2 passed"), std::string::npos) << r.out;
}

}  // namespace
