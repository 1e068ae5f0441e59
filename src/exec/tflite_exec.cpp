#include "exec/tflite_exec.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "exec/interpreter.hpp"
#include "exec/ir_exec.hpp"
#include "exec/kernel_call.hpp"
#include "exec/onnx_io.hpp"
#include "exec/synthesize.hpp"
#include "io/mapped_file.hpp"
#include "model/tflite_data.hpp"
#include "rules/readability.hpp"

namespace condlint::exec {
namespace fs = std::filesystem;
namespace {

std::optional<DT> dt_of_tfl(int32_t type) { return dt_of(tfl::elem_type(type)); }

Value scalar_like(DT dt, double v) {
  Tensor t(dt, {});
  if (is_float(dt)) t.f[0] = v;
  else t.i[0] = static_cast<int64_t>(v);
  return Value::tensor(std::move(t));
}

Value i64s(const std::vector<int64_t>& v) {
  Tensor t(DT::I64, {static_cast<int64_t>(v.size())});
  t.i = v;
  return Value::tensor(std::move(t));
}

std::vector<int64_t> ints_of(const Value& v) {
  if (!v.is_tensor()) fail("expected an integer tensor");
  std::vector<int64_t> out;
  for (int64_t k = 0; k < v.t->numel(); ++k) out.push_back(v.t->geti(k));
  return out;
}

std::vector<int64_t> ints_of_text(const std::string& s) {
  std::vector<int64_t> out;
  if (s.empty()) return out;
  auto v = parse_int64_list(s);
  if (!v) fail("'" + s + "' is not a list of integers");
  return *v;
}

class TflRunner {
 public:
  TflRunner(const Model& m, RunOptions ro) : m_(m), d_(*m.tflite), ip_(dummy_, ro), limits_(ro.limits) {}

  std::vector<Value> run(const std::vector<Value>& inputs) {
    guard().limits = limits_;
    deadline_ = limits_.deadline.with_run_limit(limits_.timeout_ms);
    const TflSubgraph& main = d_.subgraphs.at(0);
    if (inputs.size() != main.inputs.size())
      fail("the model's main subgraph has " + std::to_string(main.inputs.size()) + " inputs, the data set gives " +
           std::to_string(inputs.size()));
    for (size_t k = 0; k < inputs.size(); ++k) {
      const TflTensor* t = d_.tensor(0, main.inputs[k]);
      if (!t) fail("input " + std::to_string(k) + " names no tensor");
      if (auto dt = dt_of_tfl(t->type); dt && inputs[k].is_tensor() && inputs[k].t->dt != *dt)
        fail("input_" + std::to_string(k) + " for tensor '" + t->name + "' is " + inputs[k].t->describe() +
             ", the model declares " + dt_name(*dt));
    }
    return run_graph(0, inputs, 0);
  }

  Trace& trace() { return ip_.trace; }

  struct Call {
    size_t g, k;
    const TflOperator& op;
    const Node& node;
    std::vector<const Value*> in;  // null: an optional input left out (-1)
    std::string path;
    int depth;
    const Tensor& t(size_t i) const {
      if (i >= in.size() || !in[i] || !in[i]->is_tensor()) fail(node.op.str() + " needs input " + std::to_string(i));
      return *in[i]->t;
    }
    std::string attr(const char* name, const std::string& def = "") const {
      const std::string* v = node.attrs.find(name);
      return v ? *v : def;
    }
    int64_t attr_int(const char* name, int64_t def) const {
      const std::string v = attr(name);
      return v.empty() ? def : ints_of_text(v).at(0);
    }
    bool attr_bool(const char* name) const { return attr(name) == "true"; }
  };
  using Handler = std::vector<Value> (TflRunner::*)(const Call&);
  struct Entry {
    const char* op;         // the BuiltinOperator name
    const char* onnx = "";  // an ONNX op of the same meaning, run on the inputs as they are
    Handler handler = nullptr;
    bool activation = false;  // applies its fused_activation_function after
  };
  static const std::vector<Entry>& table();
  static std::vector<std::string> op_types() {
    std::vector<std::string> out;
    for (const Entry& e : table()) out.push_back(e.op);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  void check_deadline() {
    if (std::chrono::steady_clock::now() > deadline_) throw_time_limit(limits_);
  }

  Value constant(size_t g, int32_t t) {
    const auto key = std::make_pair(g, t);
    if (auto it = consts_.find(key); it != consts_.end()) return it->second;
    const TflTensor& x = *d_.tensor(g, t);
    const auto dt = dt_of_tfl(x.type);
    if (!dt || !d_.file)
      throw ExecError(ErrKind::Unsupported, "constant tensor " + std::to_string(t) + " of type " +
                                                tfl::type_name(x.type) + " (not supported)");
    // In range: the loader marks a tensor constant only when its buffer is one of the model's and holds data (a
    // buffer index past the table, TFL008, leaves the tensor without a value, which its reader reports).
    const TflBuffer& b = d_.buffers[x.buffer];
    const std::string_view file = d_.file->bytes();
    if (b.offset < 0 || static_cast<uint64_t>(b.offset) > file.size() || b.size > file.size() - b.offset)
      fail("the bytes of buffer " + std::to_string(x.buffer) + " lie outside the file");
    Dims dims(x.shape.begin(), x.shape.end());
    Value v = Value::tensor(tensor_from_le_bytes(*dt, dims, file.substr(static_cast<size_t>(b.offset), b.size)));
    consts_.emplace(key, v);
    return v;
  }

  // Runs subgraph g on its input values; its outputs.
  std::vector<Value> run_graph(size_t g, const std::vector<Value>& args, int depth) {
    if (depth > limits_.max_depth)
      throw ExecError(ErrKind::Resource, "nesting deeper than " + std::to_string(limits_.max_depth) + " at " +
                                             m_.path_of(static_cast<int>(g)));
    check_deadline();
    const TflSubgraph& sg = d_.subgraphs.at(g);
    std::vector<std::optional<Value>> vals(sg.tensors.size());
    if (args.size() != sg.inputs.size())
      fail(m_.path_of(static_cast<int>(g)) + " takes " + std::to_string(sg.inputs.size()) + " inputs, given " +
           std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i) {
      if (!d_.tensor(g, sg.inputs[i])) fail("input " + std::to_string(i) + " names no tensor");
      vals[static_cast<size_t>(sg.inputs[i])] = args[i];
    }
    auto value = [&](int32_t t) -> Value {
      const TflTensor* x = d_.tensor(g, t);
      if (!x) fail("tensor " + std::to_string(t) + " does not exist");
      if (vals[static_cast<size_t>(t)]) return *vals[static_cast<size_t>(t)];
      if (x->constant) return *(vals[static_cast<size_t>(t)] = constant(g, t));
      fail("tensor " + std::to_string(t) + " '" + x->name + "' has no value when it is read");
    };
    for (size_t k = 0; k < sg.ops.size(); ++k) {
      const TflOperator& op = sg.ops[k];
      std::vector<Value> held;
      held.reserve(op.inputs.size());
      for (int32_t t : op.inputs) held.push_back(t < 0 ? Value{} : value(t));
      Call c{g, k, op, m_.node(static_cast<int>(g), static_cast<int>(k)), {}, m_.full_path_of(static_cast<int>(g), static_cast<int>(k)), depth};
      for (size_t i = 0; i < held.size(); ++i) c.in.push_back(op.inputs[i] < 0 ? nullptr : &held[i]);
      std::vector<Value> outs;
      try {
        outs = run_op(c);
      } catch (const ExecError& e) {
        const std::string msg = e.what();
        if (msg.rfind("at ", 0) == 0 || msg.rfind("unsupported op", 0) == 0) throw;
        throw ExecError(e.kind, "at " + c.path + " (" + c.node.op.str() + "): " + msg);
      }
      if (outs.size() < op.outputs.size())
        fail("at " + c.path + " (" + c.node.op.str() + "): produced " + std::to_string(outs.size()) +
             " outputs, the operator declares " + std::to_string(op.outputs.size()));
      for (size_t j = 0; j < op.outputs.size(); ++j) {
        if (!d_.tensor(g, op.outputs[j])) fail("at " + c.path + ": output " + std::to_string(j) + " names no tensor");
        vals[static_cast<size_t>(op.outputs[j])] = outs[j];
      }
    }
    std::vector<Value> out;
    for (int32_t t : sg.outputs) out.push_back(value(t));
    return out;
  }

  std::vector<Value> run_op(const Call& c) {
    const std::string& name = c.node.op.str();
    for (const Entry& e : table()) {
      if (name != e.op) continue;
      std::vector<Value> out = e.handler ? (this->*e.handler)(c) : onnx(e.onnx, c.in, c);
      if (e.activation && !out.empty()) out[0] = activate(c, out[0]);
      return out;
    }
    throw ExecError(ErrKind::Unsupported, "unsupported op " + name + " at " + c.path);
  }

  std::vector<Value> onnx(const std::string& op, const std::vector<const Value*>& in, const Call& c,
                          const std::function<void(onnx::NodeProto&)>& attrs = {}, int n_out = 1) {
    return call_onnx_kernel(ip_, op, in, c.path, c.depth, attrs, n_out);
  }
  Value onnx1(const std::string& op, const std::vector<const Value*>& in, const Call& c,
              const std::function<void(onnx::NodeProto&)>& attrs = {}) {
    return onnx(op, in, c, attrs).at(0);
  }

  // The operator's fused_activation_function applied to its result.
  Value activate(const Call& c, const Value& v) {
    const std::string a = c.attr("fused_activation_function", "NONE");
    if (a == "NONE") return v;
    if (a == "RELU") return onnx1("Relu", {&v}, c);
    if (a == "TANH") return onnx1("Tanh", {&v}, c);
    if (a == "RELU6" || a == "RELU_N1_TO_1") {
      const Value lo = scalar_like(v.t->dt, a == "RELU6" ? 0 : -1), hi = scalar_like(v.t->dt, a == "RELU6" ? 6 : 1);
      return onnx1("Clip", {&v, &lo, &hi}, c);
    }
    throw ExecError(ErrKind::Unsupported, "unsupported op " + c.node.op.str() + " with fused activation " + a);
  }

  // The element type the file declares for output j (the kernels' results are cast to it where they differ, as a
  // TFLite kernel writes the type its output tensor has: SHAPE and ARG_MAX give INT32 or INT64 as declared).
  DT declared_dt(const Call& c, size_t j, DT def) const {
    const TflTensor* t = j < c.op.outputs.size() ? d_.tensor(c.g, c.op.outputs[j]) : nullptr;
    if (!t) return def;
    return dt_of_tfl(t->type).value_or(def);
  }
  Value cast_to(const Call& c, Value v, DT dt) {
    if (!v.is_tensor() || v.t->dt == dt) return v;
    return onnx1("Cast", {&v}, c, [&](onnx::NodeProto& n) { set_i(n, "to", static_cast<int>(dt)); });
  }

  std::vector<Value> op_if(const Call& c) {
    if (!c.op.has_refs || c.in.empty() || !c.in[0]) fail("IF without its condition or its subgraphs");
    const Tensor& cond = c.t(0);
    if (cond.numel() != 1) fail("the condition " + cond.describe() + " does not hold one element");
    const bool use = ip_.pin_for(c.path, cond.getf(0) != 0);
    const int32_t target = c.op.refs[use ? 0 : 1].second;
    if (!tflr_runnable(target)) fail(std::string("IF names no ") + (use ? "then" : "else") + " subgraph it can run");
    std::vector<Value> args;
    for (size_t i = 1; i < c.in.size(); ++i) args.push_back(c.in[i] ? *c.in[i] : Value{});
    return run_graph(static_cast<size_t>(target), args, c.depth + 1);
  }

  std::vector<Value> op_while(const Call& c) {
    if (!c.op.has_refs || !tflr_runnable(c.op.refs[0].second) || !tflr_runnable(c.op.refs[1].second))
      fail("WHILE names no cond or body subgraph it can run");
    std::vector<Value> vals;
    for (const Value* v : c.in) vals.push_back(v ? *v : Value{});
    for (int64_t it = 0;; ++it) {
      check_deadline();
      const auto go = run_graph(static_cast<size_t>(c.op.refs[0].second), vals, c.depth + 1);
      if (go.size() != 1 || !go[0].is_tensor() || go[0].t->numel() != 1)
        fail("the cond subgraph does not give one element");
      if (go[0].t->getf(0) == 0) break;
      if (it >= limits_.max_loop_iterations)
        throw ExecError(ErrKind::Resource,
                        "more than " + std::to_string(limits_.max_loop_iterations) + " iterations at " + c.path);
      vals = run_graph(static_cast<size_t>(c.op.refs[1].second), vals, c.depth + 1);
    }
    return vals;
  }

  bool tflr_runnable(int32_t g) const { return g > 0 && static_cast<size_t>(g) < d_.subgraphs.size(); }

  std::vector<Value> op_fully_connected(const Call& c) {
    const Tensor& x = c.t(0);
    const Tensor& w = c.t(1);
    if (w.rank() != 2) fail("weights " + w.describe() + " are not 2-D");
    if (c.attr("weights_format", "0") != "0")
      throw ExecError(ErrKind::Unsupported, "unsupported op FULLY_CONNECTED with shuffled weights at " + c.path);
    const int64_t k = w.shape[1], units = w.shape[0];
    if (k <= 0 || x.numel() % k != 0) fail("input " + x.describe() + " does not divide into rows of " + std::to_string(k));
    const Value shape2 = i64s({x.numel() / k, k});
    const Value x2 = onnx1("Reshape", {c.in[0], &shape2}, c);
    std::vector<const Value*> in{&x2, c.in[1]};
    if (c.in.size() > 2 && c.in[2]) in.push_back(c.in[2]);
    Value y = onnx1("Gemm", in, c, [](onnx::NodeProto& n) { set_i(n, "transB", 1); });
    if (c.attr_bool("keep_num_dims")) {
      std::vector<int64_t> dims(x.shape.begin(), x.shape.end());
      dims.back() = units;
      const Value s = i64s(dims);
      y = onnx1("Reshape", {&y, &s}, c);
    }
    return {y};
  }

  std::vector<Value> op_conv_2d(const Call& c) {
    const Tensor& x = c.t(0);
    const Tensor& w = c.t(1);
    if (x.rank() != 4 || w.rank() != 4) fail("CONV_2D needs 4-D input and filter");
    const Value xt = onnx1("Transpose", {c.in[0]}, c, [](onnx::NodeProto& n) { set_ints(n, "perm", {0, 3, 1, 2}); });
    const Value wt = onnx1("Transpose", {c.in[1]}, c, [](onnx::NodeProto& n) { set_ints(n, "perm", {0, 3, 1, 2}); });
    std::vector<const Value*> in{&xt, &wt};
    if (c.in.size() > 2 && c.in[2]) in.push_back(c.in[2]);
    const std::string pad = c.attr("padding", "SAME");
    if (pad != "SAME" && pad != "VALID") fail("padding " + pad);
    const int64_t group = w.shape[3] > 0 && x.shape[3] % w.shape[3] == 0 ? x.shape[3] / w.shape[3] : 1;
    const Value y = onnx1("Conv", in, c, [&](onnx::NodeProto& n) {
      set_ints(n, "strides", {c.attr_int("stride_h", 1), c.attr_int("stride_w", 1)});
      set_ints(n, "dilations", {c.attr_int("dilation_h_factor", 1), c.attr_int("dilation_w_factor", 1)});
      set_s(n, "auto_pad", pad == "SAME" ? "SAME_UPPER" : "VALID");
      set_i(n, "group", group);
    });
    return {onnx1("Transpose", {&y}, c, [](onnx::NodeProto& n) { set_ints(n, "perm", {0, 2, 3, 1}); })};
  }

  std::vector<Value> op_reshape(const Call& c) {
    std::vector<int64_t> shape;
    if (c.in.size() > 1 && c.in[1]) shape = ints_of(*c.in[1]);
    else shape = ints_of_text(c.attr("new_shape"));
    const Value s = i64s(shape);
    return onnx("Reshape", {c.in[0], &s}, c);
  }

  std::vector<Value> op_concatenation(const Call& c) {
    return onnx("Concat", c.in, c, [&](onnx::NodeProto& n) { set_i(n, "axis", c.attr_int("axis", 0)); });
  }

  std::vector<Value> op_softmax(const Call& c) {
    const double beta = std::stod(c.attr("beta", "1"));
    Value x = *c.in.at(0);
    if (beta != 1) {
      const Value b = scalar_like(x.t->dt, beta);
      x = onnx1("Mul", {&x, &b}, c);
    }
    return onnx("Softmax", {&x}, c, [](onnx::NodeProto& n) { set_i(n, "axis", -1); });
  }

  std::vector<Value> reduce(const Call& c, const char* op) {
    const Value axes = i64s(ints_of(*c.in.at(1)));
    return onnx(op, {c.in[0], &axes}, c,
                [&](onnx::NodeProto& n) { set_i(n, "keepdims", c.attr_bool("keep_dims") ? 1 : 0); });
  }
  std::vector<Value> op_sum(const Call& c) { return reduce(c, "ReduceSum"); }
  std::vector<Value> op_mean(const Call& c) { return reduce(c, "ReduceMean"); }
  std::vector<Value> op_reduce_max(const Call& c) { return reduce(c, "ReduceMax"); }
  std::vector<Value> op_reduce_min(const Call& c) { return reduce(c, "ReduceMin"); }
  std::vector<Value> op_reduce_prod(const Call& c) { return reduce(c, "ReduceProd"); }

  std::vector<Value> op_transpose(const Call& c) {
    const std::vector<int64_t> perm = ints_of(*c.in.at(1));
    return onnx("Transpose", {c.in[0]}, c, [&](onnx::NodeProto& n) { set_ints(n, "perm", perm); });
  }

  std::vector<Value> op_gather(const Call& c) {
    if (c.attr_int("batch_dims", 0) != 0)
      throw ExecError(ErrKind::Unsupported, "unsupported op GATHER with batch_dims at " + c.path);
    return onnx("Gather", {c.in.at(0), c.in.at(1)}, c,
                [&](onnx::NodeProto& n) { set_i(n, "axis", c.attr_int("axis", 0)); });
  }

  std::vector<Value> op_strided_slice(const Call& c) {
    const Tensor& x = c.t(0);
    if (c.attr_int("ellipsis_mask", 0) != 0 || c.attr_int("new_axis_mask", 0) != 0)
      throw ExecError(ErrKind::Unsupported, "unsupported op STRIDED_SLICE with an ellipsis or new-axis mask at " + c.path);
    const auto begin = ints_of(*c.in.at(1)), end_in = ints_of(*c.in.at(2));
    const auto strides = c.in.size() > 3 && c.in[3] ? ints_of(*c.in[3]) : std::vector<int64_t>(begin.size(), 1);
    if (end_in.size() != begin.size() || strides.size() != begin.size() || begin.size() > x.rank())
      fail("begin, end and strides do not match the input " + x.describe());
    const int64_t bm = c.attr_int("begin_mask", 0), em = c.attr_int("end_mask", 0), sm = c.attr_int("shrink_axis_mask", 0);
    const bool offset = c.attr_bool("offset");
    std::vector<int64_t> starts, ends, axes, steps, squeeze;
    for (size_t i = 0; i < begin.size(); ++i) {
      const int64_t s = strides[i];
      if (s == 0) fail("a stride of 0");
      int64_t b = begin[i], e = offset ? begin[i] + end_in[i] : end_in[i];
      if (bm >> i & 1) b = s > 0 ? 0 : INT64_MAX;
      if (em >> i & 1) e = s > 0 ? INT64_MAX : INT64_MIN;
      if (sm >> i & 1) {
        e = b == -1 ? INT64_MAX : b + 1;
        squeeze.push_back(static_cast<int64_t>(i));
      }
      starts.push_back(b);
      ends.push_back(e);
      axes.push_back(static_cast<int64_t>(i));
      steps.push_back(sm >> i & 1 ? 1 : s);
    }
    const Value vs = i64s(starts), ve = i64s(ends), va = i64s(axes), vst = i64s(steps);
    Value y = onnx1("Slice", {c.in[0], &vs, &ve, &va, &vst}, c);
    if (!squeeze.empty()) {
      const Value sq = i64s(squeeze);
      y = onnx1("Squeeze", {&y, &sq}, c);
    }
    return {y};
  }

  std::vector<Value> op_batch_matmul(const Call& c) {
    auto adj = [&](size_t i, const char* flag) {
      Value v = *c.in.at(i);
      if (!c.attr_bool(flag)) return v;
      std::vector<int64_t> perm(v.t->rank());
      for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(k);
      if (perm.size() < 2) fail("adj on a tensor of rank " + std::to_string(perm.size()));
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      return onnx1("Transpose", {&v}, c, [&](onnx::NodeProto& n) { set_ints(n, "perm", perm); });
    };
    const Value a = adj(0, "adj_x"), b = adj(1, "adj_y");
    return onnx("MatMul", {&a, &b}, c);
  }

  std::vector<Value> op_floor_mod(const Call& c) {
    const Tensor& x = c.t(0);
    if (!is_float(x.dt)) return onnx("Mod", c.in, c, [](onnx::NodeProto& n) { set_i(n, "fmod", 0); });
    const Value q = onnx1("Div", c.in, c);  // x - floor(x / y) * y
    const Value f = onnx1("Floor", {&q}, c);
    const Value p = onnx1("Mul", {&f, c.in.at(1)}, c);
    return onnx("Sub", {c.in[0], &p}, c);
  }

  std::vector<Value> op_cast(const Call& c) { return {cast_to(c, *c.in.at(0), declared_dt(c, 0, c.t(0).dt))}; }
  std::vector<Value> op_shape(const Call& c) {
    return {cast_to(c, onnx1("Shape", {c.in.at(0)}, c), declared_dt(c, 0, DT::I32))};
  }
  std::vector<Value> arg(const Call& c, const char* op) {
    const auto axis = ints_of(*c.in.at(1));
    if (axis.size() != 1) fail("the axis is not one value");
    const Value y = onnx1(op, {c.in[0]}, c, [&](onnx::NodeProto& n) {
      set_i(n, "axis", axis[0]);
      set_i(n, "keepdims", 0);
    });
    return {cast_to(c, y, declared_dt(c, 0, DT::I64))};
  }
  std::vector<Value> op_arg_max(const Call& c) { return arg(c, "ArgMax"); }
  std::vector<Value> op_arg_min(const Call& c) { return arg(c, "ArgMin"); }
  std::vector<Value> op_expand_dims(const Call& c) {
    const Value axes = i64s(ints_of(*c.in.at(1)));
    return onnx("Unsqueeze", {c.in[0], &axes}, c);
  }
  std::vector<Value> op_not_equal(const Call& c) {
    const Value e = onnx1("Equal", c.in, c);
    return onnx("Not", {&e}, c);
  }
  std::vector<Value> op_square(const Call& c) { return onnx("Mul", {c.in.at(0), c.in.at(0)}, c); }
  std::vector<Value> op_rsqrt(const Call& c) {
    const Value s = onnx1("Sqrt", {c.in.at(0)}, c);
    return onnx("Reciprocal", {&s}, c);
  }
  std::vector<Value> op_squared_difference(const Call& c) {
    const Value d = onnx1("Sub", c.in, c);
    return onnx("Mul", {&d, &d}, c);
  }
  std::vector<Value> op_relu6(const Call& c) {
    const Value lo = scalar_like(c.t(0).dt, 0), hi = scalar_like(c.t(0).dt, 6);
    return onnx("Clip", {c.in[0], &lo, &hi}, c);
  }
  std::vector<Value> op_tile(const Call& c) {
    const Value reps = i64s(ints_of(*c.in.at(1)));
    return onnx("Tile", {c.in[0], &reps}, c);
  }

  const Model& m_;
  const TfliteData& d_;
  onnx::ModelProto dummy_;
  Interpreter ip_;
  Limits limits_;
  std::chrono::steady_clock::time_point deadline_{};
  std::map<std::pair<size_t, int32_t>, Value> consts_;
};

// The operators the executor runs: an ONNX op of the same meaning, or a handler; `true`: the fused activation
// follows.
const std::vector<TflRunner::Entry>& TflRunner::table() {
  using R = TflRunner;
  static const std::vector<Entry> t = {
      {"ADD", "Add", nullptr, true},
      {"SUB", "Sub", nullptr, true},
      {"MUL", "Mul", nullptr, true},
      {"DIV", "Div", nullptr, true},
      {"MAXIMUM", "Max"},
      {"MINIMUM", "Min"},
      {"POW", "Pow"},
      {"LESS", "Less"},
      {"GREATER", "Greater"},
      {"LESS_EQUAL", "LessOrEqual"},
      {"GREATER_EQUAL", "GreaterOrEqual"},
      {"EQUAL", "Equal"},
      {"NOT_EQUAL", "", &R::op_not_equal},
      {"LOGICAL_AND", "And"},
      {"LOGICAL_OR", "Or"},
      {"LOGICAL_NOT", "Not"},
      {"TANH", "Tanh"},
      {"LOGISTIC", "Sigmoid"},
      {"RELU", "Relu"},
      {"RELU6", "", &R::op_relu6},
      {"NEG", "Neg"},
      {"ABS", "Abs"},
      {"EXP", "Exp"},
      {"LOG", "Log"},
      {"SQRT", "Sqrt"},
      {"RSQRT", "", &R::op_rsqrt},
      {"SQUARE", "", &R::op_square},
      {"SQUARED_DIFFERENCE", "", &R::op_squared_difference},
      {"FLOOR", "Floor"},
      {"CEIL", "Ceil"},
      {"SIN", "Sin"},
      {"COS", "Cos"},
      {"FLOOR_MOD", "", &R::op_floor_mod},
      {"SELECT", "Where"},
      {"SELECT_V2", "Where"},
      {"CAST", "", &R::op_cast},
      {"SHAPE", "", &R::op_shape},
      {"FULLY_CONNECTED", "", &R::op_fully_connected, true},
      {"CONV_2D", "", &R::op_conv_2d, true},
      {"RESHAPE", "", &R::op_reshape},
      {"CONCATENATION", "", &R::op_concatenation, true},
      {"SOFTMAX", "", &R::op_softmax},
      {"SUM", "", &R::op_sum},
      {"MEAN", "", &R::op_mean},
      {"REDUCE_MAX", "", &R::op_reduce_max},
      {"REDUCE_MIN", "", &R::op_reduce_min},
      {"REDUCE_PROD", "", &R::op_reduce_prod},
      {"TRANSPOSE", "", &R::op_transpose},
      {"GATHER", "", &R::op_gather},
      {"STRIDED_SLICE", "", &R::op_strided_slice},
      {"BATCH_MATMUL", "", &R::op_batch_matmul},
      {"ARG_MAX", "", &R::op_arg_max},
      {"ARG_MIN", "", &R::op_arg_min},
      {"EXPAND_DIMS", "", &R::op_expand_dims},
      {"TILE", "", &R::op_tile},
      {"IF", "", &R::op_if},
      {"WHILE", "", &R::op_while},
  };
  return t;
}

// Why a value contradicts the tensor the file declares ("" when it does not): the element type, and every static
// dimension (a -1 of shape_signature is any size).
std::string check_tensor(const Value& v, const TfliteData& d, int32_t t) {
  const TflTensor* x = d.tensor(0, t);
  if (!x || !v.is_tensor()) return v.is_tensor() ? "" : "is not a tensor";
  const auto dt = dt_of_tfl(x->type);
  if (dt && *dt != v.t->dt) return "gives " + v.t->describe() + ", declared " + d.describe(0, t);
  const auto& dims = x->shape_signature && x->shape_signature->size() == x->shape.size() ? *x->shape_signature : x->shape;
  if (!dims.empty() || x->has_rank) {
    bool ok = dims.size() == v.t->rank();
    for (size_t k = 0; ok && k < dims.size(); ++k) ok = dims[k] < 0 || dims[k] == v.t->shape[k];
    if (!ok) return "gives " + v.t->describe() + ", declared " + d.describe(0, t);
  }
  return "";
}

CaseResult run_case(const Model& m, const RunConfig& cfg, const std::vector<Value>& inputs,
                    const std::vector<std::optional<Value>>* golden, const PinSet& pins, Trace& trace,
                    std::vector<Value>& outputs) {
  CaseResult cr;
  TflRunner r(m, case_options(cr, cfg, pins));
  run_timed(cr, [&] { outputs = r.run(inputs); });
  trace = r.trace();
  const TflSubgraph& main = m.tflite->subgraphs[0];
  finish_case(cr, cfg, pins, trace, outputs, golden, cr.status == CaseStatus::Passed ? main.outputs.size() : 0,
              [&](size_t k, OutputResult& o) {
                const TflTensor* t = m.tflite->tensor(0, main.outputs[k]);
                o.name = t && !t->name.empty() ? t->name : "output " + std::to_string(k);
                return check_tensor(outputs[k], *m.tflite, main.outputs[k]);
              });
  return cr;
}

std::string save_case(const fs::path& dir, int index, const std::vector<Value>& inputs,
                      const std::vector<Value>& outputs, const PinSet& pins) {
  return save_case(dir, index, inputs, outputs, pins,
                   [](bool output, size_t k) { return (output ? "output_" : "input_") + std::to_string(k); });
}

// The main subgraph's inputs as synthesis and --random see them: each -1 of shape_signature open.
std::vector<InputDecl> input_decls(const Model& m) {
  std::vector<InputDecl> out;
  const TfliteData& d = *m.tflite;
  for (int32_t t : d.subgraphs[0].inputs) {
    const TflTensor* x = d.tensor(0, t);
    if (!x) continue;
    InputDecl decl;
    decl.name = x->name;
    decl.dt = dt_of_tfl(x->type);
    decl.has_shape = true;
    const auto& dims = x->shape_signature && x->shape_signature->size() == x->shape.size() ? *x->shape_signature : x->shape;
    for (int32_t n : dims) {
      decl.dims.push_back(n < 0 ? std::nullopt : std::optional<int64_t>(n));
      decl.dim_names.emplace_back();
    }
    out.push_back(std::move(decl));
  }
  return out;
}

void synthesize_tflite(const Model& model, const RunConfig& cfg, DataPlan& plan, size_t s, const std::string& name,
                       std::vector<Value> base, ModelResult& mr, PinState& state, MemorySets& memory,
                       int& save_index) {
  synthesize_phase(
      cfg, plan, s, name, base, input_decls(model),
      [&](const std::vector<Value>& in, Trace& trace) {
        RunOptions ro;
        ro.limits = cfg.limits;
        TflRunner r(model, ro);
        run_keeping_trace(
            trace, [&] { r.run(in); }, [&] { return r.trace(); });
      },
      mr, state, memory,
      [&](const std::vector<Value>& in, Trace& trace, std::vector<Value>& outputs) {
        return run_case(model, cfg, in, nullptr, {}, trace, outputs);
      },
      [&](const std::vector<Value>& in, const std::vector<Value>& outputs) {
        return save_case(cfg.save_dir, save_index++, in, outputs, {});
      });
}

}  // namespace

std::vector<std::string> tflite_op_types() { return TflRunner::op_types(); }

ModelResult run_tflite_model(const Model& model, const fs::path& path, const RunConfig& config) {
  ModelResult mr;
  RunConfig cfg = config;
  mr.model = path.string();
  if (!model.tflite) {
    mr.error = path.string() + ": not a TFLite model";
    return mr;
  }
  if (!record_all_ifs(model, cfg, mr)) return mr;
  if (auto why = readability_of(model); !why.empty()) {  // what lint cannot read is not run
    mr.error = path.string() + ": " + why;
    return mr;
  }
  if (!model.tflite->valid()) {
    mr.error = path.string() + ": " + (model.tflite->problems.empty() ? "no subgraph" : model.tflite->problems[0].message);
    return mr;
  }
  if (!cfg.policy) cfg.policy = std::make_shared<const BranchPolicy>(model);
  guard().limits = cfg.limits;
  const TflSubgraph& main = model.tflite->subgraphs[0];
  const size_t n_in = main.inputs.size(), n_out = main.outputs.size();
  DataPlan plan = plan_data_sets(path, cfg, n_in > 0);
  if (!plan.error.empty()) {
    mr.error = plan.error;
    return mr;
  }
  MemorySets memory;
  if (auto e = add_random_sets(input_decls(model), cfg, plan, memory); !e.empty()) {
    mr.error = e;
    return mr;
  }
  ExecBackend b;
  b.outputs = n_out;
  b.load = [&](const DataSet& ds) {
    LoadedSet l;
    try {
      if (ds.inputs.size() > n_in)
        fail("data set has input_" + std::to_string(ds.inputs.size() - 1) + ", the model has " + std::to_string(n_in) +
             " inputs");
      for (size_t k = 0; k < n_in; ++k) {
        if (k >= ds.inputs.size() || ds.inputs[k].empty()) fail("data set has no input_" + std::to_string(k));
        l.inputs.push_back(read_golden(ds.inputs[k]));
      }
      for (size_t k = 0; k < n_out; ++k) {
        if (k >= ds.outputs.size() || ds.outputs[k].empty()) l.golden.emplace_back();
        else l.golden.emplace_back(read_golden(ds.outputs[k]));
      }
    } catch (const ExecError& e) {
      l.error = e.what();
    }
    return l;
  };
  b.synthesize = [&](DataPlan& p, size_t s, const std::string& name, const std::vector<Value>& inputs, ModelResult& r,
                     PinState& state, MemorySets& mem, int& save_index) {
    synthesize_tflite(model, cfg, p, s, name, inputs, r, state, mem, save_index);
  };
  b.run = [&](const std::vector<Value>& inputs, const std::vector<std::optional<Value>>* golden, const PinSet& pins,
              Trace& trace, std::vector<Value>& outputs) {
    return run_case(model, cfg, inputs, golden, pins, trace, outputs);
  };
  b.save = [&](int index, const std::vector<Value>& inputs, const std::vector<Value>& outputs, const PinSet& pins) {
    return save_case(cfg.save_dir, index, inputs, outputs, pins);
  };
  run_data_sets(plan, memory, cfg, mr, b);
  return mr;
}

}  // namespace condlint::exec
