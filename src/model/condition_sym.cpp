#include "model/condition_sym.hpp"

#include <algorithm>
#include <cmath>

#include "model/condition_trace.hpp"

namespace condlint {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

bool is_comparison(std::string_view op) {
  return op == "==" || op == "!=" || op == ">" || op == ">=" || op == "<" || op == "<=";
}

}  // namespace

CondSym cond_known(const std::vector<double>& values, size_t rank) {
  CondSym s;
  s.length_known = true;
  s.flat = rank <= 1 || values.size() <= 1;
  for (double d : values) s.v.push_back(d);
  if (values.size() == 1) {
    s.text = condition_number(values[0]);
  } else {
    s.text = "[";
    for (size_t i = 0; i < values.size(); ++i) s.text += (i ? "," : "") + condition_number(values[i]);
    s.text += "]";
  }
  return s;
}

CondSym cond_shape_of(const std::string& x, const Shape& shape, int64_t start, int64_t end) {
  CondSym s;
  s.text = "shape(" + quoted(x) + ")";
  s.is_shape_of = true;
  s.shape_of = x;
  if (!shape.rank_known) return s;
  const auto rank = static_cast<int64_t>(shape.dims.size());
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  if (end - start > kCondMaxElements) return s;
  if (start != 0 || end != rank) s.is_shape_of = false;  // a slice: Gather indices no longer name dims
  s.length_known = true;
  for (int64_t i = start; i < end; ++i) {
    const Dim& d = shape.dims[static_cast<size_t>(i)];
    s.v.push_back(d.is_static() ? std::optional<double>(static_cast<double>(d.lo)) : std::nullopt);
  }
  return s;
}

CondSym cond_rank_of(const std::string& x, const Shape& shape, CondFacts& facts) {
  CondSym s;
  facts.tested.insert(x);
  s.text = "rank(" + quoted(x) + ")";
  s.length_known = true;
  if (shape.rank_known) {
    s.v.push_back(static_cast<double>(shape.dims.size()));
    facts.facts.insert(quoted(x) + " has rank " + std::to_string(shape.dims.size()));
  } else {
    s.v.push_back(std::nullopt);
  }
  return s;
}

CondSym cond_gather(const CondSym& data, const CondSym& idx, CondFacts& facts) {
  CondSym s;
  // (An index beyond any rank is not converted: a double past int64's range would not convert.)
  if (!idx.length_known || idx.v.size() != 1 || !idx.v[0] || std::fabs(*idx.v[0]) > 1e15) {
    s.text = data.text + "[?]";
    return s;
  }
  int64_t k = static_cast<int64_t>(*idx.v[0]);
  s.length_known = true;
  if (data.is_shape_of) s.text = "dim " + std::to_string(k) + " of " + quoted(data.shape_of);
  else s.text = data.text + "[" + std::to_string(k) + "]";
  if (!data.length_known || !data.flat) {
    s.v.push_back(std::nullopt);
    return s;
  }
  const auto len = static_cast<int64_t>(data.v.size());
  if (k < 0) k += len;
  if (k < 0 || k >= len) {
    s.v.push_back(std::nullopt);
    return s;
  }
  const auto& e = data.v[static_cast<size_t>(k)];
  s.v.push_back(e);
  if (data.is_shape_of && e)
    facts.facts.insert("dim " + std::to_string(k) + " of " + quoted(data.shape_of) + " is " + condition_number(*e));
  return s;
}

CondSym cond_binary(std::string_view op, const CondSym& a, const CondSym& b, CondFacts& facts) {
  for (const CondSym* side : {&a, &b})
    if (side->scalar_known() && std::isfinite(*side->v[0]) && facts.constants.size() < kCondMaxElements)
      facts.constants.insert(*side->v[0]);
  CondSym s;
  s.text = a.text + " " + std::string(op) + " " + b.text;
  s.comparison = is_comparison(op);
  s.flat = a.flat && b.flat;
  if (!a.length_known || !b.length_known) return s;
  const size_t na = a.v.size(), nb = b.v.size();
  if (na != nb && na != 1 && nb != 1) return s;
  if (na == 0 || nb == 0) return s;
  const size_t len = std::max(na, nb);
  s.length_known = true;
  for (size_t i = 0; i < len; ++i) {
    const auto& x = a.v[na == 1 ? 0 : i];
    const auto& y = b.v[nb == 1 ? 0 : i];
    if (!x || !y) {
      // Logic with one side known can still decide: false and _ = false, true or _ = true.
      if (op == "and" && ((x && *x == 0) || (y && *y == 0))) s.v.push_back(0.0);
      else if (op == "or" && ((x && *x != 0) || (y && *y != 0))) s.v.push_back(1.0);
      else s.v.push_back(std::nullopt);
      continue;
    }
    std::optional<double> r;
    if (op == "==") r = *x == *y;
    else if (op == "!=") r = *x != *y;
    else if (op == ">") r = *x > *y;
    else if (op == "<") r = *x < *y;
    else if (op == ">=") r = *x >= *y;
    else if (op == "<=") r = *x <= *y;
    else if (op == "and") r = (*x != 0) && (*y != 0);
    else if (op == "or") r = (*x != 0) || (*y != 0);
    else if (op == "xor") r = (*x != 0) != (*y != 0);
    else if (op == "+") r = *x + *y;
    else if (op == "-") r = *x - *y;
    else if (op == "*") r = *x * *y;
    s.v.push_back(r);
  }
  return s;
}

CondSym cond_not(CondSym s) {
  for (auto& e : s.v)
    if (e) e = *e != 0 ? 0.0 : 1.0;
  s.text = negated_condition(s.text, s.comparison);
  s.is_shape_of = false;
  return s;
}

CondSym cond_to_bool(CondSym s) {
  for (auto& e : s.v)
    if (e) e = *e != 0 ? 1.0 : 0.0;
  if (!s.comparison) s.text += " != 0";
  s.comparison = true;
  s.is_shape_of = false;
  return s;
}

CondSym cond_passed(CondSym s) {
  s.is_shape_of = false;
  return s;
}

CondSym cond_reshaped(CondSym s) {
  s.is_shape_of = false;
  s.flat = s.length_known && s.v.size() <= 1;
  return s;
}

void cond_conclude(const CondSym& s, const CondFacts& facts, ConditionProvenance& p) {
  p.traced = true;
  p.text = s.text;
  p.tested.assign(facts.tested.begin(), facts.tested.end());
  p.constants.assign(facts.constants.begin(), facts.constants.end());
  if (s.scalar_known()) {
    p.decided = *s.v[0] != 0 ? 1 : 0;
    std::string why;
    for (const auto& f : facts.facts) why += (why.empty() ? "" : ", ") + f;
    p.decided_why = why.empty() ? "it is computed from constants only" : why;
  }
}

}  // namespace condlint
