// TFL002 subgraph-index-invalid: an IF, WHILE or CALL_ONCE names a subgraph that does not exist, names the main
// subgraph (0), or carries no IfOptions / WhileOptions / CallOnceOptions to name its subgraphs with.
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL002 {
using namespace condlint;

const char* options_name(int32_t op) {
  return op == tfl::kIf ? "IfOptions" : op == tfl::kWhile ? "WhileOptions" : "CallOnceOptions";
}

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  const size_t n = d->subgraphs.size();
  for (size_t g = 0; g < n; ++g)
    for (size_t k = 0; k < d->subgraphs[g].ops.size(); ++k) {
      const TflOperator& op = d->subgraphs[g].ops[k];
      if (op.op != tfl::kIf && op.op != tfl::kWhile && op.op != tfl::kCallOnce) continue;
      if (!op.has_refs) {
        r.report(tflr::op_loc(*d, g, k), tflr::op_label(*d, g, k) + " has no " + options_name(op.op) +
                                             " (its builtin options are member " + std::to_string(op.options_type) +
                                             " of BuiltinOptions), so it names no subgraph to run");
        continue;
      }
      // One finding per operator, naming each index it cannot run.
      std::string bad;
      bool main_named = false;
      for (const auto& [role, index] : op.refs) {
        if (tflr::runnable_subgraph(*d, index)) continue;
        main_named |= index == 0;
        bad += std::string(bad.empty() ? "" : "; ") + "its " + role + " subgraph index names " +
               (index == 0 ? "the main subgraph (0)"
                           : "subgraph " + std::to_string(index) + ", but the model has " + std::to_string(n) +
                                 " subgraphs (0 … " + std::to_string(n - 1) + ")");
      }
      if (!bad.empty())
        r.report(tflr::op_loc(*d, g, k),
                 tflr::op_label(*d, g, k) + ": " + bad +
                     (main_named ? " (the main subgraph holds the operator: LiteRT 2.3.0 fails a count check on it, "
                                   "or crashes where the counts match)"
                                 : ""));
    }
}
}  // namespace condlint::rules::TFL002

CONDLINT_RULE(TFL002, "subgraph-index-invalid", Level::Error, kTFLITE,
              "An IF, WHILE or CALL_ONCE names a subgraph that does not exist, or the main subgraph", check)
