// The facts of every operator definition of a recent onnx release (tools/onnx_schemas/generate.py writes them into
// onnx_schema_table.inc from onnx.defs.get_all_schemas_with_history()): what a node must look like to pass that onnx's
// checker, for models newer than the onnx condlint links. Facts only: no documentation, no inference.
#pragma once

#include <cstdint>
#include <string_view>

namespace condlint::schema_facts {

// A formal input or output: its name, its type (a constraint name such as "T" or a type such as "tensor(int64)"),
// whether it is single, optional or variadic, whether a variadic one takes one type for all its values, and the
// least number of values a variadic one takes.
struct FormalFacts {
  const char* name;
  const char* type_str;
  int option;  // kSingle, kOptional, kVariadic
  int homogeneous;
  int min_arity;
};
inline constexpr int kSingle = 0, kOptional = 1, kVariadic = 2;

// An attribute: its name, its type (onnx::AttributeProto::AttributeType's number) and whether it is required.
struct AttributeFacts {
  const char* name;
  int type;
  int required;
};

// A type constraint: its name and the allowed types (index into the table's lists, a semicolon-separated string such as
// "tensor(float);tensor(int64)").
struct ConstraintFacts {
  const char* name;
  int types;
};

struct Run {
  int begin, count;
};

// One operator definition.
struct OpFacts {
  const char* domain;  // "" is ai.onnx
  const char* name;
  int since_version;
  int deprecated;
  int min_input, max_input, min_output, max_output;
  Run inputs, outputs, attributes, constraints;
};

// The opset versions a domain has in that release.
struct DomainRange {
  const char* domain;
  int first, last;
};

// The onnx release the table comes from ("1.23.2") and the newest IR version it defines.
std::string_view onnx_version();
int ir_version();
// The newest opset of `domain` ("" or "ai.onnx" for ai.onnx) the table knows; 0 when it knows no such domain.
int newest_opset(std::string_view domain);
// The definition an opset-`version` import of `domain` selects for `op`: the one with the largest since_version at or
// below `version`. Null when there is none (the operator does not exist at that version, or the domain is unknown).
const OpFacts* select(std::string_view domain, std::string_view op, int64_t version);

const FormalFacts& input(const OpFacts& op, int k);
const FormalFacts& output(const OpFacts& op, int k);
const AttributeFacts& attribute(const OpFacts& op, int k);
const ConstraintFacts& constraint(const OpFacts& op, int k);
// The allowed types of a constraint, separated by semicolons.
std::string_view allowed_types(const ConstraintFacts& c);

}  // namespace condlint::schema_facts
