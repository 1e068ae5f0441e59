// What a condition in the unified Model is computed from, for the formats whose loader has no tracer of its own
// (OpenVINO IR and NNAPI; ONNX traces in loaders/onnx_condition with its constants and inferred shapes). Walks back
// from the value that feeds the condition through the ops that compute shapes, comparisons and logic, up to Parameters,
// Consts and ops it does not look into: it says what the condition reads (shapes, values, which ones) and how, and
// decides it (model/condition_sym) where small constants and the declared shapes of the main graph's Parameters leave
// one answer. The declared dims of computed IR values are what the IR rules check, not facts to build on.
#pragma once

#include <string>
#include <unordered_map>

#include "model/model.hpp"

namespace condlint {

// How condition texts (ConditionProvenance::text) write a number: "3", "0.5".
std::string condition_number(double d);
// The text of the negation of `text`: a comparison's == and != swap ("dim 1 of 'x' != 1"); anything else is
// wrapped ("not ('c')").
std::string negated_condition(const std::string& text, bool comparison);

// An IR model's Consts by their layer, for reading the values a condition compares with (built once per model).
using IrConstIndex = std::unordered_map<uint64_t, const IrConst*>;
IrConstIndex index_ir_consts(const Model& m);

// The provenance of the value `cond` (a node output of `m`); `consts` (may be null) gives the IR Consts' values.
// Bounded: at most a few hundred steps and 24 levels, past which a value is opaque.
ConditionProvenance trace_model_condition(const Model& m, const ValueRef& cond, const IrConstIndex* consts);
// The provenance of input `input` of node `node` in graph `graph` (an NNAPI IF's condition operand, which may be a
// subgraph input or a constant rather than an operation's output).
ConditionProvenance trace_node_input(const Model& m, int graph, int node, int input);

}  // namespace condlint
