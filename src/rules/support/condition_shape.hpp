// Shared by C003 and C004: which condition shapes each format accepts.
#pragma once

#include <string>

#include "model/model.hpp"

namespace condlint {

struct ConditionShape {
  enum Kind { Ok, Wrong, Unknown } kind = Ok;
  std::string why;
};

// IR (OpenVINO If-8): a scalar or a 1-D tensor of one element. ONNX: any shape with exactly one
// element (ONNX Runtime reads the single element). NNAPI: exactly [1] (Validation.cpp), where an
// unspecified rank or dimension is legal at run time.
ConditionShape classify_condition_shape(Format f, const ValueDesc& cond);

}  // namespace condlint
