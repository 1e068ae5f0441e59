// NN019 graph-reference-invalid: IF inputs 1 and 2 and WHILE inputs 0 and 1 are SUBGRAPH operands
// (Validation.cpp validateSubgraphReference). A SUBGRAPH operand whose offset is out of range is
// NN009's.
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN019 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (int32_t type : {nn::kIf, nn::kWhile}) {
    const bool is_if = type == nn::kIf;
    nnr::for_each_op(*d, type, [&](int g, size_t k, const NnOperation& op) {
      for (int b = 0; b < 2; ++b) {
        const size_t slot = is_if ? 1 + b : b;
        if (slot >= op.inputs.size()) continue;
        const NnOperand* o = nnr::operand(*d, g, op.inputs[slot]);
        if (!o || o->type == nn::SUBGRAPH) continue;
        static const char* roles[2][2] = {{"condition graph", "body graph"}, {"then graph", "else graph"}};
        r.report(nnr::op_input_loc(*d, g, k, slot),
                 nnr::op_name(*d, g, k) + " input " + std::to_string(slot) + " must be the " + roles[is_if][b] +
                     " (a SUBGRAPH operand), but it is " + nnr::operand_desc(*d, g, op.inputs[slot]));
      }
    });
  }
}
}  // namespace condlint::rules::NN019

CONDLINT_RULE(NN019, "graph-reference-invalid", Level::Error, kNNAPI,
              "An IF branch or WHILE condition/body input is not a SUBGRAPH operand", check)
