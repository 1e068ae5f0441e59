// IR004 if-body-missing: an If lacks a body or a port map.
#include "rules/engine.hpp"

namespace condlint::rules::IR004 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  static const char* bodies[2] = {"then_body", "else_body"};
  static const char* maps[2] = {"then_port_map", "else_port_map"};
  for (const auto& f : m.ir->ifs) {
    const Node& n = m.node(f.graph, f.node);
    for (int b = 0; b < 2; ++b) {
      if (!f.has_body[b]) r.report(n.loc, "If '" + n.display() + "' has no <" + bodies[b] + ">");
      if (!f.has_port_map[b]) r.report(n.loc, "If '" + n.display() + "' has no <" + maps[b] + ">");
    }
  }
}
}  // namespace condlint::rules::IR004

CONDLINT_RULE(IR004, "if-body-missing", Level::Error, kIR, "An If layer lacks a body or a port map", check)
