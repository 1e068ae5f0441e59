// NN017 subgraph-unreferenced: every referenced subgraph is reachable from main through SUBGRAPH
// operands (the HAL documents it; no validator enforces it).
#include <deque>
#include <vector>

#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN017 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  const size_t n = d->subgraphs.size();
  std::vector<char> reached(n, 0), named(n, 0);
  for (size_t g = 0; g < n; ++g)
    for (const NnOperand& o : d->subgraphs[g].operands)
      if (o.lifetime == nn::SUBGRAPH_LT && o.offset < d->referenced_count() && o.offset + 1 != g)
        named[o.offset + 1] = 1;
  std::deque<size_t> q{0};
  reached[0] = 1;
  while (!q.empty()) {
    const size_t g = q.front();
    q.pop_front();
    for (const NnOperand& o : d->subgraphs[g].operands)
      if (o.lifetime == nn::SUBGRAPH_LT && o.offset < d->referenced_count() && !reached[o.offset + 1]) {
        reached[o.offset + 1] = 1;
        q.push_back(o.offset + 1);
      }
  }
  for (size_t g = 1; g < n; ++g) {
    if (reached[g]) continue;
    const NnSubgraph& sg = d->subgraphs[g];
    r.report(sg.loc, sg.label + (sg.name.empty() ? "" : " '" + sg.name + "'") +
                         (named[g] ? " is referenced only from subgraphs that main never reaches"
                                   : " is not referenced by any SUBGRAPH operand") +
                         "; it is dead weight (or an IF/WHILE names the wrong offset)");
  }
}
}  // namespace condlint::rules::NN017

CONDLINT_RULE(NN017, "subgraph-unreferenced", Level::Warning, kNNAPI,
              "A referenced subgraph cannot be reached from main through SUBGRAPH operands", check)
