#include "exec/branch_policy.hpp"

namespace condlint::exec {

BranchPolicy::BranchPolicy(const Model& model) : calls_(function_call_paths(model)) {
  for (const auto& c : model.conditionals) {
    if (!c.provenance.traced || c.graph < 0 || c.node < 0 || c.graph >= static_cast<int>(model.graphs.size()) ||
        c.node >= static_cast<int>(model.graphs[c.graph].nodes.size()))
      continue;
    by_path_[model.full_path_of(c.graph, c.node)] = c.provenance;
  }
}

bool BranchPolicy::dead(const std::string& if_path, bool branch) const {
  auto it = find(if_path);
  return it != by_path_.end() && it->second.decided >= 0 && (it->second.decided == 1) != branch;
}

const ConditionProvenance* BranchPolicy::provenance(const std::string& if_path) const {
  auto it = find(if_path);
  return it == by_path_.end() ? nullptr : &it->second;
}

std::string BranchPolicy::condition(const std::string& if_path) const {
  auto it = find(if_path);
  return it == by_path_.end() ? std::string() : it->second.text;
}

std::string BranchPolicy::why_not_pin(const std::string& if_path, bool branch) const {
  auto it = find(if_path);
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

std::map<std::string, ConditionProvenance>::const_iterator BranchPolicy::find(const std::string& if_path) const {
  auto it = by_path_.find(if_path);
  // An If inside a model-local function, as a call runs it: the body's If, whose provenance holds for every call.
  if (it == by_path_.end() && !calls_.empty()) it = by_path_.find(body_path_through(calls_, if_path));
  return it;
}

}  // namespace condlint::exec
