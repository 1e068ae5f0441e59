// Naming the If branches a failed run went through (branch_blame.hpp).
#include "exec/branch_blame.hpp"

#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace condlint::exec {

namespace {

constexpr size_t kMaxSteps = 100000;  // node inputs walked back from one failing node

uint64_t key(int g, int n) { return uint64_t(uint32_t(g)) << 32 | uint32_t(n); }

// The path of the node a failure names ("at main/proj (MatMul): ..." -> main/proj; NNAPI: "at main/ADD#1: ..."),
// and where the node's part of the message ends (after "(MatMul)"); npos when the message names no node.
std::pair<std::string, size_t> failing_node(const std::string& msg) {
  if (msg.rfind("at ", 0) != 0) return {"", std::string::npos};
  const size_t colon = msg.find(": ", 3), op = msg.find(" (", 3);
  if (colon == std::string::npos) return {"", std::string::npos};
  if (op == std::string::npos || op > colon) return {msg.substr(3, colon - 3), colon};
  const size_t close = msg.find("):", op);
  if (close == std::string::npos) return {"", std::string::npos};
  return {msg.substr(3, op - 3), close + 1};
}

}  // namespace

void name_branches_of_failures(const Model& m, ModelResult& r) {
  std::unordered_map<std::string, std::pair<int, int>> by_path;  // built when a failure first needs it
  std::unordered_map<uint64_t, int> ifs;                         // (graph, node) -> conditional
  for (size_t c = 0; c < m.conditionals.size(); ++c)
    ifs[key(m.conditionals[c].graph, m.conditionals[c].node)] = static_cast<int>(c);
  if (ifs.empty()) return;
  for (CaseResult& cr : r.cases) {
    if (cr.status != CaseStatus::Failed) continue;
    const auto [path, end] = failing_node(cr.message);
    if (path.empty()) continue;
    if (by_path.empty())
      for (size_t g = 0; g < m.graphs.size(); ++g)
        for (size_t n = 0; n < m.graphs[g].nodes.size(); ++n)
          by_path.emplace(m.full_path_of(static_cast<int>(g), static_cast<int>(n)),
                          std::make_pair(static_cast<int>(g), static_cast<int>(n)));
    const auto at = by_path.find(path);
    if (at == by_path.end()) continue;
    // Back through the inputs to the nearest If on each path.
    std::vector<int> found;
    std::unordered_set<uint64_t> seen{key(at->second.first, at->second.second)};
    std::deque<std::pair<int, int>> todo{at->second};
    size_t steps = 0;
    while (!todo.empty() && steps < kMaxSteps) {
      const auto [g, n] = todo.front();
      todo.pop_front();
      for (const ValueRef& src : m.node(g, n).sources) {
        ++steps;
        if (!src.valid() || !seen.insert(key(src.graph, src.node)).second) continue;
        if (auto c = ifs.find(key(src.graph, src.node)); c != ifs.end()) {
          found.push_back(c->second);
          continue;
        }
        todo.emplace_back(src.graph, src.node);
      }
    }
    std::string under;
    for (int c : found) {
      const ConditionalView& v = m.conditionals[static_cast<size_t>(c)];
      const std::string if_path = m.full_path_of(v.graph, v.node);
      const auto ran = cr.if_branches.find(if_path);
      if (ran == cr.if_branches.end() || ran->second.size() != 1) continue;
      under += std::string(under.empty() ? ", under the " : " and the ") + (ran->second[0] ? "then" : "else") +
               " branch of If '" + if_path + "'";
    }
    if (!under.empty()) cr.message.insert(end, under);
  }
}

}  // namespace condlint::exec
