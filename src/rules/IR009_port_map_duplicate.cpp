// IR009 port-map-duplicate: an external port or a body Parameter appears twice in one port map.
#include <map>
#include <utility>

#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace condlint::rules::IR009 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      std::map<std::pair<bool, int64_t>, const IrPortMapEntry*> by_external;
      std::map<int64_t, const IrPortMapEntry*> params;
      for (const auto& e : f.port_map[b]) {
        if (e.has_external) {
          auto [it, fresh] = by_external.emplace(std::make_pair(e.is_input, e.external_port_id), &e);
          if (!fresh) {
            r.report(e.loc, std::string(branch_tag(b, "map")) + " has a second " + (e.is_input ? "input" : "output") +
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
}  // namespace condlint::rules::IR009

CONDLINT_RULE(IR009, "port-map-duplicate", Level::Error, kIR,
              "A port map repeats an external port, or binds one body Parameter twice", check)
