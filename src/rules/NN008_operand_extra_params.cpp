// NN008 operand-extra-params: channelQuant exactly on TENSOR_QUANT8_SYMM_PER_CHANNEL and well
// formed there; extension parameters only on extension types (validateOperandExtraParams).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN008 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t i = 0; i < d->subgraphs[g].operands.size(); ++i) {
      const NnOperand& o = d->subgraphs[g].operands[i];
      const std::string who = nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i)) + " (" +
                              nn::operand_type_name(o.type) + ")";
      using E = NnOperand::Extra;
      if (nn::is_extension(o.type)) {
        if (o.extra == E::ChannelQuant) r.report(o.extra_loc, who + ": an extension type cannot carry channelQuant");
        continue;
      }
      if (o.type != nn::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        if (o.extra != E::None) r.report(o.extra_loc, who + ": this type takes no extraParams");
        continue;
      }
      if (o.extra != E::ChannelQuant) {
        r.report(o.extra_loc, who + ": needs extraParams.channelQuant (one scale per channel)");
        continue;
      }
      if (o.channel_dim >= o.dimensions.size()) {
        r.report(o.extra_loc, who + ": channelQuant.channelDim " + std::to_string(o.channel_dim) +
                                  " is not below the rank " + std::to_string(o.dimensions.size()));
        continue;
      }
      const uint32_t n = o.dimensions[o.channel_dim];
      if (n == 0)
        r.report(o.extra_loc, who + ": dimension " + std::to_string(o.channel_dim) +
                                  " (the channel dimension) must be known, it is 0");
      else if (o.channel_scales.size() != n)
        r.report(o.extra_loc, who + ": channelQuant has " + std::to_string(o.channel_scales.size()) + " scales for " +
                                  std::to_string(n) + " channels");
      for (size_t k = 0; k < o.channel_scales.size(); ++k)
        if (!(o.channel_scales[k] > 0)) {
          r.report(o.extra_loc, who + ": channelQuant scale " + std::to_string(k) + " must be greater than 0, it is " +
                                    std::to_string(o.channel_scales[k]));
          break;
        }
    }
}
}  // namespace condlint::rules::NN008

CONDLINT_RULE(NN008, "operand-extra-params", Level::Error, kNNAPI,
              "extraParams are missing, malformed, or given to a type that takes none", check)
