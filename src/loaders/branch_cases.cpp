// The cases of branches both C014 followers keep (see the header).
#include "loaders/branch_cases.hpp"

#include "model/condition_trace.hpp"

namespace condlint {

BranchCondition BranchCondition::traced(const std::string& text) {
  BranchCondition k;
  if (text.empty()) return k;
  k.text = text;
  k.negated[0] = negated_condition(text, true);
  k.negated[1] = negated_condition(text, false);
  return k;
}

bool branches_compatible(const BranchCondition& a, int branch_a, const BranchCondition& b, int branch_b) {
  const bool same = (a.value.valid() && a.value.graph == b.value.graph && a.value.node == b.value.node &&
                     a.value.output == b.value.output) ||
                    (!a.text.empty() && a.text == b.text);
  // Either may be the other's negation as its traced text spells it ("x != 0" of "x == 0", "not (x == 0)"): both
  // directions are compared, so the order in which the Ifs join a case does not matter.
  const bool negated =
      !a.text.empty() && !b.text.empty() &&
      (b.text == a.negated[0] || b.text == a.negated[1] || a.text == b.negated[0] || a.text == b.negated[1]);
  if (same && branch_a != branch_b) return false;
  if (negated && branch_a == branch_b) return false;
  return true;
}

void BranchCases::file(std::vector<std::pair<int, int>> f) {
  if (f.empty()) return;  // a case of no picks is no case of branches
  const int first = f.front().first;
  failed_[first].push_back(std::move(f));
}

}  // namespace condlint
