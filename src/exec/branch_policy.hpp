// Which branches of a model's Ifs `run`, `lint --exec` and `diff` may reach by pinning the condition, from the
// condition's provenance the loader traced (ConditionalView::provenance). Pinning is sound only where nothing in
// the branch depends on the facts the condition tested: a shape guard pinned the other way feeds its branch shapes
// that cannot reach it, and a branch proven dead never runs. Such a branch is not forced; the report says why.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/model.hpp"

namespace condlint::exec {

class BranchPolicy {
 public:
  BranchPolicy() = default;
  explicit BranchPolicy(const Model& model);
  // Why pinning the If at `if_path` to `branch` is not sound, or "" when it is (or nothing is known).
  std::string why_not_pin(const std::string& if_path, bool branch) const;
  // True when the branch is proven never to run.
  bool dead(const std::string& if_path, bool branch) const;
  // The condition as an expression ("dim 1 of 'x' == 1"), "" when not traced.
  std::string condition(const std::string& if_path) const;
  // What the loader traced of the If's condition, null when nothing.
  const ConditionProvenance* provenance(const std::string& if_path) const;
  bool empty() const { return by_path_.empty(); }

 private:
  std::map<std::string, ConditionProvenance>::const_iterator find(const std::string& if_path) const;
  std::map<std::string, ConditionProvenance> by_path_;  // Model::full_path_of of the If -> provenance
  std::unordered_map<std::string, std::string> calls_;  // function_call_paths: paths through calls of functions
};

}  // namespace condlint::exec
