// IR001 xml-malformed: the file is not well-formed XML.
#include "rules/engine.hpp"

namespace condlint::rules::IR001 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& p : m.ir->problems)
    if (p.kind == IrProblem::Kind::MalformedXml) r.report(p.loc, "the XML is not well-formed: " + p.message);
}
}  // namespace condlint::rules::IR001

CONDLINT_RULE(IR001, "xml-malformed", Level::Error, kIR, "The file is not well-formed XML", check)
