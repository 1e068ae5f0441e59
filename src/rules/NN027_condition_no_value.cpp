// NN027 condition-no-value: the IF condition has lifetime NO_VALUE. Validation accepts it; the
// execution fails (CpuExecutor cannot read the condition).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN027 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kIf, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.empty()) return;
    const NnOperand* c = nnr::operand(*d, g, op.inputs[0]);
    if (!c || c->lifetime != nn::NO_VALUE) return;
    r.report(c->lifetime_loc, nnr::op_name(*d, g, k) + ": the condition " + nnr::operand_label(*d, g, op.inputs[0]) +
                                  " has lifetime NO_VALUE; Android accepts the model but every execution fails "
                                  "(the IF cannot read its condition)");
  });
}
}  // namespace condlint::rules::NN027

CONDLINT_RULE(NN027, "condition-no-value", Level::Warning, kNNAPI,
              "The IF condition has lifetime NO_VALUE: the model validates but every execution fails", check)
