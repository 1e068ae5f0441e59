// The rules by which the condition tracer combines what it knows (model/condition_sym), and the tracer itself
// (model/condition_trace).
#include <gtest/gtest.h>

#include "model/condition_sym.hpp"
#include "model/condition_trace.hpp"

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

// A toy format for the tracer core: value k (k < length) is `not` of value k + 1, and value `length` is the constant
// true, read once per handle asked for.
struct NotChainAdapter {
  using Handle = int;
  static constexpr bool kMemo = true;
  int length = 0;
  int reads = 0;
  CondStep<int> read(const int& k, CondTracer<NotChainAdapter>& t, int depth) {
    ++reads;
    CondStep<int> s;
    s.name = "v" + std::to_string(k);
    if (t.spent(depth)) return s;
    if (k == length) {
      s.kind = CondStep<int>::Kind::Known;
      s.values = {1};
      return s;
    }
    // v0 is `v1 and v1` (a value read twice: the memo reads it once); the rest negate the next one.
    s.kind = k == 0 ? CondStep<int>::Kind::Binary : CondStep<int>::Kind::Not;
    s.op = "and";
    s.in = {k + 1};
    if (k == 0) s.in.push_back(k + 1);
    return s;
  }
};

ConditionProvenance trace_not_chain(int length, int* reads) {
  ConditionProvenance p;
  NotChainAdapter a;
  a.length = length;
  CondTracer<NotChainAdapter> t(a, p);
  t.conclude(t.eval(0, 0));
  *reads = a.reads;
  return p;
}

// The tracer decides through as many levels as its bound allows, reads a value used twice once, and past its depth
// leaves the value to the inputs (opaque), never a guess.
TEST(ConditionTracer, DecidesWithinItsBoundAndLeavesDeeperValuesOpen) {
  int reads = 0;
  const ConditionProvenance shallow = trace_not_chain(5, &reads);  // v1 = not not not not true
  EXPECT_EQ(shallow.decided, 1);
  EXPECT_FALSE(shallow.on_values);
  EXPECT_EQ(reads, 6);  // v0..v5, v1 once
  const ConditionProvenance odd = trace_not_chain(4, &reads);
  EXPECT_EQ(odd.decided, 0);
  const ConditionProvenance deep = trace_not_chain(CondTracer<NotChainAdapter>::kMaxDepth + 5, &reads);
  EXPECT_EQ(deep.decided, -1);
  EXPECT_TRUE(deep.on_values);
}
