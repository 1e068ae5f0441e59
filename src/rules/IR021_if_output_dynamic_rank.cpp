// IR021 if-output-dynamic-rank: an If whose branches give one output in two ranks (other than a scalar and a 1-D
// shape) has, by OpenVINO's If-8 rule, an output of dynamic rank, and OpenVINO's CPU plugin refuses to compile such
// an If for every input ("CPU plug-in doesn't support If operation with dynamic rank", src/plugins/intel_cpu/src/
// node.cpp; measured with OpenVINO 2026.4.1 on an x86-64 CPU, tools/openvino_corpus/probe_if_rank.py). The model
// reads and may run elsewhere (another device, ONNX Runtime on its ONNX source): a warning, in place of C011's note
// for that If (one root cause, one finding). An If whose condition is decided (C012) folds to its live branch and is
// no finding; neither is an If inside code that never runs.
#include "rules/engine.hpp"
#include "rules/support/dead_code.hpp"

namespace condlint::rules::IR021 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const DeadCode never_runs(m);
  for (const auto& c : m.conditionals) {
    if (c.provenance.decided >= 0 || never_runs.contains(c.graph)) continue;
    const auto& t = c.branch[0].outputs;
    const auto& e = c.branch[1].outputs;
    for (size_t i = 0; i < t.size() && i < e.size(); ++i) {
      if (!t[i].value.present || !e[i].value.present) continue;
      if (!if_output_of_dynamic_rank(t[i].value.comparable_shape(), e[i].value.comparable_shape())) continue;
      r.report(c.loc, c.name + " output " + std::to_string(t[i].output_index) + ": the then branch gives " +
                          t[i].value.comparable_shape().str() + ", the else branch gives " +
                          e[i].value.comparable_shape().str() +
                          ", so OpenVINO's If-8 rule makes the output of dynamic rank, and OpenVINO's CPU plugin "
                          "refuses to compile the model (\"CPU plug-in doesn't support If operation with dynamic "
                          "rank\"; measured with OpenVINO 2026.4.1 on x86-64); another device may run it");
      break;
    }
  }
}
}  // namespace condlint::rules::IR021

CONDLINT_RULE(IR021, "if-output-dynamic-rank", Level::Warning, kIR,
              "An If's branches give an output in two ranks: OpenVINO's CPU plugin refuses an If of dynamic rank",
              check)
