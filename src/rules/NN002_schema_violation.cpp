// NN002 schema-violation: the document breaks schemas/nnapi-model.schema.json.
#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN002 {
using namespace condlint;

void check(const Model& m, Reporter& r) { nnr::report_problems(m, r, NnProblem::Kind::Schema); }
}  // namespace condlint::rules::NN002

CONDLINT_RULE(NN002, "schema-violation", Level::Error, kNNAPI,
              "The document breaks the NNAPI model JSON schema (member, type, enum or range)", check)
