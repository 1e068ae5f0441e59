#include "exec/branch_policy.hpp"

#include <vector>

namespace condlint::exec {

std::vector<std::string> split_if_path(const std::string& p) {
  std::vector<std::string> segs;
  size_t i = 0;
  while (i <= p.size()) {
    size_t s = p.find('/', i);
    if (s == std::string::npos) s = p.size();
    segs.push_back(p.substr(i, s - i));
    i = s + 1;
  }
  return segs;
}

namespace {

// The If's path from the Model's parent chain, never elided (Model::path_of shortens deep paths).
std::string full_path(const Model& m, int graph, int node) {
  std::vector<std::string> segs;
  segs.push_back(m.graphs[graph].nodes[node].display());
  for (int g = graph, guard = 0; g > 0 && guard < static_cast<int>(m.graphs.size()); ++guard) {
    const Graph& gr = m.graphs[g];
    if (gr.parent_graph < 0 || gr.parent_graph >= static_cast<int>(m.graphs.size())) break;
    segs.push_back(gr.role);
    const auto& pn = m.graphs[gr.parent_graph].nodes;
    segs.push_back(gr.parent_node >= 0 && gr.parent_node < static_cast<int>(pn.size()) ? pn[gr.parent_node].display()
                                                                                       : std::string("?"));
    g = gr.parent_graph;
  }
  std::string out = "main";
  for (auto it = segs.rbegin(); it != segs.rend(); ++it) out += "/" + *it;
  return out;
}

}  // namespace

std::string canonical_if_path(const std::string& path) {
  std::vector<std::string> segs = split_if_path(path);
  std::string out;
  for (size_t i = 0; i < segs.size(); ++i) {
    std::string s = segs[i];
    if (i == 0) s = "main";  // ONNX: the graph's name; the executor says main
    else if (s == "then_branch") s = "then";
    else if (s == "else_branch") s = "else";
    for (char& ch : s)
      if (ch == '#') ch = '_';  // unnamed nodes: executor "If#3", model "If_3"
    out += (i ? "/" : "") + s;
  }
  return out;
}

BranchPolicy::BranchPolicy(const Model& model) {
  for (const auto& c : model.conditionals) {
    if (!c.provenance.traced || c.graph < 0 || c.node < 0 || c.graph >= static_cast<int>(model.graphs.size()) ||
        c.node >= static_cast<int>(model.graphs[c.graph].nodes.size()))
      continue;
    by_path_[canonical_if_path(full_path(model, c.graph, c.node))] = c.provenance;
  }
}

bool BranchPolicy::dead(const std::string& if_path, bool branch) const {
  auto it = by_path_.find(canonical_if_path(if_path));
  return it != by_path_.end() && it->second.decided >= 0 && (it->second.decided == 1) != branch;
}

const ConditionProvenance* BranchPolicy::provenance(const std::string& if_path) const {
  auto it = by_path_.find(canonical_if_path(if_path));
  return it == by_path_.end() ? nullptr : &it->second;
}

std::string BranchPolicy::condition(const std::string& if_path) const {
  auto it = by_path_.find(canonical_if_path(if_path));
  return it == by_path_.end() ? std::string() : it->second.text;
}

std::string BranchPolicy::why_not_pin(const std::string& if_path, bool branch) const {
  auto it = by_path_.find(canonical_if_path(if_path));
  if (it == by_path_.end()) return "";
  const ConditionProvenance& p = it->second;
  if (p.decided >= 0) {
    if ((p.decided == 1) == branch) return "";  // the branch every run takes
    return "dead: the condition " + p.text + " is always " + (p.decided == 1 ? "true" : "false") + " (" +
           p.decided_why + ")";
  }
  if (p.on_shapes)
    return "not pinned: the condition " + p.text +
           " tests shapes, so pinning it would feed the branch shapes that cannot reach it; only inputs of other "
           "shapes reach it";
  return "";
}

}  // namespace condlint::exec
