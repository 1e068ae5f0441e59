// BranchCases: which picks of Ifs' branches can run together, judged by what each If's condition is known to be, and
// the failed cases that are not judged again.
#include <gtest/gtest.h>

#include <set>
#include <unordered_map>
#include <vector>

#include "loaders/branch_cases.hpp"

namespace condlint {
namespace {

struct CasePick {
  int conditional;
  int branch;
};

// Conditions by If number, as a follower would give them.
struct CaseConditions {
  std::unordered_map<int, BranchCondition> by_if;
  const BranchCondition& operator()(int c) const {
    static const BranchCondition untraced;
    const auto it = by_if.find(c);
    return it == by_if.end() ? untraced : it->second;
  }
};

std::vector<std::pair<int, int>> case_pairs(const std::vector<CasePick>& picks) {
  std::vector<std::pair<int, int>> out;
  for (const CasePick& p : picks) out.emplace_back(p.conditional, p.branch);
  return out;
}

TEST(BranchCases, KeepsPicksSortedOnceAndRefusesTheOtherBranchOfOneIf) {
  const CaseConditions none;
  std::vector<CasePick> picks;
  EXPECT_TRUE(BranchCases::add(picks, CasePick{3, 1}, none));
  EXPECT_TRUE(BranchCases::add(picks, CasePick{1, 0}, none));
  EXPECT_TRUE(BranchCases::add(picks, CasePick{2, 1}, none));
  EXPECT_TRUE(BranchCases::add(picks, CasePick{1, 0}, none));
  EXPECT_EQ(case_pairs(picks), (std::vector<std::pair<int, int>>{{1, 0}, {2, 1}, {3, 1}}));
  EXPECT_FALSE(BranchCases::add(picks, CasePick{2, 0}, none));
}

TEST(BranchCases, IfsOnOneValueOrOneTextTakeOneBranchTogether) {
  CaseConditions k;
  k.by_if[0].value = ValueRef{0, 4, 0};
  k.by_if[1].value = ValueRef{0, 4, 0};
  k.by_if[2] = BranchCondition::traced("x == 0");
  k.by_if[3] = BranchCondition::traced("x == 0");
  k.by_if[4] = BranchCondition::traced("y");
  std::vector<CasePick> picks{{0, 1}};
  EXPECT_FALSE(BranchCases::add(picks, CasePick{1, 0}, k));
  EXPECT_TRUE(BranchCases::add(picks, CasePick{1, 1}, k));
  picks = {{2, 0}};
  EXPECT_FALSE(BranchCases::add(picks, CasePick{3, 1}, k));
  EXPECT_TRUE(BranchCases::add(picks, CasePick{3, 0}, k));
  // An If on another condition is independent: either branch goes with either.
  EXPECT_TRUE(BranchCases::add(picks, CasePick{4, 1}, k));
  picks = {{2, 1}};
  EXPECT_TRUE(BranchCases::add(picks, CasePick{4, 0}, k));
}

TEST(BranchCases, IfsOnNegatedConditionsTakeOppositeBranches) {
  CaseConditions k;
  k.by_if[0] = BranchCondition::traced("x == 0");
  k.by_if[1] = BranchCondition::traced("x != 0");
  k.by_if[2] = BranchCondition::traced("not (x == 0)");
  k.by_if[3] = BranchCondition::traced("");
  EXPECT_TRUE(k.by_if[3].text.empty());
  // Whichever of the two joins the case first (both spellings of the negation).
  for (int other : {1, 2}) {
    std::vector<CasePick> picks{{other, 0}};
    EXPECT_FALSE(BranchCases::add(picks, CasePick{0, 0}, k)) << other;
    EXPECT_TRUE(BranchCases::add(picks, CasePick{0, 1}, k)) << other;
    picks = {{0, 0}};
    EXPECT_FALSE(BranchCases::add(picks, CasePick{other, 0}, k)) << other;
    picks = {{0, 0}};
    EXPECT_TRUE(BranchCases::add(picks, CasePick{other, 1}, k)) << other;
  }
  // An untraced condition says nothing: independent of every other.
  std::vector<CasePick> picks{{0, 0}};
  EXPECT_TRUE(BranchCases::add(picks, CasePick{3, 0}, k));
  picks = {{0, 0}};
  EXPECT_TRUE(BranchCases::add(picks, CasePick{3, 1}, k));
}

TEST(BranchCases, AddAllNotesEveryIfAndFailsOnOneMisfit) {
  const CaseConditions none;
  std::vector<CasePick> picks{{1, 0}};
  std::set<int> ifs;
  EXPECT_FALSE(BranchCases::add_all(picks, std::vector<CasePick>{{1, 1}, {5, 0}}, none, &ifs));
  EXPECT_EQ(ifs, (std::set<int>{1, 5}));
  picks = {{1, 0}};
  EXPECT_TRUE(BranchCases::add_all(picks, std::vector<CasePick>{{5, 0}, {2, 1}}, none));
  EXPECT_EQ(case_pairs(picks), (std::vector<std::pair<int, int>>{{1, 0}, {2, 1}, {5, 0}}));
}

TEST(BranchCases, ACaseContainingAFailedOneIsNotJudgedAgain) {
  BranchCases cases;
  EXPECT_FALSE(cases.failed_before(std::vector<CasePick>{{0, 1}, {2, 0}}));
  cases.failed(std::vector<CasePick>{{0, 1}, {2, 0}});
  cases.failed(std::vector<CasePick>{});  // no case: nothing filed
  EXPECT_TRUE(cases.failed_before(std::vector<CasePick>{{0, 1}, {2, 0}}));
  EXPECT_TRUE(cases.failed_before(std::vector<CasePick>{{0, 1}, {1, 1}, {2, 0}}));
  EXPECT_FALSE(cases.failed_before(std::vector<CasePick>{{0, 1}, {2, 1}}));
  EXPECT_FALSE(cases.failed_before(std::vector<CasePick>{{0, 1}}));
  EXPECT_FALSE(cases.failed_before(std::vector<CasePick>{{1, 1}, {2, 0}}));
  EXPECT_FALSE(cases.failed_before(std::vector<CasePick>{}));
}

TEST(BranchCases, AnIfPastABudgetIsNotedOnce) {
  BranchCases cases;
  EXPECT_FALSE(cases.limited(7));
  EXPECT_TRUE(cases.limit(7));
  EXPECT_FALSE(cases.limit(7));
  EXPECT_TRUE(cases.limited(7));
  EXPECT_FALSE(cases.limited(8));
}

}  // namespace
}  // namespace condlint
