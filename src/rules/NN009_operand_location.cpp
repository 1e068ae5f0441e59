// NN009 operand-location: where an operand's value lives must exist, per lifetime
// (Validation.cpp validateOperandDataLocation).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN009 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t i = 0; i < d->subgraphs[g].operands.size(); ++i) {
      const NnOperand& o = d->subgraphs[g].operands[i];
      if (o.value_failed) continue;  // NN004
      const std::string who = nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i)) + " (" +
                              nn::lifetime_name(o.lifetime) + ")";
      const std::string loc = "location {poolIndex " + std::to_string(o.pool_index) + ", offset " +
                              std::to_string(o.offset) + ", length " + std::to_string(o.length) + "}";
      const uint64_t end = uint64_t(o.offset) + o.length;
      switch (o.lifetime) {
        case nn::CONSTANT_COPY:
          if (o.pool_index != 0) r.report(o.location_loc, who + ": " + loc + ": poolIndex must be 0 for CONSTANT_COPY");
          else if (d->operand_values_loaded && end > d->operand_values.size())
            r.report(o.location_loc, who + ": " + loc + " ends at byte " + std::to_string(end) +
                                         ", past the end of operandValues (" +
                                         std::to_string(d->operand_values.size()) + " bytes)");
          break;
        case nn::CONSTANT_REFERENCE:
          if (o.pool_index >= d->pools.size())
            r.report(o.location_loc,
                     who + ": " + loc + ": there are only " + std::to_string(d->pools.size()) + " pools");
          else if (d->pools[o.pool_index].loaded && end > d->pools[o.pool_index].bytes.size())
            r.report(o.location_loc, who + ": " + loc + " ends at byte " + std::to_string(end) +
                                         ", past the end of pool " + std::to_string(o.pool_index) + " (" +
                                         std::to_string(d->pools[o.pool_index].bytes.size()) + " bytes)");
          break;
        case nn::SUBGRAPH_LT:
          if (o.pool_index != 0 || o.length != 0)
            r.report(o.location_loc, who + ": " + loc + ": a SUBGRAPH operand needs poolIndex 0 and length 0");
          if (o.offset >= d->referenced_count())
            r.report(o.location_loc, who + ": offset " + std::to_string(o.offset) +
                                         " names no referenced subgraph (there are " +
                                         std::to_string(d->referenced_count()) + ")");
          break;
        default:
          if (o.pool_index || o.offset || o.length)
            r.report(o.location_loc,
                     who + ": " + loc + ": this lifetime has no stored value, so the location must be all zero");
      }
    }
}
}  // namespace condlint::rules::NN009

CONDLINT_RULE(NN009, "operand-location", Level::Error, kNNAPI,
              "An operand's location points outside operandValues / the pools, or is set where it must be zero", check)
