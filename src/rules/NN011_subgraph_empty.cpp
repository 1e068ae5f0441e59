// NN011 subgraph-empty: every subgraph has at least one operand and one operation
// (Validation.cpp validateModelSubgraph).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN011 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (const NnSubgraph& sg : d->subgraphs) {
    if (sg.operands.empty()) r.report(sg.loc, sg.label + " has no operands; Android rejects an empty subgraph");
    if (sg.operations.empty())
      r.report(sg.loc, sg.label + " has no operations; Android rejects a subgraph without operations");
  }
}
}  // namespace condlint::rules::NN011

CONDLINT_RULE(NN011, "subgraph-empty", Level::Error, kNNAPI, "A subgraph has no operands or no operations", check)
