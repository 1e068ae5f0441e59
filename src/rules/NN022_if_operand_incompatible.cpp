// NN022 if-operand-incompatible: each IF value and the branch operand it is bound to are
// compatible in NNAPI's sense (Validation.cpp `compatible`) — the parts the generic rules do not
// see: two operand types with the same element type (INT32 vs TENSOR_INT32, QUANT8_SYMM vs
// QUANT8_ASYMM_SIGNED), scale, zeroPoint and extraParams. Element types and shapes are C007-C010's.
#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN022 {
using namespace condlint;

bool same_elem(int32_t a, int32_t b) {
  const ElemType x = nn::elem_type(a), y = nn::elem_type(b);
  return x == y || x == ElemType::Unknown || y == ElemType::Unknown;
}

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  nnr::for_each_op(*d, nn::kIf, [&](int g, size_t k, const NnOperation& op) {
    if (op.inputs.size() < 3) return;
    for (int b = 0; b < 2; ++b) {
      const int bg = nnr::subgraph_ref(*d, g, op.inputs[1 + b]);
      if (bg < 0) continue;
      const NnSubgraph& br = d->subgraphs[bg];
      const char* bname = b ? "else" : "then";
      auto pair = [&](bool input, size_t i, uint32_t outer_idx, uint32_t inner_idx, const SourceLocation& loc) {
        const NnOperand* outer = nnr::operand(*d, g, outer_idx);
        const NnOperand* inner = nnr::operand(*d, bg, inner_idx);
        if (!outer || !inner) return;
        std::vector<std::string> why;
        if (outer->type != inner->type) {
          if (!same_elem(outer->type, inner->type)) return;  // C007 / C008
          why = nnr::incompatibilities(*outer, *inner, nnr::kType);
        } else {
          why = nnr::incompatibilities(*outer, *inner, nnr::kQuant | nnr::kExtra);
        }
        if (why.empty()) return;
        const std::string where =
            input ? "input " + std::to_string(3 + i) + " → " + bname + " input " + std::to_string(i)
                  : std::string(bname) + " output " + std::to_string(i) + " → output " + std::to_string(i);
        r.report(loc, nnr::op_name(*d, g, k) + ", " + where + ": " + nnr::operand_desc(*d, g, outer_idx) + " vs " +
                          nnr::operand_desc(*d, bg, inner_idx) + " are not compatible (" + nnr::join(why) + ")");
      };
      for (size_t i = 0; i < br.input_indexes.size() && 3 + i < op.inputs.size(); ++i)
        pair(true, i, op.inputs[3 + i], br.input_indexes[i], nnr::op_input_loc(*d, g, k, 3 + i));
      for (size_t j = 0; j < br.output_indexes.size() && j < op.outputs.size(); ++j)
        pair(false, j, op.outputs[j], br.output_indexes[j], nnr::op_output_loc(*d, g, k, j));
    }
  });
}
}  // namespace condlint::rules::NN022

CONDLINT_RULE(NN022, "if-operand-incompatible", Level::Error, kNNAPI,
              "An IF value and its branch operand differ in NNAPI operand type, scale, zeroPoint or extraParams", check)
