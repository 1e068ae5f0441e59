// Sequence and optional kernels.
#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

const std::vector<Value>& seq_of(OpCtx& c, size_t k) {
  const Value& v = c.val(k);
  if (v.kind != Value::Kind::Sequence || !v.seq)
    fail("input " + std::to_string(k) + " is a " + v.describe() + ", not a sequence");
  return *v.seq;
}

int64_t position(OpCtx& c, size_t k, int64_t size, bool insert) {
  int64_t p = c.t(k).geti(0);
  const int64_t hi = insert ? size : size - 1;
  if (p < -size || p > hi)
    fail("sequence position " + std::to_string(p) + " out of range for length " + std::to_string(size));
  return p < 0 ? p + size : p;
}

void k_seq_empty(OpCtx& c) { c.set(0, Value::sequence({})); }
void k_seq_construct(OpCtx& c) {
  std::vector<Value> xs;
  for (size_t k = 0; k < c.n_in(); ++k) xs.push_back(Value::tensor(c.val(k).t));
  c.set(0, Value::sequence(std::move(xs)));
}
void k_seq_insert(OpCtx& c) {
  std::vector<Value> xs = seq_of(c, 0);
  const int64_t p = c.has(2) ? position(c, 2, static_cast<int64_t>(xs.size()), true) : static_cast<int64_t>(xs.size());
  xs.insert(xs.begin() + p, c.val(1));
  c.set(0, Value::sequence(std::move(xs)));
}
void k_seq_at(OpCtx& c) {
  const auto& xs = seq_of(c, 0);
  c.set(0, xs[position(c, 1, static_cast<int64_t>(xs.size()), false)]);
}
void k_seq_erase(OpCtx& c) {
  std::vector<Value> xs = seq_of(c, 0);
  const int64_t p =
      c.has(1) ? position(c, 1, static_cast<int64_t>(xs.size()), false) : static_cast<int64_t>(xs.size()) - 1;
  if (p < 0) fail("SequenceErase on an empty sequence");
  xs.erase(xs.begin() + p);
  c.set(0, Value::sequence(std::move(xs)));
}
void k_seq_length(OpCtx& c) { c.set(0, i64_tensor({static_cast<int64_t>(seq_of(c, 0).size())}, {})); }

void k_split_to_seq(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  const bool keep = c.attr_i("keepdims", 1) != 0;
  const int64_t d = x.shape[axis];
  std::vector<int64_t> split;
  bool scalar_split = false;
  if (c.has(1)) {
    const Tensor& s = c.t(1);
    if (s.rank() == 0) {
      const int64_t each = s.geti(0);
      if (each <= 0) fail("SplitToSequence split must be positive");
      for (int64_t o = 0; o < d; o += each) split.push_back(std::min(each, d - o));
    } else split = to_i64s(s);
  } else {
    scalar_split = true;
    split.assign(d, 1);
  }
  std::vector<Value> out;
  int64_t off = 0;
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  for (int64_t s : split) {
    if (off + s > d) fail("SplitToSequence sizes exceed the axis");
    Dims od = x.shape;
    od[axis] = s;
    Tensor r(x.dt, od);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < s * inner; ++j) copy_elem(x, (o * d + off) * inner + j, r, o * s * inner + j);
    if (scalar_split && !keep) od.erase(od.begin() + axis), r.shape = od;
    out.push_back(Value::tensor(std::move(r)));
    off += s;
  }
  c.set(0, Value::sequence(std::move(out)));
}

void k_concat_from_seq(OpCtx& c) {
  const auto& xs = seq_of(c, 0);
  if (xs.empty()) fail("ConcatFromSequence of an empty sequence");
  const bool new_axis = c.attr_i("new_axis", 0) != 0;
  std::vector<TensorP> ts;
  for (const auto& v : xs) {
    if (!v.is_tensor()) fail("sequence element is not a tensor");
    ts.push_back(v.t);
  }
  const int64_t r = static_cast<int64_t>(ts[0]->rank()) + (new_axis ? 1 : 0);
  const int64_t axis = norm_axis(c.attr_i("axis", 0), r);
  if (new_axis) {
    c.set(0, stack(ts, axis, ts[0]->dt, ts[0]->shape));
    return;
  }
  std::vector<const Tensor*> ps;
  for (auto& t : ts) ps.push_back(t.get());
  c.set(0, concat(ps, axis));
}

void k_optional(OpCtx& c) {
  if (c.has(0)) c.set(0, Value::optional(std::make_shared<const Value>(c.val(0))));
  else c.set(0, Value::optional(nullptr));
}
void k_optional_has(OpCtx& c) {
  Tensor r(DT::Bool, {});
  if (c.has(0)) {
    const Value& v = c.val(0);
    r.i[0] = v.kind == Value::Kind::Optional ? v.opt != nullptr : 1;
  }
  c.set(0, std::move(r));
}
void k_optional_get(OpCtx& c) {
  const Value& v = c.val(0);
  if (v.kind == Value::Kind::Optional) {
    if (!v.opt) fail("OptionalGetElement on an empty optional");
    c.set(0, *v.opt);
  } else c.set(0, v);
}

}  // namespace

void register_sequence_ops(KernelTable& t) {
  t["SequenceEmpty"] = k_seq_empty;
  t["SequenceConstruct"] = k_seq_construct;
  t["SequenceInsert"] = k_seq_insert;
  t["SequenceAt"] = k_seq_at;
  t["SequenceErase"] = k_seq_erase;
  t["SequenceLength"] = k_seq_length;
  t["SplitToSequence"] = k_split_to_seq;
  t["ConcatFromSequence"] = k_concat_from_seq;
  t["Optional"] = k_optional;
  t["OptionalHasElement"] = k_optional_has;
  t["OptionalGetElement"] = k_optional_get;
}

}  // namespace condlint::exec
