// NN023 while-count-mismatch: the WHILE's operand counts fit its condition and body graphs
// (Validation.cpp validateWhileOperation): 2 + condition inputs = 2 + body inputs = WHILE inputs,
// the condition graph has one output, body outputs >= WHILE outputs, body inputs >= body outputs.
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN023 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kWhile, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.size() < 3) return;  // NN018
    const std::string name = nnr::op_name(*d, g, k);
    const SourceLocation loc = nnr::op_loc(*d, g, k);
    const size_t values = op.inputs.size() - 2;
    const int cg = nnr::subgraph_ref(*d, g, op.inputs[0]);
    const int bg = nnr::subgraph_ref(*d, g, op.inputs[1]);
    if (cg >= 0) {
      const NnSubgraph& c = d->subgraphs[cg];
      if (c.input_indexes.size() != values)
        r.report(loc, name + " passes " + std::to_string(values) + " loop value(s) but its condition graph " + c.label +
                          " has " + std::to_string(c.input_indexes.size()) + " inputs");
      if (c.output_indexes.size() != 1)
        r.report(loc, name + ": the condition graph " + c.label + " has " + std::to_string(c.output_indexes.size()) +
                          " outputs; it must have exactly one (a TENSOR_BOOL8 [1])");
    }
    if (bg >= 0) {
      const NnSubgraph& b = d->subgraphs[bg];
      if (b.input_indexes.size() != values)
        r.report(loc, name + " passes " + std::to_string(values) + " loop value(s) but its body graph " + b.label +
                          " has " + std::to_string(b.input_indexes.size()) + " inputs");
      if (b.output_indexes.size() < op.outputs.size())
        r.report(loc, name + " has " + std::to_string(op.outputs.size()) + " outputs but its body graph " + b.label +
                          " produces only " + std::to_string(b.output_indexes.size()) +
                          "; every WHILE output needs a body output");
      if (b.input_indexes.size() < b.output_indexes.size())
        r.report(loc, name + ": the body graph " + b.label + " has " + std::to_string(b.output_indexes.size()) +
                          " outputs but only " + std::to_string(b.input_indexes.size()) +
                          " inputs; each body output feeds a body input back");
    }
  });
}
}  // namespace condlint::rules::NN023

CONDLINT_RULE(NN023, "while-count-mismatch", Level::Error, kNNAPI,
              "A WHILE's input/output counts do not fit its condition and body graphs", check)
