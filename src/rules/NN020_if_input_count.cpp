// NN020 if-input-count: an IF has exactly 3 + (branch input count) inputs, for both branches
// (Validation.cpp validateIfOperation). The output count is C005's.
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN020 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kIf, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.size() < 3) return;  // NN018
    for (int b = 0; b < 2; ++b) {
      const int bg = nnr::subgraph_ref(*d, g, op.inputs[1 + b]);
      if (bg < 0) continue;
      const size_t want = d->subgraphs[bg].input_indexes.size();
      const size_t have = op.inputs.size() - 3;
      if (want == have) continue;
      r.report(nnr::op_loc(*d, g, k), nnr::op_name(*d, g, k) + " passes " + std::to_string(have) +
                                          " value(s) (inputs 3 … " + std::to_string(op.inputs.size() - 1) +
                                          ") but the " + (b ? "else" : "then") + " graph " + d->subgraphs[bg].label +
                                          " has " + std::to_string(want) + " inputs; the IF needs exactly 3 + " +
                                          std::to_string(want) + " inputs");
    }
  });
}
}  // namespace condlint::rules::NN020

CONDLINT_RULE(NN020, "if-input-count", Level::Error, kNNAPI,
              "An IF's input count is not 3 plus the number of inputs of its then / else graph", check)
