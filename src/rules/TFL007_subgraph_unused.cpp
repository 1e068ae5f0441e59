// TFL007 subgraph-unused: a subgraph that no IF, WHILE or CALL_ONCE the main subgraph reaches runs, and that no
// signature names as an entry point. The interpreter loads and never runs it: dead weight, or an operator that names
// the wrong index.
#include <deque>
#include <vector>

#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL007 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  // Where an operator names a subgraph it cannot run (TFL002) or runs itself (TFL003), the subgraph it was written to
  // name is the one left unreached: that finding says it.
  if (!d || !tflr::references_sound(*d)) return;
  const size_t n = d->subgraphs.size();
  std::vector<char> reached(n, 0);
  std::deque<size_t> q;
  auto reach = [&](int64_t g) {
    if (g < 0 || static_cast<size_t>(g) >= n || reached[static_cast<size_t>(g)]) return;
    reached[static_cast<size_t>(g)] = 1;
    q.push_back(static_cast<size_t>(g));
  };
  reach(0);
  for (const auto& [key, g] : d->signatures) reach(g);
  while (!q.empty()) {
    const size_t g = q.front();
    q.pop_front();
    for (const TflOperator& op : d->subgraphs[g].ops)
      for (const auto& ref : op.refs) reach(ref.second);
  }
  for (size_t g = 1; g < n; ++g)
    if (!reached[g])
      r.report(tflr::subgraph_loc(*d, g), d->subgraph_label(g) +
                                              " is run by no IF, WHILE or CALL_ONCE reached from the main subgraph and "
                                              "named by no signature: the interpreter never runs it");
}
}  // namespace condlint::rules::TFL007

CONDLINT_RULE(TFL007, "subgraph-unused", Level::Note, kTFLITE,
              "A subgraph that nothing reached from the main subgraph or a signature runs", check)
