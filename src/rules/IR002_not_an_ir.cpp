// IR002 not-an-ir: well-formed XML, but not an OpenVINO IR v10/v11 network.
#include "rules/engine.hpp"

namespace condlint::rules::IR002 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& p : m.ir->problems)
    if (p.kind == IrProblem::Kind::NotIr) r.report(p.loc, p.message);
}
}  // namespace condlint::rules::IR002

CONDLINT_RULE(IR002, "not-an-ir", Level::Error, kIR, "The XML is not an OpenVINO IR v10/v11 network", check)
