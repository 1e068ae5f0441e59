// What `condlint fix` applies: the repair of a finding, decided by the rule that reports it. A rule whose findings
// (some or all) have one right answer reports them with Reporter::report_fixable and defines, in its own file, a
// fixer (CONDLINT_FIX): from the model, the finding and the model file's text, the edits that repair it. The fix
// layer (src/fix/) applies the edits, judges the fixed model again and proves the fix before anything is written.
//
// Edits are the rule's decision, in the model file's own terms: for an IR, byte ranges of the XML text replaced (the
// rest of the file is kept byte for byte, comments and formatting included; SARIF's `fixes` carry them); for an
// ONNX model, structural edits of the ModelProto named by the Model's graph index, which the fix layer applies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/engine.hpp"

namespace condlint {

// Bytes [begin, end) of the model file replaced by `replacement` (empty: removed).
struct TextEdit {
  int64_t begin = 0, end = 0;
  std::string replacement;
};

// An edit of an ONNX model's protobuf.
struct OnnxEdit {
  // RemoveInitializer: initializer `name` of the graph removed. SetDeclaredType: the tensor type the graph declares
  // for value `name` (its value_info entry and, where the value is an output of the graph, that output's type)
  // rewritten: the element type `elem` where it is concrete, and with `set_shape` the shape `shape` (a shape of
  // unknown rank: no shape at all; a static dim: its dim_value; any other: a dim with neither value nor param), each
  // dim `keep` marks left as declared (same rank only). What the edit does not concern stays as it is.
  enum class Kind { RemoveInitializer, SetDeclaredType };
  Kind kind = Kind::RemoveInitializer;
  int graph = -1;    // Model::graphs index of the graph edited (a subgraph: the fix layer finds it by its parents)
  std::string name;  // the initializer, or the value whose declaration is rewritten
  ElemType elem = ElemType::Unknown;
  bool set_shape = false;
  Shape shape;
  std::vector<char> keep;
};

struct Fix {
  std::string rule;
  Fixable safety = Fixable::Safe;
  std::string description;  // what changes, in the report's words: "removed Result 'r' of then_body and its edge"
  ReportedLocation loc;     // the finding's
  std::vector<TextEdit> text;
  std::vector<OnnxEdit> onnx;
};

struct FixerDef {
  std::string_view rule;
  // The fix of one of the rule's findings (one it reported with report_fixable), or nullopt with `why` set when the
  // file is not as the finding says (edited since). `text`: the model file's bytes (IR); empty for other formats.
  std::optional<Fix> (*make)(const Model& m, const Finding& f, std::string_view text, std::string& why);
};

// The index a rule put in a finding's fix_key (report_fixable(..., std::to_string(i))); nullopt when there is none.
std::optional<size_t> fix_key_index(const Finding& f);

// Every fixer, in rule ID order (registry.cpp), and the one of a rule (null: the rule has none).
const std::vector<const FixerDef*>& all_fixers();
const FixerDef* find_fixer(std::string_view rule);

// The XML element that starts at byte `offset` of `text` (its '<'): [begin, end) through its end tag, or through
// "/>" when it closes itself, widened to whole lines when only blanks stand beside it on its first and last line.
// nullopt when no element starts there or it does not end.
std::optional<std::pair<int64_t, int64_t>> xml_element_range(std::string_view text, int64_t offset);

// The start tag that begins at `offset` (its '<'): the index after its '>' (quotes respected); npos when none ends.
size_t xml_start_tag_end(std::string_view text, int64_t offset);
// The value of attribute `name` in the start tag at `offset`: [begin, end) of the text between its quotes; nullopt
// when the tag has no such attribute.
std::optional<std::pair<size_t, size_t>> xml_attribute(std::string_view text, int64_t offset, std::string_view name);

// The <dim> elements of the IR <port> that starts at `offset` (its '<'), in order: each one's element ('<' through
// "</dim>") and its text. nullopt when no port starts there or it does not end.
struct XmlDim {
  size_t begin = 0, end = 0;            // the element
  size_t text_begin = 0, text_end = 0;  // its text
};
std::optional<std::vector<XmlDim>> xml_port_dims(std::string_view text, int64_t offset);

// What an IR port states for a dimension (OpenVINO's spelling: "3", "-1", "2..3") and for an element type (the
// precision OpenVINO's serializer writes: FP32, I64, BOOL; else the type's canonical name).
std::string ir_dim_text(const Dim& d);
std::string ir_precision_text(ElemType t);

}  // namespace condlint

// Defines `const FixerDef& fixer_<ID>()` for a rule's file: MAKE is looked up in `namespace condlint::rules::<ID>`.
#define CONDLINT_FIX(ID, MAKE)                               \
  namespace condlint {                                       \
  const FixerDef& fixer_##ID() {                             \
    static const FixerDef def{#ID, rules::ID::MAKE};         \
    return def;                                              \
  }                                                          \
  }
