// ONNX018 tensor-data-size: an initializer's or a Constant's data cannot hold the elements its dims declare (raw_data
// length, typed-field count, negative dims, an element count past 2^64). The ONNX loader measures it
// (loaders/onnx_util.cpp: tensor_data_problem) and never hands such data to onnx's inference.
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX018 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::TensorData);
}
}  // namespace condlint::rules::ONNX018

CONDLINT_RULE(ONNX018, "tensor-data-size", Level::Error, kONNX,
              "A tensor's data cannot hold the elements its dims declare", check)
