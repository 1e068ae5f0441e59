// The ONNX adapter of the condition tracer (model/condition_trace, CondTracer): what an ONNX If's condition is
// computed from (constants, input values, shapes and ranks, through Shape, Size, Gather, comparisons, Not/And/Or,
// Cast and the ops that only move values), read from the parsed NodeProtos by name in the scope of the If while the
// loader walks, with the shapes condlint's sound inference proves; decided where they leave one answer. The result
// is the ConditionalView's provenance.
#pragma once

#include <functional>
#include <string>

#include "model/model.hpp"

namespace onnx {
class FunctionProto;
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace condlint {

// What the tracer may know of a value, by name, in the scope of the If.
struct CondValue {
  enum class Kind { Unknown, GraphInput, Initializer, NodeOutput } kind = Kind::Unknown;
  const onnx::NodeProto* producer = nullptr;  // NodeOutput
  const onnx::TensorProto* data = nullptr;    // an initializer's or a Constant's value, when it holds its data
  Shape shape;                                // the shape condlint's inference proves (unknown when in doubt)
  // NodeOutput of a call of a model-local function: its body, which the tracer follows (one level of calls).
  const onnx::FunctionProto* callee = nullptr;
};
using CondLookup = std::function<CondValue(const std::string& name)>;

// Traces the condition `name`. Bounded: at most a few hundred steps and 24 levels, past which a value is opaque.
ConditionProvenance trace_condition(const std::string& name, const CondLookup& lookup);

}  // namespace condlint
