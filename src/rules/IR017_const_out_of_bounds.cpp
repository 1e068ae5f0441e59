// IR017 const-out-of-bounds: a Const points outside the weights file.
#include "rules/engine.hpp"

namespace condlint::rules::IR017 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.ir->consts) {
    const Node& n = m.node(c.graph, c.node);
    if ((c.offset && *c.offset < 0) || (c.size && *c.size < 0)) {
      r.report(n.loc, "Const '" + n.display() + "' has a negative " + (c.offset && *c.offset < 0 ? "offset" : "size"));
      continue;
    }
    if (!m.ir->weights_size || !c.offset || !c.size) continue;
    const uint64_t off = static_cast<uint64_t>(*c.offset), sz = static_cast<uint64_t>(*c.size);
    const uint64_t file = *m.ir->weights_size;
    if (off <= file && sz <= file - off) continue;
    r.report(n.loc, "Const '" + n.display() + "' reads " + std::to_string(sz) + " bytes at offset " +
                        std::to_string(off) + " but the weights file has only " + std::to_string(file) + " bytes");
  }
}
}  // namespace condlint::rules::IR017

CONDLINT_RULE(IR017, "const-out-of-bounds", Level::Error, kIR,
              "A Const's offset + size reaches past the end of the weights file", check)
