// NN016 subgraph-reference-cycle: following SUBGRAPH operands never leads back to a graph on the
// way (Validation.cpp checkNoReferenceCycles, started from every referenced graph as Android 13
// does). Iterative depth-first walk; each cycle is reported once, at the operand that closes it.
#include <vector>

#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN016 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  const size_t n = d->subgraphs.size();
  std::vector<char> state(n, 0);  // 0 new, 1 on the current path, 2 proven acyclic
  struct Frame {
    int g;
    size_t next;  // next operand to look at
  };
  for (size_t start = 1; start < n; ++start) {
    if (state[start]) continue;
    std::vector<Frame> stack{{static_cast<int>(start), 0}};
    state[start] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& ops = d->subgraphs[f.g].operands;
      if (f.next >= ops.size()) {
        state[f.g] = 2;
        stack.pop_back();
        continue;
      }
      const size_t i = f.next++;
      const NnOperand& o = ops[i];
      if (o.lifetime != nn::SUBGRAPH_LT || o.offset >= d->referenced_count()) continue;  // NN009 reports bad offsets
      const int t = static_cast<int>(o.offset) + 1;
      if (state[t] == 2) continue;
      if (state[t] == 1) {
        std::string path;
        bool on = false;
        for (const Frame& s : stack) {
          on |= s.g == t;
          if (on) path += d->subgraphs[s.g].label + " → ";
        }
        path += d->subgraphs[t].label;
        r.report(o.location_loc, nnr::operand_label(*d, f.g, static_cast<int64_t>(i)) + " refers to " +
                                     d->subgraphs[t].label + ", which closes a circular subgraph reference: " + path);
        continue;
      }
      state[t] = 1;
      stack.push_back({t, 0});
    }
  }
}
}  // namespace condlint::rules::NN016

CONDLINT_RULE(NN016, "subgraph-reference-cycle", Level::Error, kNNAPI,
              "SUBGRAPH operands form a cycle of referenced subgraphs (a graph reaching itself)", check)
