// TFL008 index-out-of-range: an index the interpreter follows points past its table: an operator's input or output
// tensor (-1 marks an optional input left out, and only an input), a subgraph's input or output tensor, an
// operator's opcode_index, a tensor's buffer. LiteRT 2.3.0 builds the interpreter and refuses the model in
// allocate_tensors ("Invalid tensor index 13 in node inputs").
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL008 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  for (size_t g = 0; g < d->subgraphs.size(); ++g) {
    const TflSubgraph& sg = d->subgraphs[g];
    const size_t nt = sg.tensors.size();
    const std::string range = " (" + d->subgraph_label(g) + " has " + std::to_string(nt) + " tensors)";
    auto bad = [&](int32_t t, bool optional_ok) { return t < (optional_ok ? -1 : 0) || (t >= 0 && static_cast<size_t>(t) >= nt); };
    for (int io = 0; io < 2; ++io) {
      const auto& list = io == 0 ? sg.inputs : sg.outputs;
      for (size_t i = 0; i < list.size(); ++i)
        if (bad(list[i], false))
          r.report(tflr::subgraph_loc(*d, g), d->subgraph_label(g) + ": its " + (io == 0 ? "input " : "output ") +
                                                  std::to_string(i) + " names tensor " + std::to_string(list[i]) +
                                                  range);
    }
    for (size_t k = 0; k < sg.ops.size(); ++k) {
      const TflOperator& op = sg.ops[k];
      if (op.op < 0) {
        r.report(tflr::op_loc(*d, g, k), "operator " + std::to_string(k) + " of " + d->subgraph_label(g) +
                                             ": its opcode_index " + std::to_string(op.opcode_index) +
                                             " is past the model's operator codes");
        continue;
      }
      for (int io = 0; io < 2; ++io) {
        const auto& list = io == 0 ? op.inputs : op.outputs;
        for (size_t i = 0; i < list.size(); ++i)
          if (bad(list[i], io == 0))
            r.report(tflr::op_loc(*d, g, k), tflr::op_label(*d, g, k) + ": its " + (io == 0 ? "input " : "output ") +
                                                 std::to_string(i) + " names tensor " + std::to_string(list[i]) +
                                                 range);
      }
    }
    for (size_t t = 0; t < nt; ++t)
      if (sg.tensors[t].buffer >= d->buffer_count && !(sg.tensors[t].buffer == 0 && d->buffer_count == 0))
        r.report(tflr::tensor_loc(*d, g, static_cast<int32_t>(t)),
                 d->subgraph_label(g) + " " + d->describe(g, static_cast<int32_t>(t)) + ": its buffer " +
                     std::to_string(sg.tensors[t].buffer) + " is past the model's " +
                     std::to_string(d->buffer_count) + " buffers");
  }
}
}  // namespace condlint::rules::TFL008

CONDLINT_RULE(TFL008, "index-out-of-range", Level::Error, kTFLITE,
              "A tensor, opcode or buffer index the interpreter follows points past its table", check)
