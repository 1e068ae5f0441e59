// NN026 control-flow-unknown-size: IF / WHILE operands of unknown size (unknown rank or a 0
// dimension). Android's runtime accepts them but runs such an operation on its own CPU path only
// (ExecutionPlan.cpp, Validation.cpp marks WHILE runtime-only); HAL drivers must reject them (the
// HAL documents fully specified shapes for IF and WHILE; ValidateHal/LegacyUtils reject WHILE in
// driver mode). `--nnapi-target runtime` (default): note; `--nnapi-target hal`: error.
#include <set>

#include "rules/support/nnapi_util.hpp"

namespace condlint::rules::NN026 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const NnapiData* d = nnr::data(m);
  if (!d) return;
  const bool hal = r.options().nnapi_target == "hal";
  for (int32_t type : {nn::kIf, nn::kWhile}) {
    nnr::for_each_op(*d, type, [&](int g, size_t k, const NnOperation& op) {
      std::vector<std::pair<int, uint32_t>> list;
      std::set<std::pair<int, uint32_t>> seen;
      auto add = [&](int graph, uint32_t idx) {
        const NnOperand* o = nnr::operand(*d, graph, idx);
        // An operand whose dimensions were past condlint's limit is reported once, by C013.
        if (o && !o->dims_over_limit && nn::has_unknown_size(*o) && seen.insert({graph, idx}).second)
          list.emplace_back(graph, idx);
      };
      const bool is_if = type == nn::kIf;
      const size_t first_value = is_if ? 3 : 2;
      for (size_t i = first_value; i < op.inputs.size(); ++i) add(g, op.inputs[i]);
      for (uint32_t o : op.outputs) add(g, o);
      for (size_t b = 0; b < 2; ++b) {
        const size_t slot = is_if ? 1 + b : b;
        if (slot >= op.inputs.size()) continue;
        const int sg = nnr::subgraph_ref(*d, g, op.inputs[slot]);
        if (sg < 0) continue;
        for (uint32_t i : d->subgraphs[sg].input_indexes) add(sg, i);
        // WHILE: the condition output is NN025's (it must be [1]); body outputs are counted.
        if (is_if || b == 1)
          for (uint32_t o : d->subgraphs[sg].output_indexes) add(sg, o);
      }
      if (list.empty()) return;
      std::string ops;
      for (size_t i = 0; i < list.size() && i < 4; ++i)
        ops += (i ? ", " : "") + nnr::operand_desc(*d, list[i].first, list[i].second);
      if (list.size() > 4) ops += " and " + std::to_string(list.size() - 4) + " more";
      const std::string head = nnr::op_name(*d, g, k) + " has " + std::to_string(list.size()) +
                               " operand(s) of unknown size at its boundary: " + ops + "; ";
      if (hal)
        r.report_at(Level::Error, nnr::op_loc(*d, g, k),
                    head + "a HAL driver must reject this model (the HAL requires fully specified shapes for " +
                        (is_if ? "IF" : "WHILE") + " operands)");
      else
        r.report(nnr::op_loc(*d, g, k), head + "Android's runtime runs this " + (is_if ? "IF" : "WHILE") +
                                            " on its CPU path only and never hands it to a driver");
    });
  }
}
}  // namespace condlint::rules::NN026

CONDLINT_RULE(NN026, "control-flow-unknown-size", Level::Note, kNNAPI,
              "IF/WHILE operands of unknown size: CPU-only at run time (note), rejected by HAL drivers (error with "
              "--nnapi-target hal)",
              check)
