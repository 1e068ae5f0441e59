// OpenVINO IR: the nodes after an If judged once per branch (loaders/branch_follow) by OpenVINO's shape rules of
// its ops (loaders/ir_shape_rules).
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "loaders/branch_follow.hpp"
#include "loaders/ir_shape_rules.hpp"

namespace condlint {

void follow_ir_branches(Model& m) {
  if (!m.ir || m.conditionals.empty()) return;
  BranchFollowRules r;
  r.judged_by = "OpenVINO's";
  auto consts = std::make_shared<IrConstInts>(m);
  r.infer = [&m, consts](int g, int n, const std::vector<Shape>& in) { return ir_shape_rule(m, *consts, g, n, in); };
  r.unproduced = [](int, int, int) { return Shape::unknown(); };
  r.union_of = merge_branches_openvino;
  r.stated = [&m](int g, int n, int k) -> std::optional<Shape> {
    const Node& node = m.node(g, n);
    if (node.op != "Parameter" && node.op != "Const") return std::nullopt;
    const Port& p = node.outputs[static_cast<size_t>(k)];
    if (p.attrs_no_dims) return std::nullopt;  // no <dim>: a scalar or a dynamic rank
    return p.shape();
  };
  r.branch_source = [&m](const ConditionalView& c, int b, int j) -> std::pair<ValueRef, Shape> {
    for (const OutputBinding& ob : c.branch[b].outputs) {
      if (ob.output_index != j) continue;
      const int g = c.branch[b].graph, res = ob.value.loc.node_index;
      if (g < 0 || res < 0 || static_cast<size_t>(res) >= m.graphs[static_cast<size_t>(g)].nodes.size()) break;
      const Node& node = m.node(g, res);
      if (node.op != "Result" || node.sources.empty()) break;
      return {node.sources[0], Shape::unknown()};
    }
    return {ValueRef{}, Shape::unknown()};
  };
  r.elem = [&m](int g, int n, int k, bool input) { return ir_elem_of(m, g, n, k, input); };
  // A condition's data sources: the main graph's Parameters. A Parameter of an If's branch is what the If binds to it
  // (one input of the If); one of another body (a Loop's: it changes per iteration), and a ReadValue (the state an
  // Assign left), are not traced (either may be any source).
  auto if_of_graph = std::make_shared<std::unordered_map<int, int>>();  // branch graph -> its conditional
  for (size_t c = 0; c < m.conditionals.size(); ++c)
    for (const BranchView& b : m.conditionals[c].branch)
      if (b.graph >= 0) if_of_graph->emplace(b.graph, static_cast<int>(c));
  r.read_node = [&m, if_of_graph](int g, int n) {
    const Node& node = m.node(g, n);
    if (node.op == "Const") return ReadLeaf::constant();
    if (node.op == "Parameter") {
      if (m.graphs[static_cast<size_t>(g)].parent_graph < 0) return ReadLeaf::source("'" + node.display() + "'");
      const auto c = if_of_graph->find(g);
      if (c == if_of_graph->end()) return ReadLeaf::unknown();
      const ConditionalView& v = m.conditionals[static_cast<size_t>(c->second)];
      int outer = -1, bindings = 0;
      for (const BranchView& b : v.branch)
        if (b.graph == g)
          for (const InputBinding& ib : b.inputs)
            if (ib.inner.loc.graph == g && ib.inner.loc.node_index == n) {
              outer = ib.outer_index;
              ++bindings;
            }
      return bindings == 1 ? ReadLeaf::bound(v.graph, v.node, outer) : ReadLeaf::unknown();
    }
    if (node.op == "ReadValue") return ReadLeaf::unknown();
    return ReadLeaf::through();
  };
  r.read_input = [](int, int, int) { return ReadLeaf::unknown(); };  // an unconnected port
  follow_branches(m, r, m.ir->branch_follow);
}

}  // namespace condlint
