#include "rules/readability.hpp"

#include <array>
#include <string_view>

#include "rules/engine.hpp"

namespace condlint {
namespace {

// Errors of these rules leave no model to run: the bytes are not the format, break its schema or structure, point
// outside the model, hold tensor data that cannot be what they declare, or declare sizes past condlint's limits. Rules
// about conditionals and types are not here: a model with such an error still runs, and running it is how the executor
// shows what goes wrong.
constexpr std::array<std::string_view, 21> kUnreadable = {
    "C013",                                                                             // past a limit: not built
    "IR001",   "IR002",   "IR013",   "IR015",   "IR017",   "IR018", "IR019",            // OpenVINO IR
    "ONNX001", "ONNX002", "ONNX014", "ONNX015", "ONNX018",                              // ONNX
    "NN001",   "NN002",   "NN003",   "NN009",   "NN010",   "NN013", "NN016", "NN019"};  // NNAPI

}  // namespace

std::string unreadable_reason(const Model& model) {
  RuleSelection sel;
  sel.enable.assign(kUnreadable.begin(), kUnreadable.end());
  for (const Finding& f : run_rules(model, sel)) {
    if (f.level != Level::Error) continue;
    std::string where = f.loc.line > 0           ? "line " + std::to_string(f.loc.line)
                        : !f.loc.pointer.empty() ? f.loc.pointer
                                                 : f.loc.node;
    return f.rule + ": " + f.message + (where.empty() ? "" : " (at " + where + ")");
  }
  return {};
}

}  // namespace condlint
