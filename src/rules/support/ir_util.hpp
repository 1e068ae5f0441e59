// Small lookups the IR rules share.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint {

// Layer id -> node index in one graph (the first layer with that id; unparsable ids left out). A sorted flat
// array: bodies are small and many, so a hash map's per-entry allocations would cost more than the lookups.
class LayerIds {
 public:
  explicit LayerIds(const Graph& g);
  // The node index of the layer with that id, or -1.
  int find(int64_t id) const;
  bool contains(int64_t id) const { return find(id) >= 0; }

 private:
  std::vector<std::pair<int64_t, int>> ids_;  // (id, node index), sorted; one entry per id
};

inline const char* branch_tag(int b, const char* what) {
  static const char* names[2][2] = {{"then_body", "then_port_map"}, {"else_body", "else_port_map"}};
  return names[b][std::string(what) == "body" ? 0 : 1];
}

}  // namespace condlint
