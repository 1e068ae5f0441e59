// ONNX-specific facts recorded by the ONNX loader for the ONNX rules.
#pragma once

#include "model/model.hpp"

namespace condlint {

struct OnnxData {};

}  // namespace condlint
