// NN002 schema-violation: the document breaks schemas/nnapi-model.schema.json.
#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/nnapi_util.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::raw_data(m);
  if (!d) return;
  for (const auto& p : d->problems)
    if (p.kind == NnProblem::Kind::Schema) r.report(p.loc, p.message);
}
}  // namespace

CONDLINT_RULE(NN002, "schema-violation", Level::Error, kNNAPI, "The document breaks the NNAPI model JSON schema (member, type, enum or range)", check)
