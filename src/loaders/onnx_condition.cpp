#include "loaders/onnx_condition.hpp"

#include "model/condition_trace.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace condlint {

namespace {

constexpr int kMaxDepth = 24;
constexpr int kMaxSteps = 400;
constexpr int kMaxElements = 16;  // longer constants and shapes are not traced element by element

// A traced value: its elements where known (a shape's dims, a constant's values), and how to say it.
struct Sym {
  bool length_known = false;
  std::vector<std::optional<double>> v;
  std::string text;
  bool is_shape_of = false;  // the value is Shape(x) itself (Gather on it reads "dim k of x")
  std::string shape_of;      // x
  bool comparison = false;   // text is "a OP b" (Not turns == into !=)
  bool scalar_known() const { return length_known && v.size() == 1 && v[0].has_value(); }
};

std::string num(double d) { return condition_number(d); }

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

Sym known(std::vector<double> values) {
  Sym s;
  s.length_known = true;
  for (double d : values) s.v.push_back(d);
  if (values.size() == 1) s.text = num(values[0]);
  else {
    s.text = "[";
    for (size_t i = 0; i < values.size(); ++i) s.text += (i ? "," : "") + num(values[i]);
    s.text += "]";
  }
  return s;
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
    tested_.insert(name);
    Sym s;
    s.text = quoted(name);
    return s;
  }

  Sym eval_uncached(const std::string& name, int depth) {
    if (name.empty() || depth > kMaxDepth || ++steps_ > kMaxSteps) return opaque(name);
    const CondValue cv = lookup_(name);
    if (cv.data) {
      if (auto vals = tensor_values(*cv.data)) return known(*vals);
      if (cv.kind == CondValue::Kind::Initializer) {
        Sym s;
        s.text = quoted(name);
        return s;  // a constant, just not a small one
      }
    }
    if (cv.kind != CondValue::Kind::NodeOutput || !cv.producer) return opaque(name);
    const onnx::NodeProto& n = *cv.producer;
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx") return opaque(name);
    auto in = [&](int i) -> Sym {
      if (i >= n.input_size() || n.input(i).empty()) return Sym{};
      return eval(n.input(i), depth + 1);
    };
    if (op == "Constant") {
      if (const auto* a = attr(n, "value"); a && a->has_t())
        if (auto vals = tensor_values(a->t())) return known(*vals);
      if (const auto* a = attr(n, "value_int")) return known({static_cast<double>(a->i())});
      if (const auto* a = attr(n, "value_float")) return known({a->f()});
      if (const auto* a = attr(n, "value_ints"); a && a->ints_size() <= kMaxElements) {
        std::vector<double> v(a->ints().begin(), a->ints().end());
        return known(v);
      }
      return opaque(name);
    }
    if (op == "Shape" && n.input_size() >= 1) return shape_of(n);
    if (op == "Size" && n.input_size() >= 1) return size_of(n);
    if (op == "Gather" && n.input_size() >= 2) return gather(n, in(0), in(1));
    if (op == "Identity" || op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Flatten") {
      Sym s = in(0);
      if (op != "Identity") s.is_shape_of = false;
      return s;
    }
    if (op == "Cast") {
      Sym s = in(0);
      s.is_shape_of = false;
      const auto* to = attr(n, "to");
      if (to && to->i() == onnx::TensorProto::BOOL) {
        for (auto& e : s.v)
          if (e) e = *e != 0 ? 1.0 : 0.0;
        s.text = s.comparison ? s.text : s.text + " != 0";
        s.comparison = true;
      }
      return s;
    }
    if (op == "Not") {
      Sym s = in(0);
      for (auto& e : s.v)
        if (e) e = *e != 0 ? 0.0 : 1.0;
      s.text = negated_condition(s.text, s.comparison);
      s.is_shape_of = false;
      return s;
    }
    static const std::map<std::string, std::string> kBinary = {
        {"Equal", "=="},       {"Greater", ">"}, {"Less", "<"}, {"GreaterOrEqual", ">="},
        {"LessOrEqual", "<="}, {"And", "and"},   {"Or", "or"},  {"Xor", "xor"},
        {"Add", "+"},          {"Sub", "-"},     {"Mul", "*"}};
    if (auto b = kBinary.find(op); b != kBinary.end() && n.input_size() >= 2) return binary(b->second, in(0), in(1));
    return opaque(name);
  }

  Sym shape_of(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    out_.on_shapes = true;
    tested_.insert(x);
    const CondValue xv = lookup_(x);
    Sym s;
    s.text = "shape(" + quoted(x) + ")";
    s.is_shape_of = true;
    s.shape_of = x;
    if (!xv.shape.rank_known) return s;
    int64_t rank = static_cast<int64_t>(xv.shape.dims.size());
    int64_t start = 0, end = rank;
    if (const auto* a = attr(n, "start")) start = a->i();
    if (const auto* a = attr(n, "end")) end = a->i();
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    if (end - start > kMaxElements) return s;
    if (start != 0 || end != rank) s.is_shape_of = false;  // a slice: Gather indices no longer name dims
    s.length_known = true;
    for (int64_t i = start; i < end; ++i) {
      const Dim& d = xv.shape.dims[static_cast<size_t>(i)];
      s.v.push_back(d.is_static() ? std::optional<double>(static_cast<double>(d.lo)) : std::nullopt);
    }
    return s;
  }

  Sym size_of(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    const CondValue xv = lookup_(x);
    Sym s;
    out_.on_shapes = true;
    // Size(Shape(y)) is y's rank.
    if (xv.kind == CondValue::Kind::NodeOutput && xv.producer && xv.producer->op_type() == "Shape" &&
        !attr(*xv.producer, "start") && !attr(*xv.producer, "end") && xv.producer->input_size() >= 1) {
      const std::string& y = xv.producer->input(0);
      tested_.insert(y);
      const CondValue yv = lookup_(y);
      s.text = "rank(" + quoted(y) + ")";
      s.length_known = true;
      if (yv.shape.rank_known) {
        s.v.push_back(static_cast<double>(yv.shape.dims.size()));
        facts_.insert("'" + y + "' has rank " + std::to_string(yv.shape.dims.size()));
      } else {
        s.v.push_back(std::nullopt);
      }
      return s;
    }
    tested_.insert(x);
    s.text = "size(" + quoted(x) + ")";
    s.length_known = true;
    if (auto c = xv.shape.element_count()) {
      s.v.push_back(static_cast<double>(*c));
      facts_.insert("'" + x + "' has " + std::to_string(*c) + " elements");
    } else {
      s.v.push_back(std::nullopt);
    }
    return s;
  }

  Sym gather(const onnx::NodeProto& n, const Sym& data, const Sym& idx) {
    if (const auto* a = attr(n, "axis"); a && a->i() != 0) return opaque(n.output_size() ? n.output(0) : "");
    Sym s;
    // (An index beyond any rank is not converted: a double past int64's range would not convert.)
    if (!idx.length_known || idx.v.size() != 1 || !idx.v[0] || std::fabs(*idx.v[0]) > 1e15) {
      s.text = data.text + "[?]";
      return s;
    }
    int64_t k = static_cast<int64_t>(*idx.v[0]);
    s.length_known = true;
    if (data.is_shape_of) s.text = "dim " + std::to_string(k) + " of " + quoted(data.shape_of);
    else s.text = data.text + "[" + std::to_string(k) + "]";
    if (!data.length_known) {
      s.v.push_back(std::nullopt);
      return s;
    }
    const int64_t len = static_cast<int64_t>(data.v.size());
    if (k < 0) k += len;
    if (k < 0 || k >= len) {
      s.v.push_back(std::nullopt);
      return s;
    }
    s.v.push_back(data.v[static_cast<size_t>(k)]);
    if (data.is_shape_of && data.v[static_cast<size_t>(k)])
      facts_.insert("dim " + std::to_string(k) + " of " + quoted(data.shape_of) + " is " +
                    num(*data.v[static_cast<size_t>(k)]));
    return s;
  }

  Sym binary(const std::string& sym, const Sym& a, const Sym& b) {
    for (const Sym* side : {&a, &b})
      if (side->scalar_known() && std::isfinite(*side->v[0]) && constants_.size() < kMaxElements)
        constants_.insert(*side->v[0]);
    Sym s;
    s.text = a.text + " " + sym + " " + b.text;
    s.comparison = sym == "==" || sym == ">" || sym == "<" || sym == ">=" || sym == "<=";
    if (!a.length_known || !b.length_known) return s;
    const size_t na = a.v.size(), nb = b.v.size();
    if (na != nb && na != 1 && nb != 1) return s;
    const size_t len = std::max(na, nb);
    s.length_known = true;
    for (size_t i = 0; i < len; ++i) {
      const auto& x = a.v[na == 1 ? 0 : i];
      const auto& y = b.v[nb == 1 ? 0 : i];
      if (!x || !y) {
        // Logic with one side known can still decide: false and _ = false, true or _ = true.
        if (sym == "and" && ((x && *x == 0) || (y && *y == 0))) s.v.push_back(0.0);
        else if (sym == "or" && ((x && *x != 0) || (y && *y != 0))) s.v.push_back(1.0);
        else s.v.push_back(std::nullopt);
        continue;
      }
      double r = 0;
      if (sym == "==") r = *x == *y;
      else if (sym == ">") r = *x > *y;
      else if (sym == "<") r = *x < *y;
      else if (sym == ">=") r = *x >= *y;
      else if (sym == "<=") r = *x <= *y;
      else if (sym == "and") r = (*x != 0) && (*y != 0);
      else if (sym == "or") r = (*x != 0) || (*y != 0);
      else if (sym == "xor") r = (*x != 0) != (*y != 0);
      else if (sym == "+") r = *x + *y;
      else if (sym == "-") r = *x - *y;
      else if (sym == "*") r = *x * *y;
      s.v.push_back(r);
    }
    return s;
  }

 public:
  std::set<std::string> tested_;
  std::set<std::string> facts_;
  std::set<double> constants_;

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
  p.traced = true;
  p.text = s.text;
  p.tested.assign(t.tested_.begin(), t.tested_.end());
  p.constants.assign(t.constants_.begin(), t.constants_.end());
  if (s.scalar_known()) {
    p.decided = *s.v[0] != 0 ? 1 : 0;
    std::string why;
    for (const auto& f : t.facts_) why += (why.empty() ? "" : ", ") + f;
    p.decided_why = why.empty() ? "it is computed from constants only" : why;
  }
  return p;
}

}  // namespace condlint
