// The runtime profiles `lint --target` judges by: data/targets.json (embedded at build time), parsed once. Each
// runtime lists its releases, oldest first, and facts that hold from one release to another, each with its source.
// The rules (ORT, OV, TRT, FL) ask which releases of a target's range a model is refused by and word the answer
// with `describe_refusal`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/engine.hpp"

namespace condlint::targets {

struct Fact {
  std::string kind;               // "onnx_max_opset", "if_element_types", ...
  size_t from = 0, to = 0;        // release indexes, inclusive (to = the last release when the row has none)
  bool open_ended = false;        // no `to`: later releases too
  std::optional<int64_t> number;  // a numeric value
  std::optional<bool> flag;       // a boolean value
  std::vector<std::string> list;  // a list of names
  std::string text;               // the value as JSON text (for docs/targets.md)
  std::string source;
};

struct Runtime {
  std::string id, name;
  unsigned formats = 0;               // FormatMask
  std::vector<std::string> releases;  // oldest first
  std::vector<Fact> facts;
};

// The embedded table (generated/targets_data.cpp).
std::string_view profile_table();
// Every runtime of the table; empty (and `table_error()` says why) when the table does not parse, which a test
// rules out for the table the build embeds.
const std::vector<Runtime>& runtimes();
const std::string& table_error();
const Runtime* find_runtime(std::string_view id);

// Orders release names by their numeric parts ("1.9" < "1.17", "fl3" < "fl4"); -1, 0, 1.
int compare_versions(std::string_view a, std::string_view b);

// "onnxruntime>=1.17", "openvino", "nnapi>=fl4". False, with `error` set, for an unknown runtime or a version that
// is not one the table can order.
bool parse_target(std::string_view spec, Target& out, std::string& error);

// The releases a target covers, as indexes into rt.releases: every release at or after `from`, and the release
// series `from` falls in (the newest release not after it). All of them without `from`.
std::vector<size_t> covered(const Runtime& rt, const Target& t);

// The fact of this kind that holds at release `r`, or null.
const Fact* fact_at(const Runtime& rt, std::string_view kind, size_t r);
// The first release a fact row of this kind whose list contains `name` holds from ("fl4"), or null.
const Fact* since(const Runtime& rt, std::string_view kind, std::string_view name);

// Words a refusal over a target's range: `refuses(r)` says whether release r refuses the model. Empty when no
// covered release refuses. Otherwise, with `what` the thing refused ("opset 21"):
//   older releases refuse, newer accept: "opset 21 needs onnxruntime >= 1.18 (the range starts at 1.17)"
//   every release of the table refuses:  "OpenVINO (all versions) refuses opset 21"
//   every covered release refuses:       "OpenVINO (every version from 2025.0) refuses opset 21"
//   some later release refuses:          "TensorRT >= 10.1 refuses opset 21"
// `verb` replaces "refuses" for what a release does not promise rather than refuses ("does not document").
std::string describe_refusal(const Runtime& rt, const Target& t, const std::function<bool(size_t)>& refuses,
                             std::string_view what, std::string_view verb = "refuses");

// The runtimes of the options' targets that read this format, each with its target (in the order given).
std::vector<std::pair<const Runtime*, const Target*>> targets_for(const RuleOptions& o, std::string_view runtime,
                                                                  Format format);

// docs/targets.md as the table says it (a test compares the page with this).
std::string markdown();

}  // namespace condlint::targets
