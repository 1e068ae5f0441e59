// What a condition in the unified Model is computed from, for the formats whose loader has no tracer of its own
// (OpenVINO IR; ONNX traces in loaders/onnx_condition with its constants and inferred shapes). Walks back from
// the value that feeds the condition through the ops that compute shapes, comparisons and logic, up to
// Parameters, Consts and ops it does not look into. Structural only: it says what the condition reads (shapes,
// values, which ones) and how, and never decides it (declared IR dims are what the IR rules check, not facts to
// build on).
#pragma once

#include <string>

#include "model/model.hpp"

namespace condlint {

// How condition texts (ConditionProvenance::text) write a number: "3", "0.5".
std::string condition_number(double d);
// The text of the negation of `text`: a comparison's == and != swap ("dim 1 of 'x' != 1"); anything else is
// wrapped ("not ('c')").
std::string negated_condition(const std::string& text, bool comparison);

// The provenance of the value `cond` (a node output of `m`). Bounded: at most a few hundred steps and 24
// levels, past which a value is opaque.
ConditionProvenance trace_model_condition(const Model& m, const ValueRef& cond);

}  // namespace condlint
