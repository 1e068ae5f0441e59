// NN013 operand-index-out-of-range: every operation input and output names an operand of its
// subgraph (Validation.cpp validateOperandListImpl).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN013 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g) {
    const NnSubgraph& sg = d->subgraphs[g];
    const int gi = static_cast<int>(g);
    for (size_t k = 0; k < sg.operations.size(); ++k) {
      const NnOperation& op = sg.operations[k];
      for (int dir = 0; dir < 2; ++dir) {
        const auto& list = dir == 0 ? op.inputs : op.outputs;
        for (size_t j = 0; j < list.size(); ++j)
          if (list[j] >= sg.operands.size())
            r.report(dir == 0 ? nnr::op_input_loc(*d, gi, k, j) : nnr::op_output_loc(*d, gi, k, j),
                     nnr::op_name(*d, gi, k) + (dir == 0 ? " input " : " output ") + std::to_string(j) +
                         " is operand " + std::to_string(list[j]) + ", but " + sg.label + " has only " +
                         std::to_string(sg.operands.size()) + " operands");
      }
    }
  }
}
}  // namespace condlint::rules::NN013

CONDLINT_RULE(NN013, "operand-index-out-of-range", Level::Error, kNNAPI,
              "An operation input or output names an operand its subgraph does not have", check)
