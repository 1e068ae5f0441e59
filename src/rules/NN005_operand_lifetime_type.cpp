// NN005 operand-lifetime-type: type SUBGRAPH if and only if lifetime SUBGRAPH (Validation.cpp
// validateOperandLifeTime).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN005 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t i = 0; i < d->subgraphs[g].operands.size(); ++i) {
      const NnOperand& o = d->subgraphs[g].operands[i];
      const bool t = o.type == nn::SUBGRAPH, l = o.lifetime == nn::SUBGRAPH_LT;
      if (t == l) continue;
      const std::string who = nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i));
      if (t)
        r.report(o.lifetime_loc,
                 who + ": type SUBGRAPH needs lifetime SUBGRAPH, but the lifetime is " + nn::lifetime_name(o.lifetime));
      else
        r.report(o.type_loc,
                 who + ": lifetime SUBGRAPH needs type SUBGRAPH, but the type is " + nn::operand_type_name(o.type));
    }
}
}  // namespace condlint::rules::NN005

CONDLINT_RULE(NN005, "operand-lifetime-type", Level::Error, kNNAPI,
              "An operand has type SUBGRAPH without lifetime SUBGRAPH, or the other way round", check)
