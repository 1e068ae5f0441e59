// IR014 input-unconnected: a layer input port receives no value.
#include "rules/engine.hpp"

namespace condlint::rules::IR014 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& g : m.graphs)
    for (const Node& n : g.nodes)
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (!n.sources[i].valid())
          r.report(n.inputs[i].loc(n), "input " + std::to_string(i) + " (port " + n.inputs[i].id + ") of " + n.op +
                                           " '" + n.display() + "' has no incoming edge");
}
}  // namespace condlint::rules::IR014

CONDLINT_RULE(IR014, "input-unconnected", Level::Error, kIR, "A layer input port has no incoming edge", check)
