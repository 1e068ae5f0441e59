// TFL003 subgraph-recursion: a subgraph reaches itself through the subgraphs its IF, WHILE and CALL_ONCE operators
// name (directly or through others). TFLite's control flow has no recursion: LiteRT 2.3.0 fails such a model in
// allocate_tensors on a count check, or, where the counts match, ends with SIGSEGV (corpus-tflite/invalid).
// One finding per cycle, at the operator that closes it.
#include <string>

#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL003 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::data(m);
  if (!d) return;
  // One finding per operator: the references of it that close a cycle (then and else may both).
  const auto recs = tflr::recursions(*d);
  for (size_t i = 0; i < recs.size();) {
    const tflr::Recursion& rec = recs[i];
    const auto& [role0, target] = d->subgraphs[rec.g].ops[rec.k].refs[rec.ref];
    std::string roles = role0;
    size_t j = i + 1;
    for (; j < recs.size() && recs[j].g == rec.g && recs[j].k == rec.k; ++j)
      roles += " and its " + d->subgraphs[rec.g].ops[rec.k].refs[recs[j].ref].first;
    std::string cycle;
    for (size_t g : rec.cycle) cycle += std::to_string(g) + " → ";
    r.report(tflr::op_loc(*d, rec.g, rec.k),
             tflr::op_label(*d, rec.g, rec.k) + " runs " + d->subgraph_label(static_cast<size_t>(target)) + " as its " +
                 roles + ", which is already running it: the subgraphs " + cycle + std::to_string(target) +
                 " call each other without end (TFLite has no recursion; LiteRT 2.3.0 fails or crashes preparing it)");
    i = j;
  }
}
}  // namespace condlint::rules::TFL003

CONDLINT_RULE(TFL003, "subgraph-recursion", Level::Error, kTFLITE,
              "A subgraph runs itself through IF / WHILE / CALL_ONCE, directly or through others", check)
