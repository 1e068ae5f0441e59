// NN025 while-condition-output: the WHILE condition graph's output is a TENSOR_BOOL8 of shape
// exactly [1] (Validation.cpp validateConditionOperand on the condition model's output).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN025 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kWhile, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.empty()) return;
    const int cg = nnr::subgraph_ref(*d, g, op.inputs[0]);
    if (cg < 0 || d->subgraphs[cg].output_indexes.empty()) return;
    const uint32_t idx = d->subgraphs[cg].output_indexes[0];
    const NnOperand* o = nnr::operand(*d, cg, idx);
    if (!o) return;
    if (o->type == nn::TENSOR_BOOL8 && o->dimensions.size() == 1 && o->dimensions[0] == 1) return;
    r.report(o->loc, nnr::op_name(*d, g, k) + ": the condition graph's output is " + nnr::operand_desc(*d, cg, idx) +
                         "; it must be a TENSOR_BOOL8 of shape [1]");
  });
}
}  // namespace condlint::rules::NN025

CONDLINT_RULE(NN025, "while-condition-output", Level::Error, kNNAPI,
              "A WHILE condition graph's output is not a TENSOR_BOOL8 of shape [1]", check)
