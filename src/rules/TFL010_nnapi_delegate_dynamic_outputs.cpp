// TFL010 nnapi-delegate-dynamic-outputs: under `--target nnapi`, an IF or WHILE whose outputs the interpreter makes
// dynamic-sized tensors: an IF whose then and else subgraphs give an output of different shapes (if.cc:113-146), a
// WHILE whose body gives a loop value another shape than it takes (while.cc:160-208; a scalar and [1] count as one).
// The NNAPI delegate with its default options (allow_dynamic_dimensions false) does not support dynamic tensors, and
// applying it to a graph that has one fails (Subgraph::ModifyGraphWithDelegate returns kTfLiteApplicationError:
// tflite/core/subgraph.cc:2525-2553), which the Java Interpreter reports as "Error applying delegate" and the C API as
// no interpreter. Read from LiteRT's source (f674577), not run on a device: a warning.
#include <string>
#include <vector>

#include "rules/support/targets.hpp"
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL010 {
using namespace condlint;

// The static shape the file gives tensor t of subgraph g (what the interpreter prepares it with); null when unknown.
const std::vector<int32_t>* shape_of(const TfliteData& d, size_t g, int32_t t) {
  const TflTensor* x = d.tensor(g, t);
  return x && !x->rank_over_limit ? &x->shape : nullptr;
}

bool same_size(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  auto one = [](const std::vector<int32_t>& v) { return v.empty() || (v.size() == 1 && v[0] == 1); };
  return a == b || (one(a) && one(b));
}

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  if (targets::targets_for(r.options(), "nnapi", m.format).empty() && !r.options().nnapi_target_given) return;
  const std::string why =
      ": the interpreter makes those outputs dynamic-sized tensors, and the NNAPI delegate with its default options "
      "(allow_dynamic_dimensions off) cannot be applied to a graph that has one (ModifyGraphWithDelegate fails with "
      "kTfLiteApplicationError: LiteRT f674577, tflite/core/subgraph.cc:2525-2553; the Java Interpreter throws "
      "\"Error applying delegate\")";
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t k = 0; k < d->subgraphs[g].ops.size(); ++k) {
      const TflOperator& op = d->subgraphs[g].ops[k];
      if ((op.op != tfl::kIf && op.op != tfl::kWhile) || !op.has_refs) continue;
      if (!tflr::runnable_subgraph(*d, op.refs[0].second) || !tflr::runnable_subgraph(*d, op.refs[1].second)) continue;
      const TflSubgraph& a = d->subgraphs[static_cast<size_t>(op.refs[0].second)];
      const TflSubgraph& b = d->subgraphs[static_cast<size_t>(op.refs[1].second)];
      std::string diff;
      if (op.op == tfl::kIf) {
        for (size_t i = 0; i < a.outputs.size() && i < b.outputs.size() && diff.empty(); ++i) {
          const auto* sa = shape_of(*d, static_cast<size_t>(op.refs[0].second), a.outputs[i]);
          const auto* sb = shape_of(*d, static_cast<size_t>(op.refs[1].second), b.outputs[i]);
          if (sa && sb && *sa != *sb)
            diff = "output " + std::to_string(i) + " is " + tfl::dims_text(*sa) + " under the then subgraph and " +
                   tfl::dims_text(*sb) + " under the else subgraph (if.cc:113-146)";
        }
      } else {
        for (size_t i = 0; i < b.inputs.size() && i < b.outputs.size() && diff.empty(); ++i) {
          const auto* si = shape_of(*d, static_cast<size_t>(op.refs[1].second), b.inputs[i]);
          const auto* so = shape_of(*d, static_cast<size_t>(op.refs[1].second), b.outputs[i]);
          if (si && so && !same_size(*si, *so))
            diff = "the body takes loop value " + std::to_string(i) + " as " + tfl::dims_text(*si) + " and gives " +
                   tfl::dims_text(*so) + " (while.cc:160-208)";
        }
      }
      if (!diff.empty()) r.report(tflr::op_loc(*d, g, k), tflr::op_label(*d, g, k) + ": " + diff + why);
    }
}
}  // namespace condlint::rules::TFL010

CONDLINT_RULE(TFL010, "nnapi-delegate-dynamic-outputs", Level::Warning, kTFLITE,
              "--target nnapi: an IF or WHILE whose outputs are dynamic-sized, which the default NNAPI delegate refuses",
              check)
