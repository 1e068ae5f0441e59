// NN001 json-malformed: the file is not JSON (or nests too deeply).
#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/nnapi_util.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::raw_data(m);
  if (!d) return;
  for (const auto& p : d->problems)
    if (p.kind == NnProblem::Kind::Malformed) r.report(p.loc, p.message);
}
}  // namespace

CONDLINT_RULE(NN001, "json-malformed", Level::Error, kNNAPI, "The file is not well-formed JSON, or nests deeper than condlint follows", check)
