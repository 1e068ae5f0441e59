// TFL009 nnapi-delegate-control-flow: under `--target nnapi`, what the TFLite NNAPI delegate does with the model's
// IF and WHILE operators: it never hands them to NNAPI, at any feature level. NNAPIDelegateKernel::Validate has no
// case for them (its default rejects the node) and the delegate builds no referenced models, although NNAPI itself
// has IF and WHILE since feature level 4 (docs/tflite-nnapi-delegate.md, data/tflite_nnapi_delegate.json). The
// operators run on TFLite's own CPU kernels and the delegated partitions stop at them: a note, once per model.
#include <optional>
#include <utility>

#include "rules/support/targets.hpp"
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL009 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  if (targets::targets_for(r.options(), "nnapi", m.format).empty() && !r.options().nnapi_target_given) return;
  size_t ifs = 0, whiles = 0;
  std::optional<std::pair<size_t, size_t>> first;
  for (size_t g = 0; g < d->subgraphs.size(); ++g)
    for (size_t k = 0; k < d->subgraphs[g].ops.size(); ++k) {
      const int32_t op = d->subgraphs[g].ops[k].op;
      if (op != tfl::kIf && op != tfl::kWhile) continue;
      (op == tfl::kIf ? ifs : whiles) += 1;
      if (!first) first = std::make_pair(g, k);
    }
  if (!first) return;
  std::string what;
  if (ifs) what = std::to_string(ifs) + " IF";
  if (whiles) what += std::string(what.empty() ? "" : " and ") + std::to_string(whiles) + " WHILE";
  r.report(tflr::op_loc(*d, first->first, first->second),
           "the TFLite NNAPI delegate hands no IF or WHILE to NNAPI at any feature level (NNAPIDelegateKernel::Validate "
           "has no case for them: LiteRT f674577, tflite/delegates/nnapi/nnapi_delegate.cc:3650-3655): the model's " +
               what + " operator(s), the first " + tflr::op_label(*d, first->first, first->second) +
               ", run on TFLite's CPU kernels, and the operators around them are delegated in separate partitions "
               "(at most 3 by default)");
}
}  // namespace condlint::rules::TFL009

CONDLINT_RULE(TFL009, "nnapi-delegate-control-flow", Level::Note, kTFLITE,
              "--target nnapi: the TFLite NNAPI delegate keeps IF and WHILE on TFLite's CPU kernels", check)
