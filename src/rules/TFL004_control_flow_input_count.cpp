// TFL004 control-flow-input-count: the values an IF or WHILE passes do not match the subgraphs it runs. An IF passes
// its inputs 1 … n-1 (input 0 is the condition) to the then and the else subgraph, which must each take exactly that
// many; a WHILE passes all its inputs to its cond and its body subgraph and gives as many outputs. (An IF's outputs
// against its branches' outputs are C005's.)
#include <set>
#include <utility>

#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL004 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  // A reference that closes a recursion is TFL003's: its counts follow from naming the wrong subgraph.
  std::set<std::pair<size_t, size_t>> recursive;
  for (const tflr::Recursion& rec : tflr::recursions(*d)) recursive.emplace(rec.g, rec.k);
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t k = 0; k < d->subgraphs[g].ops.size(); ++k) {
      const TflOperator& op = d->subgraphs[g].ops[k];
      if ((op.op != tfl::kIf && op.op != tfl::kWhile) || !op.has_refs || recursive.count({g, k})) continue;
      const bool is_if = op.op == tfl::kIf;
      if (is_if && op.inputs.empty()) {
        r.report(tflr::op_loc(*d, g, k), tflr::op_label(*d, g, k) + " has no inputs: input 0 must be its condition");
        continue;
      }
      const size_t passed = is_if ? op.inputs.size() - 1 : op.inputs.size();
      // One finding per operator: the subgraphs that take another count, each with its count.
      std::string which;
      for (const auto& [role, index] : op.refs) {
        if (!tflr::runnable_subgraph(*d, index)) continue;  // TFL002
        const size_t want = d->subgraphs[static_cast<size_t>(index)].inputs.size();
        if (want == passed) continue;
        which += std::string(which.empty() ? "" : " and ") + "its " + role + " " +
                 d->subgraph_label(static_cast<size_t>(index)) + " takes " + std::to_string(want);
      }
      if (!which.empty())
        r.report(tflr::op_loc(*d, g, k),
                 tflr::op_label(*d, g, k) + " passes " + std::to_string(passed) + " value(s)" +
                     (is_if ? " (inputs 1 … " + std::to_string(op.inputs.size() - 1) + "; input 0 is the condition)"
                            : "") +
                     " but " + which);
      if (!is_if && op.outputs.size() != op.inputs.size())
        r.report(tflr::op_loc(*d, g, k), tflr::op_label(*d, g, k) + " has " + std::to_string(op.inputs.size()) +
                                             " inputs and " + std::to_string(op.outputs.size()) +
                                             " outputs: a WHILE gives back one output per loop value it takes");
    }
}
}  // namespace condlint::rules::TFL004

CONDLINT_RULE(TFL004, "control-flow-input-count", Level::Error, kTFLITE,
              "An IF or WHILE passes a number of values its subgraphs do not take", check)
