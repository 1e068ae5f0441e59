// TFL005 while-cond-output: a WHILE's cond subgraph must give exactly one output, a BOOL tensor of one element
// (the interpreter reads it as the loop's go-on flag).
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL005 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  tflr::for_each_op(*d, tfl::kWhile, [&](size_t g, size_t k, const TflOperator& op) {
    if (!op.has_refs || !tflr::runnable_subgraph(*d, op.refs[0].second)) return;  // TFL002
    const size_t c = static_cast<size_t>(op.refs[0].second);
    const TflSubgraph& cond = d->subgraphs[c];
    const std::string who = tflr::op_label(*d, g, k) + ": its cond " + d->subgraph_label(c);
    if (cond.outputs.size() != 1) {
      r.report(tflr::subgraph_loc(*d, c), who + " gives " + std::to_string(cond.outputs.size()) +
                                              " outputs; it must give exactly one BOOL of one element");
      return;
    }
    const TflTensor* t = d->tensor(c, cond.outputs[0]);
    if (!t) return;  // TFL008
    if (t->type != tfl::BOOL) {
      const std::string msg = who + " gives " + d->describe(c, cond.outputs[0]) + "; the loop's condition must be BOOL";
      // An operator's output takes the type its kernel gives it when the interpreter prepares the model: the file
      // contradicts itself, and the interpreter runs it (a warning); a constant or an input keeps the declared type,
      // which the interpreter refuses (while.cc: "cond_output->type != kTfLiteBool").
      if (tflr::written_by_op(*d, c, cond.outputs[0]))
        r.report_at(Level::Warning, tflr::tensor_loc(*d, c, cond.outputs[0]),
                    msg + " (it is an operator's output: the kernel may set its type when the interpreter prepares the model, as LiteRT 2.3.0 did for a LESS output declared FLOAT32 and an ADD output declared INT32, or may compute in the declared type)");
      else
        r.report(tflr::tensor_loc(*d, c, cond.outputs[0]), msg + " (LiteRT 2.3.0 refuses it in allocate_tensors)");
      return;
    }
    uint64_t count = 1;
    bool known = !t->rank_over_limit;
    const auto& dims = t->shape_signature && t->shape_signature->size() == t->shape.size() ? *t->shape_signature
                                                                                          : t->shape;
    for (int32_t n : dims) {
      if (n < 0) known = false;
      else count *= static_cast<uint64_t>(n);
    }
    if (known && count != 1)
      r.report(tflr::tensor_loc(*d, c, cond.outputs[0]),
               who + " gives " + d->describe(c, cond.outputs[0]) + " of " + std::to_string(count) +
                   " elements; the loop's condition must hold exactly one");
  });
}
}  // namespace condlint::rules::TFL005

CONDLINT_RULE(TFL005, "while-cond-output", Level::Error, kTFLITE,
              "A WHILE's cond subgraph does not give exactly one BOOL of one element", check)
