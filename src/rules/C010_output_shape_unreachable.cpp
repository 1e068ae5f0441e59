// C010 output-shape-unreachable: the conditional declares an output shape one branch can never produce.
//
// The level follows what the format's runtimes do with such a model (docs/precision.md, "Severity by evidence"):
// onnx's checker and ONNX Runtime accept it (ONNX Runtime warns at run time, VerifyOutputSizes), OpenVINO re-infers
// the If's output shape from its branches, so for ONNX and IR it is a declaration the model contradicts: a warning.
// Android NNAPI rejects an IF whose branch output is incompatible with the IF's output operand: an error.
#include "rules/engine.hpp"
#include "rules/support/dead_code.hpp"

namespace condlint::rules::C010 {
using namespace condlint;

struct FormatVerdict {
  Format format;
  Level level;
  const char* runtimes;  // what the format's runtimes do with it, for the message
};
constexpr FormatVerdict kVerdicts[] = {
    {Format::ONNX, Level::Warning,
     "onnx's checker and ONNX Runtime accept the model; ONNX Runtime warns when that branch runs (VerifyOutputSizes)"},
    {Format::IR, Level::Warning, "OpenVINO replaces the declared shape with the one it infers from the branches"},
    {Format::NNAPI, Level::Error, "Android NNAPI rejects the model"},
    {Format::TFLITE, Level::Warning,
     "the TFLite interpreter resizes the IF's outputs to what the branch that runs gives (LiteRT 2.3.0 runs it)"},
};

const FormatVerdict& verdict_for(Format f) {
  for (const auto& v : kVerdicts)
    if (v.format == f) return v;
  return kVerdicts[0];
}

// Why `got` cannot be the `declared` shape, or "" when it can.
std::string contradiction(const Shape& declared, const Shape& got) {
  if (!got.rank_known) return "";
  if (got.dims.size() != declared.dims.size())
    return "rank " + std::to_string(got.dims.size()) + " is not the declared rank " +
           std::to_string(declared.dims.size());
  for (size_t k = 0; k < got.dims.size(); ++k)
    if (!declared.dims[k].intersects(got.dims[k]))
      return "dimension " + std::to_string(k) + " is " + got.dims[k].str() + ", declared " + declared.dims[k].str();
  return "";
}

// True when every shape `got` allows, `declared` allows too (same rank, each dim within the declared one).
bool covers(const Shape& declared, const Shape& got) {
  if (!declared.rank_known || !got.rank_known || declared.dims.size() != got.dims.size()) return false;
  for (size_t k = 0; k < got.dims.size(); ++k) {
    const Dim &d = declared.dims[k], &g = got.dims[k];
    if (g.lo < d.lo || (d.hi >= 0 && (g.hi < 0 || g.hi > d.hi))) return false;
  }
  return true;
}

void check(const Model& m, Reporter& r) {
  const DeadCode never_runs(m);
  const FormatVerdict& verdict = verdict_for(m.format);
  for (const auto& c : m.conditionals) {
    if (never_runs.contains(c.graph)) continue;  // C012 reports the code around it as never running
    for (size_t i = 0; i < c.outputs.size(); ++i) {
      const Shape declared = c.outputs[i].comparable_shape();
      if (!declared.rank_known) continue;
      const SourceLocation& loc = c.outputs[i].loc.line ? c.outputs[i].loc : c.loc;
      const std::string what = c.name + " output " + std::to_string(i) + " is declared " + declared.str();
      // ONNX: onnx's inference merges the branches (a dimension they disagree on becomes unknown) and then the
      // declaration into that; a declaration the merged shape contradicts is rejected by its checker: an error.
      auto present = [&](size_t b) { return i < c.branch[b].outputs.size() && c.branch[b].outputs[i].value.present; };
      if (m.format == Format::ONNX && present(0) && present(1)) {
        const Shape both = merge_branches(c.branch[0].outputs[i].value.comparable_shape(),
                                          c.branch[1].outputs[i].value.comparable_shape());
        if (const std::string why = contradiction(declared, both); !why.empty()) {
          r.report_at(Level::Error, loc,
                      what + " but both branches give " + both.str() + ": " + why +
                          "; onnx's checker rejects the model (full_check)");
          continue;
        }
      }
      // IR: OpenVINO's own If-8 rule writes the union of the branches (a scalar and a 1-D shape give [?]); a
      // declaration that holds all of it is what OpenVINO itself declares and runs (C011 notes that they differ).
      // Branches of two ranks make an output of dynamic rank, which IR021 reports (one root cause, one finding).
      if (m.format == Format::IR && present(0) && present(1) && !never_runs.contains(c.branch[0].graph) &&
          !never_runs.contains(c.branch[1].graph)) {
        const Shape t = c.branch[0].outputs[i].value.comparable_shape(),
                    e = c.branch[1].outputs[i].value.comparable_shape();
        if (covers(declared, merge_branches_openvino(t, e)) || if_output_of_dynamic_rank(t, e)) continue;
      }
      for (size_t b = 0; b < 2; ++b) {
        const auto& br = c.branch[b];
        if (never_runs.contains(br.graph)) continue;  // a branch that never runs never gives the output
        if (!present(b)) continue;
        const std::string why = contradiction(declared, br.outputs[i].value.comparable_shape());
        if (why.empty()) continue;
        r.report_at(verdict.level, loc,
                    what + " but the " + br.name + " branch gives " + br.outputs[i].value.comparable_shape().str() +
                        " (" + br.outputs[i].value.label + "): " + why + "; " + verdict.runtimes);
        break;
      }
    }
  }
}
}  // namespace condlint::rules::C010

CONDLINT_RULE(C010, "output-shape-unreachable", Level::Warning, kAllFormats,
              "The conditional's declared output shape cannot be produced by one of the branches (error for NNAPI)",
              check)
