// NN004 value-shorthand: an operand's value shorthand cannot be packed.
#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN004 {
using namespace condlint;

void check(const Model& m, Reporter& r) { nnr::report_problems(m, r, NnProblem::Kind::Value); }
}  // namespace condlint::rules::NN004

CONDLINT_RULE(NN004, "value-shorthand", Level::Error, kNNAPI,
              "An operand's `value` does not fit its shape or type (count, unknown shape, float overflow)", check)
