// Shared by the rules that stay silent in code that never runs (C011, C012): one root cause, one finding.
#pragma once

#include <vector>

#include "model/model.hpp"

namespace condlint {

// The graphs of a model that never run: each branch C012 proves dead (a conditional whose condition is decided, with
// two different branch graphs) and every graph nested in one. NNAPI subgraphs are never counted dead: one may be the
// branch of several IFs, and dead for one of them is not dead for all.
class DeadCode {
 public:
  explicit DeadCode(const Model& m);
  // Whether graph `g` never runs (false for an index the model does not have).
  bool contains(int g) const {
    return g >= 0 && static_cast<size_t>(g) < dead_.size() && dead_[static_cast<size_t>(g)];
  }

 private:
  std::vector<bool> dead_;
};

}  // namespace condlint
