// Helpers shared by the TFL rules: the TFLite data of a model, labels and locations of operators and subgraphs, and
// iteration over the control-flow operators.
#pragma once

#include <string>
#include <vector>

#include "model/tflite_data.hpp"
#include "rules/engine.hpp"

namespace condlint::tflr {

// The TFLite data of a model the loader could read (no TFL001 problem); null otherwise.
const TfliteData* data(const Model& m);
// Any TFLite data, also for a file that could not be read (TFL001).
const TfliteData* raw_data(const Model& m);

// "IF operator 3 of subgraph 0 'main'"
std::string op_label(const TfliteData& d, size_t g, size_t k);
SourceLocation op_loc(const TfliteData& d, size_t g, size_t k);
SourceLocation subgraph_loc(const TfliteData& d, size_t g);
SourceLocation tensor_loc(const TfliteData& d, size_t g, int32_t t);
// Whether `index` names a subgraph an operator may run: in range and not the main subgraph (0).
bool runnable_subgraph(const TfliteData& d, int32_t index);

// Whether some operator of subgraph `g` writes tensor `t`. Such a tensor's element type is what the operator's kernel
// makes of it when the interpreter prepares the model, whatever the file declares (measured with LiteRT 2.3.0: a
// WHILE's cond whose LESS output is declared FLOAT32, and a body whose ADD output is declared INT32, run and give the
// golden outputs); a constant's or a subgraph input's declared type is the one the interpreter uses.
bool written_by_op(const TfliteData& d, size_t g, int32_t t);

// What the TFLite interpreter does with a declared type it contradicts, for the rules' messages (measured: corpus-tflite/invalid/MANIFEST.tsv).
inline constexpr const char* kTypeNotChecked =
    "the TFLite interpreter does not check it: the IF's output takes the type of the branch that runs (LiteRT 2.3.0 "
    "gave int32 values for a FLOAT32 output)";

// A reference of an IF, WHILE or CALL_ONCE to a subgraph already running it (a recursion), as a depth-first walk of
// the references from every subgraph finds it: the operator, which of its references, and the subgraphs of the
// cycle from the one it runs back to the operator's. In the order the walk meets them.
struct Recursion {
  size_t g = 0, k = 0, ref = 0;
  std::vector<size_t> cycle;
};
std::vector<Recursion> recursions(const TfliteData& d);
// Whether every control-flow operator names subgraphs it can run (no TFL002 finding) and none runs itself (no
// TFL003 finding): what the rules that would only repeat those findings' consequences ask first.
bool references_sound(const TfliteData& d);

// Calls f(g, k, op) for every operator whose resolved BuiltinOperator is `code`, in every subgraph.
template <class F>
void for_each_op(const TfliteData& d, int32_t code, F&& f) {
  for (size_t g = 0; g < d.subgraphs.size(); ++g)
    for (size_t k = 0; k < d.subgraphs[g].ops.size(); ++k)
      if (d.subgraphs[g].ops[k].op == code) f(g, k, d.subgraphs[g].ops[k]);
}

}  // namespace condlint::tflr
