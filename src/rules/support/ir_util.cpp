#include "rules/support/ir_util.hpp"

namespace condlint {

std::unordered_map<int64_t, int> layers_by_id(const Graph& g) {
  std::unordered_map<int64_t, int> ids;
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
    int64_t v = 0;
    if (parse_int64(g.nodes[i].id, v)) ids.emplace(v, i);
  }
  return ids;
}

}  // namespace condlint
