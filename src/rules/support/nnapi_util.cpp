#include "rules/support/nnapi_util.hpp"

#include <cstdio>

namespace condlint::nnr {

const NnapiData* raw_data(const Model& m) { return m.format == Format::NNAPI ? m.nnapi.get() : nullptr; }

void report_problems(const Model& m, Reporter& r, NnProblem::Kind kind) {
  const NnapiData* d = raw_data(m);
  if (!d) return;
  for (const auto& p : d->problems)
    if (p.kind == kind) r.report(p.loc, p.message);
}

const NnapiData* data(const Model& m) {
  const NnapiData* d = raw_data(m);
  return d && d->structurally_valid && !d->subgraphs.empty() ? d : nullptr;
}

const NnOperand* operand(const NnapiData& d, int g, int64_t idx) {
  if (g < 0 || g >= static_cast<int>(d.subgraphs.size())) return nullptr;
  const auto& ops = d.subgraphs[g].operands;
  if (idx < 0 || idx >= static_cast<int64_t>(ops.size())) return nullptr;
  return &ops[static_cast<size_t>(idx)];
}

std::string operand_label(const NnapiData& d, int g, int64_t idx) {
  std::string s = d.subgraphs[g].label + " operand " + std::to_string(idx);
  if (const NnOperand* o = operand(d, g, idx); o && !o->name.empty()) s += " '" + o->name + "'";
  return s;
}

std::string operand_desc(const NnapiData& d, int g, int64_t idx) {
  const NnOperand* o = operand(d, g, idx);
  if (!o) return operand_label(d, g, idx) + " (no such operand)";
  return nn::describe_operand(*o) + " (" + operand_label(d, g, idx) + ")";
}

SourceLocation operand_loc(const NnapiData& d, int g, int64_t idx) {
  if (const NnOperand* o = operand(d, g, idx)) return o->loc;
  return d.subgraphs[g].loc;
}

std::string op_name(const NnapiData& d, int g, size_t k) {
  return nn::operation_name(d.subgraphs[g].operations[k].type) + " operation " + std::to_string(k) + " in " +
         d.subgraphs[g].label;
}

SourceLocation op_loc(const NnapiData& d, int g, size_t k) {
  SourceLocation l = d.subgraphs[g].operations[k].loc;
  l.node_index = static_cast<int>(k);
  return l;
}

SourceLocation op_input_loc(const NnapiData& d, int g, size_t k, size_t slot) {
  const NnOperation& op = d.subgraphs[g].operations[k];
  SourceLocation l = slot < op.input_pos.size()
                         ? NnapiData::element(op.inputs_loc, "/" + std::to_string(slot), op.input_pos[slot])
                         : op.inputs_loc;
  l.node_index = static_cast<int>(k);
  return l;
}

SourceLocation op_output_loc(const NnapiData& d, int g, size_t k, size_t slot) {
  const NnOperation& op = d.subgraphs[g].operations[k];
  SourceLocation l = slot < op.output_pos.size()
                         ? NnapiData::element(op.outputs_loc, "/" + std::to_string(slot), op.output_pos[slot])
                         : op.outputs_loc;
  l.node_index = static_cast<int>(k);
  return l;
}

SourceLocation io_loc(const NnapiData& d, int g, bool input, size_t slot) {
  const NnSubgraph& sg = d.subgraphs[g];
  const auto& pos = input ? sg.input_pos : sg.output_pos;
  const auto& base = input ? sg.inputs_loc : sg.outputs_loc;
  return slot < pos.size() ? NnapiData::element(base, "/" + std::to_string(slot), pos[slot]) : base;
}

int subgraph_ref(const NnapiData& d, int g, int64_t idx) {
  const NnOperand* o = operand(d, g, idx);
  if (!o || o->type != nn::SUBGRAPH || o->offset >= d.referenced_count()) return -1;
  return static_cast<int>(o->offset) + 1;
}

static std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::vector<std::string> incompatibilities(const NnOperand& a, const NnOperand& b, unsigned parts) {
  std::vector<std::string> why;
  if ((parts & kType) && a.type != b.type)
    why.push_back("type " + nn::operand_type_name(a.type) + " vs " + nn::operand_type_name(b.type));
  if ((parts & kShape) && !a.dimensions.empty() && !b.dimensions.empty()) {
    if (a.dimensions.size() != b.dimensions.size()) {
      why.push_back("rank " + std::to_string(a.dimensions.size()) + " vs " + std::to_string(b.dimensions.size()));
    } else {
      for (size_t i = 0; i < a.dimensions.size(); ++i)
        if (a.dimensions[i] && b.dimensions[i] && a.dimensions[i] != b.dimensions[i])
          why.push_back("dimension " + std::to_string(i) + ": " + std::to_string(a.dimensions[i]) + " vs " +
                        std::to_string(b.dimensions[i]));
    }
  }
  if (parts & kQuant) {
    if (a.scale != b.scale) why.push_back("scale " + num(a.scale) + " vs " + num(b.scale));
    if (a.zero_point != b.zero_point)
      why.push_back("zeroPoint " + std::to_string(a.zero_point) + " vs " + std::to_string(b.zero_point));
  }
  if (parts & kExtra) {
    const bool same = a.extra == b.extra &&
                      (a.extra != NnOperand::Extra::ChannelQuant ||
                       (a.channel_dim == b.channel_dim && a.channel_scales == b.channel_scales)) &&
                      (a.extra != NnOperand::Extra::Extension || a.extension_bytes == b.extension_bytes);
    if (!same) why.push_back("extraParams differ");
  }
  return why;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

}  // namespace condlint::nnr
