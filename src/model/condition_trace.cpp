#include "model/condition_trace.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "model/condition_sym.hpp"
#include "model/nnapi_data.hpp"

namespace condlint {

namespace {

constexpr uint32_t kMaxConstBytes = 64;  // the constants whose values are read (indices, sizes a condition compares)

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

// Ops that pass their first input's elements on, in another shape (Identity keeps the shape too).
bool passes_value(std::string_view op) {
  return op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Identity" || op == "RESHAPE" ||
         op == "SQUEEZE" || op == "EXPAND_DIMS";
}

// The declared shape of `ref` where it is a fact about every input the model accepts: the output of a Parameter of
// the main graph whose `shape` attribute states it (a body's Parameters take what the enclosing op binds, and the
// declared shapes of computed values are what the IR rules check, not facts to build on).
const Shape* declared_input_shape(const Model& m, const ValueRef& ref) {
  if (!m.ir || !ref.valid() || ref.graph >= static_cast<int>(m.graphs.size())) return nullptr;
  const Graph& g = m.graphs[ref.graph];
  if (g.parent_graph >= 0 || ref.node >= static_cast<int>(g.nodes.size())) return nullptr;
  const Node& n = g.nodes[ref.node];
  if (n.op != "Parameter" || !n.attrs.find("shape") || n.outputs.empty() || ref.output != 0) return nullptr;
  return n.outputs[0].shape().rank_known ? &n.outputs[0].shape() : nullptr;
}

// A value in the Model: the output `ref`, or (input >= 0) input `input` of node `node` in graph `graph`: the output
// that feeds it, or where no node does (an NNAPI subgraph input or constant operand), the operand itself.
struct ModelValue {
  ValueRef ref;
  int graph = -1, node = -1, input = -1;
};

// The IR and NNAPI adapter of CondTracer: reads the Model's nodes, IR Consts from the weights file and NNAPI operand
// values.
class ModelAdapter {
 public:
  using Handle = ModelValue;
  static constexpr bool kMemo = false;
  using Step = CondStep<ModelValue>;
  using Tracer = CondTracer<ModelAdapter>;

  ModelAdapter(const Model& m, const IrConstIndex* consts, const ProvenShapes* proven = nullptr)
      : m_(m), consts_(consts), proven_(proven) {}

  Step read(const ModelValue& h, Tracer& t, int depth) {
    if (h.input >= 0) {
      const Node& n = m_.graphs[h.graph].nodes[h.node];
      const auto i = static_cast<size_t>(h.input);
      if (i < n.sources.size() && n.sources[i].valid()) return read_output(n.sources[i], t, depth);
      const NnOperand* o = nnapi_operand(h.graph, n, i);
      if (!o) return opaque("?");
      const std::string name = operand_name(h.graph, n, i);
      if (o->lifetime == nn::CONSTANT_COPY || o->lifetime == nn::CONSTANT_REFERENCE)
        return constant(nnapi_values(*o), nn::is_scalar(o->type) ? 0 : o->dimensions.size(), name);
      return opaque(name);
    }
    return read_output(h.ref, t, depth);
  }

  // The NNAPI operand that input `i` of `n` names (null for other formats or a bad index).
  const NnOperand* nnapi_operand(int graph, const Node& n, size_t i) const {
    if (!m_.nnapi || i >= n.inputs.size() || graph >= static_cast<int>(m_.nnapi->subgraphs.size())) return nullptr;
    const auto& operands = m_.nnapi->subgraphs[graph].operands;
    const std::string& id = n.inputs[i].id;
    if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos) return nullptr;
    const size_t idx = std::stoul(id);
    return idx < operands.size() ? &operands[idx] : nullptr;
  }

  std::string operand_name(int graph, const Node& n, size_t i) const {
    const NnOperand* o = nnapi_operand(graph, n, i);
    return !o ? "?" : !o->name.empty() ? o->name : "operand " + n.inputs[i].id;
  }

 private:
  static Step opaque(std::string name) {
    Step s;
    s.name = std::move(name);
    return s;
  }
  static Step unary(typename Step::Kind k, ModelValue x) {
    Step s;
    s.kind = k;
    s.in.emplace_back(x);
    return s;
  }
  ModelValue input_of(const ValueRef& ref, size_t i) const {
    return ModelValue{{}, ref.graph, ref.node, static_cast<int>(i)};
  }

  Step read_output(const ValueRef& ref, Tracer& t, int depth) {
    if (!ref.valid() || ref.graph >= static_cast<int>(m_.graphs.size()) ||
        ref.node >= static_cast<int>(m_.graphs[ref.graph].nodes.size()))
      return opaque("?");
    const Node& n = m_.graphs[ref.graph].nodes[ref.node];
    const std::string name = n.display();
    if (t.spent(depth)) return opaque(name);
    using K = Step::Kind;
    auto in = [&](size_t i) { return input_of(ref, i); };
    if (n.op == "Parameter") return opaque(name);
    if (n.op == "Const" || n.op == "Constant") return constant(const_values(ref), const_rank(ref), name);
    if (n.op == "ShapeOf") {
      Step s;
      const ValueRef x = n.sources.empty() ? ValueRef{} : n.sources[0];
      // shape(shape(y)) is y's rank.
      if (x.valid() && x.graph < static_cast<int>(m_.graphs.size()) &&
          x.node < static_cast<int>(m_.graphs[x.graph].nodes.size()) &&
          m_.graphs[x.graph].nodes[x.node].op == "ShapeOf") {
        const Node& inner = m_.graphs[x.graph].nodes[x.node];
        const ValueRef y = inner.sources.empty() ? ValueRef{} : inner.sources[0];
        const Shape* ys = shape_fact(y);
        s.kind = K::RankOf;
        s.name = producer_name(inner, 0);
        s.shape = ys ? *ys : Shape::unknown();
        return s;
      }
      const Shape* xs = shape_fact(x);
      s.kind = K::ShapeOf;
      s.name = producer_name(n, 0);
      s.shape = xs ? *xs : Shape::unknown();
      return s;
    }
    if (n.op == "ReduceProd" && n.sources.size() >= 2) {
      // The product of a shape (a 1-D value) over its one axis: size(x), or, of shape(shape(y)), y's rank; of any
      // other 1-D value (a shape OpenVINO rebuilt from gathered dims), the product of its elements.
      if (auto step = product_of_shape(n)) return *step;
      const auto axes = const_values(n.sources[1]);
      if (axes && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1)) return unary(K::Product, in(0));
    }
    if (n.op == "Gather" && n.sources.size() >= 2) {
      // OpenVINO's Gather takes its axis as a third input: only axis 0 (of the 1-D shape) reads an element.
      Step s;
      s.kind = K::Gather;
      s.in = {in(0), in(1)};
      if (n.sources.size() >= 3) {
        s.axis = Step::Axis::Input;
        s.in.emplace_back(in(2));
      }
      return s;
    }
    if (n.op == "Convert" || n.op == "CAST") {
      const std::string* to = n.attrs.find("destination_type");
      return unary(to && *to == "boolean" ? K::ToBool : K::Converted, in(0));
    }
    if (n.op == "Concat" && !n.sources.empty() && n.sources.size() <= static_cast<size_t>(kCondMaxElements)) {
      const std::string* axis = n.attrs.find("axis");
      int64_t a = 0;
      if (axis && parse_int64(*axis, a) && (a == 0 || a == -1)) {  // of 1-D values (shapes) one axis only
        Step s;
        s.kind = K::Concat;
        for (size_t i = 0; i < n.sources.size(); ++i) s.in.emplace_back(in(i));
        return s;
      }
    }
    if (n.op == "Identity") return unary(K::Identity, in(0));
    if (passes_value(n.op)) return unary(K::Reshaped, in(0));
    if (n.op == "LogicalNot" || n.op == "LOGICAL_NOT") return unary(K::Not, in(0));
    if (auto b = binary_ops().find(n.op); b != binary_ops().end() && n.sources.size() >= 2) {
      Step s;
      s.kind = K::Binary;
      s.op = b->second.data();
      s.in = {in(0), in(1)};
      // NNAPI's ADD, SUB and MUL apply a fused activation (input 2): the value is known only without one.
      if (m_.nnapi && (n.op == "ADD" || n.op == "SUB" || n.op == "MUL")) {
        s.activation = true;
        if (n.inputs.size() >= 3) s.in.emplace_back(in(2));
      }
      return s;
    }
    return opaque(name);
  }

  // The node that produces input i of n, or null.
  const Node* producer(const Node& n, size_t i) const {
    if (i >= n.sources.size() || !n.sources[i].valid()) return nullptr;
    const ValueRef& r = n.sources[i];
    if (r.graph >= static_cast<int>(m_.graphs.size()) || r.node >= static_cast<int>(m_.graphs[r.graph].nodes.size()))
      return nullptr;
    return &m_.graphs[r.graph].nodes[r.node];
  }

  // ReduceProd(ShapeOf(x), axis 0): the element count of x; ReduceProd(ShapeOf(ShapeOf(y)), axis 0): y's rank.
  // Nothing when n is not one of those (its axes not a constant 0 or -1).
  std::optional<Step> product_of_shape(const Node& n) {
    const Node* shape = producer(n, 0);
    if (!shape || shape->op != "ShapeOf" || shape->sources.empty()) return std::nullopt;
    const auto axes = const_values(n.sources[1]);
    if (!axes || axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1)) return std::nullopt;
    Step s;
    if (const Node* inner = producer(*shape, 0); inner && inner->op == "ShapeOf" && !inner->sources.empty()) {
      const Shape* ys = shape_fact(inner->sources[0]);
      s.kind = Step::Kind::RankOf;
      s.name = producer_name(*inner, 0);
      s.shape = ys ? *ys : Shape::unknown();
      return s;
    }
    const Shape* xs = shape_fact(shape->sources[0]);
    s.kind = Step::Kind::SizeOf;
    s.name = producer_name(*shape, 0);
    s.shape = xs ? *xs : Shape::unknown();
    return s;
  }

  // A constant named `name`: its values where they were read (its text the number when it is one), else its name.
  static Step constant(const std::optional<std::vector<double>>& values, size_t rank, const std::string& name) {
    Step s;
    s.name = name;
    if (!values) {
      s.kind = Step::Kind::Named;
      return s;
    }
    s.kind = Step::Kind::Known;
    s.values = *values;
    s.rank = rank;
    s.named_text = values->size() != 1;
    return s;
  }

  // The rank an IR Const declares (kUnknownRank when it states no shape).
  size_t const_rank(const ValueRef& ref) const {
    if (!consts_) return kUnknownRank;
    auto it = consts_->find(key(ref.graph, ref.node));
    return it != consts_->end() && it->second->shape && it->second->shape->rank_known ? it->second->shape->dims.size()
                                                                                      : kUnknownRank;
  }

  std::string producer_name(const Node& n, size_t i) const {
    if (i >= n.sources.size() || !n.sources[i].valid()) return "?";
    const ValueRef& r = n.sources[i];
    if (r.graph >= static_cast<int>(m_.graphs.size()) || r.node >= static_cast<int>(m_.graphs[r.graph].nodes.size()))
      return "?";
    return m_.graphs[r.graph].nodes[r.node].display();
  }

  // The values of a small boolean, integer or float constant operand copied into the model (NNAPI), read within the
  // operand values; nothing when it is not one.
  std::optional<std::vector<double>> nnapi_values(const NnOperand& o) const {
    const std::string& bytes = m_.nnapi->operand_values;
    if (o.lifetime != nn::CONSTANT_COPY || !m_.nnapi->operand_values_loaded || o.length == 0 ||
        o.length > kMaxConstBytes || static_cast<uint64_t>(o.offset) + o.length > bytes.size())
      return std::nullopt;
    const char* p = bytes.data() + o.offset;
    std::vector<double> out;
    if (o.type == nn::BOOL || o.type == nn::TENSOR_BOOL8) {
      for (uint32_t k = 0; k < o.length; ++k) out.push_back(p[k] != 0 ? 1.0 : 0.0);
    } else if (o.type == nn::INT32 || o.type == nn::TENSOR_INT32 || o.type == nn::FLOAT32 ||
               o.type == nn::TENSOR_FLOAT32) {
      if (o.length % 4 != 0) return std::nullopt;
      for (uint32_t k = 0; k < o.length; k += 4) {
        if (o.type == nn::INT32 || o.type == nn::TENSOR_INT32) {
          int32_t v;
          std::memcpy(&v, p + k, 4);
          out.push_back(v);
        } else {
          float v;
          std::memcpy(&v, p + k, 4);
          out.push_back(v);
        }
      }
    } else {
      return std::nullopt;
    }
    return out;
  }

  // The values of a small boolean, integer or float Const, read from the weights file within its bounds; nothing
  // when it is not one.
  std::optional<std::vector<double>> const_values(const ValueRef& ref) {
    if (!m_.ir || !m_.ir->weights_size || !consts_) return std::nullopt;
    if (auto it = consts_->find(key(ref.graph, ref.node)); it != consts_->end()) {
      const IrConst& c = *it->second;
      if (!c.offset || !c.size || *c.offset < 0 || *c.size <= 0 || *c.size > kMaxConstBytes ||
          static_cast<uint64_t>(*c.offset) + static_cast<uint64_t>(*c.size) > *m_.ir->weights_size)
        return std::nullopt;
      const int width = c.elem == ElemType::I64       ? 8
                        : c.elem == ElemType::I32     ? 4
                        : c.elem == ElemType::F32     ? 4
                        : c.elem == ElemType::Boolean ? 1
                                                      : 0;
      if (width == 0 || *c.size % width != 0) return std::nullopt;
      const auto found = m_.ir->weight_bytes(*c.offset, static_cast<uint64_t>(*c.size));
      if (!found) return std::nullopt;
      const std::string_view bytes = *found;
      std::vector<double> out;
      for (int64_t k = 0; k < *c.size; k += width) {
        const char* p = bytes.data() + k;
        if (c.elem == ElemType::I64) {
          int64_t v;
          std::memcpy(&v, p, 8);
          out.push_back(static_cast<double>(v));
        } else if (c.elem == ElemType::I32) {
          int32_t v;
          std::memcpy(&v, p, 4);
          out.push_back(v);
        } else if (c.elem == ElemType::F32) {
          float v;
          std::memcpy(&v, p, 4);
          out.push_back(v);
        } else {
          out.push_back(*p != 0 ? 1.0 : 0.0);
        }
      }
      return out;
    }
    return std::nullopt;
  }

  // The shape of `ref` as a fact: a main-graph Parameter's declared shape, else what the format's inference proves.
  const Shape* shape_fact(const ValueRef& ref) const {
    if (const Shape* s = declared_input_shape(m_, ref)) return s;
    return proven_ && *proven_ ? (*proven_)(ref) : nullptr;
  }

  const Model& m_;
  const IrConstIndex* consts_;
  const ProvenShapes* proven_;
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
  ModelAdapter a(m, nullptr);
  CondTracer<ModelAdapter> t(a, p);
  const Node& n = m.graphs[graph].nodes[node];
  const auto i = static_cast<size_t>(input);
  CondSym s = t.eval(ModelValue{{}, graph, node, input}, 0);
  // The condition operand is itself a constant: that is the whole reason, said by its name.
  const NnOperand* o = (i >= n.sources.size() || !n.sources[i].valid()) ? a.nnapi_operand(graph, n, i) : nullptr;
  if (o && (o->lifetime == nn::CONSTANT_COPY || o->lifetime == nn::CONSTANT_REFERENCE) && s.scalar_known()) {
    s.text = quoted(a.operand_name(graph, n, i));
    t.facts.facts.insert(s.text + " is a constant");
  }
  t.conclude(s);
  return p;
}

std::optional<std::vector<std::optional<double>>> trace_model_values(const Model& m, const ValueRef& ref,
                                                                     const IrConstIndex* consts,
                                                                     const ProvenShapes* proven) {
  if (!ref.valid()) return std::nullopt;
  ConditionProvenance p;
  ModelAdapter a(m, consts, proven);
  CondTracer<ModelAdapter> t(a, p);
  const CondSym s = t.eval(ModelValue{ref}, 0);
  if (!s.length_known || !s.flat) return std::nullopt;
  return s.v;
}

ConditionProvenance trace_model_condition(const Model& m, const ValueRef& cond, const IrConstIndex* consts,
                                          const ProvenShapes* proven) {
  ConditionProvenance p;
  if (!cond.valid()) return p;
  ModelAdapter a(m, consts, proven);
  CondTracer<ModelAdapter> t(a, p);
  CondSym s = t.eval(ModelValue{cond}, 0);
  // The condition is itself a Const: that is the whole reason, said by its name.
  if (cond.graph < static_cast<int>(m.graphs.size()) &&
      cond.node < static_cast<int>(m.graphs[cond.graph].nodes.size())) {
    const Node& n = m.graphs[cond.graph].nodes[cond.node];
    if ((n.op == "Const" || n.op == "Constant") && s.scalar_known()) {
      s.text = quoted(n.display());
      t.facts.facts.insert(s.text + " is a constant");
    }
  }
  t.conclude(s);
  return p;
}

}  // namespace condlint
