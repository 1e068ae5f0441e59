// IR012 duplicate-layer-id: two layers of one graph share an id, so edges and port maps are ambiguous.
#include "model/name_table.hpp"

#include "rules/engine.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& g : m.graphs) {
    NameTable seen(g.nodes.size());
    for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
      const Node& n = g.nodes[i];
      const std::string& id = n.id;
      if (id.empty()) continue;
      const auto [first, fresh] = seen.emplace(id, i);
      if (!fresh)
        r.report(n.loc, "layer id \"" + id + "\" is used a second time in this graph (first at line " +
                          std::to_string(g.nodes[first].loc.line) + "); edges and port maps to it are ambiguous");
    }
  }
}
}  // namespace

CONDLINT_RULE(IR012, "duplicate-layer-id", Level::Error, kIR, "Two layers of one graph share an id", check)
