#include "model/condition_trace.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "model/nnapi_data.hpp"

namespace condlint {

namespace {

constexpr int kMaxDepth = 24;
constexpr int kMaxSteps = 400;
constexpr int64_t kMaxConstBytes = 64;  // the Consts whose values are read (indices, sizes a condition compares)

std::string num(double d) { return condition_number(d); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

uint64_t key(int graph, int node) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(graph)) << 32) | static_cast<uint32_t>(node);
}

// The comparison, logic and arithmetic ops of OpenVINO's opsets and of NNAPI, by the symbol the text uses (NNAPI's
// ADD, SUB and MUL take a fused activation as a third input, which the text leaves out).
const std::map<std::string_view, std::string_view>& binary_ops() {
  static const std::map<std::string_view, std::string_view> ops = {{"Equal", "=="},
                                                                   {"NotEqual", "!="},
                                                                   {"Greater", ">"},
                                                                   {"GreaterEqual", ">="},
                                                                   {"Less", "<"},
                                                                   {"LessEqual", "<="},
                                                                   {"LogicalAnd", "and"},
                                                                   {"LogicalOr", "or"},
                                                                   {"LogicalXor", "xor"},
                                                                   {"Add", "+"},
                                                                   {"Subtract", "-"},
                                                                   {"Multiply", "*"},
                                                                   {"EQUAL", "=="},
                                                                   {"NOT_EQUAL", "!="},
                                                                   {"GREATER", ">"},
                                                                   {"GREATER_EQUAL", ">="},
                                                                   {"LESS", "<"},
                                                                   {"LESS_EQUAL", "<="},
                                                                   {"LOGICAL_AND", "and"},
                                                                   {"LOGICAL_OR", "or"},
                                                                   {"ADD", "+"},
                                                                   {"SUB", "-"},
                                                                   {"MUL", "*"}};
  return ops;
}

// Ops that pass their first input's value on (as far as the condition is concerned).
bool passes_value(std::string_view op) {
  return op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Convert" || op == "Identity" ||
         op == "CAST" || op == "RESHAPE" || op == "SQUEEZE" || op == "EXPAND_DIMS";
}

struct Sym {
  std::string text;
  bool comparison = false;
  std::string shape_of;                       // the value is ShapeOf(shape_of) itself
  std::optional<std::vector<double>> values;  // a Const's values, when read
};

class Tracer {
 public:
  Tracer(const Model& m, const IrConstIndex* consts, ConditionProvenance& out) : m_(m), consts_(consts), out_(out) {}

  Sym eval(const ValueRef& ref, int depth) {
    if (!ref.valid() || ref.graph >= static_cast<int>(m_.graphs.size()) ||
        ref.node >= static_cast<int>(m_.graphs[ref.graph].nodes.size()))
      return opaque("?");
    const Node& n = m_.graphs[ref.graph].nodes[ref.node];
    const std::string name = n.display();
    if (depth > kMaxDepth || ++steps_ > kMaxSteps) return opaque(name);
    auto in = [&](size_t i) { return eval_input(ref.graph, ref.node, i, depth + 1); };
    if (n.op == "Parameter") return opaque(name);
    if (n.op == "Const" || n.op == "Constant") {
      Sym s;
      s.values = const_values(ref);
      if (s.values && s.values->size() == 1) {
        s.text = num((*s.values)[0]);
        if (std::isfinite((*s.values)[0])) constants_.insert((*s.values)[0]);
      } else {
        s.text = quoted(name);
      }
      return s;
    }
    if (n.op == "ShapeOf") {
      out_.on_shapes = true;
      Sym s;
      const std::string x = producer_name(n, 0);
      tested_.insert(x);
      s.text = "shape(" + quoted(x) + ")";
      s.shape_of = x;
      return s;
    }
    if (n.op == "Gather" && n.sources.size() >= 2) {
      const Sym data = in(0), idx = in(1);
      Sym s;
      if (!data.shape_of.empty() && idx.values && idx.values->size() == 1)
        s.text = "dim " + num((*idx.values)[0]) + " of " + quoted(data.shape_of);
      else s.text = data.text + "[" + idx.text + "]";
      return s;
    }
    if (passes_value(n.op)) {
      Sym s = in(0);
      s.shape_of.clear();
      s.values.reset();
      if (n.op == "Convert")
        if (const std::string* to = n.attrs.find("destination_type"); to && *to == "boolean" && !s.comparison) {
          s.text += " != 0";
          s.comparison = true;
        }
      return s;
    }
    if (n.op == "LogicalNot" || n.op == "LOGICAL_NOT") {
      Sym s = in(0);
      s.text = negated_condition(s.text, s.comparison);
      s.shape_of.clear();
      s.values.reset();
      return s;
    }
    if (auto b = binary_ops().find(n.op); b != binary_ops().end() && n.sources.size() >= 2) {
      const Sym a = in(0), c = in(1);
      Sym s;
      s.text = a.text + " " + std::string(b->second) + " " + c.text;
      s.comparison = b->second == "==" || b->second == "!=" || b->second == ">" || b->second == ">=" ||
                     b->second == "<" || b->second == "<=";
      return s;
    }
    return opaque(name);
  }

  // Input `i` of a node: the output that feeds it, or, where no node does (an NNAPI subgraph input or constant
  // operand), the operand itself.
  Sym eval_input(int graph, int node, size_t i, int depth) {
    const Node& n = m_.graphs[graph].nodes[node];
    if (i < n.sources.size() && n.sources[i].valid()) return eval(n.sources[i], depth);
    if (!m_.nnapi || i >= n.inputs.size() || graph >= static_cast<int>(m_.nnapi->subgraphs.size())) return opaque("?");
    const auto& operands = m_.nnapi->subgraphs[graph].operands;
    size_t idx = 0;
    try {
      idx = std::stoul(n.inputs[i].id);
    } catch (const std::exception&) {
      return opaque("?");
    }
    if (idx >= operands.size()) return opaque("?");
    const NnOperand& o = operands[idx];
    const std::string name = o.name.empty() ? "operand " + std::to_string(idx) : o.name;
    if (o.lifetime == nn::CONSTANT_COPY || o.lifetime == nn::CONSTANT_REFERENCE) {
      Sym s;
      s.text = quoted(name);
      // A one-element boolean copied into the model: its value, read within the operand values.
      const std::string& bytes = m_.nnapi->operand_values;
      if (o.lifetime == nn::CONSTANT_COPY && m_.nnapi->operand_values_loaded && o.length == 1 &&
          (o.type == nn::BOOL || o.type == nn::TENSOR_BOOL8) && o.offset < bytes.size())
        s.values = std::vector<double>{bytes[o.offset] != 0 ? 1.0 : 0.0};
      return s;
    }
    return opaque(name);
  }

  std::set<std::string> tested_;
  std::set<double> constants_;

 private:
  // A value the tracer does not look into: its value decides.
  Sym opaque(const std::string& name) {
    out_.on_values = true;
    tested_.insert(name);
    Sym s;
    s.text = quoted(name);
    return s;
  }

  std::string producer_name(const Node& n, size_t i) const {
    if (i >= n.sources.size() || !n.sources[i].valid()) return "?";
    const ValueRef& r = n.sources[i];
    if (r.graph >= static_cast<int>(m_.graphs.size()) || r.node >= static_cast<int>(m_.graphs[r.graph].nodes.size()))
      return "?";
    return m_.graphs[r.graph].nodes[r.node].display();
  }

  // The values of a small integer Const, read from the weights file within its bounds; nothing when it is not one.
  std::optional<std::vector<double>> const_values(const ValueRef& ref) {
    if (!m_.ir || !m_.ir->weights_size || !consts_) return std::nullopt;
    if (auto it = consts_->find(key(ref.graph, ref.node)); it != consts_->end()) {
      const IrConst& c = *it->second;
      if (!c.offset || !c.size || *c.offset < 0 || *c.size <= 0 || *c.size > kMaxConstBytes ||
          static_cast<uint64_t>(*c.offset) + static_cast<uint64_t>(*c.size) > *m_.ir->weights_size)
        return std::nullopt;
      const int width = c.elem == ElemType::I64 ? 8 : c.elem == ElemType::I32 ? 4 : 0;
      if (width == 0 || *c.size % width != 0) return std::nullopt;
      std::ifstream f(m_.ir->weights_path, std::ios::binary);
      if (!f.seekg(*c.offset)) return std::nullopt;
      std::string bytes(static_cast<size_t>(*c.size), '\0');
      if (!f.read(bytes.data(), *c.size)) return std::nullopt;
      std::vector<double> out;
      for (int64_t k = 0; k < *c.size; k += width) {
        if (width == 8) {
          int64_t v;
          std::memcpy(&v, bytes.data() + k, 8);
          out.push_back(static_cast<double>(v));
        } else {
          int32_t v;
          std::memcpy(&v, bytes.data() + k, 4);
          out.push_back(v);
        }
      }
      return out;
    }
    return std::nullopt;
  }

  const Model& m_;
  const IrConstIndex* consts_;
  ConditionProvenance& out_;
  int steps_ = 0;
};

}  // namespace

std::string condition_number(double d) {
  if (std::fabs(d) < 9e15 && d == std::floor(d)) return std::to_string(static_cast<long long>(d));
  std::ostringstream ss;
  ss << d;
  return ss.str();
}

std::string negated_condition(const std::string& text, bool comparison) {
  std::string s = text;
  if (comparison && s.find(" == ") != std::string::npos) s.replace(s.find(" == "), 4, " != ");
  else if (comparison && s.find(" != ") != std::string::npos) s.replace(s.find(" != "), 4, " == ");
  else s = "not (" + s + ")";
  return s;
}

IrConstIndex index_ir_consts(const Model& m) {
  IrConstIndex out;
  if (m.ir)
    for (const IrConst& c : m.ir->consts) out.emplace(key(c.graph, c.node), &c);
  return out;
}

ConditionProvenance trace_node_input(const Model& m, int graph, int node, int input) {
  ConditionProvenance p;
  if (graph < 0 || graph >= static_cast<int>(m.graphs.size()) || node < 0 ||
      node >= static_cast<int>(m.graphs[graph].nodes.size()) || input < 0)
    return p;
  Tracer t(m, nullptr, p);
  const Sym s = t.eval_input(graph, node, static_cast<size_t>(input), 0);
  p.text = s.text;
  p.traced = true;
  if (s.values && s.values->size() == 1) {  // the condition operand is itself a constant
    p.decided = (*s.values)[0] != 0 ? 1 : 0;
    p.decided_why = s.text + " is a constant";
  }
  p.tested.assign(t.tested_.begin(), t.tested_.end());
  p.constants.assign(t.constants_.begin(), t.constants_.end());
  return p;
}

ConditionProvenance trace_model_condition(const Model& m, const ValueRef& cond, const IrConstIndex* consts) {
  ConditionProvenance p;
  if (!cond.valid()) return p;
  Tracer t(m, consts, p);
  p.text = t.eval(cond, 0).text;
  p.traced = true;
  p.tested.assign(t.tested_.begin(), t.tested_.end());
  p.constants.assign(t.constants_.begin(), t.constants_.end());
  return p;
}

}  // namespace condlint
