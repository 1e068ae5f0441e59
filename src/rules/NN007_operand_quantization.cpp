// NN007 operand-quantization: scale and zeroPoint as each operand type requires
// (Validation.cpp validateOperandScale / validateOperandZeroPoint).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN007 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t i = 0; i < d->subgraphs[g].operands.size(); ++i) {
      const NnOperand& o = d->subgraphs[g].operands[i];
      const std::string who = nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i)) + " (" +
                              nn::operand_type_name(o.type) + ")";
      enum { Zero, NonNeg, Pos } scale = Zero;
      int64_t zlo = 0, zhi = 0;
      switch (o.type) {
        case nn::TENSOR_INT32: scale = NonNeg; break;
        case nn::TENSOR_QUANT8_ASYMM:
          scale = Pos;
          zhi = 255;
          break;
        case nn::TENSOR_QUANT8_ASYMM_SIGNED:
          scale = Pos;
          zlo = -128;
          zhi = 127;
          break;
        case nn::TENSOR_QUANT16_ASYMM:
          scale = Pos;
          zhi = 65535;
          break;
        case nn::TENSOR_QUANT8_SYMM:
        case nn::TENSOR_QUANT16_SYMM: scale = Pos; break;
        default: break;
      }
      const std::string s = std::to_string(o.scale);
      if (scale == Zero && o.scale != 0) r.report(o.scale_loc, who + ": scale must be 0 for this type, it is " + s);
      else if (scale == NonNeg && !(o.scale >= 0))
        r.report(o.scale_loc, who + ": scale must not be negative, it is " + s);
      else if (scale == Pos && !(o.scale > 0))
        r.report(o.scale_loc, who + ": scale must be greater than 0, it is " + s);
      if (o.zero_point < zlo || o.zero_point > zhi)
        r.report(o.zero_point_loc,
                 who + ": zeroPoint must be " +
                     (zlo == zhi ? std::to_string(zlo) : "in " + std::to_string(zlo) + " … " + std::to_string(zhi)) +
                     ", it is " + std::to_string(o.zero_point));
    }
}
}  // namespace condlint::rules::NN007

CONDLINT_RULE(NN007, "operand-quantization", Level::Error, kNNAPI,
              "An operand's scale or zeroPoint is not allowed for its type", check)
