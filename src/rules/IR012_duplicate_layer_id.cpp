// IR012 duplicate-layer-id: two layers of one graph share an id, so edges and port maps are ambiguous.
#include "model/name_table.hpp"

#include "rules/engine.hpp"

namespace condlint::rules::IR012 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (size_t gi = 0; gi < m.graphs.size(); ++gi) {
    const Graph& g = m.graphs[gi];
    auto repeat = [&](int i, int first) {
      r.report(g.nodes[i].loc,
               "layer id \"" + g.nodes[i].id + "\" is used a second time in this graph (first at line " +
                   std::to_string(g.nodes[first].loc.line) + "); edges and port maps to it are ambiguous");
    };
    if (gi < m.ir->graph_extra.size() && !m.ir->graph_extra[gi].index_of_id.empty()) {
      // The loader's id table holds the first layer of each id: every other layer with that id is a repeat.
      const IrGraphExtra& x = m.ir->graph_extra[gi];
      for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
        int64_t v = 0;
        if (!parse_int64(g.nodes[i].id, v)) continue;
        const int first = x.layer_with_id(v);
        if (first >= 0 && first != i) repeat(i, first);
      }
      continue;
    }
    NameTable seen(g.nodes.size());
    for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
      if (g.nodes[i].id.empty()) continue;
      const auto [first, fresh] = seen.emplace(g.nodes[i].id, i);
      if (!fresh) repeat(i, first);
    }
  }
}
}  // namespace condlint::rules::IR012

CONDLINT_RULE(IR012, "duplicate-layer-id", Level::Error, kIR, "Two layers of one graph share an id", check)
