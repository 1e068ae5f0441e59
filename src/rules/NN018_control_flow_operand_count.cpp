// NN018 control-flow-operand-count: IF has at least 3 inputs; WHILE at least 3 inputs and 1 output
// (Validation.cpp validateIfOperation / validateWhileOperation). An IF without outputs is C005.
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN018 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kIf, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.size() < 3)
      r.report(nnr::op_loc(*d, g, k),
               nnr::op_name(*d, g, k) + " has " + std::to_string(op.inputs.size()) +
                   " inputs; IF needs at least 3: the condition, the then graph and the else graph");
  });
  nnr::for_each_op(*d, nn::kWhile, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.size() < 3)
      r.report(nnr::op_loc(*d, g, k),
               nnr::op_name(*d, g, k) + " has " + std::to_string(op.inputs.size()) +
                   " inputs; WHILE needs at least 3: the condition graph, the body graph and one loop value");
    if (op.outputs.empty())
      r.report(nnr::op_loc(*d, g, k), nnr::op_name(*d, g, k) + " has no outputs; WHILE needs at least one");
  });
}
}  // namespace condlint::rules::NN018

CONDLINT_RULE(NN018, "control-flow-operand-count", Level::Error, kNNAPI,
              "An IF has fewer than 3 inputs, or a WHILE fewer than 3 inputs or no output", check)
