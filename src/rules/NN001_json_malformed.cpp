// NN001 json-malformed: the file is not JSON (or nests too deeply).
#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN001 {
using namespace condlint;

void check(const Model& m, Reporter& r) { nnr::report_problems(m, r, NnProblem::Kind::Malformed); }
}  // namespace condlint::rules::NN001

CONDLINT_RULE(NN001, "json-malformed", Level::Error, kNNAPI,
              "The file is not well-formed JSON, or nests deeper than condlint follows", check)
