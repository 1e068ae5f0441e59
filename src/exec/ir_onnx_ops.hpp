// The OpenVINO IR element-wise ops that are one ONNX op each, with that op's name: the IR executor runs them with
// the ONNX kernels, and the exporter writes them as that op. One table for both, so they cannot disagree.
#pragma once

#include <map>
#include <string>

namespace condlint::exec {

// Two inputs with numpy broadcasting (Add -> Add, Subtract -> Sub, LessEqual -> LessOrEqual, ...).
const std::map<std::string, std::string>& ir_binary_ops();
// One input (Relu -> Relu, Negative -> Neg, Ceiling -> Ceil, ...).
const std::map<std::string, std::string>& ir_unary_ops();
// One input, run by the executor only (the exporter does not write them yet): Erf, Sin, SoftPlus -> Softplus, ...
const std::map<std::string, std::string>& ir_exec_unary_ops();

}  // namespace condlint::exec
