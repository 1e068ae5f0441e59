// C013 limit-exceeded: the file declares a size past one of condlint's limits (a shape of more than kMaxRank
// dimensions: ONNX value types and initializer dims, NNAPI operand dimensions, IR port dims and shape attributes). The
// loader did not build it: the value is read as of unknown rank, and what follows from it is not reported again. No
// real model comes near the limits; a file that does is broken or hostile. An ONNX file of more than kMaxOnnxEntries
// nodes, initializers and value declarations is not built at all (each costs hundreds of bytes however few it has).
#include "rules/engine.hpp"

namespace condlint::rules::C013 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const OverLimit& o : m.over_limits)
    r.report(o.loc, o.what + (o.whole_model ? " hold " : " declares ") + std::to_string(o.declared) + " " + o.unit + ", more than condlint's limit of " +
                        std::to_string(o.limit) + "; no real model has that many, so condlint does not build " +
                        (o.whole_model ? "the model (nothing else of it is judged)"
                                       : "it and takes that shape as unknown") +
                        " (docs/hardening.md)");
}
}  // namespace condlint::rules::C013

CONDLINT_RULE(C013, "limit-exceeded", Level::Error, kAllFormats,
              "The file declares a shape with more dimensions than condlint's limit (1024)", check)
