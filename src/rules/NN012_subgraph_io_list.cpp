// NN012 subgraph-io-list: inputIndexes / outputIndexes name existing operands of lifetime
// SUBGRAPH_INPUT / SUBGRAPH_OUTPUT, once each, and list every such operand
// (Validation.cpp validateModelSubgraphInputOutputs).
#include <vector>

#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN012 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g) {
    const NnSubgraph& sg = d->subgraphs[g];
    const int gi = static_cast<int>(g);
    for (int dir = 0; dir < 2; ++dir) {
      const bool input = dir == 0;
      const auto& list = input ? sg.input_indexes : sg.output_indexes;
      const int32_t want = input ? nn::SUBGRAPH_INPUT : nn::SUBGRAPH_OUTPUT;
      const char* member = input ? "inputIndexes" : "outputIndexes";
      std::vector<int> first(sg.operands.size(), -1);
      for (size_t k = 0; k < list.size(); ++k) {
        const uint32_t idx = list[k];
        const std::string at = sg.label + " " + member + "[" + std::to_string(k) + "]";
        if (idx >= sg.operands.size()) {
          r.report(nnr::io_loc(*d, gi, input, k), at + " is operand " + std::to_string(idx) +
                                                      ", but the subgraph has only " +
                                                      std::to_string(sg.operands.size()) + " operands");
          continue;
        }
        if (first[idx] >= 0) {
          r.report(nnr::io_loc(*d, gi, input, k), at + " lists " + nnr::operand_label(*d, gi, idx) +
                                                      " again (already " + member + "[" + std::to_string(first[idx]) +
                                                      "])");
          continue;
        }
        first[idx] = static_cast<int>(k);
        if (sg.operands[idx].lifetime != want)
          r.report(nnr::io_loc(*d, gi, input, k),
                   at + " is " + nnr::operand_label(*d, gi, idx) + ", whose lifetime is " +
                       nn::lifetime_name(sg.operands[idx].lifetime) + ", not " + nn::lifetime_name(want));
      }
      for (size_t i = 0; i < sg.operands.size(); ++i)
        if (sg.operands[i].lifetime == want && first[i] < 0)
          r.report(sg.operands[i].lifetime_loc, nnr::operand_label(*d, gi, static_cast<int64_t>(i)) + " has lifetime " +
                                                    nn::lifetime_name(want) + " but is not listed in " + sg.label +
                                                    " " + member);
    }
  }
}
}  // namespace condlint::rules::NN012

CONDLINT_RULE(NN012, "subgraph-io-list", Level::Error, kNNAPI,
              "inputIndexes / outputIndexes and the SUBGRAPH_INPUT / SUBGRAPH_OUTPUT lifetimes disagree", check)
