// IR016 if-version: If exists from opset8 on; an older (or missing) version cannot be read by OpenVINO.
#include "rules/engine.hpp"

namespace condlint::rules::IR016 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    const Node& n = m.node(f.graph, f.node);
    const std::string& v = n.version.str();
    int64_t number = 0;
    if (v.rfind("opset", 0) == 0 && parse_int64(std::string_view(v).substr(5), number)) {
      if (number >= 8) continue;
      r.report(n.loc, "If '" + n.display() + "' has version=\"" + v + "\"; If first appears in opset8, so " + v +
                          " has no If operation");
    } else if (v.empty()) {
      r.report(n.loc, "If '" + n.display() + "' has no version attribute; it must name opset8 or later");
    }
    // Other version strings (extension opsets) are left alone.
  }
}
}  // namespace condlint::rules::IR016

CONDLINT_RULE(IR016, "if-version", Level::Error, kIR, "An If layer's version is older than opset8", check)
