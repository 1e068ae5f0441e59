// TFL001 tflite-malformed: the file is not a TFLite model the interpreter reads: no "TFL3" identifier, a flatbuffer
// whose offsets, vectors or tables do not verify, no subgraph, or a schema version other than 3 (the interpreter's
// InterpreterBuilder refuses every other version). The loader records what it could not read; nothing else is judged.
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::TFL001 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const TfliteData* d = tflr::raw_data(m);
  if (!d) return;
  for (const TflProblem& p : d->problems) r.report(p.loc, p.message);
  if (d->problems.empty() && d->version != tfl::kSchemaVersion) {
    SourceLocation l;
    l.offset = 0;
    r.report(l, "the model states schema version " + std::to_string(d->version) +
                    "; the TFLite interpreter reads only version " + std::to_string(tfl::kSchemaVersion) +
                    " and refuses the file");
  }
}
}  // namespace condlint::rules::TFL001

CONDLINT_RULE(TFL001, "tflite-malformed", Level::Error, kTFLITE,
              "The file is not a TFLite flatbuffer the interpreter reads (identifier, verification, version)", check)
