// NN021 if-condition-operand: the IF condition is a TENSOR_BOOL8 of shape exactly [1]
// (Validation.cpp validateConditionOperand) — the cases C002 and C003 cannot see: a scalar BOOL,
// an unknown rank ([]), an unknown dimension ([0]).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN021 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kIf, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.empty()) return;
    const NnOperand* c = nnr::operand(*d, g, op.inputs[0]);
    if (!c) return;
    const std::string who =
        nnr::op_name(*d, g, k) + ": the condition (input 0) is " + nnr::operand_desc(*d, g, op.inputs[0]);
    if (c->type == nn::BOOL) {
      r.report(c->type_loc, who + "; IF needs a TENSOR_BOOL8 of shape [1], not a BOOL scalar");
      return;
    }
    if (c->type != nn::TENSOR_BOOL8) return;  // C002
    if (c->dimensions.empty())
      r.report(c->dimensions_loc, who + "; its rank is unknown, but Android requires exactly [1]");
    else if (c->dimensions.size() == 1 && c->dimensions[0] == 0)
      r.report(c->dimensions_loc, who + "; its size is unknown, but Android requires exactly [1]");
    else
      for (uint32_t dim : c->dimensions)
        if (dim == 0) {
          r.report(c->dimensions_loc, who + "; it has an unknown dimension, but Android requires exactly [1]");
          break;
        }
  });
}
}  // namespace condlint::rules::NN021

CONDLINT_RULE(NN021, "if-condition-operand", Level::Error, kNNAPI,
              "The IF condition is a BOOL scalar or a TENSOR_BOOL8 of unknown rank or size (Android needs [1])", check)
