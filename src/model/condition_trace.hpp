// What a condition is computed from: one tracer (CondTracer) for every format. It walks back from the value that
// feeds the condition through the ops that compute shapes, comparisons and logic, up to inputs, constants and ops it
// does not look into: it says what the condition reads (shapes, values, which ones) and how, and decides it
// (model/condition_sym) where small constants and proven shapes leave one answer. What a value is comes from an
// adapter per format, which reads that format's ops into one CondStep: the IR and NNAPI adapter here reads the Model
// (constants from the .bin and the operand values; shapes only where the main graph's Parameters declare them: the
// declared dims of computed IR values are what the IR rules check, not facts to build on); the ONNX adapter
// (loaders/onnx_condition) reads the parsed NodeProtos by name in the scope of the If during the loader's walk, with
// the shapes condlint's inference proves, before the Model it would read is built.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/condition_sym.hpp"
#include "model/model.hpp"

namespace condlint {

// What an adapter says one value is: a constant, an op the tracer combines (its inputs `in`, handles of the
// adapter's), or a value it does not look into.
template <class Handle>
struct CondStep {
  enum class Kind {
    Opaque,     // its value decides (name)
    Known,      // a small constant (values, rank); its text the number, or the name where named_text
    Named,      // a constant whose values are not read (name)
    ShapeOf,    // shape(name) of shape `shape`, sliced to [start, end)
    RankOf,     // rank(name) of shape `shape`
    SizeOf,     // the element count of name, of shape `shape`
    Gather,     // in[0][in[1]]; axis as below
    Identity,   // in[0]
    Reshaped,   // in[0] in another shape
    ToBool,     // in[0] != 0
    Passed,     // in[0] converted to a number type
    Converted,  // in[0] converted where only small whole numbers survive every conversion
    Not,        // not in[0]
    Binary,     // in[0] op in[1]; where `activation`, in[2] is a fused activation: the value is known only without one
    ZeroOne,    // in[0] converted to a type the adapter does not know: only 0 and 1 are the same under every cast
    Computed,   // `sym`, which the adapter traced itself (ONNX: through a model-local function's body)
    Concat,     // the 1-D values in[0], in[1], ... one after another
    Product,    // the product of the elements of the 1-D value in[0] (a size from a shape)
  };
  // Gather's axis: 0; another one, read from an attribute (the result is opaque, under `name`); or input in[2],
  // evaluated (axis 0, or -1 of a shape of known length, reads an element; another one leaves the elements unknown).
  enum class Axis { Zero, Other, Input };
  Kind kind = Kind::Opaque;
  std::string name;
  std::vector<double> values;
  size_t rank = 1;
  bool named_text = false;
  Shape shape;
  int64_t start = 0, end = std::numeric_limits<int64_t>::max();
  const char* op = "";
  Axis axis = Axis::Zero;
  bool activation = false;
  std::vector<std::optional<Handle>> in;  // nullopt: no input there (nothing known of it)
  CondSym sym;                            // Computed
};

// The one condition tracer. Adapter: `using Handle`, `static constexpr bool kMemo` (results kept per handle: an
// adapter whose handles name values) and `CondStep<Handle> read(const Handle&, CondTracer&, int depth)`, which calls
// spent(depth) once per op it looks into (and may call it again for work of its own). Bounded: at most kMaxSteps
// steps and kMaxDepth levels, past which a value is opaque.
template <class Adapter>
class CondTracer {
 public:
  using Handle = typename Adapter::Handle;
  using Step = CondStep<Handle>;
  static constexpr int kMaxDepth = 24;
  static constexpr int kMaxSteps = 400;

  CondTracer(Adapter& a, ConditionProvenance& out) : a_(a), out_(out) {}

  CondSym eval(const Handle& h, int depth) {
    if constexpr (Adapter::kMemo) {
      if (auto it = memo_.find(h); it != memo_.end()) return it->second;
      CondSym s = eval_uncached(h, depth);
      memo_.emplace(h, s);
      return s;
    } else {
      return eval_uncached(h, depth);
    }
  }
  // True when the trace is past its depth or its steps (and counts one step when it is not past its depth).
  bool spent(int depth) { return depth > kMaxDepth || ++steps_ > kMaxSteps; }
  // A value the tracer does not look into: its value decides.
  CondSym opaque(const std::string& name) {
    out_.on_values = true;
    facts.tested.insert(name);
    CondSym s;
    s.text = "'" + name + "'";
    return s;
  }
  // The provenance this tracer fills and its step count: a tracer of a nested scope (an ONNX function's body) shares
  // them, so one condition stays within one budget.
  ConditionProvenance& provenance() { return out_; }
  int& steps() { return steps_; }
  // Fills the provenance from the value of the whole condition.
  void conclude(const CondSym& s) { cond_conclude(s, facts, out_); }

  CondFacts facts;

 private:
  CondSym eval_uncached(const Handle& h, int depth) {
    const Step s = a_.read(h, *this, depth);
    auto in = [&](size_t i) -> CondSym { return i < s.in.size() && s.in[i] ? eval(*s.in[i], depth + 1) : CondSym{}; };
    using K = typename Step::Kind;
    switch (s.kind) {
      case K::Opaque: return opaque(s.name);
      case K::Known: {
        CondSym k = cond_known(s.values, s.rank);
        if (s.named_text) k.text = "'" + s.name + "'";
        return k;
      }
      case K::Named: {
        CondSym k;
        k.text = "'" + s.name + "'";
        return k;
      }
      case K::ShapeOf:
        out_.on_shapes = true;
        facts.tested.insert(s.name);
        return cond_shape_of(s.name, s.shape, s.start, s.end);
      case K::RankOf: out_.on_shapes = true; return cond_rank_of(s.name, s.shape, facts);
      case K::SizeOf: {
        out_.on_shapes = true;
        facts.tested.insert(s.name);
        CondSym k;
        k.text = "size('" + s.name + "')";
        k.length_known = true;
        if (auto c = s.shape.element_count()) {
          k.v.push_back(static_cast<double>(*c));
          facts.facts.insert("'" + s.name + "' has " + std::to_string(*c) + " elements");
        } else {
          k.v.push_back(std::nullopt);
        }
        return k;
      }
      case K::Gather: {
        if (s.axis != Step::Axis::Input) return gather(s, in(0), in(1));
        const CondSym data = in(0), idx = in(1);
        const CondSym axis = in(2);
        if (axis.scalar_known() && (*axis.v[0] == 0 || (*axis.v[0] == -1 && data.length_known)))
          return cond_gather(data, idx, facts);
        CondFacts unused;
        CondSym k = cond_gather(data, idx, unused);
        for (auto& e : k.v) e.reset();
        return k;
      }
      case K::Identity: return in(0);
      case K::Reshaped: return cond_reshaped(in(0));
      case K::ToBool: return cond_to_bool(in(0));
      case K::Passed: return cond_passed(in(0));
      case K::Converted: {
        CondSym k = in(0);
        for (auto& e : k.v)
          if (e && !(*e == std::floor(*e) && *e >= 0 && *e <= 127)) e.reset();
        return cond_passed(std::move(k));
      }
      case K::ZeroOne: {
        CondSym k = cond_passed(in(0));
        for (auto& e : k.v)
          if (e && *e != 0 && *e != 1) e.reset();
        return k;
      }
      case K::Computed: return s.sym;
      case K::Product: {
        const CondSym x = in(0);
        CondSym k;
        k.text = "prod(" + x.text + ")";
        if (!x.length_known || !x.flat) return k;
        k.length_known = true;
        std::optional<double> p = 1.0;
        for (const auto& e : x.v) {
          if (e && *e == 0) {  // one known 0 decides the product
            p = 0.0;
            break;
          }
          if (!e || !p || std::fabs(*p * *e) > 9e15) p.reset();
          else p = *p * *e;
        }
        k.v.push_back(p);
        return k;
      }
      case K::Concat: {
        CondSym k;
        k.length_known = true;
        for (size_t i = 0; i < s.in.size(); ++i) {
          const CondSym part = in(i);
          k.text += (i ? ", " : "concat(") + part.text;
          if (!part.length_known || !part.flat || k.v.size() + part.v.size() > static_cast<size_t>(kCondMaxElements)) {
            k.length_known = false;
            k.v.clear();
          }
          if (k.length_known) k.v.insert(k.v.end(), part.v.begin(), part.v.end());
        }
        k.text += ")";
        return k;
      }
      case K::Not: return cond_not(in(0));
      case K::Binary: {
        CondSym k = cond_binary(s.op, in(0), in(1), facts);
        if (s.activation) {
          const CondSym act = in(2);
          if (!act.scalar_known() || *act.v[0] != 0)
            for (auto& e : k.v) e.reset();
        }
        return k;
      }
    }
    return opaque(s.name);
  }

  CondSym gather(const Step& s, const CondSym& data, const CondSym& idx) {
    if (s.axis == Step::Axis::Other) return opaque(s.name);
    return cond_gather(data, idx, facts);
  }

  Adapter& a_;
  ConditionProvenance& out_;
  std::map<Handle, CondSym> memo_;
  int steps_ = 0;
};

// How condition texts (ConditionProvenance::text) write a number: "3", "0.5".
std::string condition_number(double d);
// The text of the negation of `text`: a comparison's == and != swap ("dim 1 of 'x' != 1"); anything else is
// wrapped ("not ('c')").
std::string negated_condition(const std::string& text, bool comparison);

// An IR model's Consts by their layer, for reading the values a condition compares with (built once per model).
using IrConstIndex = std::unordered_map<uint64_t, const IrConst*>;
IrConstIndex index_ir_consts(const Model& m);

// The shapes of computed values a format's inference proves (IR: loaders/ir_shapes), null where nothing is proven.
using ProvenShapes = std::function<const Shape*(const ValueRef&)>;

// The provenance of the value `cond` (a node output of `m`); `consts` (may be null) gives the IR Consts' values,
// `proven` (may be null) the shapes a ShapeOf reads beyond the main graph's declared Parameters.
// Bounded: at most a few hundred steps and 24 levels, past which a value is opaque.
ConditionProvenance trace_model_condition(const Model& m, const ValueRef& cond, const IrConstIndex* consts,
                                          const ProvenShapes* proven = nullptr);
// The values of `ref` as the tracer evaluates them (the small integer vectors a shape is built from: ShapeOf, Gather,
// Concat, arithmetic on constants), each nullopt where not known; nullopt where not even their count is known.
std::optional<std::vector<std::optional<double>>> trace_model_values(const Model& m, const ValueRef& ref,
                                                                     const IrConstIndex* consts,
                                                                     const ProvenShapes* proven);
// The provenance of input `input` of node `node` in graph `graph` (an NNAPI IF's condition operand, which may be a
// subgraph input or a constant rather than an operation's output).
ConditionProvenance trace_node_input(const Model& m, int graph, int node, int input);

}  // namespace condlint
