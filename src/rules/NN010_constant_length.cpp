// NN010 constant-length: a constant's location.length equals its byte size.
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN010 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t i = 0; i < d->subgraphs[g].operands.size(); ++i) {
      const NnOperand& o = d->subgraphs[g].operands[i];
      if (!nn::is_constant(o.lifetime) || o.value_failed || nn::is_extension(o.type) || o.type == nn::SUBGRAPH ||
          nn::has_unknown_size(o))
        continue;
      if (nn::is_scalar(o.type) && !o.dimensions.empty()) continue;  // NN006
      const auto size = nn::byte_size(o);
      if (!size || *size == o.length) continue;
      r.report(o.location_loc, nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i)) + ": " +
                                   nn::describe_operand(o) + " is " + std::to_string(*size) +
                                   " bytes, but location.length is " + std::to_string(o.length));
    }
}
}  // namespace condlint::rules::NN010

CONDLINT_RULE(NN010, "constant-length", Level::Error, kNNAPI,
              "A constant's location.length differs from the byte size of its type and shape", check)
