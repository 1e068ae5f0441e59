#include "rules/support/condition_shape.hpp"

namespace condlint {

ConditionShape classify_condition_shape(Format f, const ValueDesc& cond) {
  ConditionShape v;
  if (cond.scalar_or_dynamic_rank) return v;  // IR port without <dim>: written for scalars
  const Shape& s = cond.shape;
  if (!s.rank_known) {
    v.kind = ConditionShape::Unknown;
    return v;
  }
  const size_t rank = s.dims.size();
  // A static dimension other than 1 rules out a single element, whatever the others are.
  for (const Dim& d : s.dims) {
    if (!d.intersects(Dim::fixed(1))) {
      v.kind = ConditionShape::Wrong;
      v.why = d.is_static() && d.lo == 0
                  ? "it holds no element at all; it must hold exactly one"
                  : "a dimension of " + d.str() + " means more than one element; it must hold exactly one";
      return v;
    }
  }
  if (f == Format::IR && rank > 1) {
    v.kind = ConditionShape::Wrong;
    v.why = "OpenVINO's If accepts a scalar or a 1-D tensor of one element, not rank " + std::to_string(rank);
    return v;
  }
  if (f == Format::NNAPI && rank != 1) {
    v.kind = rank == 0 ? ConditionShape::Unknown : ConditionShape::Wrong;
    v.why = "NNAPI's IF needs a TENSOR_BOOL8 of shape [1]";
    return v;
  }
  if (!s.is_static()) v.kind = ConditionShape::Unknown;
  return v;
}

}  // namespace condlint
