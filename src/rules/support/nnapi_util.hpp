// Helpers shared by the NN rules: operand lookup, labels and locations, NNAPI's notion of
// compatible operands (Validation.cpp `compatible`), and iteration over IF / WHILE operations.
#pragma once

#include <string>
#include <vector>

#include "model/nnapi_data.hpp"
#include "rules/engine.hpp"

namespace condlint::nnr {

// The NNAPI data of a model whose document parsed and met the schema; null otherwise (the
// model rules then have nothing reliable to look at, NN001/NN002 say why).
const NnapiData* data(const Model& m);
// Any NNAPI data, also for broken documents (for the parse-problem rules).
const NnapiData* raw_data(const Model& m);
// Reports every problem of that kind the loader recorded (NN001-NN004: one rule per kind).
void report_problems(const Model& m, Reporter& r, NnProblem::Kind kind);

const NnOperand* operand(const NnapiData& d, int g, int64_t idx);
// "main operand 3 'x'"
std::string operand_label(const NnapiData& d, int g, int64_t idx);
// "TENSOR_FLOAT32 [2] (main operand 3 'x')"
std::string operand_desc(const NnapiData& d, int g, int64_t idx);
SourceLocation operand_loc(const NnapiData& d, int g, int64_t idx);

// "IF operation 3 in main"
std::string op_name(const NnapiData& d, int g, size_t k);
SourceLocation op_loc(const NnapiData& d, int g, size_t k);
SourceLocation op_input_loc(const NnapiData& d, int g, size_t k, size_t slot);
SourceLocation op_output_loc(const NnapiData& d, int g, size_t k, size_t slot);
SourceLocation io_loc(const NnapiData& d, int g, bool input, size_t slot);

// The graph (index into subgraphs / Model::graphs) that a SUBGRAPH operand names, or -1 when the
// operand is out of range, not of type SUBGRAPH, or its offset is not a referenced graph.
int subgraph_ref(const NnapiData& d, int g, int64_t idx);

// What makes two operands incompatible in NNAPI's sense, as readable reasons ("type TENSOR_INT32
// vs INT32", "scale 0.5 vs 0.25", "dimension 1: 3 vs 4"). Empty when compatible.
enum Part : unsigned { kType = 1, kShape = 2, kQuant = 4, kExtra = 8, kAll = 15 };
std::vector<std::string> incompatibilities(const NnOperand& a, const NnOperand& b, unsigned parts = kAll);
std::string join(const std::vector<std::string>& v, const char* sep = "; ");

// Calls f(g, k, op) for every operation of the given type in every graph.
template <class F>
void for_each_op(const NnapiData& d, int32_t type, F&& f) {
  for (size_t g = 0; g < d.subgraphs.size(); ++g)
    for (size_t k = 0; k < d.subgraphs[g].operations.size(); ++k)
      if (d.subgraphs[g].operations[k].type == type) f(static_cast<int>(g), k, d.subgraphs[g].operations[k]);
}

}  // namespace condlint::nnr
