// The rule engine. It knows nothing of any particular rule: rules are plain definitions
// (ID, name, level, formats, summary, check function) listed in registry.cpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint {

enum class Level { Off = 0, Note = 1, Warning = 2, Error = 3 };
std::string_view to_string(Level l);
bool parse_level(std::string_view s, Level& out);  // "off", "note", "warning", "error"

// Whether `condlint fix` can repair a finding (rules/fix.hpp): safe fixes keep the model's outputs identical on
// every branch; unsafe ones change what some runtime computes and are applied only with --unsafe-fixes.
enum class Fixable { No, Safe, Unsafe };
std::string_view to_string(Fixable f);  // "", "safe", "unsafe"

// One replacement of bytes [begin, end) of a text model file (an IR's XML) by `text`: what SARIF's `fixes` carry.
struct FixEdit {
  int64_t begin = 0, end = 0;
  std::string text;
};

struct Finding {
  std::string rule;  // "C006"
  std::string name;  // "branch-type-mismatch"
  Level level = Level::Error;
  std::string message;
  ReportedLocation loc;
  Fixable fixable = Fixable::No;  // the rule's fixer (rules/fix.hpp) repairs this finding
  std::string fix_key;            // what the fixer needs beyond the location (ONNX011: the initializer's name)
  // For a text model file (IR), the fix's edits and what it does, filled in by the lint session (SARIF's `fixes`).
  std::vector<FixEdit> fix_edits;
  std::string fix_description;
};

// A deployment target (`lint --target onnxruntime>=1.17`, `targets:` in .condlint.yaml): a runtime of the profile
// table (data/targets.json) and the first release of the range; "" = every release the table knows.
struct Target {
  std::string runtime;  // "onnxruntime", "openvino", "tensorrt", "nnapi"
  std::string from;     // "1.17", "fl4"; "" = all
  std::string spec;     // as written
};

// Settings some rules read (set from the command line or the config file).
struct RuleOptions {
  std::string nnapi_target = "runtime";  // "runtime" (Android's runtime) or "hal" (HAL drivers)
  // --nnapi-target was given: a TFLite model is judged as the NNAPI delegate would hand it to NNAPI (TFL009,
  // TFL010), as under --target nnapi.
  bool nnapi_target_given = false;
  std::vector<Target> targets;           // the target rules (ORT, OV, TRT, FL) judge for these; none: silent
};

class Reporter;
using CheckFn = void (*)(const Model&, Reporter&);

enum FormatMask : unsigned { kIR = 1u, kONNX = 2u, kNNAPI = 4u, kTFLITE = 8u, kAllFormats = 15u };
// The mask bit of a format, and the formats by the names reports and data/targets.json give them ("ir", "onnx",
// "nnapi", "tflite": to_string(Format)).
unsigned format_bit(Format f);
constexpr std::pair<FormatMask, std::string_view> kFormatNames[] = {
    {kIR, "ir"}, {kONNX, "onnx"}, {kNNAPI, "nnapi"}, {kTFLITE, "tflite"}};

struct RuleDef {
  std::string_view id;
  std::string_view name;
  Level level;
  unsigned formats;
  std::string_view summary;  // one line, used by `condlint rules` and SARIF shortDescription
  CheckFn check;
};

// Collects the findings of one rule run.
class Reporter {
 public:
  Reporter(const Model& model, const RuleDef& rule, Level level, std::vector<Finding>& out, const RuleOptions& options)
      : model_(model), rule_(rule), level_(level), out_(out), options_(options) {}
  // Records a finding; the logical node path is filled in from loc.graph / loc.node_index.
  void report(const SourceLocation& loc, std::string message);
  // Records a finding the rule's fixer (rules/fix.hpp, CONDLINT_FIX in the rule's file) can repair; at `level`
  // instead of the rule's default as report_at does, when given.
  void report_fixable(Fixable fix, const SourceLocation& loc, std::string message, std::string fix_key = {},
                      std::optional<Level> level = std::nullopt);
  // Records a finding at `level` instead of the rule's default level (for rules whose severity
  // depends on RuleOptions), unless the user set this rule's level explicitly.
  void report_at(Level level, const SourceLocation& loc, std::string message);
  const RuleDef& rule() const { return rule_; }
  const RuleOptions& options() const { return options_; }

 private:
  const Model& model_;
  const RuleDef& rule_;
  Level level_;
  std::vector<Finding>& out_;
  const RuleOptions& options_;
};

// Every rule, in ID order (defined in registry.cpp).
const std::vector<const RuleDef*>& all_rules();
const RuleDef* find_rule(std::string_view id);

struct RuleSelection {
  std::vector<std::string> enable;      // when non-empty, only rules whose ID starts with one of these
  std::vector<std::string> disable;     // rules whose ID starts with one of these are off
  std::map<std::string, Level> levels;  // per-rule level overrides (Off disables)
  RuleOptions options;
  bool is_on(const RuleDef& r) const;
  Level level_of(const RuleDef& r) const;
};

// Runs every selected rule that applies to the model's format; findings sorted by position.
std::vector<Finding> run_rules(const Model& model, const RuleSelection& sel);

// Helpers for rule messages.
std::string describe(const ValueDesc& v);  // "f32 [2,4] (Parameter 'x')"

}  // namespace condlint

// Defines the accessor `const RuleDef& rule_<ID>()` for one rule file. A rule file keeps its code in
// `namespace condlint::rules::<ID>` (so rule files can be compiled together, as the unity build does) and names its
// check function there: CHECK is looked up in that namespace.
#define CONDLINT_RULE(ID, NAME, LEVEL, FORMATS, SUMMARY, CHECK)                     \
  namespace condlint {                                                              \
  const RuleDef& rule_##ID() {                                                      \
    static const RuleDef def{#ID, NAME, LEVEL, FORMATS, SUMMARY, rules::ID::CHECK}; \
    return def;                                                                     \
  }                                                                                 \
  }
