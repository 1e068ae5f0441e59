// IR018 const-size-mismatch: a Const's size is too small for its element type and shape.
#include "rules/engine.hpp"

namespace condlint::rules::IR018 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.ir->consts) {
    if (!c.size || *c.size < 0 || !c.shape || !c.shape->is_static()) continue;
    const unsigned bits = bit_width(c.elem);
    if (bits == 0) continue;  // string and unknown types have no fixed size
    const Node& n = m.node(c.graph, c.node);
    const auto count = c.shape->element_count();
    if (!count) {
      r.report(n.loc,
               "Const '" + n.display() + "' has shape " + c.shape->str() + " whose element count overflows 64 bits");
      continue;
    }
    if (*count > (UINT64_MAX - 7) / bits) {
      r.report(n.loc, "Const '" + n.display() + "' has shape " + c.shape->str() + " whose byte size overflows 64 bits");
      continue;
    }
    const uint64_t need = (*count * bits + 7) / 8;
    if (static_cast<uint64_t>(*c.size) >= need) continue;
    r.report(n.loc, "Const '" + n.display() + "' is " + std::string(to_string(c.elem)) + " " + c.shape->str() + ", " +
                        std::to_string(need) + " bytes, but size=\"" + std::to_string(*c.size) + "\"");
  }
}
}  // namespace condlint::rules::IR018

CONDLINT_RULE(IR018, "const-size-mismatch", Level::Error, kIR,
              "A Const's size is smaller than its element type and shape need", check)
