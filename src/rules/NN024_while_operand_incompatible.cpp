// NN024 while-operand-incompatible: the pairs Android compares for a WHILE are compatible
// (Validation.cpp validateWhileOperation with `compatible`): condition input i ~ WHILE input 2+i,
// body input i ~ WHILE input 2+i, body output i ~ WHILE output i, body input i ~ body output i
// (the loop-carried value keeps its type and shape).
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN024 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kWhile, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.size() < 3) return;
    const std::string name = nnr::op_name(*d, g, k);
    auto cmp = [&](int ga, uint32_t a, int gb, uint32_t b, const std::string& what, const SourceLocation& loc) {
      const NnOperand* x = nnr::operand(*d, ga, a);
      const NnOperand* y = nnr::operand(*d, gb, b);
      if (!x || !y) return;
      const auto why = nnr::incompatibilities(*x, *y);
      if (why.empty()) return;
      r.report(loc, name + ", " + what + ": " + nnr::operand_desc(*d, ga, a) + " vs " + nnr::operand_desc(*d, gb, b) +
                        " are not compatible (" + nnr::join(why) + ")");
    };
    const int cg = nnr::subgraph_ref(*d, g, op.inputs[0]);
    const int bg = nnr::subgraph_ref(*d, g, op.inputs[1]);
    if (cg >= 0) {
      const NnSubgraph& c = d->subgraphs[cg];
      for (size_t i = 0; i < c.input_indexes.size() && 2 + i < op.inputs.size(); ++i)
        cmp(g, op.inputs[2 + i], cg, c.input_indexes[i],
            "input " + std::to_string(2 + i) + " → condition input " + std::to_string(i),
            nnr::op_input_loc(*d, g, k, 2 + i));
    }
    if (bg >= 0) {
      const NnSubgraph& b = d->subgraphs[bg];
      for (size_t i = 0; i < b.input_indexes.size() && 2 + i < op.inputs.size(); ++i)
        cmp(g, op.inputs[2 + i], bg, b.input_indexes[i],
            "input " + std::to_string(2 + i) + " → body input " + std::to_string(i),
            nnr::op_input_loc(*d, g, k, 2 + i));
      for (size_t j = 0; j < op.outputs.size() && j < b.output_indexes.size(); ++j)
        cmp(bg, b.output_indexes[j], g, op.outputs[j],
            "body output " + std::to_string(j) + " → output " + std::to_string(j), nnr::op_output_loc(*d, g, k, j));
      for (size_t j = 0; j < b.output_indexes.size() && j < b.input_indexes.size(); ++j)
        cmp(bg, b.output_indexes[j], bg, b.input_indexes[j],
            "body output " + std::to_string(j) + " fed back to body input " + std::to_string(j),
            nnr::io_loc(*d, bg, false, j));
    }
  });
}
}  // namespace condlint::rules::NN024

CONDLINT_RULE(NN024, "while-operand-incompatible", Level::Error, kNNAPI,
              "A WHILE loop value and the condition/body operand it is bound to are not compatible", check)
