// C010 output-shape-unreachable: the conditional declares an output shape one branch can never produce.
//
// The level follows what the format's runtimes do with such a model (docs/precision.md, "Severity by evidence"):
// onnx's checker and ONNX Runtime accept it (ONNX Runtime warns at run time, VerifyOutputSizes), OpenVINO re-infers
// the If's output shape from its branches, so for ONNX and IR it is a declaration the model contradicts: a warning.
// Android NNAPI rejects an IF whose branch output is incompatible with the IF's output operand: an error.
//
// The fix (ONNX, IR): the declaration becomes what the branches give, their union as the format's runtime computes
// it (onnx's If inference, UnionShapeInfo: ranks that differ give no shape, dims that differ an unknown dim;
// OpenVINO's If-8 rule, merge_branches_openvino, over the branches that can run), each declared dim that already
// holds the union's kept as written. Sound: every shape a branch gives, the new declaration allows.
#include "rules/engine.hpp"
#include "rules/fix.hpp"
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

// Whether every size `u` allows, `d` allows too.
bool dim_covers(const Dim& d, const Dim& u) { return u.lo >= d.lo && (d.hi < 0 || (u.hi >= 0 && u.hi <= d.hi)); }

// The repair of output i's declaration: the union of the branches that can run, as the runtime computes it. Built
// without the text to say whether the finding is fixable, with it for the edits.
struct Repair {
  std::string why;  // why it cannot be repaired ("": it can)
  Shape now;        // the declaration after the fix
  Fix fix;
};

Repair plan_repair(const Model& m, const ConditionalView& c, size_t i, const DeadCode& never_runs,
                   std::string_view text) {
  Repair out;
  auto fail = [&](std::string w) {
    out.why = std::move(w);
    return out;
  };
  if (m.format != Format::ONNX && m.format != Format::IR) return fail("only ONNX and IR declarations are rewritten");
  auto given = [&](size_t b) -> const ValueDesc* {
    return i < c.branch[b].outputs.size() && c.branch[b].outputs[i].value.present ? &c.branch[b].outputs[i].value
                                                                                   : nullptr;
  };
  const ValueDesc *t = given(0), *e = given(1);
  if (!t || !e) return fail("a branch does not give that output");
  const Shape declared = c.outputs[i].comparable_shape();
  Shape u;
  if (m.format == Format::ONNX) {
    u = merge_branches(t->comparable_shape(), e->comparable_shape());
  } else {
    const bool live_t = !never_runs.contains(c.branch[0].graph), live_e = !never_runs.contains(c.branch[1].graph);
    u = live_t && live_e ? merge_branches_openvino(t->comparable_shape(), e->comparable_shape())
                         : (live_t ? t : e)->comparable_shape();
    if (!u.rank_known) return fail("OpenVINO gives that output a dynamic rank, which a port cannot state");
  }
  // The new declaration: the union, with each declared dim that holds the union's dim kept.
  std::vector<char> keep;
  out.now = u;
  if (u.rank_known && declared.rank_known && u.dims.size() == declared.dims.size())
    for (size_t k = 0; k < u.dims.size(); ++k) {
      keep.push_back(dim_covers(declared.dims[k], u.dims[k]));
      if (keep.back()) out.now.dims[k] = declared.dims[k];
    }
  const Node& n = m.node(c.graph, c.node);
  out.fix.description = c.name + " output " + std::to_string(i) + " declared " + out.now.str() + " (was " +
                        declared.str() + "): the union of what its branches give, " + t->comparable_shape().str() +
                        " and " + e->comparable_shape().str();
  if (m.format == Format::ONNX) {
    if (m.graphs[c.graph].own_root) return fail("the If is in a function's body");
    if (i >= n.outputs.size() || n.outputs[i].id.empty()) return fail("the output has no name");
    OnnxEdit edit;
    edit.kind = OnnxEdit::Kind::SetDeclaredType;
    edit.graph = c.graph;
    edit.name = n.outputs[i].id.str();
    edit.set_shape = true;
    edit.shape = u;
    edit.keep = keep;
    out.fix.onnx.push_back(std::move(edit));
    return out;
  }
  if (text.empty()) return out;
  // IR: the <dim>s of the If's output port.
  const auto dims = xml_port_dims(text, c.outputs[i].loc.offset);
  if (!dims || dims->size() != declared.dims.size()) return fail("the If's output port is not as the model says");
  if (u.dims.size() == dims->size()) {
    for (size_t k = 0; k < u.dims.size(); ++k)
      if (!keep[k])
        out.fix.text.push_back({static_cast<int64_t>((*dims)[k].text_begin), static_cast<int64_t>((*dims)[k].text_end),
                                ir_dim_text(u.dims[k])});
    return out;
  }
  if (u.dims.empty()) {  // a scalar: the port states no dims
    for (const XmlDim& d : *dims) {
      const auto r = xml_element_range(text, static_cast<int64_t>(d.begin));
      if (!r) return fail("a dim of the If's output port cannot be read");
      out.fix.text.push_back({r->first, r->second, ""});
    }
    return out;
  }
  // Another rank: the dims replaced, each on a line of its own, indented as the first was.
  const size_t line = text.rfind('\n', dims->front().begin);
  const std::string indent(text.substr(line == std::string_view::npos ? 0 : line + 1,
                                       dims->front().begin - (line == std::string_view::npos ? 0 : line + 1)));
  std::string with;
  for (size_t k = 0; k < u.dims.size(); ++k)
    with += (k ? "\n" + indent : "") + "<dim>" + ir_dim_text(u.dims[k]) + "</dim>";
  out.fix.text.push_back({static_cast<int64_t>(dims->front().begin), static_cast<int64_t>(dims->back().end), with});
  return out;
}

void check(const Model& m, Reporter& r) {
  const DeadCode never_runs(m);
  const FormatVerdict& verdict = verdict_for(m.format);
  for (const auto& c : m.conditionals) {
    if (never_runs.contains(c.graph)) continue;  // C012 reports the code around it as never running
    auto fixable = [&](size_t i) {
      return plan_repair(m, c, i, never_runs, {}).why.empty() ? Fixable::Safe : Fixable::No;
    };
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
          r.report_fixable(fixable(i), loc,
                           what + " but both branches give " + both.str() + ": " + why +
                               "; onnx's checker rejects the model (full_check)",
                           std::to_string(i), Level::Error);
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
        r.report_fixable(fixable(i), loc,
                         what + " but the " + br.name + " branch gives " +
                             br.outputs[i].value.comparable_shape().str() + " (" + br.outputs[i].value.label +
                             "): " + why + "; " + verdict.runtimes,
                         std::to_string(i), verdict.level);
        break;
      }
    }
  }
}
std::optional<Fix> make_fix(const Model& m, const Finding& f, std::string_view text, std::string& why) {
  const auto key = fix_key_index(f);
  if (!key) {
    why = "the finding names no output";
    return std::nullopt;
  }
  const size_t i = *key;
  const DeadCode never_runs(m);
  for (const auto& c : m.conditionals)
    if (c.graph == f.loc.graph && c.node == f.loc.node_index && i < c.outputs.size()) {
      Repair rep = plan_repair(m, c, i, never_runs, text);
      if (!rep.why.empty()) {
        why = rep.why;
        return std::nullopt;
      }
      return rep.fix;
    }
  why = "the If is not where the finding says";
  return std::nullopt;
}
}  // namespace condlint::rules::C010

CONDLINT_RULE(C010, "output-shape-unreachable", Level::Warning, kAllFormats,
              "The conditional's declared output shape cannot be produced by one of the branches (error for NNAPI)",
              check)
CONDLINT_FIX(C010, make_fix)
