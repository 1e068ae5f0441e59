// Small lookups the IR rules share.
#pragma once

#include <cstdint>
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
  const IrGraphExtra* table_ = nullptr;         // the loader's table, when there is one
  std::vector<std::pair<int64_t, int>> ids_;  // else (id, node index), sorted; one entry per id
};

inline const char* branch_tag(int b, const char* what) {
  static const char* names[2][2] = {{"then_body", "then_port_map"}, {"else_body", "else_port_map"}};
  return names[b][std::string(what) == "body" ? 0 : 1];
}

}  // namespace condlint
