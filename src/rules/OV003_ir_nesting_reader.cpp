// OV003 ir-nesting-stalls-reader: under `--target openvino...`, an OpenVINO IR nests If bodies as deep as OpenVINO's
// IR reader was measured to crash at (SIGSEGV: an error) or to take more than five minutes over (a warning): the
// depths of data/targets.json's ir_if_nesting_reader_crashes and ir_if_nesting_reader_stalls rows, measured with
// tools/targets/gen_nested_ir.py. One finding per model and target, the worse of the two.
#include <algorithm>

#include "rules/support/targets.hpp"

namespace condlint::rules::OV003 {

namespace t = condlint::targets;

// The smallest depth of the fact over the target's range (-1 when no covered release has the fact).
int64_t smallest(const t::Runtime& rt, const condlint::Target& target, const char* kind) {
  int64_t limit = -1;
  for (size_t rel : t::covered(rt, target))
    if (const t::Fact* f = t::fact_at(rt, kind, rel); f && f->number)
      limit = limit < 0 ? *f->number : std::min(limit, *f->number);
  return limit;
}

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.ir || m.graphs.empty()) return;
  int deepest = 0;
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g)
    if (m.graphs[g].depth > m.graphs[deepest].depth) deepest = g;
  const int depth = m.graphs[deepest].depth;
  for (const auto& each : t::targets_for(r.options(), "openvino", m.format)) {
    const auto* rt = each.first;
    const auto* target = each.second;
    struct Kind {
      const char* fact;
      condlint::Level level;
      const char* what;
    };
    for (const Kind& k : {Kind{"ir_if_nesting_reader_crashes", condlint::Level::Error, "crashes (SIGSEGV) reading"},
                          Kind{"ir_if_nesting_reader_stalls", condlint::Level::Warning,
                               "takes more than five minutes to read"}}) {
      const int64_t limit = smallest(*rt, *target, k.fact);
      if (limit < 0 || depth < limit) continue;
      const std::string text = t::describe_refusal(
          *rt, *target,
          [&](size_t rel) {
            const t::Fact* f = t::fact_at(*rt, k.fact, rel);
            return f && f->number && depth >= *f->number;
          },
          std::string("an IR of ") + std::to_string(limit) + " or more nested If levels", k.what);
      if (text.empty()) continue;
      r.report_at(k.level, m.graphs[0].loc,
                  text + ": " + m.path_of(deepest) + " is at depth " + std::to_string(depth) +
                      " (measured with tools/targets/gen_nested_ir.py; target " + target->spec + ")");
      break;  // the worse one only
    }
  }
}

}  // namespace condlint::rules::OV003

CONDLINT_RULE(OV003, "ir-nesting-stalls-reader", Level::Error, kIR,
              "--target openvino: an IR nests Ifs as deep as OpenVINO's IR reader crashes (3,000) or stalls (500) at",
              check)
