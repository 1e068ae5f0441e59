// Small lookups the IR rules share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint {

// Layer id -> node index in graph g (the first layer with that id; unparsable ids left out). The loader's
// table when the graph has one (IrGraphExtra::index_of_id), else a sorted flat array: bodies are small and
// many, so a hash map's per-entry allocations would cost more than the lookups.
class LayerIds {
 public:
  LayerIds(const Model& m, int g);
  // The node index of the layer with that id, or -1.
  int find(int64_t id) const;
  bool contains(int64_t id) const { return find(id) >= 0; }

 private:
  const IrGraphExtra* table_ = nullptr;       // the loader's table, when there is one
  std::vector<std::pair<int64_t, int>> ids_;  // else (id, node index), sorted; one entry per id
};

// Calls report(layer, if, branch) for each layer of type `op` in an If body whose id no entry of that body's
// port map for which takes(entry) holds names (IR010: unbound Parameters; IR011: unmapped Results).
template <class Takes, class Report>
void for_unmapped_layers(const Model& m, std::string_view op, Takes takes, Report report) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      if (f.body_graph[b] < 0) continue;
      std::vector<int64_t> named;  // sorted below: a body has few entries, and a set allocates each
      for (const auto& e : f.port_map[b])
        if (takes(e)) named.push_back(e.internal_layer_id);
      std::sort(named.begin(), named.end());
      for (const Node& n : m.graphs[f.body_graph[b]].nodes) {
        if (n.op != op) continue;
        int64_t id = 0;
        if (!parse_int64(n.id, id) || std::binary_search(named.begin(), named.end(), id)) continue;
        report(n, f, b);
      }
    }
  }
}

inline const char* branch_tag(int b, const char* what) {
  static const char* names[2][2] = {{"then_body", "then_port_map"}, {"else_body", "else_port_map"}};
  return names[b][std::string(what) == "body" ? 0 : 1];
}

}  // namespace condlint
