// The values the condition tracer (model/condition_trace) carries, and the rules by which it combines them: every
// format's adapter reads its own ops into the tracer's steps, and the tracer hands the values it knows to these
// functions, so that Gather on a shape, comparisons, logic and small arithmetic are decided the same way in all
// three. Sound: an element is known only when it follows from constants and declared shapes; anything else is
// unknown, and so is every result that depends on it (except logic that one known side decides).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace condlint {

// Constants and shapes longer than this are not traced element by element.
constexpr int kCondMaxElements = 16;

// A traced value: its elements where known (a shape's dims, a constant's values), and how to say it.
struct CondSym {
  bool length_known = false;
  std::vector<std::optional<double>> v;
  std::string text;
  bool is_shape_of = false;  // the value is shape(x) itself: Gather on it reads "dim k of 'x'"
  std::string shape_of;      // x
  bool comparison = false;   // text is "a OP b" (a negation turns == into !=)
  // Rank 0 or 1 (or a single element): element k of `v` is what Gather on axis 0 with index k reads. A constant of
  // higher rank is kept flattened for comparisons, but Gather on it reads a row, not an element.
  bool flat = true;
  bool scalar_known() const { return length_known && v.size() == 1 && v[0].has_value(); }
};

// What a trace has learnt besides the value: the values whose shape or value the condition reads, the facts a
// decision rests on ("dim 1 of 'x' is 128") and the scalars the condition compares with (where a search for inputs
// that select the other branch starts).
struct CondFacts {
  std::set<std::string> tested;
  std::set<std::string> facts;
  std::set<double> constants;
};

// A known constant of the given rank (kUnknownRank when not stated); its text is the number, or "[a,b]" for several.
inline constexpr size_t kUnknownRank = static_cast<size_t>(-1);
CondSym cond_known(const std::vector<double>& values, size_t rank = 1);
// shape(x) where x's shape is `shape` (unknown rank: length unknown), sliced to [start, end) as ONNX Shape allows.
CondSym cond_shape_of(const std::string& x, const Shape& shape, int64_t start, int64_t end);
// rank(x) where x's shape is `shape`.
CondSym cond_rank_of(const std::string& x, const Shape& shape, CondFacts& facts);
// data[idx] along axis 0 (a negative index counts from the end).
CondSym cond_gather(const CondSym& data, const CondSym& idx, CondFacts& facts);
// a OP b, elementwise with broadcasting of a one-element side; OP is one of == != > >= < <= and or xor + - *.
CondSym cond_binary(std::string_view op, const CondSym& a, const CondSym& b, CondFacts& facts);
// not s.
CondSym cond_not(CondSym s);
// s converted to boolean (s != 0).
CondSym cond_to_bool(CondSym s);
// A value passed on with its shape but no longer shape(x) itself (a Cast or Convert to a number type).
CondSym cond_passed(CondSym s);
// A value given another shape (Squeeze, Unsqueeze, Reshape, Flatten): the same elements, of a rank not traced.
CondSym cond_reshaped(CondSym s);

// Fills p (text, tested values, constants, and the decision where the value is known) from the traced value of the
// whole condition.
void cond_conclude(const CondSym& s, const CondFacts& facts, ConditionProvenance& p);

}  // namespace condlint
