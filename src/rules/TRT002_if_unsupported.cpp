// TRT002 if-unsupported: under `--target tensorrt...`, an If that a release of the range cannot build: TensorRT
// before 8.0 has no If; 8.0 and later build an If whose condition is computed as an IIfConditional whose outputs
// take only the element types onnx-tensorrt's operator table lists (8.x: FP32, FP16, INT32, BOOL; 9.0 adds INT64;
// 9.1 BF16) and whose branches' outputs have different names (and, from 10.1, the same rank). An If whose
// condition is an initializer is not built: the parser reads only the branch it selects.
#include <set>

#include "model/onnx_data.hpp"
#include "rules/support/targets.hpp"

namespace condlint::rules::TRT002 {

// onnx's spelling of the element types TensorRT names (the table lists these).
std::string onnx_name(condlint::ElemType e) {
  using condlint::ElemType;
  switch (e) {
    case ElemType::F32: return "float";
    case ElemType::F16: return "float16";
    case ElemType::BF16: return "bfloat16";
    case ElemType::I32: return "int32";
    case ElemType::I64: return "int64";
    case ElemType::Boolean: return "bool";
    case ElemType::F64: return "double";
    case ElemType::I8: return "int8";
    case ElemType::U8: return "uint8";
    case ElemType::I16: return "int16";
    case ElemType::U16: return "uint16";
    case ElemType::U32: return "uint32";
    case ElemType::U64: return "uint64";
    default: return std::string(condlint::to_string(e));
  }
}

// "'y'" of the loader's label "then_branch output 'y'"; "" for another label.
std::string output_name(const std::string& label) {
  const size_t p = label.find(" output ");
  return p == std::string::npos ? std::string() : label.substr(p + 8);
}

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  namespace t = condlint::targets;
  for (const auto& each : t::targets_for(r.options(), "tensorrt", m.format)) {
    // Named, not a structured binding: the lambdas below capture them (C++17 cannot capture a binding).
    const auto* rt = each.first;
    const auto* target = each.second;
    for (const auto& cv : m.conditionals) {
      if (cv.has_condition && cv.condition.label.rfind("initializer ", 0) == 0) continue;
      const std::string who = cv.name + " (target " + target->spec + ")";
      std::string text = t::describe_refusal(
          *rt, *target,
          [&](size_t rel) {
            const t::Fact* f = t::fact_at(*rt, "if_supported", rel);
            return f && f->flag && !*f->flag;
          },
          "If");
      if (!text.empty()) {
        r.report(cv.loc, text + ": " + who + " has no TensorRT layer before If support was added");
        continue;
      }
      // Output element types: what a branch produces (both branches agree where C006 is silent).
      for (size_t j = 0; j < cv.outputs.size(); ++j) {
        condlint::ElemType e = cv.outputs[j].type.elem;
        for (const auto& b : cv.branch)
          if (e == condlint::ElemType::Unknown && j < b.outputs.size()) e = b.outputs[j].value.type.elem;
        if (e == condlint::ElemType::Unknown || e == condlint::ElemType::Dynamic) continue;
        const std::string name = onnx_name(e);
        text = t::describe_refusal(
            *rt, *target,
            [&](size_t rel) {
              const t::Fact* f = t::fact_at(*rt, "if_element_types", rel);
              if (!f) return false;
              for (const auto& n : f->list)
                if (n == name) return false;
              return true;
            },
            "an If output of type " + name);
        if (!text.empty()) r.report(cv.loc, text + ": output " + std::to_string(j) + " of " + who + " is " + name);
      }
      // The branches' outputs must be distinct tensors by name.
      const auto& th = cv.branch[0].outputs;
      const auto& el = cv.branch[1].outputs;
      for (size_t j = 0; j < th.size() && j < el.size(); ++j) {
        const std::string a = output_name(th[j].value.label);
        if (a.empty() || a != output_name(el[j].value.label)) continue;
        text = t::describe_refusal(
            *rt, *target,
            [&](size_t rel) {
              const t::Fact* f = t::fact_at(*rt, "if_branch_outputs_distinct_names", rel);
              return f && f->flag && *f->flag;
            },
            "If branches that output the same tensor");
        if (!text.empty())
          r.report(cv.loc, text + ": output " + std::to_string(j) + " of " + who + " is " + a + " in both branches");
        break;
      }
      // From 10.1 the branches' outputs must have the same rank.
      for (size_t j = 0; j < th.size() && j < el.size(); ++j) {
        const condlint::Shape sa = th[j].value.comparable_shape();
        const condlint::Shape sb = el[j].value.comparable_shape();
        if (!sa.rank_known || !sb.rank_known || sa.dims.size() == sb.dims.size()) continue;
        text = t::describe_refusal(
            *rt, *target,
            [&](size_t rel) {
              const t::Fact* f = t::fact_at(*rt, "if_branch_outputs_same_rank", rel);
              return f && f->flag && *f->flag;
            },
            "If branches whose outputs differ in rank");
        if (!text.empty())
          r.report(cv.loc, text + ": output " + std::to_string(j) + " of " + who + " has rank " +
                               std::to_string(sa.dims.size()) + " in then and " + std::to_string(sb.dims.size()) +
                               " in else");
      }
    }
  }
}

}  // namespace condlint::rules::TRT002

CONDLINT_RULE(TRT002, "if-unsupported", Level::Error, kONNX,
              "--target tensorrt: an If a release of the range cannot build (no If, output type, same-named or "
              "different-rank branch outputs)",
              check)
