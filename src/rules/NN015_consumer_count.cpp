// NN015 consumer-count: when an operand states numberOfConsumers (HIDL 1.x), it equals the number
// of operation input slots that read it (ValidateHal.cpp validateGraph).
#include <vector>

#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN015 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g) {
    const NnSubgraph& sg = d->subgraphs[g];
    std::vector<uint32_t> count(sg.operands.size(), 0);
    for (const NnOperation& op : sg.operations)
      for (uint32_t o : op.inputs)
        if (o < count.size()) ++count[o];
    for (size_t i = 0; i < sg.operands.size(); ++i) {
      const auto& c = sg.operands[i].number_of_consumers;
      if (c && *c != count[i])
        r.report(sg.operands[i].consumers_loc, nnr::operand_label(*d, static_cast<int>(g), static_cast<int64_t>(i)) +
                                                   ": numberOfConsumers is " + std::to_string(*c) + " but " +
                                                   std::to_string(count[i]) + " operation input slot(s) read it");
    }
  }
}
}  // namespace condlint::rules::NN015

CONDLINT_RULE(NN015, "consumer-count", Level::Error, kNNAPI,
              "An operand's numberOfConsumers differs from the number of operation inputs that read it", check)
