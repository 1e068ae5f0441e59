// Generators of synthetic ONNX models (serialized ModelProto), shared by the tests and the benchmark.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace condlint::gen {

inline void onnx_value(onnx::ValueInfoProto* v, const std::string& name, int elem,
                       const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* s = t->mutable_shape();
  for (int64_t d : dims) s->add_dim()->set_dim_value(d);
}

inline onnx::NodeProto* onnx_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                                  std::initializer_list<std::string> in, std::initializer_list<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& s : in) n->add_input(s);
  for (const auto& s : out) n->add_output(s);
  return n;
}

// Main graph: inputs c (bool scalar), x (float [2]); initializer one (float [2]).
inline onnx::ModelProto onnx_model_base(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("condlint-gen");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("main");
  onnx_value(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  onnx_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  auto* one = g->add_initializer();
  one->set_name("one");
  one->set_data_type(onnx::TensorProto::FLOAT);
  one->add_dims(2);
  one->add_float_data(1.0f);
  one->add_float_data(1.0f);
  return m;
}

// One branch: `ops` chained nodes from `in` to `out` (Add in then, Sub in else), output declared float [2].
inline void onnx_branch(onnx::GraphProto* b, const std::string& tag, const std::string& in, const std::string& out,
                        int ops, bool then) {
  b->set_name(tag);
  std::string prev = in;
  for (int j = 0; j < ops; ++j) {
    const std::string o = j + 1 == ops ? out : tag + "_" + std::to_string(j);
    onnx_node(b, then ? "Add" : "Sub", (then ? "Add_" : "Sub_") + std::to_string(j), {prev, "one"}, {o});
    prev = o;
  }
  onnx_value(b->add_output(), out, onnx::TensorProto::FLOAT, {2});
}

// A flat chain of `ifs` Ifs; If k reads v{k-1} from the main graph in both branches of `ops` nodes.
// Valid: lints clean. 10,000 Ifs with 10-node branches is 8.4 MiB (12.3 MiB saved with inferred value_info).
inline std::string flat_if_chain_onnx(int ifs, int ops = 10, int opset = 13) {
  onnx::ModelProto m = onnx_model_base(opset);
  auto* g = m.mutable_graph();
  std::string prev = "x";
  for (int k = 0; k < ifs; ++k) {
    const std::string ks = std::to_string(k), out = "v" + ks;
    auto* n = onnx_node(g, "If", "If_" + ks, {"c"}, {out});
    for (int b = 0; b < 2; ++b) {
      auto* a = n->add_attribute();
      a->set_name(b == 0 ? "then_branch" : "else_branch");
      a->set_type(onnx::AttributeProto::GRAPH);
      onnx_branch(a->mutable_g(), (b == 0 ? "t" : "e") + ks, prev, (b == 0 ? "to" : "eo") + ks, ops, b == 0);
    }
    onnx_value(g->add_value_info(), out, onnx::TensorProto::FLOAT, {2});
    prev = out;
  }
  onnx_node(g, "Identity", "Out", {prev}, {"y"});
  onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  return m.SerializeAsString();
}

// `depth` Ifs, each in the then_branch of the one above; every level reads x and one from the main
// graph. Built inside out, so the cost is linear. Valid: lints clean (apart from ONNX002 above 31).
inline std::string nested_if_onnx(int depth, int opset = 13) {
  onnx::ModelProto m = onnx_model_base(opset);
  onnx::NodeProto inner;
  for (int k = depth - 1; k >= 0; --k) {
    const std::string ks = std::to_string(k);
    onnx::NodeProto n;
    n.set_op_type("If");
    n.set_name("If_" + ks);
    n.add_input("c");
    n.add_output("y" + ks);
    auto* t = n.add_attribute();
    t->set_name("then_branch");
    t->set_type(onnx::AttributeProto::GRAPH);
    auto* tg = t->mutable_g();
    tg->set_name("then" + ks);
    if (k + 1 == depth) {
      onnx_node(tg, "Add", "Add_" + ks, {"x", "one"}, {"t" + ks});
    } else {
      tg->add_node()->Swap(&inner);
      onnx_node(tg, "Identity", "Id_" + ks, {"y" + std::to_string(k + 1)}, {"t" + ks});
    }
    onnx_value(tg->add_output(), "t" + ks, onnx::TensorProto::FLOAT, {2});
    auto* e = n.add_attribute();
    e->set_name("else_branch");
    e->set_type(onnx::AttributeProto::GRAPH);
    auto* eg = e->mutable_g();
    eg->set_name("else" + ks);
    onnx_node(eg, "Neg", "Neg_" + ks, {"x"}, {"e" + ks});
    onnx_value(eg->add_output(), "e" + ks, onnx::TensorProto::FLOAT, {2});
    inner.Swap(&n);
  }
  auto* g = m.mutable_graph();
  g->add_node()->Swap(&inner);
  onnx_value(g->add_output(), "y0", onnx::TensorProto::FLOAT, {2});
  return m.SerializeAsString();
}

// A valid model with one If and one float initializer "w" of `weight_bytes` bytes (a multiple of 4) stored in the
// file: the bytes before w's raw_data, which ends the file. Written as this head and `weight_bytes` zeros (a sparse
// file: fs::resize_file), it is a model of any size made in no time. `int64_run`: w is an INT64 [weight_bytes / 1024,
// 1024] tensor (weight_bytes a multiple of 1024) whose values are a packed int64_data run: the zeros read as that many
// one-byte varints 0.
inline std::string big_weight_onnx_head(uint64_t weight_bytes, bool int64_run = false) {
  onnx::ModelProto m = onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto* n = onnx_node(g, "If", "If_0", {"c"}, {"y"});
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx_branch(a->mutable_g(), b == 0 ? "then" : "else", "x", b == 0 ? "t_out" : "e_out", 1, b == 0);
  }
  onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  const std::string graph = g->SerializeAsString();
  m.clear_graph();
  auto varint = [](std::string& out, uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    out.push_back(static_cast<char>(v));
  };
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(int64_run ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
  if (int64_run) w.add_dims(static_cast<int64_t>(weight_bytes / 1024));
  w.add_dims(static_cast<int64_t>(int64_run ? 1024 : weight_bytes / 4));
  std::string tensor = w.SerializeAsString();
  tensor.push_back(static_cast<char>((int64_run ? 7 : 9) << 3 | 2));  // int64_data or raw_data
  varint(tensor, weight_bytes);
  std::string init(1, static_cast<char>(5 << 3 | 2));  // GraphProto.initializer
  varint(init, tensor.size() + weight_bytes);
  init += tensor;
  std::string out = m.SerializeAsString();
  out.push_back(static_cast<char>(7 << 3 | 2));  // ModelProto.graph
  varint(out, graph.size() + init.size() + weight_bytes);
  return out + graph + init;
}

}  // namespace condlint::gen
