// C010 output-shape-unreachable: the conditional declares an output shape one branch can never produce.
#include "rules/engine.hpp"

namespace condlint::rules::C010 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    for (size_t i = 0; i < c.outputs.size(); ++i) {
      const Shape declared = c.outputs[i].comparable_shape();
      if (!declared.rank_known) continue;
      for (const auto& br : c.branch) {
        if (i >= br.outputs.size() || !br.outputs[i].value.present) continue;
        const Shape got = br.outputs[i].value.comparable_shape();
        if (!got.rank_known) continue;
        std::string why;
        if (got.dims.size() != declared.dims.size()) {
          why = "rank " + std::to_string(got.dims.size()) + " is not the declared rank " +
                std::to_string(declared.dims.size());
        } else {
          for (size_t k = 0; k < got.dims.size() && why.empty(); ++k)
            if (!declared.dims[k].intersects(got.dims[k]))
              why = "dimension " + std::to_string(k) + " is " + got.dims[k].str() + ", declared " +
                    declared.dims[k].str();
        }
        if (why.empty()) continue;
        r.report(c.outputs[i].loc.line ? c.outputs[i].loc : c.loc,
                 c.name + " output " + std::to_string(i) + " is declared " + declared.str() + " but the " + br.name +
                     " branch gives " + got.str() + " (" + br.outputs[i].value.label + "): " + why);
        break;
      }
    }
  }
}
}  // namespace condlint::rules::C010

CONDLINT_RULE(C010, "output-shape-unreachable", Level::Error, kAllFormats,
              "The conditional's declared output shape cannot be produced by one of the branches", check)
