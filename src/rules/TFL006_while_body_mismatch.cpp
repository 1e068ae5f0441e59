// TFL006 while-body-mismatch: a WHILE's body gives back the loop values for the next iteration, so it must give as
// many outputs as it takes inputs, each of the element type of the value it replaces (the WHILE's input, the body's
// input and the WHILE's output in that place). Shapes may change from one iteration to the next: the interpreter
// resizes the loop values, so a shape that differs is no finding here.
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL006 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  tflr::for_each_op(*d, tfl::kWhile, [&](size_t g, size_t k, const TflOperator& op) {
    if (!op.has_refs) return;
    const int32_t b = op.refs[1].second;
    if (!tflr::runnable_subgraph(*d, b)) return;  // TFL002
    const size_t bg = static_cast<size_t>(b);
    const TflSubgraph& body = d->subgraphs[bg];
    const std::string who = tflr::op_label(*d, g, k) + ": its body " + d->subgraph_label(bg);
    if (body.outputs.size() != body.inputs.size()) {
      r.report(tflr::subgraph_loc(*d, bg), who + " takes " + std::to_string(body.inputs.size()) + " inputs and gives " +
                                               std::to_string(body.outputs.size()) +
                                               " outputs; each iteration must give back every loop value");
      return;
    }
    for (size_t i = 0; i < body.outputs.size(); ++i) {
      const TflTensor* out = d->tensor(bg, body.outputs[i]);
      const TflTensor* in = d->tensor(bg, body.inputs[i]);
      if (!out || !in) continue;  // TFL008
      // The loop value as the WHILE passes it in, where the count lets it be told (else the body's own input).
      const TflTensor* outer = i < op.inputs.size() ? d->tensor(g, op.inputs[i]) : nullptr;
      const TflTensor* want = outer ? outer : in;
      if (out->type == want->type && in->type == want->type) continue;
      const std::string msg =
          who + " gives " + d->describe(bg, body.outputs[i]) + " as loop value " + std::to_string(i) +
          ", which enters as " + (outer ? d->describe(g, op.inputs[i]) : d->describe(bg, body.inputs[i])) +
          (in->type != want->type ? " and is taken by the body as " + d->describe(bg, body.inputs[i]) : "") +
          ": a loop value keeps its element type from one iteration to the next";
      // As TFL005: an operator's output takes its kernel's type (LiteRT 2.3.0 runs such a body, a warning); a value
      // the body passes through or a constant keeps the declared one (while.cc refuses it: an error).
      if (out->type == want->type || !tflr::written_by_op(*d, bg, body.outputs[i]))
        r.report(tflr::tensor_loc(*d, bg, body.outputs[i]), msg);
      else
        r.report_at(Level::Warning, tflr::tensor_loc(*d, bg, body.outputs[i]),
                    msg + " (it is an operator's output: the kernel may set its type when the interpreter prepares the model, as LiteRT 2.3.0 did for a LESS output declared FLOAT32 and an ADD output declared INT32, or may compute in the declared type)");
    }
  });
}
}  // namespace condlint::rules::TFL006

CONDLINT_RULE(TFL006, "while-body-mismatch", Level::Error, kTFLITE,
              "A WHILE's body does not give back each loop value with its element type", check)
