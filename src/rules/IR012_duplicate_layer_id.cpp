// IR012 duplicate-layer-id: two layers of one graph share an id, so edges and port maps are ambiguous.
#include <unordered_map>

#include "rules/engine.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& g : m.graphs) {
    std::unordered_map<std::string_view, const SourceLocation*> seen;
    seen.reserve(g.nodes.size());
    for (const Node& n : g.nodes) {
      const std::string& id = n.id;
      if (id.empty()) continue;
      auto [it, fresh] = seen.emplace(id, &n.loc);
      if (!fresh)
        r.report(n.loc, "layer id \"" + id + "\" is used a second time in this graph (first at line " +
                          std::to_string(it->second->line) + "); edges and port maps to it are ambiguous");
    }
  }
}
}  // namespace

CONDLINT_RULE(IR012, "duplicate-layer-id", Level::Error, kIR, "Two layers of one graph share an id", check)
