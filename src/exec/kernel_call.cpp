#include "exec/kernel_call.hpp"

namespace condlint::exec {

void set_i(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_f(onnx::NodeProto& n, const std::string& name, double v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}
void set_s(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
void set_strings(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto& x : v) a->add_strings(x);
}

std::vector<Value> call_onnx_kernel(Interpreter& ip, const std::string& op, const std::vector<const Value*>& in,
                                    const std::string& path, int depth,
                                    const std::function<void(onnx::NodeProto&)>& attrs, int n_out) {
  auto it = kernels().find(op);
  if (it == kernels().end()) throw ExecError(ErrKind::Unsupported, "unsupported op " + op + " at " + path);
  onnx::NodeProto node;
  node.set_op_type(op);
  for (size_t k = 0; k < in.size(); ++k) node.add_input(in[k] ? "i" + std::to_string(k) : "");
  for (int k = 0; k < n_out; ++k) node.add_output("o" + std::to_string(k));
  if (attrs) attrs(node);
  Scope scope;
  OpCtx c{ip, node, scope, nullptr, path, 18, depth, in, {}};
  it->second(c);
  if (static_cast<int>(c.out.size()) < n_out) fail(op + " produced no output");
  return c.out;
}

}  // namespace condlint::exec
