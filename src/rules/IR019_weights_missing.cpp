// IR019 weights-missing: Consts point into a weights file that is not there.
#include <filesystem>

#include "rules/engine.hpp"

namespace condlint::rules::IR019 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  if (m.ir->weights_size) return;
  int count = 0;
  const IrConst* first = nullptr;
  for (const auto& c : m.ir->consts)
    if (c.size && *c.size > 0) {
      ++count;
      if (!first) first = &c;
    }
  if (!first) return;
  const Node& n = m.node(first->graph, first->node);
  r.report(n.loc, std::to_string(count) + " Const layer(s) read from " +
                      std::filesystem::path(m.ir->weights_path).filename().string() +
                      ", which does not exist: OpenVINO's read_model refuses the model (\"bin file cannot be found\")");
}
}  // namespace condlint::rules::IR019

CONDLINT_RULE(IR019, "weights-missing", Level::Error, kIR, "Consts point into a weights file that does not exist", check)
