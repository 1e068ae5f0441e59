// IR009 port-map-duplicate: an external port or a body Parameter appears twice in one port map.
#include <map>
#include <utility>

#include "rules/engine.hpp"
#include "rules/fix.hpp"
#include "rules/support/ir_util.hpp"

namespace condlint::rules::IR009 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      std::map<std::pair<bool, int64_t>, const IrPortMapEntry*> by_external;
      std::map<int64_t, const IrPortMapEntry*> params;
      // How many entries bind each body layer: removing an input entry is safe only when its Parameter stays bound.
      std::map<int64_t, int> binds;
      for (const auto& e : f.port_map[b])
        if (e.is_input && e.has_internal) ++binds[e.internal_layer_id];
      for (const auto& e : f.port_map[b]) {
        if (e.has_external) {
          auto [it, fresh] = by_external.emplace(std::make_pair(e.is_input, e.external_port_id), &e);
          if (!fresh) {
            const bool fixable = !e.is_input || !e.has_internal || binds[e.internal_layer_id] > 1;
            r.report_fixable(fixable ? Fixable::Safe : Fixable::No, e.loc,
                             std::string(branch_tag(b, "map")) + " has a second " + (e.is_input ? "input" : "output") +
                                " entry for external_port_id=\"" + std::to_string(e.external_port_id) +
                                "\"; OpenVINO silently keeps only the first (line " +
                                std::to_string(it->second->loc.line) + ")");
            continue;
          }
        }
        if (e.is_input && e.has_internal) {
          auto [it, fresh] = params.emplace(e.internal_layer_id, &e);
          if (!fresh)
            r.report(e.loc, std::string(branch_tag(b, "map")) + " binds body layer " +
                                std::to_string(e.internal_layer_id) + " a second time (first at line " +
                                std::to_string(it->second->loc.line) + ")");
        }
      }
    }
  }
}

// The second entry for an external port removed: OpenVINO keeps only the first, so the file then says what OpenVINO
// reads. (A body Parameter bound twice has no fix: which binding was meant cannot be known.)
std::optional<Fix> make_fix(const Model& m, const Finding& f, std::string_view text, std::string& why) {
  for (const auto& g : m.ir->ifs)
    for (int b = 0; b < 2; ++b)
      for (size_t i = 0; i < g.port_map[b].size(); ++i) {
        const IrPortMapEntry& e = g.port_map[b][i];
        if (e.loc.offset != f.loc.offset || !e.has_external) continue;
        bool second = false;
        for (size_t k = 0; k < i; ++k)
          second = second || (g.port_map[b][k].has_external && g.port_map[b][k].is_input == e.is_input &&
                              g.port_map[b][k].external_port_id == e.external_port_id);
        const auto range = xml_element_range(text, e.loc.offset);
        if (!second || !range) break;
        Fix fix;
        fix.text.push_back({range->first, range->second, ""});
        fix.description = "removed the second " + std::string(e.is_input ? "input" : "output") +
                          " entry for external_port_id=\"" + std::to_string(e.external_port_id) + "\" from " +
                          branch_tag(b, "map") + " (OpenVINO reads the first only)";
        return fix;
      }
  why = "the port-map entry is not where the finding says";
  return std::nullopt;
}
}  // namespace condlint::rules::IR009

CONDLINT_RULE(IR009, "port-map-duplicate", Level::Error, kIR,
              "A port map repeats an external port, or binds one body Parameter twice", check)
CONDLINT_FIX(IR009, make_fix)
