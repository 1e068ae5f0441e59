// The order in which a graph's nodes can run: Kahn's algorithm over the node sources within the graph, the
// lowest ready index first (file order where the edges allow it), iterative. Nodes on or behind a cycle are
// left out, so a result shorter than the graph means a cycle. Shared by IR015, the IR executor and the IR export.
#pragma once

#include <vector>

#include "model/model.hpp"

namespace condlint {

// self_loop_blocks: a node that reads its own output never becomes ready (IR015 reports it as a cycle of one);
// otherwise such an input is ignored here and the caller sees it unconnected when it runs the node.
std::vector<int> topological_order(const Model& m, int g, bool self_loop_blocks);

}  // namespace condlint
