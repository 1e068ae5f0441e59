// ONNX003 if-node-form: an If node lacks a branch, has a non-graph or unknown attribute, or has other than one input.
// The loader records the input count and attributes of each If whose form is not If's (OnnxData::if_forms).
#include <algorithm>

#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX003 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  for (const auto& f : m.onnx->if_forms) {
    const std::string node = condlint::onnx_node_label(m, f.graph, f.node);
    if (f.input_count != 1)
      r.report(f.loc, node + " has " + std::to_string(f.input_count) + " inputs; If takes exactly one, the condition");
    bool seen[2] = {false, false};
    for (const auto& a : f.attributes) {
      const int b = a.name == "then_branch" ? 0 : a.name == "else_branch" ? 1 : -1;
      if (b < 0) {
        r.report(f.loc, node + " has an unknown attribute '" + a.name + "'; If has only then_branch and else_branch");
        continue;
      }
      if (!a.has_graph || a.type != "GRAPH")
        r.report(f.loc, node + " attribute " + a.name +
                            (a.has_graph ? " holds a graph but is typed " + a.type : std::string(" is not a graph")));
      if (!a.has_graph) continue;  // not a branch: a later graph attribute of that name is the branch
      if (seen[b]) r.report(f.loc, node + " has a second " + a.name + " attribute");
      seen[b] = true;
    }
    for (int b = 0; b < 2; ++b) {
      const char* name = b == 0 ? "then_branch" : "else_branch";
      const bool named = std::any_of(f.attributes.begin(), f.attributes.end(),
                                     [&](const condlint::OnnxIfForm::Attribute& a) { return a.name == name; });
      if (!seen[b] && !named) r.report(f.loc, node + " has no " + name + " attribute");
    }
  }
}
}  // namespace condlint::rules::ONNX003

CONDLINT_RULE(ONNX003, "if-node-form", Level::Error, kONNX,
              "An If node lacks a branch, has a non-graph or unknown attribute, or has other than one input", check)
