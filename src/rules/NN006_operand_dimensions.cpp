// NN006 operand-dimensions: scalars have no dimensions; constant tensors are fully specified and
// fit in 32 bits (Validation.cpp validateOperandDimensions).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN006 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t i = 0; i < d->subgraphs[g].operands.size(); ++i) {
      const NnOperand& o = d->subgraphs[g].operands[i];
      const std::string who = nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i));
      if (nn::is_extension(o.type) || o.dims_over_limit) continue;  // past the limit: C013 says it, once
      if (nn::is_scalar(o.type)) {
        if (!o.dimensions.empty())
          r.report(o.dimensions_loc, who + ": " + nn::operand_type_name(o.type) +
                                         " is a scalar type and must have no dimensions, it has " +
                                         std::to_string(o.dimensions.size()));
        continue;
      }
      if (!nn::is_constant(o.lifetime)) continue;
      const std::string what =
          who + ": a constant (" + nn::lifetime_name(o.lifetime) + ") " + nn::operand_type_name(o.type);
      if (o.dimensions.empty()) {
        r.report(o.dimensions_loc, what + " must have fully specified dimensions, but its rank is unknown ([])");
        continue;
      }
      bool zero = false;
      for (size_t k = 0; k < o.dimensions.size(); ++k)
        if (o.dimensions[k] == 0) {
          r.report(
              NnapiData::element(o.dimensions_loc, "/" + std::to_string(k), o.dimension_pos[k]),
              what + " must have fully specified dimensions, but dimension " + std::to_string(k) + " is 0 (unknown)");
          zero = true;
        }
      if (!zero && !nn::byte_size(o))
        r.report(o.dimensions_loc,
                 what + " " + nn::dims_str(o) + " is larger than 4 GiB (its byte size overflows 32 bits)");
    }
}
}  // namespace condlint::rules::NN006

CONDLINT_RULE(NN006, "operand-dimensions", Level::Error, kNNAPI,
              "A scalar has dimensions, or a constant tensor's shape is not fully specified", check)
