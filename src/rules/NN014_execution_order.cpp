// NN014 execution-order: operations are listed in an order in which they can run: nothing is read
// before it is written, every temporary and output is written exactly once, and only those are
// written (Validation.cpp validateExecutionOrder; ValidateHal.cpp validateGraph and the HIDL
// "writing to operand with incompatible lifetime" check).
#include <vector>

#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN014 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g) {
    const NnSubgraph& sg = d->subgraphs[g];
    const int gi = static_cast<int>(g);
    const size_t n = sg.operands.size();
    auto written_by_op = [](int32_t lt) { return lt == nn::TEMPORARY_VARIABLE || lt == nn::SUBGRAPH_OUTPUT; };
    std::vector<int> writer(n, -1);  // first operation that writes the operand
    for (size_t k = 0; k < sg.operations.size(); ++k)
      for (uint32_t o : sg.operations[k].outputs)
        if (o < n && writer[o] < 0) writer[o] = static_cast<int>(k);
    std::vector<char> known(n, 0);
    for (size_t i = 0; i < n; ++i) known[i] = !written_by_op(sg.operands[i].lifetime);
    for (size_t k = 0; k < sg.operations.size(); ++k) {
      const NnOperation& op = sg.operations[k];
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        const uint32_t o = op.inputs[j];
        if (o >= n || known[o]) continue;
        std::string why = writer[o] < 0 ? "no operation writes it"
                          : writer[o] == static_cast<int>(k)
                              ? "the operation writes it itself"
                              : "operation " + std::to_string(writer[o]) +
                                    " writes it later; operations must be listed in execution order";
        r.report(nnr::op_input_loc(*d, gi, k, j),
                 nnr::op_name(*d, gi, k) + " input " + std::to_string(j) + " reads " + nnr::operand_label(*d, gi, o) +
                     " (" + nn::lifetime_name(sg.operands[o].lifetime) + ") before it has a value: " + why);
      }
      for (size_t j = 0; j < op.outputs.size(); ++j) {
        const uint32_t o = op.outputs[j];
        if (o >= n) continue;
        if (!written_by_op(sg.operands[o].lifetime)) {
          r.report(nnr::op_output_loc(*d, gi, k, j),
                   nnr::op_name(*d, gi, k) + " output " + std::to_string(j) + " writes " +
                       nnr::operand_label(*d, gi, o) + " of lifetime " + nn::lifetime_name(sg.operands[o].lifetime) +
                       "; only TEMPORARY_VARIABLE and SUBGRAPH_OUTPUT operands can be written");
        } else if (known[o]) {
          r.report(nnr::op_output_loc(*d, gi, k, j), nnr::op_name(*d, gi, k) + " output " + std::to_string(j) +
                                                         " writes " + nnr::operand_label(*d, gi, o) +
                                                         ", which operation " + std::to_string(writer[o]) +
                                                         " already wrote; an operand has one writer");
        }
        known[o] = 1;
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (!known[i])
        r.report(sg.operands[i].loc, nnr::operand_label(*d, gi, static_cast<int64_t>(i)) + " (" +
                                         nn::lifetime_name(sg.operands[i].lifetime) +
                                         ") is never written by any operation of " + sg.label);
  }
}
}  // namespace condlint::rules::NN014

CONDLINT_RULE(NN014, "execution-order", Level::Error, kNNAPI,
              "An operand is read before it is written, written twice, never written, or is not writable", check)
