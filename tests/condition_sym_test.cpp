// The rules by which every format's condition tracer combines what it knows (model/condition_sym).
#include <gtest/gtest.h>

#include "model/condition_sym.hpp"

using namespace condlint;

// Gather on axis 0 reads one element of a 1-D value; of a constant of higher rank it reads a row, which the tracer
// does not know: the result is unknown, never the flattened element.
TEST(ConditionSym, GatherReadsAnElementOnlyOfAOneDimensionalValue) {
  CondFacts facts;
  const CondSym idx = cond_known({1});
  const CondSym vec = cond_known({10, 20, 30, 40}, 1);
  const CondSym g1 = cond_gather(vec, idx, facts);
  ASSERT_TRUE(g1.scalar_known());
  EXPECT_EQ(*g1.v[0], 20);
  const CondSym mat = cond_known({10, 20, 30, 40}, 2);  // [[10,20],[30,40]]: element 1 along axis 0 is a row
  EXPECT_FALSE(cond_gather(mat, idx, facts).scalar_known());
  EXPECT_FALSE(cond_gather(cond_known({10, 20}, kUnknownRank), idx, facts).scalar_known());
  // A reshaped value of several elements has a rank the tracer does not follow; of one element it stays readable.
  EXPECT_FALSE(cond_gather(cond_reshaped(vec), idx, facts).scalar_known());
  EXPECT_TRUE(cond_gather(cond_reshaped(cond_known({7}, 2)), cond_known({0}), facts).scalar_known());
  // Comparisons of a matrix still compare element by element (their results stay flattened, not gatherable).
  const CondSym eq = cond_binary("==", mat, cond_known({20}), facts);
  ASSERT_TRUE(eq.length_known);
  EXPECT_EQ(*eq.v[1], 1.0);
  EXPECT_FALSE(eq.flat);
}

// Logic decides with one side known only where that side decides; a comparison with an unknown side is unknown.
// (A one-element value whose element is unknown, as a dim the declared types leave open.)
TEST(ConditionSym, LogicWithOneKnownSide) {
  CondFacts facts;
  CondSym unknown;
  unknown.length_known = true;
  unknown.v = {std::nullopt};
  EXPECT_EQ(*cond_binary("and", cond_known({0}), unknown, facts).v.at(0), 0.0);
  EXPECT_EQ(*cond_binary("or", unknown, cond_known({1}), facts).v.at(0), 1.0);
  EXPECT_FALSE(cond_binary("and", cond_known({1}), unknown, facts).scalar_known());
  EXPECT_FALSE(cond_binary("==", cond_known({1}), unknown, facts).scalar_known());
}
