// Type and shape inference for the operator definitions newer than the onnx condlint links (Debian's 1.12, opset
// 17): the versions real exports use most (Reduce*-18, Split-18, Pad-18+, Resize-18/19, Squeeze/Unsqueeze-21+,
// Reshape-19+, Cast/CastLike-19+, Constant-19+, ConstantOfShape-20+, Shape/Size-19+, Gelu-20, RMSNormalization-23,
// RotaryEmbedding-23, Attention-23 ...), as the newest onnx's definitions say. One table keyed by operator and
// since-version; a definition not in it gives no inference (its outputs keep the element types the facts fix).
#pragma once

#include <string>
#include <vector>

namespace onnx {
class NodeProto;
class TensorProto;
class TypeProto;
}  // namespace onnx

namespace condlint::newer_inference {

// One input of the node: its type (null when unknown or the input is absent) and its constant value (an initializer
// or a Constant node's tensor; null otherwise).
struct Input {
  const onnx::TypeProto* type = nullptr;
  const onnx::TensorProto* data = nullptr;
  bool present = false;  // named in the node (an empty name is an omitted optional input)
};

enum class Outcome {
  None,      // no inference for this definition: `out` is untouched
  Inferred,  // `out` holds what is known of each output (an unset TypeProto: nothing)
  Failed,    // the node contradicts its definition: `error` says how
};

// Infers an ai.onnx node judged by the definition `op`-`since_version`. `out` has one entry per node output, holding
// on entry the element type the definition's type constraints fix (or nothing); the inference refines it.
Outcome infer(const onnx::NodeProto& np, int since_version, const std::vector<Input>& in,
              std::vector<onnx::TypeProto>& out, std::string& error);

// Whether the table has an inference for `op`-`since_version` (ai.onnx).
bool has_inference(const std::string& op, int since_version);

}  // namespace condlint::newer_inference
