#include "rules/support/ir_util.hpp"

#include <algorithm>

namespace condlint {

LayerIds::LayerIds(const Model& m, int graph) {
  if (m.ir && graph < static_cast<int>(m.ir->graph_extra.size()) && !m.ir->graph_extra[graph].index_of_id.empty()) {
    table_ = &m.ir->graph_extra[graph];
    return;
  }
  const Graph& g = m.graphs[graph];
  ids_.reserve(g.nodes.size());
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
    int64_t v = 0;
    if (parse_int64(g.nodes[i].id, v)) ids_.emplace_back(v, i);
  }
  // Sorted by id, then by index: the first entry of each id is the first layer in the file.
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
             ids_.end());
}

int LayerIds::find(int64_t id) const {
  if (table_) return table_->layer_with_id(id);
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id, [](const auto& e, int64_t v) { return e.first < v; });
  return it != ids_.end() && it->first == id ? it->second : -1;
}

}  // namespace condlint
