#include "loaders/onnx_condition.hpp"

#include "model/condition_trace.hpp"

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

constexpr int kMaxElements = kCondMaxElements;

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

// The ONNX adapter of CondTracer: reads the NodeProtos that produce a value, by name, through the walk's lookup.
class OnnxAdapter {
 public:
  using Handle = std::string;
  static constexpr bool kMemo = true;
  using Step = CondStep<std::string>;
  using Tracer = CondTracer<OnnxAdapter>;

  explicit OnnxAdapter(const CondLookup& lookup) : lookup_(lookup) {}

  Step read(const std::string& name, Tracer& t, int depth) {
    using K = Step::Kind;
    if (name.empty() || t.spent(depth)) return opaque(name);
    const CondValue cv = lookup_(name);
    if (cv.data) {
      if (auto vals = tensor_values(*cv.data))
        return known(std::move(*vals), static_cast<size_t>(cv.data->dims_size()));
      if (cv.kind == CondValue::Kind::Initializer) {
        Step s;
        s.kind = K::Named;  // a constant, just not a small one
        s.name = name;
        return s;
      }
    }
    if (cv.kind != CondValue::Kind::NodeOutput || !cv.producer) return opaque(name);
    const onnx::NodeProto& n = *cv.producer;
    if (cv.callee) return through_call(n, *cv.callee, name, t, depth);
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx") return opaque(name);
    auto in = [&](int i) -> std::optional<std::string> {
      if (i >= n.input_size() || n.input(i).empty()) return std::nullopt;
      return n.input(i);
    };
    auto unary = [&](K k) {
      Step s;
      s.kind = k;
      s.in.push_back(in(0));
      return s;
    };
    if (op == "Constant") {
      if (const auto* a = attr(n, "value"); a && a->has_t())
        if (auto vals = tensor_values(a->t())) return known(std::move(*vals), static_cast<size_t>(a->t().dims_size()));
      if (const auto* a = attr(n, "value_int")) return known({static_cast<double>(a->i())});
      if (const auto* a = attr(n, "value_float")) return known({a->f()});
      if (const auto* a = attr(n, "value_ints"); a && a->ints_size() <= kMaxElements)
        return known(std::vector<double>(a->ints().begin(), a->ints().end()));
      return opaque(name);
    }
    if (op == "Shape" && n.input_size() >= 1) {
      Step s;
      s.kind = K::ShapeOf;
      s.name = n.input(0);
      if (const auto* a = attr(n, "start")) s.start = a->i();
      if (const auto* a = attr(n, "end")) s.end = a->i();
      s.shape = shape_known(s.name, t, 0);
      return s;
    }
    if (op == "Size" && n.input_size() >= 1) {
      Step s;
      const std::string& x = n.input(0);
      const CondValue xv = lookup_(x);
      // Size(Shape(y)) is y's rank.
      if (xv.kind == CondValue::Kind::NodeOutput && xv.producer && xv.producer->op_type() == "Shape" &&
          !attr(*xv.producer, "start") && !attr(*xv.producer, "end") && xv.producer->input_size() >= 1) {
        s.kind = K::RankOf;
        s.name = xv.producer->input(0);
        s.shape = shape_known(s.name, t, 0);
        return s;
      }
      s.kind = K::SizeOf;
      s.name = x;
      s.shape = xv.shape;
      return s;
    }
    if (op == "Gather" && n.input_size() >= 2) {
      Step s;
      s.kind = K::Gather;
      s.in = {in(0), in(1)};
      if (const auto* a = attr(n, "axis"); a && a->i() != 0) {
        s.axis = Step::Axis::Other;
        s.name = n.output_size() ? n.output(0) : "";
      }
      return s;
    }
    if (op == "Identity") return unary(K::Identity);
    if (op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Flatten") return unary(K::Reshaped);
    if (op == "Cast") {
      const auto* to = attr(n, "to");
      return unary(to && to->i() == onnx::TensorProto::BOOL ? K::ToBool : K::Passed);
    }
    // CastLike's target type is its second input's, which the tracer does not know.
    if (op == "CastLike") return unary(K::ZeroOne);
    if (op == "Not") return unary(K::Not);
    static const std::map<std::string, const char*> kBinary = {
        {"Equal", "=="},       {"Greater", ">"}, {"Less", "<"}, {"GreaterOrEqual", ">="},
        {"LessOrEqual", "<="}, {"And", "and"},   {"Or", "or"},  {"Xor", "xor"},
        {"Add", "+"},          {"Sub", "-"},     {"Mul", "*"}};
    if (auto b = kBinary.find(op); b != kBinary.end() && n.input_size() >= 2) {
      Step s;
      s.kind = K::Binary;
      s.op = b->second;
      s.in = {in(0), in(1)};
      return s;
    }
    return opaque(name);
  }

 private:
  // Output `name` of `call`, a call of the model-local function f: traced in f's body by a tracer of its own, whose
  // inputs are the call's (their constant data and proven shapes; a value the tracer would look into is opaque
  // there) and whose nodes are the body's. It shares this trace's provenance and step budget. Calls inside the body
  // are not followed (their outputs are opaque).
  Step through_call(const onnx::NodeProto& call, const onnx::FunctionProto& f, const std::string& name, Tracer& t,
                    int depth) {
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
        v.shape = shape_known(call.input(i), t, depth + 1);
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
    OnnxAdapter a(inner);
    Tracer bt(a, t.provenance());
    bt.steps() = t.steps();
    Step s;
    s.kind = Step::Kind::Computed;
    s.sym = bt.eval(f.output(k), depth + 1);
    t.steps() = bt.steps();
    t.facts.tested.insert(bt.facts.tested.begin(), bt.facts.tested.end());
    t.facts.facts.insert(bt.facts.facts.begin(), bt.facts.facts.end());
    t.facts.constants.insert(bt.facts.constants.begin(), bt.facts.constants.end());
    return s;
  }

  static Step opaque(const std::string& name) {
    Step s;
    s.name = name;
    return s;
  }
  static Step known(std::vector<double> values, size_t rank = 1) {
    Step s;
    s.kind = Step::Kind::Known;
    s.values = std::move(values);
    s.rank = rank;
    return s;
  }

  // The shape of x, and where condlint's inference leaves it unknown, what the ops that make x fix whatever their
  // inputs are: an element-wise op of one input keeps that input's shape, and a Conv gives [N, M, ?, ...] with the
  // rank of its weights W and M = W's dim 0 (a Conv that runs at all has an input of W's rank). Exporters guard on
  // those channels (Shape(Conv(...))[1] == 1 before a Squeeze). These facts only decide conditions: they never reach
  // onnx's inference of other nodes, whose verdicts must not rest on what onnx itself cannot know (an op in a dead
  // branch would fail its inference here and not in ONNX Runtime).
  Shape shape_known(const std::string& x, Tracer& t, int depth) {
    const CondValue v = lookup_(x);
    if (v.shape.rank_known || t.spent(depth)) return v.shape;
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
      return shape_known(p.input(0), t, depth + 1);
    if (p.op_type() == "Conv" && p.input_size() >= 2 && !p.input(0).empty() && !p.input(1).empty()) {
      const Shape w = lookup_(p.input(1)).shape;
      if (!w.rank_known || w.dims.size() < 3 || !w.dims[0].is_static() || w.dims[0].lo < 1) return v.shape;
      std::vector<Dim> dims(w.dims.size(), Dim::dynamic());
      dims[1] = Dim::fixed(w.dims[0].lo);
      const Shape in = shape_known(p.input(0), t, depth + 1);
      if (in.rank_known && in.dims.size() == w.dims.size()) dims[0] = in.dims[0];
      return Shape::of(std::move(dims));
    }
    return v.shape;
  }

  const CondLookup& lookup_;
};

}  // namespace

ConditionProvenance trace_condition(const std::string& name, const CondLookup& lookup) {
  ConditionProvenance p;
  if (name.empty()) return p;
  OnnxAdapter a(lookup);
  CondTracer<OnnxAdapter> t(a, p);
  t.conclude(t.eval(name, 0));
  return p;
}

}  // namespace condlint
