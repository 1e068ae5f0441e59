// FL001 feature-level: under `--target nnapi>=flN`, an operation or operand type the oldest feature levels of the
// range do not have (IF and WHILE need feature level 4, Android 11; data/targets.json lists each operation and
// operand type by the level that introduced it, from the NNAPI reference). Android's runtime refuses a model that
// uses what the device's NNAPI does not know. One finding per operation or operand type, at its first use.
#include <set>

#include "rules/support/nnapi_util.hpp"
#include "rules/support/targets.hpp"

namespace condlint::rules::FL001 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  namespace t = condlint::targets;
  for (const auto& each : t::targets_for(r.options(), "nnapi", m.format)) {
    // Named, not a structured binding: the lambdas below capture them (C++17 cannot capture a binding).
    const auto* rt = each.first;
    const auto* target = each.second;
    const t::Fact* android = t::fact_at(*rt, "android", 0);
    auto judge = [&](std::string_view kind, const std::string& name, const SourceLocation& loc,
                     const std::string& where) {
      const t::Fact* f = t::since(*rt, kind, name);
      if (!f) return;
      const std::string text = t::describe_refusal(
          *rt, *target, [&](size_t rel) { return rel < f->from; }, name);
      if (text.empty()) return;
      std::string before;
      if (android && f->from > 0) {
        const std::string key = rt->releases[f->from - 1];
        const auto p = android->text.find("\"" + key + "\":\"");
        if (p != std::string::npos) {
          const size_t b = p + key.size() + 4;
          before =
              " (" + rt->releases[f->from - 1] + " is " + android->text.substr(b, android->text.find('"', b) - b) + ")";
        }
      }
      r.report(loc, text + ": " + where + "; NNAPI " + rt->releases[f->from] + " introduced it" + before + " (target " +
                        target->spec + ")");
    };
    std::set<int32_t> ops_seen, types_seen;
    for (size_t g = 0; g < d->subgraphs.size(); ++g) {
      const NnSubgraph& sg = d->subgraphs[g];
      for (size_t k = 0; k < sg.operations.size(); ++k) {
        const int32_t type = sg.operations[k].type;
        if (nn::is_extension(type) || !ops_seen.insert(type).second) continue;
        judge("operations_since", nn::operation_name(type), nnr::op_loc(*d, static_cast<int>(g), k),
              nnr::op_name(*d, static_cast<int>(g), k) + " is the first " + nn::operation_name(type));
      }
      for (size_t i = 0; i < sg.operands.size(); ++i) {
        const int32_t type = sg.operands[i].type;
        if (nn::is_extension(type) || !types_seen.insert(type).second) continue;
        judge("operand_types_since", nn::operand_type_name(type), sg.operands[i].loc,
              nnr::operand_desc(*d, static_cast<int>(g), static_cast<int64_t>(i)) + " is the first operand of type " +
                  nn::operand_type_name(type));
      }
    }
  }
}

}  // namespace condlint::rules::FL001

CONDLINT_RULE(FL001, "feature-level", Level::Error, kNNAPI,
              "--target nnapi: an operation or operand type newer than the oldest feature level of the range", check)
