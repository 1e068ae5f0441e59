// ONNX-specific facts recorded by the ONNX loader for the ONNX rules.
// The loader does the scope walk and the per-node inference once; each ONNX rule reports the
// problems of its own kind, so that rules stay small and the model is walked a single time.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace onnx {
class ModelProto;
}

namespace condlint {

// The role (path segment) the loader gives a subgraph held by graph attribute `attr` of an `op` node: an If's
// then_branch and else_branch are "then" and "else", as in every format; any other attribute keeps its name.
inline std::string onnx_role_of_attribute(const std::string& op, const std::string& attr) {
  if (op == "If" && attr == "then_branch") return "then";
  if (op == "If" && attr == "else_branch") return "else";
  return attr;
}
// The attribute a subgraph's role stands for, for messages that name the ONNX attribute ("then_branch of If 'x'").
inline std::string onnx_attribute_of_role(const std::string& op, const std::string& role) {
  if (op == "If" && role == "then") return "then_branch";
  if (op == "If" && role == "else") return "else_branch";
  return role;
}

struct OnnxProblem {
  enum class Kind {
    Parse,            // ONNX001: not a ModelProto (truncated, wrong bytes, no graph)
    InferenceFailed,  // ONNX008: onnx's inference or type check for a node fails (any graph)
    CheckerRejects    // ONNX017: onnx's checker (check_model) rejects the model, a graph or a node
  };
  Kind kind;
  std::string message;
  SourceLocation loc;
};

// An If branch graph that declares formal inputs (ONNX004 decides): their names, in order (for IR < 4, inputs that
// only name an initializer are not formal inputs).
struct OnnxBranchInputs {
  int graph = -1;
  std::vector<std::string> names;
  SourceLocation loc;
};

// A subgraph output that is a value of an enclosing graph, returned without a node (ONNX012 decides).
struct OnnxOuterOutput {
  int graph = -1;       // the subgraph
  int output = -1;      // its output index
  std::string name;     // the value
  int from_graph = -1;  // the enclosing graph that defines it
  SourceLocation loc;
};

// A tensor whose data is stored outside the model (data_location EXTERNAL), as the loader resolved its location
// (ONNX014 and ONNX015 decide). The loader never opens a location that leaves the model's directory; it only stats the
// file of one that stays inside.
struct OnnxExternalData {
  enum class Place {
    NoLocation,           // no 'location' key
    LeavesDirectory,      // absolute, with a root, with a NUL, or through '..'
    LinkLeavesDirectory,  // inside as written, but a symbolic link takes it outside
    Missing,              // inside, no regular file there
    Present               // inside, a regular file
  };
  std::string owner;     // "initializer 'w' in the main graph"
  std::string location;  // as written
  Place place = Place::NoLocation;
  bool bad_number = false;  // 'offset' or 'length' is not a non-negative integer
  int64_t offset = 0;
  int64_t length = -1;     // -1: to the end of the file
  int64_t file_size = -1;  // Present: the file's size (-1: stat failed)
  SourceLocation loc;
};

// A value a graph defines under a name that is already visible there: defined before in the same graph (ONNX010
// decides) or in an enclosing one (ONNX011 decides; a graph's own inputs and initializers in the main graph are not
// recorded, as nothing encloses them).
struct OnnxRedefinition {
  enum class Source { Input, Initializer, NodeOutput };
  std::string name;
  int graph = -1;  // where it is defined again
  Source source = Source::Input;
  int earlier_graph = -1;  // where the visible one is defined (== graph: a duplicate)
  Source earlier_source = Source::Input;
  int earlier_node = -1;  // for a NodeOutput: the node in earlier_graph
  SourceLocation loc;     // the defining node, or the graph for an input or initializer
  // An initializer over an outer initializer whose element type, dims and stored bytes (raw_data, or the same typed
  // field's values) are the same: every reader computes the same whichever it reads (ONNX011 warns instead).
  bool equal_value = false;
};

// A name a node input or a graph output reads that no visible scope defines (ONNX009 decides).
struct OnnxUndefinedRead {
  std::string name;
  int graph = -1;
  int node = -1;    // the reading node; -1: output `output` of the graph
  int output = -1;  // for a graph output: its index
  SourceLocation loc;
};

// An If branch output without a declared type whose type no inference gives, with where the unknown starts (ONNX013
// decides; outputs whose type rests on a problem already reported are not recorded).
struct OnnxUnknownOutput {
  int graph = -1;   // the branch
  int output = -1;  // its output index
  std::string name;
  int root_graph = -1, root_node = -1;  // the node where the unknown starts; -1: a graph input without a type
  std::string root_domain;              // that node's domain ("" or "ai.onnx": onnx's own)
  SourceLocation loc;
};

// The form of an If node as written: its input count and attributes (ONNX003 decides). Recorded only for an If
// whose form is not the one If has (one input; one then_branch and one else_branch, each a GRAPH).
struct OnnxIfForm {
  struct Attribute {
    std::string name;
    std::string type;  // AttributeProto type name ("GRAPH", "INT", ...)
    bool has_graph = false;
  };
  int graph = -1, node = -1;
  int input_count = 0;
  std::vector<Attribute> attributes;  // in file order
  SourceLocation loc;
  // One input, and exactly the two branch attributes, each a graph typed GRAPH.
  bool well_formed() const {
    if (input_count != 1 || attributes.size() != 2) return false;
    bool seen[2] = {false, false};
    for (const auto& a : attributes) {
      const int b = a.name == "then_branch" ? 0 : a.name == "else_branch" ? 1 : -1;
      if (b < 0 || seen[b] || !a.has_graph || a.type != "GRAPH") return false;
      seen[b] = true;
    }
    return true;
  }
};

// The type of an If branch output as onnx spells it ("tensor(float)", "seq(tensor(int64))"), for the branch outputs
// whose type is known and rests on no reported problem (ONNX005 compares it with what the If version allows).
struct OnnxBranchOutputType {
  int conditional = -1;   // index in Model::conditionals
  int branch = 0;         // 0 = then, 1 = else
  int output = -1;        // index among the branch's outputs
  std::string onnx_type;  // "" when onnx has no spelling for it (a map, a sparse tensor)
};

// A stored tensor (an initializer, a Constant's value) measured against its dims, as the loader read it (ONNX018
// says what is wrong). Recorded only when its data cannot hold what its dims declare (holds_dims); the loader then
// never hands the data to inference or to onnx's check_tensor, which would read past it.
struct OnnxTensorSize {
  std::string initializer;  // the initializer's name; empty: the value of the Constant node at loc
  int rank = 0;
  std::vector<int64_t> dims;      // the first eight dims
  int negative_dim = -1;          // the first negative dim; -1: none
  int64_t negative_value = 0;     // its value
  bool count_overflows = false;   // the dims multiply past 2^64 elements
  uint64_t count = 1;             // the elements the dims declare (while it does not overflow)
  bool strings = false;           // a string tensor
  unsigned bits = 0;              // bits per element; 0 (not a string): a type this build does not size
  bool raw = false;               // the values are in raw_data
  uint64_t raw_bytes = 0;         // raw_data's length
  std::string field;              // the typed field its type uses ("float_data", "int32_data", ...)
  int64_t field_values = 0;       // entries in that field
  int per_element = 1;            // entries per element (2 for complex)
  int per_value = 1;              // elements one entry holds (packed: 2 for 4-bit types, 4 for 2-bit types)
  bool values_elsewhere = false;  // a typed field its type does not use holds values
  SourceLocation loc;
  // The data holds exactly the elements the dims declare (or the tensor is of a kind this build does not size: a
  // type it does not know, strings in raw_data, which onnx's checker judges).
  bool holds_dims() const {
    if (negative_dim >= 0 || count_overflows) return false;
    if (bits == 0 && !strings) return true;
    if (raw) return strings || (count <= UINT64_MAX / bits && raw_bytes == raw_bytes_needed());
    return static_cast<uint64_t>(field_values) == values_needed();
  }
  // The bytes raw_data needs: sub-byte types are packed, the last byte padded (while count * bits does not overflow).
  uint64_t raw_bytes_needed() const { return (count * bits + 7) / 8; }
  // The entries the typed field needs (packed types: the last entry padded).
  uint64_t values_needed() const {
    return (count * static_cast<uint64_t>(per_element) + static_cast<uint64_t>(per_value) - 1) /
           static_cast<uint64_t>(per_value);
  }
};

// A node output whose declared type or shape contradicts what the node computes, inside a branch or anywhere
// (ONNX007 says it). The walk goes on with what the node computes.
struct OnnxDeclaredVsComputed {
  enum class Differs { Type, Shape, ElementShape };
  Differs differs = Differs::Type;
  int graph = -1, node = -1, output = -1;
  std::string name;                    // the output's name
  std::string declared, computed;      // types (Type, ElementShape) or shapes (Shape) as condlint writes them
  std::string declared_element_shape;  // ElementShape: the element shapes as onnx's TypeProto holds them
  std::string computed_element_shape;
  bool rests_on_reported = false;  // an input of the node already has a reported problem (one root cause)
  // The computed shape comes from more than onnx's own inference knows (Loop/Scan outputs, a decided If, constants of
  // an enclosing graph, or inputs typed by those): onnx's checker may accept the declaration.
  bool beyond_onnx = false;
  SourceLocation loc;
};

// A consumer that onnx's inference rejects under one branch of an If (or one combination of branches of several
// Ifs) where the union of the branches let it pass (C014 decides): the loader follows each branch's proven types
// into the nodes after the If, one node at a time, until the branches agree again (OnnxBranchFollow).
using OnnxBranchBreak = BranchBreak;

// Where following the branches stopped short (C014's note): past the nodes followed per If, or past the
// combinations of branches that meet at one node. The consumers after that are judged on the union, as before.
struct OnnxBranchFollowLimit {
  int conditional = -1;
  bool combinations = false;  // too many combinations met at one node (else: too many nodes followed)
  bool whole_model = false;   // the model's budget of cases ran out here (nothing after is followed)
  int64_t limit = 0;
  SourceLocation loc;  // the node where it stopped
};

struct OnnxData {
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;   // domain ("" = ai.onnx) -> version
  int64_t onnx_opset = -1;                 // the ai.onnx opset the model imports (1 for IR < 3; -1: none)
  int if_since_version = 0;                // the If schema version the model's opset selects (0: none)
  std::set<std::string> if_allowed_types;  // the output types that If version allows, as onnx spells them
  int max_depth = 0;                       // deepest subgraph nesting (Graph::depth of the deepest graph)
  // Nodes judged by the facts of the newest onnx condlint has (model/onnx_schema_facts): their definition at the
  // model's opset is newer than the one the linked onnx would select. How many.
  int facts_judged_nodes = 0;
  // Operators of nodes nobody could judge: their domain's imported opset is newer than the newest onnx whose facts
  // condlint has. "Op" (ai.onnx) or "domain.Op" -> how many such nodes; ONNX016 names them.
  std::map<std::string, int> unjudged_ops;
  // Tensors (initializers, attribute values) of element types the linked onnx does not know (float8, int4, float4
  // ...): onnx's checks of their data were not run. How many; ONNX016 says so.
  int unchecked_tensors = 0;
  std::vector<OnnxProblem> problems;
  std::vector<OnnxBranchInputs> branch_inputs;
  std::vector<OnnxOuterOutput> outer_outputs;
  std::vector<OnnxExternalData> external_data;
  std::vector<OnnxRedefinition> redefinitions;
  std::vector<OnnxUndefinedRead> undefined_reads;
  std::vector<OnnxUnknownOutput> unknown_outputs;
  std::vector<OnnxIfForm> if_forms;
  std::vector<OnnxBranchOutputType> branch_output_types;
  std::vector<OnnxTensorSize> tensor_sizes;
  std::vector<OnnxDeclaredVsComputed> declared_vs_computed;
  std::vector<OnnxBranchBreak> branch_breaks;               // in walk order
  std::vector<OnnxBranchFollowLimit> branch_follow_limits;  // one per If at most
  // The parsed model itself, kept only when the loader was asked to (the executor runs it: `run`, `lint --exec`,
  // so the file is parsed once) and the model nests shallowly enough to be freed on any thread's stack.
  std::shared_ptr<const onnx::ModelProto> proto;
  // Asked to keep the parsed model (open_model's keep_for_exec) and it could not be parsed as the executor parses
  // it: why (a message for the command that wanted to run or export it).
  std::string proto_error;
  // The mapped file whose large tensor payloads the parsed model marks instead of holding (loaders/onnx_wire): kept
  // while the Model lives, so that the executor reads a weight where it lies in the file. Null when none was stripped.
  std::shared_ptr<const void> payload_file;
};

}  // namespace condlint
