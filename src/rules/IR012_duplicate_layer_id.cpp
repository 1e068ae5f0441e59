// IR012 duplicate-layer-id: two layers of one graph share an id, so edges and port maps are ambiguous.
#include <unordered_map>

#include "rules/engine.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& extra : m.ir->graph_extra) {
    std::unordered_map<std::string, const SourceLocation*> seen;
    for (const auto& [id, loc] : extra.layer_ids) {
      if (id.empty()) continue;
      auto [it, fresh] = seen.emplace(id, &loc);
      if (!fresh)
        r.report(loc, "layer id \"" + id + "\" is used a second time in this graph (first at line " +
                          std::to_string(it->second->line) + "); edges and port maps to it are ambiguous");
    }
  }
}
}  // namespace

CONDLINT_RULE(IR012, "duplicate-layer-id", Level::Error, kIR, "Two layers of one graph share an id", check)
