// How the executors of other formats (IR, TFLite) run the ONNX kernels: a node made for the call, with its attributes
// set by the helpers below.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exec/interpreter.hpp"

namespace condlint::exec {

void set_i(onnx::NodeProto& n, const std::string& name, int64_t v);
void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void set_f(onnx::NodeProto& n, const std::string& name, double v);
void set_s(onnx::NodeProto& n, const std::string& name, const std::string& v);
void set_strings(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v);

// Runs the ONNX kernel `op` (opset 18) on `in` (null: an absent optional input) with the attributes `attrs` sets;
// its first `n_out` outputs. An op with no kernel is ErrKind::Unsupported ("unsupported op OP at PATH").
std::vector<Value> call_onnx_kernel(Interpreter& ip, const std::string& op, const std::vector<const Value*>& in,
                                    const std::string& path, int depth,
                                    const std::function<void(onnx::NodeProto&)>& attrs = {}, int n_out = 1);

}  // namespace condlint::exec
