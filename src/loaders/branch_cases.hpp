// The cases of branches both C014 followers (branch_follow for IR and NNAPI, onnx_branch_consumers for ONNX) keep. A
// case is a list of picks (an If, the branch it takes), sorted by If. It can happen only when Ifs whose conditions
// are one value or read the same take the same branch, and Ifs whose conditions read as each other's negation take
// opposite ones; any other two Ifs are taken as independent. A case that breaks a node is filed under its first If,
// and a later case that contains it is not judged again (one root cause, one finding). Each follower says what its
// Ifs' conditions are (BranchCondition) and keeps its own picks, which carry at least `conditional` and `branch`.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint {

// What a follower knows of an If's condition: the value it reads (invalid: not known) and its traced text with both
// spellings of its negation ("": not traced).
struct BranchCondition {
  ValueRef value;
  std::string text, negated[2];

  // The condition of `text` with its negations (negated_condition's two spellings); "" gives an untraced condition.
  static BranchCondition traced(const std::string& text);
};

// Whether an If with condition a taking branch branch_a and one with condition b taking branch_b can run together.
bool branches_compatible(const BranchCondition& a, int branch_a, const BranchCondition& b, int branch_b);

class BranchCases {
 public:
  // Adds p to picks (kept sorted by conditional); false when no input selects both: another branch of the same If,
  // or of an If with the same or the negated condition. condition_of(c) gives If c's BranchCondition.
  template <class Pick, class ConditionOf>
  static bool add(std::vector<Pick>& picks, const Pick& p, ConditionOf&& condition_of) {
    for (const Pick& q : picks) {
      if (q.conditional == p.conditional) {
        if (q.branch != p.branch) return false;
        continue;
      }
      if (!branches_compatible(condition_of(p.conditional), p.branch, condition_of(q.conditional), q.branch))
        return false;
    }
    auto at = std::lower_bound(picks.begin(), picks.end(), p.conditional,
                               [](const Pick& x, int c) { return x.conditional < c; });
    if (at == picks.end() || at->conditional != p.conditional) picks.insert(at, p);
    return true;
  }

  // Adds each of `more` to picks as add does; false when one does not fit. Every one's If is noted in *ifs, those
  // after one that does not fit too (the Ifs that meet at a node, whose budgets it counts against).
  template <class Pick, class ConditionOf>
  static bool add_all(std::vector<Pick>& picks, const std::vector<Pick>& more, ConditionOf&& condition_of,
                      std::set<int>* ifs = nullptr) {
    bool fits = true;
    for (const Pick& p : more) {
      if (ifs) ifs->insert(p.conditional);
      fits = fits && add(picks, p, condition_of);
    }
    return fits;
  }

  // Files the case of these picks as one that broke a node.
  template <class Pick>
  void failed(const std::vector<Pick>& picks) {
    std::vector<std::pair<int, int>> f;
    f.reserve(picks.size());
    for (const Pick& p : picks) f.emplace_back(p.conditional, p.branch);
    file(std::move(f));
  }

  // Whether a case that these picks contain broke a node already.
  template <class Pick>
  bool failed_before(const std::vector<Pick>& picks) const {
    // A failed case is filed under its first If: only those filed under one of these picks' Ifs can be among them.
    for (const Pick& first : picks) {
      const auto filed = failed_.find(first.conditional);
      if (filed == failed_.end()) continue;
      for (const auto& f : filed->second) {
        bool all = true;
        for (const auto& [c, b] : f) {
          bool found = false;
          for (const Pick& p : picks) found = found || (p.conditional == c && p.branch == b);
          all = all && found;
        }
        if (all) return true;
      }
    }
    return false;
  }

  // Marks If c as past a budget; true the first time only (its note is written once).
  bool limit(int c) { return limited_.insert(c).second; }
  bool limited(int c) const { return limited_.count(c) != 0; }

 private:
  void file(std::vector<std::pair<int, int>> f);

  std::unordered_map<int, std::vector<std::vector<std::pair<int, int>>>> failed_;  // (If, branch) sets by first If
  std::set<int> limited_;
};

}  // namespace condlint
