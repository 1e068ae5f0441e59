#include "loaders/onnx_condition.hpp"

#include "model/condition_sym.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace condlint {

namespace {

constexpr int kMaxDepth = 24;
constexpr int kMaxSteps = 400;
constexpr int kMaxElements = kCondMaxElements;

using Sym = CondSym;

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// The values of a small tensor, or nothing when it is not a small numeric or boolean tensor.
std::optional<std::vector<double>> tensor_values(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > kMaxElements) return std::nullopt;
    n *= d;
  }
  if (n > kMaxElements) return std::nullopt;
  std::vector<double> out;
  const std::string& raw = t.raw_data();
  auto from_raw = [&](size_t width, auto convert) -> bool {
    if (raw.size() != static_cast<size_t>(n) * width) return false;
    for (int64_t i = 0; i < n; ++i) out.push_back(convert(raw.data() + i * width));
    return true;
  };
  switch (t.data_type()) {
    case onnx::TensorProto::INT64:
      if (!raw.empty()) {
        if (!from_raw(8, [](const char* p) {
              int64_t x;
              std::memcpy(&x, p, 8);
              return static_cast<double>(x);
            }))
          return std::nullopt;
      } else {
        if (t.int64_data_size() != n) return std::nullopt;
        for (int64_t x : t.int64_data()) out.push_back(static_cast<double>(x));
      }
      break;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8: {
      const size_t width = t.data_type() == onnx::TensorProto::INT32 ? 4 : 1;
      if (!raw.empty()) {
        const bool is_signed8 = t.data_type() == onnx::TensorProto::INT8;
        if (!from_raw(width, [&](const char* p) {
              if (width == 4) {
                int32_t x;
                std::memcpy(&x, p, 4);
                return static_cast<double>(x);
              }
              return is_signed8 ? static_cast<double>(static_cast<int8_t>(*p))
                                : static_cast<double>(static_cast<uint8_t>(*p));
            }))
          return std::nullopt;
      } else {
        if (t.int32_data_size() != n) return std::nullopt;
        for (int32_t x : t.int32_data()) out.push_back(x);
      }
      break;
    }
    case onnx::TensorProto::FLOAT:
      if (!raw.empty()) {
        if (!from_raw(4, [](const char* p) {
              float x;
              std::memcpy(&x, p, 4);
              return static_cast<double>(x);
            }))
          return std::nullopt;
      } else {
        if (t.float_data_size() != n) return std::nullopt;
        for (float x : t.float_data()) out.push_back(x);
      }
      break;
    case onnx::TensorProto::DOUBLE:
      if (!raw.empty()) {
        if (!from_raw(8, [](const char* p) {
              double x;
              std::memcpy(&x, p, 8);
              return x;
            }))
          return std::nullopt;
      } else {
        if (t.double_data_size() != n) return std::nullopt;
        for (double x : t.double_data()) out.push_back(x);
      }
      break;
    default: return std::nullopt;
  }
  return out;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

class Tracer {
 public:
  Tracer(const CondLookup& lookup, ConditionProvenance& out) : lookup_(lookup), out_(out) {}

  Sym eval(const std::string& name, int depth) {
    if (auto it = memo_.find(name); it != memo_.end()) return it->second;
    Sym s = eval_uncached(name, depth);
    memo_.emplace(name, s);
    return s;
  }

 private:
  // A value the tracer does not look into: its value decides.
  Sym opaque(const std::string& name) {
    out_.on_values = true;
    facts_.tested.insert(name);
    Sym s;
    s.text = quoted(name);
    return s;
  }

  Sym eval_uncached(const std::string& name, int depth) {
    if (name.empty() || depth > kMaxDepth || ++steps_ > kMaxSteps) return opaque(name);
    const CondValue cv = lookup_(name);
    if (cv.data) {
      if (auto vals = tensor_values(*cv.data)) return cond_known(*vals, static_cast<size_t>(cv.data->dims_size()));
      if (cv.kind == CondValue::Kind::Initializer) {
        Sym s;
        s.text = quoted(name);
        return s;  // a constant, just not a small one
      }
    }
    if (cv.kind != CondValue::Kind::NodeOutput || !cv.producer) return opaque(name);
    const onnx::NodeProto& n = *cv.producer;
    if (cv.callee) return through_call(n, *cv.callee, name, depth);
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx") return opaque(name);
    auto in = [&](int i) -> Sym {
      if (i >= n.input_size() || n.input(i).empty()) return Sym{};
      return eval(n.input(i), depth + 1);
    };
    if (op == "Constant") {
      if (const auto* a = attr(n, "value"); a && a->has_t())
        if (auto vals = tensor_values(a->t())) return cond_known(*vals, static_cast<size_t>(a->t().dims_size()));
      if (const auto* a = attr(n, "value_int")) return cond_known({static_cast<double>(a->i())});
      if (const auto* a = attr(n, "value_float")) return cond_known({a->f()});
      if (const auto* a = attr(n, "value_ints"); a && a->ints_size() <= kMaxElements) {
        std::vector<double> v(a->ints().begin(), a->ints().end());
        return cond_known(v);
      }
      return opaque(name);
    }
    if (op == "Shape" && n.input_size() >= 1) return shape_of(n);
    if (op == "Size" && n.input_size() >= 1) return size_of(n);
    if (op == "Gather" && n.input_size() >= 2) return gather(n, in(0), in(1));
    if (op == "Identity" || op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Flatten") {
      return op == "Identity" ? in(0) : cond_reshaped(in(0));
    }
    if (op == "Cast") {
      const auto* to = attr(n, "to");
      return to && to->i() == onnx::TensorProto::BOOL ? cond_to_bool(in(0)) : cond_passed(in(0));
    }
    if (op == "CastLike") {
      // The target type is the second input's, which the tracer does not know: only 0 and 1 are the same number
      // under every cast (bool included); other elements become unknown.
      Sym s = cond_passed(in(0));
      for (auto& x : s.v)
        if (x && *x != 0 && *x != 1) x.reset();
      return s;
    }
    if (op == "Not") return cond_not(in(0));
    static const std::map<std::string, std::string> kBinary = {
        {"Equal", "=="},       {"Greater", ">"}, {"Less", "<"}, {"GreaterOrEqual", ">="},
        {"LessOrEqual", "<="}, {"And", "and"},   {"Or", "or"},  {"Xor", "xor"},
        {"Add", "+"},          {"Sub", "-"},     {"Mul", "*"}};
    if (auto b = kBinary.find(op); b != kBinary.end() && n.input_size() >= 2)
      return cond_binary(b->second, in(0), in(1), facts_);
    return opaque(name);
  }

  Sym shape_of(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    out_.on_shapes = true;
    facts_.tested.insert(x);
    int64_t start = 0, end = std::numeric_limits<int64_t>::max();
    if (const auto* a = attr(n, "start")) start = a->i();
    if (const auto* a = attr(n, "end")) end = a->i();
    return cond_shape_of(x, shape_known(x, 0), start, end);
  }

  // The shape of x, and where condlint's inference leaves it unknown, what the ops that make x fix whatever their
  // inputs are: an element-wise op of one input keeps that input's shape, and a Conv gives [N, M, ?, ...] with the
  // rank of its weights W and M = W's dim 0 (a Conv that runs at all has an input of W's rank). Exporters guard on
  // those channels (Shape(Conv(...))[1] == 1 before a Squeeze). These facts only decide conditions: they never reach
  // onnx's inference of other nodes, whose verdicts must not rest on what onnx itself cannot know (an op in a dead
  // branch would fail its inference here and not in ONNX Runtime).
  Shape shape_known(const std::string& x, int depth) {
    const CondValue v = lookup_(x);
    if (v.shape.rank_known || depth > kMaxDepth || ++steps_ > kMaxSteps) return v.shape;
    if (v.kind != CondValue::Kind::NodeOutput || !v.producer) return v.shape;
    const onnx::NodeProto& p = *v.producer;
    if ((!p.domain().empty() && p.domain() != "ai.onnx") || p.output_size() < 1 || p.output(0) != x) return v.shape;
    static const std::set<std::string> kSameShape = {"Abs",       "Ceil",     "Celu",       "Clip",  "Cos",
                                                     "Elu",       "Erf",      "Exp",        "Floor", "HardSigmoid",
                                                     "HardSwish", "Identity", "LeakyRelu",  "Log",   "LogSoftmax",
                                                     "Mish",      "Neg",      "Reciprocal", "Relu",  "Round",
                                                     "Selu",      "Sigmoid",  "Sign",       "Sin",   "Softmax",
                                                     "Softplus",  "Softsign", "Sqrt",       "Tanh",  "ThresholdedRelu"};
    if (kSameShape.count(p.op_type()) && p.input_size() >= 1 && !p.input(0).empty())
      return shape_known(p.input(0), depth + 1);
    if (p.op_type() == "Conv" && p.input_size() >= 2 && !p.input(0).empty() && !p.input(1).empty()) {
      const Shape w = lookup_(p.input(1)).shape;
      if (!w.rank_known || w.dims.size() < 3 || !w.dims[0].is_static() || w.dims[0].lo < 1) return v.shape;
      std::vector<Dim> dims(w.dims.size(), Dim::dynamic());
      dims[1] = Dim::fixed(w.dims[0].lo);
      const Shape in = shape_known(p.input(0), depth + 1);
      if (in.rank_known && in.dims.size() == w.dims.size()) dims[0] = in.dims[0];
      return Shape::of(std::move(dims));
    }
    return v.shape;
  }

  Sym size_of(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    const CondValue xv = lookup_(x);
    out_.on_shapes = true;
    // Size(Shape(y)) is y's rank.
    if (xv.kind == CondValue::Kind::NodeOutput && xv.producer && xv.producer->op_type() == "Shape" &&
        !attr(*xv.producer, "start") && !attr(*xv.producer, "end") && xv.producer->input_size() >= 1) {
      const std::string& y = xv.producer->input(0);
      return cond_rank_of(y, shape_known(y, 0), facts_);
    }
    facts_.tested.insert(x);
    Sym s;
    s.text = "size(" + quoted(x) + ")";
    s.length_known = true;
    if (auto c = xv.shape.element_count()) {
      s.v.push_back(static_cast<double>(*c));
      facts_.facts.insert("'" + x + "' has " + std::to_string(*c) + " elements");
    } else {
      s.v.push_back(std::nullopt);
    }
    return s;
  }

  // Output `name` of `call`, a call of the model-local function f: traced in f's body by a tracer of its own, whose
  // inputs are the call's (their constant data and proven shapes; a value the tracer would look into is opaque
  // there) and whose nodes are the body's. Calls inside the body are not followed (their outputs are opaque).
  Sym through_call(const onnx::NodeProto& call, const onnx::FunctionProto& f, const std::string& name, int depth) {
    int k = 0;
    while (k < call.output_size() && call.output(k) != name) ++k;
    if (k >= call.output_size() || k >= f.output_size()) return opaque(name);
    std::map<std::string, CondValue> body;
    for (int i = 0; i < f.input_size(); ++i) {
      if (f.input(i).empty()) continue;
      CondValue v;  // an input the call does not give stays unknown
      if (i < call.input_size() && !call.input(i).empty()) {
        const CondValue outer = lookup_(call.input(i));
        v.kind = outer.data ? CondValue::Kind::Initializer : CondValue::Kind::GraphInput;
        v.data = outer.data;
        v.shape = shape_known(call.input(i), depth + 1);
      }
      body[f.input(i)] = v;
    }
    for (const auto& bn : f.node()) {
      // A node that reads an attribute of the call is opaque: its attributes here are references, not values.
      bool refers = false;
      for (const auto& a : bn.attribute()) refers = refers || !a.ref_attr_name().empty();
      for (const auto& o : bn.output())
        if (!o.empty() && !refers) {
          CondValue v;
          v.kind = CondValue::Kind::NodeOutput;
          v.producer = &bn;
          body[o] = v;
        }
    }
    const CondLookup inner = [&body](const std::string& nm) {
      const auto it = body.find(nm);
      return it == body.end() ? CondValue{} : it->second;
    };
    Tracer t(inner, out_);
    t.steps_ = steps_;
    const Sym s = t.eval(f.output(k), depth + 1);
    steps_ = t.steps_;
    facts_.tested.insert(t.facts_.tested.begin(), t.facts_.tested.end());
    facts_.facts.insert(t.facts_.facts.begin(), t.facts_.facts.end());
    facts_.constants.insert(t.facts_.constants.begin(), t.facts_.constants.end());
    return s;
  }

  Sym gather(const onnx::NodeProto& n, const Sym& data, const Sym& idx) {
    if (const auto* a = attr(n, "axis"); a && a->i() != 0) return opaque(n.output_size() ? n.output(0) : "");
    return cond_gather(data, idx, facts_);
  }

 public:
  CondFacts facts_;

 private:
  const CondLookup& lookup_;
  ConditionProvenance& out_;
  std::map<std::string, Sym> memo_;
  int steps_ = 0;
};

}  // namespace

ConditionProvenance trace_condition(const std::string& name, const CondLookup& lookup) {
  ConditionProvenance p;
  if (name.empty()) return p;
  Tracer t(lookup, p);
  const Sym s = t.eval(name, 0);
  cond_conclude(s, t.facts_, p);
  return p;
}

}  // namespace condlint
