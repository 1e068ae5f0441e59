// IR013 edge-invalid: an edge names a missing layer or port, or feeds an input that already has a source.
#include "rules/engine.hpp"

namespace condlint::rules::IR013 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& extra : m.ir->graph_extra) {
    for (const auto& e : extra.edges) {
      std::string what;
      switch (e.status) {
        case IrEdge::Status::Ok:
        case IrEdge::Status::Unparsed: continue;  // IR003 reports unparsable attributes
        case IrEdge::Status::MissingFromLayer: what = "from-layer=\"" + e.from_layer + "\" names no layer"; break;
        case IrEdge::Status::MissingToLayer: what = "to-layer=\"" + e.to_layer + "\" names no layer"; break;
        case IrEdge::Status::MissingFromPort:
          what = "layer " + e.from_layer + " has no output port " + e.from_port;
          break;
        case IrEdge::Status::MissingToPort: what = "layer " + e.to_layer + " has no input port " + e.to_port; break;
        case IrEdge::Status::DuplicateTarget:
          what = "input port " + e.to_port + " of layer " + e.to_layer + " already has an incoming edge";
          break;
      }
      r.report(e.loc, "edge " + e.from_layer + ":" + e.from_port + " -> " + e.to_layer + ":" + e.to_port + ": " + what);
    }
  }
}
}  // namespace condlint::rules::IR013

CONDLINT_RULE(IR013, "edge-invalid", Level::Error, kIR,
              "An edge names a missing layer or port, or two edges feed one input port", check)
