// NN003 blob-unreadable: a Blob file leaves the document's directory, is missing or unreadable.
#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN003 {
using namespace condlint;

void check(const Model& m, Reporter& r) { nnr::report_problems(m, r, NnProblem::Kind::Blob); }
}  // namespace condlint::rules::NN003

CONDLINT_RULE(NN003, "blob-unreadable", Level::Error, kNNAPI,
              "A Blob file leaves the document's directory, is missing or cannot be read", check)
