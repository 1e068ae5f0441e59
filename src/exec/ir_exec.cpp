#include "exec/ir_exec.hpp"
#include "exec/kernel_call.hpp"
#include "exec/ir_onnx_ops.hpp"
#include "exec/ir_kernels.hpp"
#include "model/graph_order.hpp"

#include <cctype>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include "exec/compare.hpp"
#include "exec/interpreter.hpp"
#include "exec/kernel_util.hpp"
#include "exec/onnx_io.hpp"
#include "loaders/loader.hpp"
#include "rules/readability.hpp"

namespace condlint::exec {

namespace fs = std::filesystem;

std::optional<DT> dt_of(ElemType e) {
  switch (e) {
    case ElemType::Boolean: return DT::Bool;
    case ElemType::F16: return DT::F16;
    case ElemType::BF16: return DT::BF16;
    case ElemType::F32: return DT::F32;
    case ElemType::F64: return DT::F64;
    case ElemType::I8: return DT::I8;
    case ElemType::I16: return DT::I16;
    case ElemType::I32: return DT::I32;
    case ElemType::I64: return DT::I64;
    case ElemType::U8: return DT::U8;
    case ElemType::U16: return DT::U16;
    case ElemType::U32: return DT::U32;
    case ElemType::U64: return DT::U64;
    default: return std::nullopt;
  }
}

namespace {

std::optional<DT> dt_of_name(const std::string& s) {
  static const std::map<std::string, DT> m{
      {"boolean", DT::Bool}, {"f16", DT::F16}, {"bf16", DT::BF16}, {"f32", DT::F32}, {"f64", DT::F64},
      {"i8", DT::I8},        {"i16", DT::I16}, {"i32", DT::I32},   {"i64", DT::I64}, {"u8", DT::U8},
      {"u16", DT::U16},      {"u32", DT::U32}, {"u64", DT::U64}};
  auto it = m.find(s);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::vector<int64_t> parse_int_list(const std::string& s) {
  auto v = parse_int64_list(s);
  if (!v) fail("'" + s + "' is not a list of integers");
  return *v;
}

// "sigmoid, tanh, tanh" -> its names.
std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s + ",") {
    if (ch == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (ch != ' ') {
      cur += ch;
    }
  }
  return out;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool dims_match(const Dims& d, const Shape& s) {
  if (!s.rank_known) return true;
  if (s.dims.size() != d.size()) return false;
  for (size_t k = 0; k < d.size(); ++k)
    if (s.dims[k].is_static() && s.dims[k].lo != d[k]) return false;
  return true;
}

std::string shape_str(const Shape& s) {
  if (!s.rank_known) return "[?]";
  std::string r = "[";
  for (size_t k = 0; k < s.dims.size(); ++k) {
    if (k) r += ",";
    r += s.dims[k].is_static() ? std::to_string(s.dims[k].lo) : std::string("?");
  }
  return r + "]";
}

// Checks a value against a declared IR port: element type (when stated) and static dims (when stated).
std::string check_port(const Value& v, const Port& p) {
  if (!v.is_tensor()) return "is not a tensor";
  const Tensor& t = *v.t;
  std::string want;
  if (p.type().kind == TypeDesc::Kind::Tensor)
    if (auto d = dt_of(p.type().elem); d && *d != t.dt)
      return "gives " + t.describe() + ", declared " + dt_name(*d) + (p.attrs_no_dims ? "" : shape_str(p.shape()));
  if (!p.attrs_no_dims && !dims_match(t.shape, p.shape()))
    return "gives " + t.describe() + ", declared shape " + shape_str(p.shape());
  return "";
}

class IrRunner {
 public:
  IrRunner(const Model& m, RunOptions ro) : m_(m), dummy_(), ip_(dummy_, ro), limits_(ro.limits) {
    for (size_t k = 0; k < m.ir->consts.size(); ++k) consts_[{m.ir->consts[k].graph, m.ir->consts[k].node}] = k;
    for (size_t k = 0; k < m.ir->ifs.size(); ++k) ifs_[{m.ir->ifs[k].graph, m.ir->ifs[k].node}] = k;
  }

  std::vector<int> params(int g) const { return of_type(g, "Parameter"); }
  std::vector<int> results(int g) const { return of_type(g, "Result"); }

  std::vector<Value> run(const std::vector<Value>& inputs) {
    guard().limits = limits_;
    deadline_ = limits_.deadline.with_run_limit(limits_.timeout_ms);
    const auto ps = params(0);
    if (inputs.size() != ps.size())
      fail("the model has " + std::to_string(ps.size()) + " Parameters, the data set gives " +
           std::to_string(inputs.size()));
    std::map<int, Value> bound;
    for (size_t k = 0; k < ps.size(); ++k) {
      const Node& p = m_.node(0, ps[k]);
      if (!p.outputs.empty())
        if (auto d = dt_of(p.outputs[0].type().elem); d && inputs[k].is_tensor() && inputs[k].t->dt != *d)
          fail("input_" + std::to_string(k) + " for Parameter '" + p.display() + "' is " + inputs[k].t->describe() +
               ", the model declares " + dt_name(*d));
      bound[ps[k]] = inputs[k];
    }
    return run_graph(0, bound, 0);
  }

  Trace& trace() { return ip_.trace; }

  static std::vector<std::string> op_types() {
    std::set<std::string> out;
    for (const auto& [op, onnx_op] : exec::ir_binary_ops()) out.insert(op);
    for (const auto& [op, onnx_op] : exec::ir_unary_ops()) out.insert(op);
    for (const auto& [op, onnx_op] : exec::ir_exec_unary_ops()) out.insert(op);
    for (const auto& [op, h] : handlers()) out.insert(std::string(op));
    return {out.begin(), out.end()};
  }

 private:
  std::vector<int> of_type(int g, const char* op) const {
    std::vector<int> out;
    const auto& nodes = m_.graphs[g].nodes;
    for (int k = 0; k < static_cast<int>(nodes.size()); ++k)
      if (nodes[k].op == op) out.push_back(k);
    return out;
  }

  void check_deadline() {
    if (std::chrono::steady_clock::now() > deadline_) throw_time_limit(limits_);
  }

  // Runs graph g with its Parameters (node index -> value); returns the Results' values in file order.
  std::vector<Value> run_graph(int g, const std::map<int, Value>& bound, int depth) {
    if (depth > limits_.max_depth)
      throw ExecError(ErrKind::Resource,
                      "nesting deeper than " + std::to_string(limits_.max_depth) + " at " + m_.path_of(g));
    check_deadline();
    const auto& nodes = m_.graphs[g].nodes;
    const int n = static_cast<int>(nodes.size());
    std::vector<std::vector<Value>> vals(n);
    const std::vector<int> order = topological_order(m_, g, /*self_loop_blocks=*/false);
    for (const int k : order) {
      const Node& node = nodes[k];
      std::vector<const Value*> in;
      for (size_t i = 0; i < node.sources.size(); ++i) {
        const ValueRef& s = node.sources[i];
        if (!s.valid() || s.graph != g || s.node >= n || s.output >= static_cast<int>(vals[s.node].size()))
          fail("at " + m_.path_of(g, k) + " (" + node.op + "): input " + std::to_string(i) + " is not connected");
        in.push_back(&vals[s.node][s.output]);
      }
      if (node.op == "Parameter") {
        auto it = bound.find(k);
        if (it == bound.end()) fail("at " + m_.path_of(g, k) + ": Parameter has no value (no port_map entry binds it)");
        vals[k] = {it->second};
      } else {
        try {
          vals[k] = run_node(g, k, in, depth);
        } catch (const ExecError& e) {
          const std::string msg = e.what();
          if (msg.rfind("at ", 0) == 0 || msg.rfind("unsupported op", 0) == 0) throw;
          throw ExecError(e.kind, "at " + m_.path_of(g, k) + " (" + node.op + "): " + msg);
        }
        if (node.op != "Result" && vals[k].size() < node.outputs.size())
          fail("at " + m_.path_of(g, k) + " (" + node.op + "): produced " + std::to_string(vals[k].size()) +
               " outputs, the layer declares " + std::to_string(node.outputs.size()));
      }
    }
    if (static_cast<int>(order.size()) != n)
      fail(m_.path_of(g) + ": the graph has a cycle; " + std::to_string(n - static_cast<int>(order.size())) +
           " layers never became ready");
    std::vector<Value> outs;
    for (int r : results(g)) {
      if (vals[r].empty()) fail(m_.path_of(g, r) + ": Result has no value");
      outs.push_back(vals[r][0]);
    }
    return outs;
  }

  // Calls an ONNX kernel with a synthetic node.
  std::vector<Value> onnx(const std::string& op, const std::vector<const Value*>& in, const std::string& path,
                          int depth, const std::function<void(onnx::NodeProto&)>& attrs = {}, int n_out = 1) {
    return call_onnx_kernel(ip_, op, in, path, depth, attrs, n_out);
  }

  const Tensor& tensor_in(const std::vector<const Value*>& in, size_t k, const Node& node) {
    if (k >= in.size() || !in[k]->is_tensor()) fail(node.op + " needs input " + std::to_string(k));
    return *in[k]->t;
  }

  std::string attr(const Node& node, const std::string& name, const std::string& def) {
    const std::string* v = node.attrs.find(name);
    return v ? *v : def;
  }
  bool attr_bool(const Node& node, const std::string& name, bool def) {
    const std::string v = attr(node, name, def ? "true" : "false");
    if (v == "true" || v == "1" || v == "True") return true;
    if (v == "false" || v == "0" || v == "False") return false;
    fail("attribute " + name + "=\"" + v + "\" is not a boolean");
  }
  int64_t attr_int(const Node& node, const std::string& name, int64_t def) {
    const std::string* text = node.attrs.find(name);
    if (!text) return def;
    auto v = parse_int_list(*text);
    if (v.size() != 1) fail("attribute " + name + "=\"" + *text + "\" is not an integer");
    return v[0];
  }

  void check_broadcast(const Node& node, const std::vector<const Value*>& in) {
    const std::string ab = attr(node, "auto_broadcast", "numpy");
    if (ab == "numpy") return;
    if (ab == "none") {
      for (size_t k = 1; k < in.size(); ++k)
        if (in[k]->is_tensor() && in[0]->is_tensor() && in[k]->t->shape != in[0]->t->shape)
          fail("auto_broadcast=none but shapes " + dims_str(in[0]->t->shape) + " and " + dims_str(in[k]->t->shape) +
               " differ");
      return;
    }
    throw ExecError(ErrKind::Unsupported, "unsupported op " + node.op + " with auto_broadcast=" + ab);
  }

  Value read_const(int g, int k) {
    const Node& node = m_.node(g, k);
    auto it = consts_.find({g, k});
    if (it == consts_.end()) fail("Const without data");
    const IrConst& c = m_.ir->consts[it->second];
    auto dt = dt_of(c.elem);
    if (!dt)
      throw ExecError(ErrKind::Unsupported, "unsupported op Const of element type " + std::string(to_string(c.elem)) +
                                                " at " + m_.path_of(g, k));
    if (!c.shape || !c.shape->is_static()) fail("Const has no static shape");
    Dims d;
    for (const auto& x : c.shape->dims) d.push_back(x.lo);
    const int64_t n = checked_numel(d);  // element limit checked before anything is allocated
    const int64_t bytes = n * static_cast<int64_t>(dt_bytes(*dt));
    if (!c.offset || !c.size) fail("Const has no offset/size");
    if (*c.size != bytes)
      fail("Const size " + std::to_string(*c.size) + " does not match " + dt_name(*dt) + dims_str(d) + " (" +
           std::to_string(bytes) + " bytes)");
    if (!m_.ir->weights_size) fail("the weights file " + m_.ir->weights_path + " does not exist");
    if (*c.offset < 0 || static_cast<uint64_t>(*c.offset) > *m_.ir->weights_size ||
        static_cast<uint64_t>(bytes) > *m_.ir->weights_size - static_cast<uint64_t>(*c.offset))
      fail("Const bytes [" + std::to_string(*c.offset) + ", +" + std::to_string(bytes) +
           ") lie outside the weights file");
    const auto found = m_.ir->weight_bytes(*c.offset, static_cast<uint64_t>(bytes));
    if (!found) fail("cannot read the weights file " + m_.ir->weights_path);
    Tensor t = tensor_from_le_bytes(*dt, d, *found);
    (void)node;
    return Value::tensor(std::move(t));
  }

  // One layer run on its input values: by the table of OpenVINO ops the executor knows (handlers), after the
  // element-wise ops that are one ONNX op each (exec/ir_onnx_ops).
  struct OpCall {
    int g, k;
    const Node& node;
    const std::vector<const Value*>& in;
    const std::string& path;
    int depth;
  };
  using Handler = std::vector<Value> (IrRunner::*)(const OpCall&);

  std::vector<Value> run_node(int g, int k, const std::vector<const Value*>& in, int depth) {
    check_deadline();
    const Node& node = m_.node(g, k);
    const std::string path = m_.path_of(g, k);
    const std::string& op = node.op;
    if (auto it = exec::ir_binary_ops().find(op); it != exec::ir_binary_ops().end()) {
      if (in.size() != 2) fail(op + " takes 2 inputs");
      check_broadcast(node, in);
      return onnx(it->second, in, path, depth);
    }
    for (const auto* table : {&exec::ir_unary_ops(), &exec::ir_exec_unary_ops()})
      if (auto it = table->find(op); it != table->end()) {
        if (in.size() != 1) fail(op + " takes 1 input");
        return onnx(it->second, in, path, depth);
      }
    if (auto it = handlers().find(op); it != handlers().end())
      return (this->*(it->second))(OpCall{g, k, node, in, path, depth});
    throw ExecError(ErrKind::Unsupported, "unsupported op " + op + " at " + path);
  }

  static const std::map<std::string_view, Handler>& handlers() {
    static const std::map<std::string_view, Handler> table = {
        {"Result", &IrRunner::op_result},       {"Const", &IrRunner::op_const},
        {"Constant", &IrRunner::op_const},      {"NotEqual", &IrRunner::op_not_equal},
        {"Divide", &IrRunner::op_divide},       {"Select", &IrRunner::op_select},
        {"Convert", &IrRunner::op_convert},     {"Concat", &IrRunner::op_concat},
        {"Reshape", &IrRunner::op_reshape},     {"Squeeze", &IrRunner::op_squeeze},
        {"Unsqueeze", &IrRunner::op_unsqueeze}, {"ShapeOf", &IrRunner::op_shape_of},
        {"Gather", &IrRunner::op_gather},       {"StridedSlice", &IrRunner::op_strided_slice},
        {"MatMul", &IrRunner::op_matmul},       {"ReduceSum", &IrRunner::op_reduce},
        {"ReduceMean", &IrRunner::op_reduce},   {"ReduceMax", &IrRunner::op_reduce},
        {"ReduceMin", &IrRunner::op_reduce},    {"ReduceProd", &IrRunner::op_reduce},
        {"Softmax", &IrRunner::op_softmax},     {"Transpose", &IrRunner::op_transpose},
        {"SoftMax", &IrRunner::op_softmax},  // opset8 SoftMax as OpenVINO writes it: one axis, negative allowed
        {"Broadcast", &IrRunner::op_broadcast}, {"If", &IrRunner::op_if},
        {"Loop", &IrRunner::op_loop},           {"Parameter", &IrRunner::op_parameter},
        // Ops of OpenVINO's converter (tests/ir_ops_oracle_test.cpp holds each to OpenVINO's own outputs).
        {"Convolution", &IrRunner::op_convolution},
        {"GroupConvolution", &IrRunner::op_group_convolution},
        {"ConvolutionBackpropData", &IrRunner::op_conv_backprop},
        {"MaxPool", &IrRunner::op_max_pool},
        {"Slice", &IrRunner::op_slice},
        {"Pad", &IrRunner::op_pad},
        {"Split", &IrRunner::op_split},
        {"VariadicSplit", &IrRunner::op_variadic_split},
        {"NonZero", &IrRunner::op_non_zero},
        {"Range", &IrRunner::op_range},
        {"ReverseSequence", &IrRunner::op_reverse_sequence},
        {"Tile", &IrRunner::op_tile},
        {"GatherND", &IrRunner::op_gather_nd},
        {"ScatterNDUpdate", &IrRunner::op_scatter_nd_update},
        {"ScatterElementsUpdate", &IrRunner::op_scatter_elements_update},
        {"Clamp", &IrRunner::op_clamp},
        {"Gelu", &IrRunner::op_gelu},
        {"Swish", &IrRunner::op_swish},
        {"HardSigmoid", &IrRunner::op_hard_sigmoid},
        {"MVN", &IrRunner::op_mvn},
        {"ScaledDotProductAttention", &IrRunner::op_sdpa},
        {"ROIAlign", &IrRunner::op_roi_align},
        {"TopK", &IrRunner::op_topk},
        {"Interpolate", &IrRunner::op_interpolate},
        {"LSTMSequence", &IrRunner::op_lstm_sequence},
        {"NonMaxSuppression", &IrRunner::op_nms},
        {"GRUSequence", &IrRunner::op_gru_sequence},
        {"RNNSequence", &IrRunner::op_rnn_sequence},
        {"Mod", &IrRunner::op_mod},
        {"FloorMod", &IrRunner::op_floor_mod},
        {"SquaredDifference", &IrRunner::op_squared_difference},
        {"Elu", &IrRunner::op_elu},
        {"Selu", &IrRunner::op_selu},
        {"PReLU", &IrRunner::op_prelu},  // PRelu-1 as OpenVINO's serializer spells it
        {"Round", &IrRunner::op_round},
        {"AvgPool", &IrRunner::op_avg_pool},
        {"CumSum", &IrRunner::op_cum_sum},
        {"LogSoftmax", &IrRunner::op_log_softmax},
        {"DepthToSpace", &IrRunner::op_depth_to_space},
        {"SpaceToDepth", &IrRunner::op_space_to_depth},
        {"GatherElements", &IrRunner::op_gather_elements},
        {"BatchNormInference", &IrRunner::op_batch_norm},
        {"Einsum", &IrRunner::op_einsum},
        {"ReduceL1", &IrRunner::op_reduce},
        {"ReduceL2", &IrRunner::op_reduce},
    };
    return table;
  }

  std::vector<Value> op_result(const OpCall& c) { return {*c.in.at(0)}; }
  std::vector<Value> op_const(const OpCall& c) { return {read_const(c.g, c.k)}; }
  std::vector<Value> op_not_equal(const OpCall& c) {
    check_broadcast(c.node, c.in);
    auto eq = onnx("Equal", c.in, c.path, c.depth);
    return onnx("Not", {&eq.at(0)}, c.path, c.depth);
  }
  std::vector<Value> op_divide(const OpCall& c) {
    check_broadcast(c.node, c.in);
    const Tensor& a = tensor_in(c.in, 0, c.node);
    auto q = onnx("Div", c.in, c.path, c.depth);
    if (is_float(a.dt) || !attr_bool(c.node, "m_pythondiv", true)) return q;
    // Python (floor) division for integers: ONNX Div truncates.
    const Tensor& b = tensor_in(c.in, 1, c.node);
    Tensor r = *q.at(0).t;
    const Dims out = r.shape;
    for_broadcast<2>(out, {bstrides(a.shape, out), bstrides(b.shape, out)},
                     [&](int64_t o, const std::array<int64_t, 2>& ix) {
                       const int64_t x = a.i[ix[0]], y = b.i[ix[1]];
                       if (y != 0 && (x % y != 0) && ((x < 0) != (y < 0))) r.i[o] = wrap_to(r.dt, r.i[o] - 1);
                     });
    return {Value::tensor(std::move(r))};
  }
  std::vector<Value> op_select(const OpCall& c) {
    check_broadcast(c.node, c.in);
    return onnx("Where", c.in, c.path, c.depth);
  }
  std::vector<Value> op_convert(const OpCall& c) {
    const std::string to = attr(c.node, "destination_type", "");
    auto dt = dt_of_name(to);
    if (!dt) throw ExecError(ErrKind::Unsupported, "unsupported op Convert to '" + to + "' at " + c.path);
    return {Value::tensor(cast_tensor(tensor_in(c.in, 0, c.node), *dt))};
  }
  std::vector<Value> op_concat(const OpCall& c) {
    const int64_t axis = attr_int(c.node, "axis", 0);
    return onnx("Concat", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "axis", axis); });
  }
  std::vector<Value> op_reshape(const OpCall& c) {
    const bool special_zero = attr_bool(c.node, "special_zero", false);
    return onnx("Reshape", c.in, c.path, c.depth,
                [&](onnx::NodeProto& n) { set_i(n, "allowzero", special_zero ? 0 : 1); });
  }
  std::vector<Value> op_squeeze(const OpCall& c) {
    if (c.in.size() != 1) return onnx("Squeeze", c.in, c.path, c.depth);
    // Without axes: every dim of size 1.
    const Tensor& x = tensor_in(c.in, 0, c.node);
    Dims d;
    for (int64_t v : x.shape)
      if (v != 1) d.push_back(v);
    return {Value::tensor(reshape_copy(x, d))};
  }
  std::vector<Value> op_unsqueeze(const OpCall& c) { return onnx("Unsqueeze", c.in, c.path, c.depth); }
  std::vector<Value> op_shape_of(const OpCall& c) {
    auto s = onnx("Shape", c.in, c.path, c.depth);
    const std::string ot = attr(c.node, "output_type", "i64");
    if (ot == "i32") return {Value::tensor(cast_tensor(*s.at(0).t, DT::I32))};
    if (ot != "i64") fail("ShapeOf output_type=\"" + ot + "\" is neither i32 nor i64");
    return s;
  }
  std::vector<Value> op_gather(const OpCall& c) { return gather(c.node, c.in); }
  std::vector<Value> op_strided_slice(const OpCall& c) { return strided_slice(c.node, c.in, c.path, c.depth); }
  std::vector<Value> op_matmul(const OpCall& c) {
    Tensor a = tensor_in(c.in, 0, c.node), b = tensor_in(c.in, 1, c.node);
    auto tr = [](Tensor& t) {
      if (t.rank() < 2) return;
      std::vector<int64_t> perm(t.rank());
      for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(k);
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      t = transpose(t, perm);
    };
    if (attr_bool(c.node, "transpose_a", false)) tr(a);
    if (attr_bool(c.node, "transpose_b", false)) tr(b);
    const Value va = Value::tensor(std::move(a)), vb = Value::tensor(std::move(b));
    return onnx("MatMul", {&va, &vb}, c.path, c.depth);
  }
  std::vector<Value> op_reduce(const OpCall& c) {
    const bool keep = attr_bool(c.node, "keep_dims", false);
    return onnx(c.node.op, c.in, c.path, c.depth, [&](onnx::NodeProto& n) {
      set_i(n, "keepdims", keep ? 1 : 0);
      set_i(n, "noop_with_empty_axes", 1);
    });
  }
  std::vector<Value> op_softmax(const OpCall& c) {
    const int64_t axis = attr_int(c.node, "axis", 1);
    return onnx("Softmax", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "axis", axis); });
  }
  std::vector<Value> op_transpose(const OpCall& c) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    std::vector<int64_t> perm = to_i64s(tensor_in(c.in, 1, c.node));
    if (perm.empty())
      for (int64_t r = static_cast<int64_t>(x.rank()) - 1; r >= 0; --r) perm.push_back(r);
    return onnx("Transpose", {c.in[0]}, c.path, c.depth, [&](onnx::NodeProto& n) { set_ints(n, "perm", perm); });
  }
  std::vector<Value> op_broadcast(const OpCall& c) {
    const std::string mode = attr(c.node, "mode", "numpy");
    if (mode != "numpy" && mode != "bidirectional")
      throw ExecError(ErrKind::Unsupported, "unsupported op Broadcast with mode=" + mode + " at " + c.path);
    auto r = onnx("Expand", {c.in.at(0), c.in.at(1)}, c.path, c.depth);
    if (mode == "numpy") {
      const auto target = to_i64s(tensor_in(c.in, 1, c.node));
      if (r.at(0).t->shape != Dims(target.begin(), target.end()))
        fail("Broadcast (numpy) of " + c.in[0]->t->describe() + " to " + dims_str(target) + " gives " +
             r[0].t->describe());
    }
    return r;
  }
  std::vector<Value> op_if(const OpCall& c) { return run_if(c.g, c.k, c.in, c.depth); }
  std::vector<Value> op_loop(const OpCall& c) { return run_loop(c.g, c.k, c.in, c.depth); }
  std::vector<Value> op_parameter(const OpCall&) { fail("Parameter without a value"); }

  // -- Ops of OpenVINO's converter, each held to OpenVINO's outputs by corpus-openvino/ops (op_oracle.py).

  std::vector<int64_t> ints_attr(const Node& node, const std::string& name) {
    return parse_int_list(attr(node, name, ""));
  }
  double float_attr(const Node& node, const std::string& name, double def) {
    const std::string* v = node.attrs.find(name);
    if (!v) return def;
    try {
      size_t used = 0;
      const double d = std::stod(*v, &used);
      if (used == v->size()) return d;
    } catch (const std::exception&) {
    }
    fail("attribute " + name + "=\"" + *v + "\" is not a number");
  }
  [[noreturn]] void unsupported(const OpCall& c, const std::string& what) {
    throw ExecError(ErrKind::Unsupported, "unsupported op " + c.node.op + " with " + what + " at " + c.path);
  }
  const Value* opt_in(const OpCall& c, size_t k) { return k < c.in.size() ? c.in[k] : nullptr; }
  static Value tv(Tensor t) { return Value::tensor(std::move(t)); }
  static Value i64v(const std::vector<int64_t>& v) { return tv(i64_tensor(v, {static_cast<int64_t>(v.size())})); }

  // strides, dilations, pads (pads_begin + pads_end) and auto_pad of a convolution or pooling layer, as ONNX's.
  void spatial_attrs(const OpCall& c, onnx::NodeProto& n, size_t spatial) {
    auto list = [&](const char* name, int64_t def) {
      auto v = ints_attr(c.node, name);
      if (v.empty()) v.assign(spatial, def);
      if (v.size() != spatial) fail(std::string(name) + " does not match the spatial rank");
      return v;
    };
    const std::string ap = lower(attr(c.node, "auto_pad", "explicit"));
    static const std::map<std::string, std::string> modes{
        {"explicit", "NOTSET"}, {"notset", "NOTSET"}, {"same_upper", "SAME_UPPER"},
        {"same_lower", "SAME_LOWER"}, {"valid", "VALID"}};
    auto it = modes.find(ap);
    if (it == modes.end()) unsupported(c, "auto_pad=" + ap);
    set_ints(n, "strides", list("strides", 1));
    set_ints(n, "dilations", list("dilations", 1));
    set_s(n, "auto_pad", it->second);
    if (it->second == "NOTSET") {
      auto pads = list("pads_begin", 0);
      const auto end = list("pads_end", 0);
      pads.insert(pads.end(), end.begin(), end.end());
      set_ints(n, "pads", pads);
    }
  }
  std::vector<Value> conv(const OpCall& c, const Value& w, int64_t group) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    if (x.rank() < 3) fail("Convolution needs an input of rank >= 3, got " + x.describe());
    return onnx("Conv", {c.in[0], &w}, c.path, c.depth, [&](onnx::NodeProto& n) {
      spatial_attrs(c, n, x.rank() - 2);
      set_i(n, "group", group);
    });
  }
  std::vector<Value> op_convolution(const OpCall& c) { return conv(c, *c.in.at(1), 1); }
  std::vector<Value> op_group_convolution(const OpCall& c) {
    // Filters [G, O/G, I/G, k...] -> ONNX's [O, I/G, k...] with group G.
    const Tensor& w = tensor_in(c.in, 1, c.node);
    if (w.rank() < 4) fail("GroupConvolution filters need rank >= 4, got " + w.describe());
    Dims d{w.shape[0] * w.shape[1]};
    d.insert(d.end(), w.shape.begin() + 2, w.shape.end());
    return conv(c, tv(reshape_copy(w, d)), w.shape[0]);
  }
  std::vector<Value> op_conv_backprop(const OpCall& c) {
    if (c.in.size() > 2) unsupported(c, "an output_shape input");
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const auto outpad = ints_attr(c.node, "output_padding");
    return onnx("ConvTranspose", {c.in[0], c.in.at(1)}, c.path, c.depth, [&](onnx::NodeProto& n) {
      spatial_attrs(c, n, x.rank() - 2);
      if (!outpad.empty()) set_ints(n, "output_padding", outpad);
    });
  }
  std::vector<Value> op_max_pool(const OpCall& c) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const std::string rt = lower(attr(c.node, "rounding_type", "floor"));
    if (rt != "floor" && rt != "ceil") unsupported(c, "rounding_type=" + rt);
    if (attr_int(c.node, "axis", 0) != 0) unsupported(c, "axis=" + attr(c.node, "axis", ""));
    const bool v1 = c.node.version.str() == "opset1";
    auto r = onnx(
        "MaxPool", {c.in[0]}, c.path, c.depth,
        [&](onnx::NodeProto& n) {
          spatial_attrs(c, n, x.rank() - 2);
          set_ints(n, "kernel_shape", ints_attr(c.node, "kernel"));
          set_i(n, "ceil_mode", rt == "ceil");
        },
        v1 ? 1 : 2);
    if (v1) return r;
    const auto dt = dt_of_name(attr(c.node, "index_element_type", "i64"));
    if (!dt) unsupported(c, "index_element_type=" + attr(c.node, "index_element_type", ""));
    r[1] = tv(cast_tensor(*r[1].t, *dt));
    return r;
  }
  std::vector<Value> op_slice(const OpCall& c) {
    // Slice-8: data, start, stop, step[, axes] -> ONNX's data, starts, ends, axes, steps.
    if (c.in.size() < 4) fail("Slice needs data, start, stop and step");
    return onnx("Slice", {c.in[0], c.in[1], c.in[2], opt_in(c, 4), c.in[3]}, c.path, c.depth);
  }
  std::vector<Value> op_pad(const OpCall& c) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const auto lo = to_i64s(tensor_in(c.in, 1, c.node)), hi = to_i64s(tensor_in(c.in, 2, c.node));
    const std::string mode = lower(attr(c.node, "pad_mode", "constant"));
    const double value = c.in.size() > 3 ? tensor_in(c.in, 3, c.node).getf(0) : 0.0;
    if (c.node.version.str() == "opset1")
      for (size_t k = 0; k < lo.size() || k < hi.size(); ++k)
        if ((k < lo.size() && lo[k] < 0) || (k < hi.size() && hi[k] < 0)) fail("Pad-1 with a negative pad");
    return {tv(ir::pad(x, lo, hi, mode, value))};
  }
  std::vector<Value> split_by(const OpCall& c, int64_t axis, const std::vector<int64_t>& lengths) {
    const Value vs = i64v(lengths);
    return onnx(
        "Split", {c.in[0], &vs}, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "axis", axis); },
        static_cast<int>(lengths.size()));
  }
  std::vector<Value> op_split(const OpCall& c) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const int64_t axis = norm_axis(tensor_in(c.in, 1, c.node).geti(0), static_cast<int64_t>(x.rank()));
    const int64_t parts = attr_int(c.node, "num_splits", 0), d = x.shape[axis];
    if (parts < 1 || d % parts)
      fail("Split num_splits " + std::to_string(parts) + " does not divide the axis of " + std::to_string(d));
    return split_by(c, axis, std::vector<int64_t>(parts, d / parts));
  }
  std::vector<Value> op_variadic_split(const OpCall& c) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const int64_t axis = norm_axis(tensor_in(c.in, 1, c.node).geti(0), static_cast<int64_t>(x.rank()));
    auto len = to_i64s(tensor_in(c.in, 2, c.node));
    int64_t known = 0, minus = -1;
    for (size_t k = 0; k < len.size(); ++k) {
      if (len[k] == -1 && minus < 0) minus = static_cast<int64_t>(k);
      else if (len[k] < 0) fail("VariadicSplit split_lengths has more than one -1 or a negative length");
      else known += len[k];
    }
    if (minus >= 0) len[minus] = x.shape[axis] - known;
    return split_by(c, axis, len);
  }
  std::vector<Value> op_non_zero(const OpCall& c) {
    auto r = onnx("NonZero", c.in, c.path, c.depth);
    const auto dt = dt_of_name(attr(c.node, "output_type", "i64"));
    if (!dt || (*dt != DT::I64 && *dt != DT::I32)) unsupported(c, "output_type=" + attr(c.node, "output_type", ""));
    return {tv(cast_tensor(*r.at(0).t, *dt))};
  }
  std::vector<Value> op_range(const OpCall& c) {
    // Range-4: start, stop and step as output_type (Range-1: the inputs' own type).
    DT dt = tensor_in(c.in, 0, c.node).dt;
    if (c.node.attrs.find("output_type")) {
      auto d = dt_of_name(attr(c.node, "output_type", ""));
      if (!d) unsupported(c, "output_type=" + attr(c.node, "output_type", ""));
      dt = *d;
    }
    std::vector<Value> in;
    for (size_t k = 0; k < 3; ++k) in.push_back(tv(cast_tensor(tensor_in(c.in, k, c.node), dt)));
    return onnx("Range", {&in[0], &in[1], &in[2]}, c.path, c.depth);
  }
  std::vector<Value> op_reverse_sequence(const OpCall& c) {
    const int64_t r = static_cast<int64_t>(tensor_in(c.in, 0, c.node).rank());
    const int64_t ba = norm_axis(attr_int(c.node, "batch_axis", 0), r);
    const int64_t sa = norm_axis(attr_int(c.node, "seq_axis", 1), r);
    return onnx("ReverseSequence", c.in, c.path, c.depth, [&](onnx::NodeProto& n) {
      set_i(n, "batch_axis", ba);
      set_i(n, "time_axis", sa);
    });
  }
  std::vector<Value> op_tile(const OpCall& c) {
    // Tile-1: repeats shorter than the rank are padded with leading 1s; longer ones add leading dims of 1.
    const Tensor& x = tensor_in(c.in, 0, c.node);
    auto rep = to_i64s(tensor_in(c.in, 1, c.node));
    Dims d = x.shape;
    while (rep.size() < d.size()) rep.insert(rep.begin(), 1);
    while (d.size() < rep.size()) d.insert(d.begin(), 1);
    const Value vx = tv(reshape_copy(x, d)), vr = i64v(rep);
    return onnx("Tile", {&vx, &vr}, c.path, c.depth);
  }
  std::vector<Value> op_gather_nd(const OpCall& c) {
    const int64_t bd = attr_int(c.node, "batch_dims", 0);
    if (bd != 0 && c.node.version.str() != "opset8") unsupported(c, "batch_dims in " + c.node.version.str());
    return onnx("GatherND", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "batch_dims", bd); });
  }
  std::vector<Value> op_scatter_nd_update(const OpCall& c) {
    static const std::map<std::string, std::string> red{
        {"none", "none"}, {"sum", "add"}, {"prod", "mul"}, {"min", "min"}, {"max", "max"}};
    const std::string r = lower(attr(c.node, "reduction", "none"));
    auto it = red.find(r);
    if (it == red.end()) unsupported(c, "reduction=" + r);
    return onnx("ScatterND", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_s(n, "reduction", it->second); });
  }
  std::vector<Value> op_scatter_elements_update(const OpCall& c) {
    const std::string r = lower(attr(c.node, "reduction", "none"));
    if (r != "none") unsupported(c, "reduction=" + r);
    const int64_t axis = tensor_in(c.in, 3, c.node).geti(0);
    return onnx("ScatterElements", {c.in[0], c.in[1], c.in[2]}, c.path, c.depth,
                [&](onnx::NodeProto& n) { set_i(n, "axis", axis); });
  }
  std::vector<Value> op_clamp(const OpCall& c) {
    const double lo = float_attr(c.node, "min", -std::numeric_limits<double>::infinity());
    const double hi = float_attr(c.node, "max", std::numeric_limits<double>::infinity());
    return {tv(ir::clamp(tensor_in(c.in, 0, c.node), lo, hi))};
  }
  std::vector<Value> op_gelu(const OpCall& c) {
    const std::string m = lower(attr(c.node, "approximation_mode", "erf"));
    if (m != "erf" && m != "tanh") unsupported(c, "approximation_mode=" + m);
    return {tv(ir::gelu(tensor_in(c.in, 0, c.node), m == "tanh"))};
  }
  std::vector<Value> op_swish(const OpCall& c) {
    const double beta = c.in.size() > 1 ? tensor_in(c.in, 1, c.node).getf(0) : 1.0;
    return {tv(ir::swish(tensor_in(c.in, 0, c.node), beta))};
  }
  std::vector<Value> op_hard_sigmoid(const OpCall& c) {
    const double alpha = tensor_in(c.in, 1, c.node).getf(0), beta = tensor_in(c.in, 2, c.node).getf(0);
    return onnx("HardSigmoid", {c.in[0]}, c.path, c.depth, [&](onnx::NodeProto& n) {
      set_f(n, "alpha", alpha);
      set_f(n, "beta", beta);
    });
  }
  std::vector<Value> op_mvn(const OpCall& c) {
    if (c.node.version.str() != "opset6") unsupported(c, "version " + c.node.version.str());
    const std::string mode = lower(attr(c.node, "eps_mode", "inside_sqrt"));
    if (mode != "inside_sqrt" && mode != "outside_sqrt") unsupported(c, "eps_mode=" + mode);
    return {tv(ir::mvn(tensor_in(c.in, 0, c.node), to_i64s(tensor_in(c.in, 1, c.node)),
                       attr_bool(c.node, "normalize_variance", true), float_attr(c.node, "eps", 1e-9),
                       mode == "inside_sqrt"))};
  }
  std::vector<Value> op_sdpa(const OpCall& c) {
    const Tensor* mask = c.in.size() > 3 ? &tensor_in(c.in, 3, c.node) : nullptr;
    const Tensor* scale = c.in.size() > 4 ? &tensor_in(c.in, 4, c.node) : nullptr;
    return {tv(ir::sdpa(tensor_in(c.in, 0, c.node), tensor_in(c.in, 1, c.node), tensor_in(c.in, 2, c.node), mask,
                        scale, attr_bool(c.node, "causal", false)))};
  }
  std::vector<Value> op_roi_align(const OpCall& c) {
    ir::RoiAlignAttrs a;
    a.pooled_h = attr_int(c.node, "pooled_h", 1);
    a.pooled_w = attr_int(c.node, "pooled_w", 1);
    a.sampling_ratio = attr_int(c.node, "sampling_ratio", 0);
    a.spatial_scale = float_attr(c.node, "spatial_scale", 1.0);
    a.mode = lower(attr(c.node, "mode", "avg"));
    a.aligned_mode = lower(attr(c.node, "aligned_mode", "asymmetric"));
    return {tv(ir::roi_align(tensor_in(c.in, 0, c.node), tensor_in(c.in, 1, c.node), tensor_in(c.in, 2, c.node), a))};
  }
  std::vector<Value> op_topk(const OpCall& c) {
    const std::string mode = lower(attr(c.node, "mode", "max")), sort = lower(attr(c.node, "sort", "value"));
    if (mode != "max" && mode != "min") unsupported(c, "mode=" + mode);
    if (sort != "value" && sort != "index") unsupported(c, "sort=" + sort);
    const auto dt = dt_of_name(attr(c.node, "index_element_type", "i32"));
    if (!dt || (*dt != DT::I64 && *dt != DT::I32)) unsupported(c, "index_element_type");
    auto r = topk(tensor_in(c.in, 0, c.node), tensor_in(c.in, 1, c.node).geti(0), attr_int(c.node, "axis", -1),
                  mode == "max", sort == "index", *dt);
    return {tv(std::move(r[0])), tv(std::move(r[1]))};
  }
  std::vector<Value> op_interpolate(const OpCall& c);
  std::vector<Value> op_lstm_sequence(const OpCall& c);
  std::vector<Value> op_mod(const OpCall& c) {
    check_broadcast(c.node, c.in);
    return onnx("Mod", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "fmod", 1); });
  }
  std::vector<Value> op_floor_mod(const OpCall& c) {
    // ONNX Mod with fmod=0 (the result takes the divisor's sign), which the kernel computes for floats too.
    check_broadcast(c.node, c.in);
    return onnx("Mod", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "fmod", 0); });
  }
  std::vector<Value> op_squared_difference(const OpCall& c) {
    check_broadcast(c.node, c.in);
    auto d = onnx("Sub", c.in, c.path, c.depth);
    return onnx("Mul", {&d.at(0), &d.at(0)}, c.path, c.depth);
  }
  std::vector<Value> op_elu(const OpCall& c) {
    const double alpha = float_attr(c.node, "alpha", 1.0);
    return onnx("Elu", {c.in.at(0)}, c.path, c.depth, [&](onnx::NodeProto& n) { set_f(n, "alpha", alpha); });
  }
  std::vector<Value> op_selu(const OpCall& c) {
    const double alpha = tensor_in(c.in, 1, c.node).getf(0), lambda = tensor_in(c.in, 2, c.node).getf(0);
    return onnx("Selu", {c.in[0]}, c.path, c.depth, [&](onnx::NodeProto& n) {
      set_f(n, "alpha", alpha);
      set_f(n, "gamma", lambda);
    });
  }
  std::vector<Value> op_prelu(const OpCall& c) {
    // PRelu-1: a 1-D slope of the channel count applies along axis 1 (ONNX broadcasts it from the last axis).
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const Tensor& s = tensor_in(c.in, 1, c.node);
    if (s.rank() != 1 || x.rank() < 2 || s.shape[0] != x.shape[1] || s.shape[0] == 1)
      return onnx("PRelu", c.in, c.path, c.depth);
    Dims d(x.rank() - 1, 1);
    d[0] = s.shape[0];
    const Value vs = tv(reshape_copy(s, d));
    return onnx("PRelu", {c.in[0], &vs}, c.path, c.depth);
  }
  std::vector<Value> op_round(const OpCall& c) {
    const std::string m = lower(attr(c.node, "mode", "half_to_even"));
    if (m == "half_to_even") return onnx("Round", {c.in.at(0)}, c.path, c.depth);
    if (m != "half_away_from_zero") unsupported(c, "mode=" + m);
    return {tv(ir::round_away(tensor_in(c.in, 0, c.node)))};
  }
  std::vector<Value> op_avg_pool(const OpCall& c) {
    const Tensor& x = tensor_in(c.in, 0, c.node);
    const std::string rt = lower(attr(c.node, "rounding_type", "floor"));
    if (rt != "floor" && rt != "ceil") unsupported(c, "rounding_type=" + rt);
    const bool exclude = attr_bool(c.node, "exclude-pad", false);
    return onnx("AveragePool", {c.in.at(0)}, c.path, c.depth, [&](onnx::NodeProto& n) {
      spatial_attrs(c, n, x.rank() - 2);
      set_ints(n, "kernel_shape", ints_attr(c.node, "kernel"));
      set_i(n, "ceil_mode", rt == "ceil");
      set_i(n, "count_include_pad", exclude ? 0 : 1);
    });
  }
  std::vector<Value> op_cum_sum(const OpCall& c) {
    const Value zero = tv(scalar_tensor(DT::I64, 0));
    const bool excl = attr_bool(c.node, "exclusive", false), rev = attr_bool(c.node, "reverse", false);
    return onnx("CumSum", {c.in.at(0), c.in.size() > 1 ? c.in[1] : &zero}, c.path, c.depth,
                [&](onnx::NodeProto& n) {
                  set_i(n, "exclusive", excl);
                  set_i(n, "reverse", rev);
                });
  }
  std::vector<Value> op_log_softmax(const OpCall& c) {
    const int64_t axis = attr_int(c.node, "axis", 1);
    return onnx("LogSoftmax", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "axis", axis); });
  }
  std::vector<Value> op_depth_to_space(const OpCall& c) {
    const std::string m = lower(attr(c.node, "mode", "blocks_first"));
    if (m != "blocks_first" && m != "depth_first") unsupported(c, "mode=" + m);
    const int64_t b = attr_int(c.node, "block_size", 1);
    return onnx("DepthToSpace", c.in, c.path, c.depth, [&](onnx::NodeProto& n) {
      set_i(n, "blocksize", b);
      set_s(n, "mode", m == "blocks_first" ? "DCR" : "CRD");
    });
  }
  std::vector<Value> op_space_to_depth(const OpCall& c) {
    const std::string m = lower(attr(c.node, "mode", "blocks_first"));
    if (m != "blocks_first") unsupported(c, "mode=" + m);
    const int64_t b = attr_int(c.node, "block_size", 1);
    return onnx("SpaceToDepth", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "blocksize", b); });
  }
  std::vector<Value> op_gather_elements(const OpCall& c) {
    const int64_t axis = attr_int(c.node, "axis", 0);
    return onnx("GatherElements", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_i(n, "axis", axis); });
  }
  std::vector<Value> op_batch_norm(const OpCall& c) {
    // BatchNormInference-5: data, gamma, beta, mean, variance; -1: gamma, beta, data, mean, variance.
    if (c.in.size() != 5) fail("BatchNormInference needs 5 inputs");
    const bool v1 = c.node.version.str() == "opset1";
    const std::vector<const Value*> in = v1 ? std::vector<const Value*>{c.in[2], c.in[0], c.in[1], c.in[3], c.in[4]}
                                            : std::vector<const Value*>{c.in[0], c.in[1], c.in[2], c.in[3], c.in[4]};
    const double eps = float_attr(c.node, "epsilon", 1e-5);
    return onnx("BatchNormalization", in, c.path, c.depth, [&](onnx::NodeProto& n) { set_f(n, "epsilon", eps); });
  }
  std::vector<Value> op_einsum(const OpCall& c) {
    const std::string eq = attr(c.node, "equation", "");
    return onnx("Einsum", c.in, c.path, c.depth, [&](onnx::NodeProto& n) { set_s(n, "equation", eq); });
  }
  std::vector<Value> op_gru_sequence(const OpCall& c);
  std::vector<Value> op_rnn_sequence(const OpCall& c);
  std::vector<Value> recurrent_sequence(const OpCall& c, const char* op, const Value& w, const Value& r, const Value& b,
                                        const std::vector<const Value*>& states, int n_out,
                                        const std::function<void(onnx::NodeProto&)>& more);
  std::vector<Value> op_nms(const OpCall& c) {
    ir::NmsAttrs a;
    auto num = [&](size_t k) { return c.in.size() > k ? tensor_in(c.in, k, c.node).getf(0) : 0.0; };
    a.max_per_class = c.in.size() > 2 ? tensor_in(c.in, 2, c.node).geti(0) : 0;
    a.iou = num(3);
    a.score = num(4);
    a.sigma = num(5);
    const std::string enc = lower(attr(c.node, "box_encoding", "corner"));
    if (enc != "corner" && enc != "center") unsupported(c, "box_encoding=" + enc);
    a.center = enc == "center";
    a.sort_descending = attr_bool(c.node, "sort_result_descending", true);
    const auto dt = dt_of_name(attr(c.node, "output_type", "i64"));
    if (!dt || (*dt != DT::I64 && *dt != DT::I32)) unsupported(c, "output_type");
    a.index_type = *dt;
    if (a.sigma != 0) unsupported(c, "soft_nms_sigma != 0");
    auto r = ir::nms(tensor_in(c.in, 0, c.node), tensor_in(c.in, 1, c.node), a);
    return {tv(std::move(r[0])), tv(std::move(r[1])), tv(std::move(r[2]))};
  }

  std::vector<Value> gather(const Node& node, const std::vector<const Value*>& in) {
    const Tensor& x = tensor_in(in, 0, node);
    const Tensor& idx = tensor_in(in, 1, node);
    const int64_t r = static_cast<int64_t>(x.rank());
    int64_t axis = in.size() > 2 ? to_i64s(tensor_in(in, 2, node)).at(0) : 0;
    int64_t bd = attr_int(node, "batch_dims", 0);
    const int64_t ir = static_cast<int64_t>(idx.rank());
    if (bd < 0) bd += ir;
    axis = norm_axis(axis, r);
    if (bd < 0 || bd > ir || bd > axis) fail("Gather batch_dims " + std::to_string(bd) + " is out of range");
    for (int64_t k = 0; k < bd; ++k)
      if (x.shape[k] != idx.shape[k])
        fail("Gather batch dims of data " + dims_str(x.shape) + " and indices " + dims_str(idx.shape) + " differ");
    // out = x[:axis] + idx[bd:] + x[axis+1:]
    Dims out(x.shape.begin(), x.shape.begin() + axis);
    out.insert(out.end(), idx.shape.begin() + bd, idx.shape.end());
    out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
    Tensor t(x.dt, out);
    int64_t batch = 1, outer = 1, inner = 1;
    for (int64_t k = 0; k < bd; ++k) batch *= x.shape[k];
    for (int64_t k = bd; k < axis; ++k) outer *= x.shape[k];
    for (int64_t k = axis + 1; k < r; ++k) inner *= x.shape[k];
    int64_t nidx = 1;
    for (int64_t k = bd; k < ir; ++k) nidx *= idx.shape[k];
    const int64_t dim = x.shape[axis];
    int64_t o = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t p = 0; p < outer; ++p)
        for (int64_t j = 0; j < nidx; ++j) {
          int64_t v = idx.geti(b * nidx + j);
          if (v < 0) v += dim;
          if (v < 0 || v >= dim)
            fail("Gather index " + std::to_string(idx.geti(b * nidx + j)) + " out of range for dim " +
                 std::to_string(dim));
          const int64_t base = ((b * outer + p) * dim + v) * inner;
          for (int64_t q = 0; q < inner; ++q) copy_elem(x, base + q, t, o++);
        }
    return {Value::tensor(std::move(t))};
  }

  std::vector<Value> strided_slice(const Node& node, const std::vector<const Value*>& in, const std::string& path,
                                   int depth) {
    const Tensor& x = tensor_in(in, 0, node);
    const auto begin = to_i64s(tensor_in(in, 1, node));
    const auto end = to_i64s(tensor_in(in, 2, node));
    std::vector<int64_t> stride(begin.size(), 1);
    if (in.size() > 3) stride = to_i64s(tensor_in(in, 3, node));
    auto mask = [&](const char* name) { return parse_int_list(attr(node, name, "")); };
    const auto bm = mask("begin_mask"), em = mask("end_mask"), nm = mask("new_axis_mask"),
               sm = mask("shrink_axis_mask"), elm = mask("ellipsis_mask");
    auto bit = [](const std::vector<int64_t>& m, size_t k) { return k < m.size() && m[k] != 0; };
    for (size_t k = 0; k < begin.size(); ++k)
      if (bit(nm, k) || bit(elm, k))
        throw ExecError(ErrKind::Unsupported,
                        "unsupported op StridedSlice with new_axis_mask/ellipsis_mask at " + path);
    if (end.size() != begin.size() || stride.size() != begin.size() || begin.size() > x.rank())
      fail("StridedSlice begin/end/stride lengths differ or exceed the rank");
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    std::vector<int64_t> starts, ends, axes, steps;
    Dims shrunk;
    for (size_t k = 0; k < begin.size(); ++k) {
      const int64_t st = stride[k];
      if (st == 0) fail("StridedSlice stride is 0");
      int64_t b = begin[k], e = end[k];
      if (bit(sm, k)) {
        e = b == -1 ? kMax : b + 1;
        if (st < 0) fail("StridedSlice shrink axis with a negative stride");
      } else {
        if (bit(bm, k)) b = st > 0 ? 0 : kMax;
        if (bit(em, k)) e = st > 0 ? kMax : kMin;
      }
      starts.push_back(b);
      ends.push_back(e);
      axes.push_back(static_cast<int64_t>(k));
      steps.push_back(st);
    }
    const Value vs = Value::tensor(i64_tensor(starts, {static_cast<int64_t>(starts.size())}));
    const Value ve = Value::tensor(i64_tensor(ends, {static_cast<int64_t>(ends.size())}));
    const Value va = Value::tensor(i64_tensor(axes, {static_cast<int64_t>(axes.size())}));
    const Value vp = Value::tensor(i64_tensor(steps, {static_cast<int64_t>(steps.size())}));
    auto r = onnx("Slice", {in[0], &vs, &ve, &va, &vp}, path, depth);
    const Tensor& y = *r.at(0).t;
    Dims d;
    for (size_t k = 0; k < y.rank(); ++k) {
      if (bit(sm, k)) {
        if (y.shape[k] != 1) fail("StridedSlice shrink axis " + std::to_string(k) + " index out of range");
        continue;
      }
      d.push_back(y.shape[k]);
    }
    if (d == y.shape) return r;
    return {Value::tensor(reshape_copy(y, d))};
  }

  std::vector<Value> run_if(int g, int k, const std::vector<const Value*>& in, int depth) {
    const Node& node = m_.node(g, k);
    const std::string path = m_.full_path_of(g, k);  // what pins and the coverage name an If by
    auto it = ifs_.find({g, k});
    if (it == ifs_.end()) fail("If without bodies");
    const IrIf& info = m_.ir->ifs[it->second];
    if (in.empty() || !in[0]->is_tensor() || in[0]->t->numel() != 1) fail("If condition is not a one-element tensor");
    const bool computed = in[0]->t->getf(0) != 0;
    const bool use = ip_.pin_for(path, computed);
    const int b = use ? 0 : 1;
    const char* role = use ? "then" : "else";
    const int body = info.body_graph[b];
    if (body < 0) fail(std::string("If has no ") + role + "_body");
    const auto& bnodes = m_.graphs[body].nodes;
    std::unordered_map<std::string, int> by_id;
    for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) by_id.emplace(bnodes[i].id, i);
    std::map<int, Value> bound;
    std::map<int64_t, int64_t> outs;  // external port id -> internal layer id (first wins)
    for (const auto& e : info.port_map[b]) {
      if (!e.has_external || !e.has_internal) continue;
      if (!e.is_input) {
        outs.emplace(e.external_port_id, e.internal_layer_id);
        continue;
      }
      if (e.external_port_id < 0 || e.external_port_id >= static_cast<int64_t>(in.size()))
        fail(std::string(role) + "_port_map input external_port_id " + std::to_string(e.external_port_id) +
             " is not an If input");
      auto p = by_id.find(std::to_string(e.internal_layer_id));
      if (p == by_id.end() || bnodes[p->second].op != "Parameter")
        fail(std::string(role) + "_port_map input internal_layer_id " + std::to_string(e.internal_layer_id) +
             " is not a Parameter");
      bound.emplace(p->second, *in[e.external_port_id]);
    }
    // Run the body, then pick the Results the output port map names (renumbered by external id).
    const auto res_idx = results(body);
    const auto res_vals = run_graph(body, bound, depth + 1);
    std::vector<Value> out;
    int j = 0;
    for (const auto& [ext, internal] : outs) {
      if (ext < 0) continue;
      auto p = by_id.find(std::to_string(internal));
      if (p == by_id.end() || bnodes[p->second].op != "Result")
        fail(std::string(role) + "_port_map output internal_layer_id " + std::to_string(internal) + " is not a Result");
      const auto pos = std::find(res_idx.begin(), res_idx.end(), p->second) - res_idx.begin();
      const Value& v = res_vals.at(static_cast<size_t>(pos));
      if (j < static_cast<int>(node.outputs.size()))
        if (auto why = check_port(v, node.outputs[j]); !why.empty())
          ip_.record_branch_problem("If '" + node.display() + "' (" + path + ") output " + std::to_string(j) + ": " +
                                    role + " branch " + why);
      out.push_back(v);
      ++j;
    }
    if (out.size() < node.outputs.size())
      fail(std::string(role) + " branch maps " + std::to_string(out.size()) + " outputs, the If declares " +
           std::to_string(node.outputs.size()));
    return out;
  }

  const Model& m_;
  onnx::ModelProto dummy_;
  Interpreter ip_;
  Limits limits_;
  std::chrono::steady_clock::time_point deadline_;
  std::map<std::pair<int, int>, size_t> consts_;
  std::map<std::pair<int, int>, size_t> ifs_;

 public:
  std::vector<Value> run_loop(int g, int k, const std::vector<const Value*>& in, int depth) {
    const Node& node = m_.node(g, k);
    const std::string path = m_.path_of(g, k);
    const IrLoop* lm = m_.ir->loop_at(g, k);
    int body = -1;
    for (const auto& [role, gi] : node.bodies)
      if (role == "body") body = gi;
    if (!lm || body < 0) fail("Loop without <body> or <port_map>");
    if (in.size() < 2 || !in[0]->is_tensor() || !in[1]->is_tensor() || in[0]->t->numel() != 1 || in[1]->t->numel() != 1)
      fail("Loop needs a scalar trip count and a scalar execution condition");
    const int64_t trip = in[0]->t->geti(0);
    bool cond = in[1]->t->getf(0) != 0;
    const auto& bnodes = m_.graphs[body].nodes;
    std::unordered_map<int64_t, int> by_id;
    for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) {
      try {
        by_id.emplace(std::stoll(bnodes[i].id), i);
      } catch (const std::logic_error&) {
      }
    }
    auto layer = [&](int64_t id, const char* op) {
      auto it = by_id.find(id);
      if (it == by_id.end() || bnodes[it->second].op != op)
        fail("Loop port_map names layer " + std::to_string(id) + ", which is not a " + op + " of the body");
      return it->second;
    };
    const auto params = this->params(body), res = results(body);
    std::map<int, Value> bound;
    for (const auto& e : lm->ins) {
      if (e.sliced) throw ExecError(ErrKind::Unsupported, "unsupported op Loop with a sliced input (axis) at " + path);
      if (e.ext < 0 || e.ext >= static_cast<int64_t>(in.size()))
        fail("Loop port_map input " + std::to_string(e.ext) + " is not a Loop input");
      bound[layer(e.internal, "Parameter")] = *in[e.ext];
    }
    auto res_pos = [&](int node_index) {
      return static_cast<size_t>(std::find(res.begin(), res.end(), node_index) - res.begin());
    };
    const int iter_node = lm->iter_layer >= 0 ? layer(lm->iter_layer, "Parameter") : -1;
    const int cond_node = lm->cond_layer >= 0 ? layer(lm->cond_layer, "Result") : -1;
    (void)params;
    std::vector<std::vector<Value>> per_iter(lm->outs.size());
    std::vector<Value> last(lm->outs.size());
    int64_t it_n = 0;
    std::vector<Value> vals;
    while (cond && (trip < 0 || it_n < trip)) {
      if (it_n >= limits_.max_loop_iterations)
        throw ExecError(ErrKind::Resource, "Loop at " + path + " reached the iteration limit of " +
                                               std::to_string(it_n) + " (--max-iterations)");
      if (iter_node >= 0) {
        const DT dt = bnodes[iter_node].outputs.empty()
                          ? DT::I64
                          : dt_of(bnodes[iter_node].outputs[0].type().elem).value_or(DT::I64);
        bound[iter_node] = Value::tensor(scalar_tensor(dt, static_cast<double>(it_n)));
      }
      vals = run_graph(body, bound, depth + 1);
      for (size_t o = 0; o < lm->outs.size(); ++o) {
        const size_t p = res_pos(layer(lm->outs[o].internal, "Result"));
        if (lm->outs[o].axis) per_iter[o].push_back(vals.at(p));
        else last[o] = vals.at(p);
      }
      for (const auto& [from, to] : lm->back) bound[layer(to, "Parameter")] = vals.at(res_pos(layer(from, "Result")));
      if (cond_node >= 0) {
        const Value& c = vals.at(res_pos(cond_node));
        if (!c.is_tensor() || c.t->numel() != 1) fail("Loop body condition output is not a scalar");
        cond = c.t->getf(0) != 0;
      }
      ++it_n;
    }
    // Outputs: ordered by the Loop's output ports (external_port_id is the port id or, failing that, the index).
    std::vector<Value> out(node.outputs.size());
    for (size_t o = 0; o < lm->outs.size(); ++o) {
      int pos = -1;
      for (size_t j = 0; j < node.outputs.size(); ++j)
        if (node.outputs[j].id == std::to_string(lm->outs[o].ext)) pos = static_cast<int>(j);
      if (pos < 0 && lm->outs[o].ext >= 0 && lm->outs[o].ext < static_cast<int64_t>(node.outputs.size()))
        pos = static_cast<int>(lm->outs[o].ext);
      if (pos < 0) fail("Loop port_map output " + std::to_string(lm->outs[o].ext) + " is not a Loop output");
      if (lm->outs[o].axis) {
        if (per_iter[o].empty())
          fail("Loop ran no iteration: concatenated output " + std::to_string(pos) + " is empty");
        std::vector<const Tensor*> ts;
        for (const auto& v : per_iter[o]) {
          if (!v.is_tensor()) fail("Loop output is not a tensor");
          ts.push_back(v.t.get());
        }
        out[pos] = Value::tensor(concat(ts, norm_axis(*lm->outs[o].axis, static_cast<int64_t>(ts[0]->rank()))));
      } else {
        if (last[o].kind == Value::Kind::None) {  // no iteration ran: the initial value of the back edge
          const int r = layer(lm->outs[o].internal, "Result");
          for (const auto& [from, to] : lm->back)
            if (layer(from, "Result") == r) {
              auto b = bound.find(layer(to, "Parameter"));
              if (b != bound.end()) last[o] = b->second;
            }
          if (last[o].kind == Value::Kind::None)
            fail("Loop ran no iteration and output " + std::to_string(pos) + " has no initial value");
        }
        out[pos] = last[o];
      }
    }
    for (size_t j = 0; j < out.size(); ++j)
      if (out[j].kind == Value::Kind::None) fail("Loop output " + std::to_string(j) + " is not mapped");
    return out;
  }
};

// Interpolate-4/11 as ONNX Resize: the sizes or scales of the axes given, every other axis kept.
std::vector<Value> IrRunner::op_interpolate(const OpCall& c) {
  const Tensor& x = tensor_in(c.in, 0, c.node);
  const bool v4 = c.node.version.str() == "opset4";
  const std::string calc = lower(attr(c.node, "shape_calculation_mode", "sizes"));
  static const std::map<std::string, std::string> modes{{"nearest", "nearest"}, {"linear_onnx", "linear"},
                                                        {"cubic", "cubic"}};
  const std::string mode = lower(attr(c.node, "mode", "nearest")), nm = lower(attr(c.node, "nearest_mode", "floor"));
  auto m = modes.find(mode);
  if (m == modes.end()) unsupported(c, "mode=" + mode);
  if (nm == "simple") unsupported(c, "nearest_mode=simple");
  if (attr_bool(c.node, "antialias", false)) unsupported(c, "antialias=true");
  for (const char* p : {"pads_begin", "pads_end"})
    for (int64_t v : ints_attr(c.node, p))
      if (v != 0) unsupported(c, std::string(p) + "=" + attr(c.node, p, ""));
  const int64_t r = static_cast<int64_t>(x.rank());
  const size_t axes_at = v4 ? 3 : 2;
  std::vector<int64_t> axes;
  if (c.in.size() > axes_at) axes = to_i64s(tensor_in(c.in, axes_at, c.node));
  else
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  const bool sizes = calc == "sizes";
  if (!sizes && calc != "scales") unsupported(c, "shape_calculation_mode=" + calc);
  const Tensor& given = tensor_in(c.in, v4 && !sizes ? 2 : 1, c.node);
  if (given.numel() != static_cast<int64_t>(axes.size())) fail("Interpolate sizes/scales do not match the axes");
  Tensor full(sizes ? DT::I64 : DT::F32, {r});
  for (int64_t a = 0; a < r; ++a) {
    if (sizes) full.i[a] = x.shape[a];
    else full.f[a] = 1.0;
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = norm_axis(axes[k], r), j = static_cast<int64_t>(k);
    if (sizes) full.i[a] = given.geti(j);
    else full.f[a] = given.getf(j);
  }
  const Value vf = tv(std::move(full));
  return onnx("Resize", {c.in[0], nullptr, sizes ? nullptr : &vf, sizes ? &vf : nullptr}, c.path, c.depth,
              [&](onnx::NodeProto& n) {
                set_s(n, "mode", m->second);
                set_s(n, "coordinate_transformation_mode",
                      lower(attr(c.node, "coordinate_transformation_mode", "half_pixel")));
                set_s(n, "nearest_mode", nm);
                set_f(n, "cubic_coeff_a", float_attr(c.node, "cube_coeff", -0.75));
              });
}

// The recurrent sequences (LSTM/GRU/RNNSequence-5) as ONNX's op with layout 1: inputs X, W, R, B, lengths, states;
// Y from [batch, seq, dirs, hidden] to OpenVINO's [batch, dirs, seq, hidden]; a sequence of length 0 ends in zero
// states (ONNX: the initial states), as OpenVINO's CPU plugin computes.
std::vector<Value> IrRunner::recurrent_sequence(const OpCall& c, const char* op, const Value& w, const Value& r,
                                                const Value& b, const std::vector<const Value*>& states, int n_out,
                                                const std::function<void(onnx::NodeProto&)>& more) {
  std::vector<std::string> acts;
  static const std::map<std::string, std::string> names{{"sigmoid", "Sigmoid"}, {"tanh", "Tanh"}, {"relu", "Relu"}};
  for (const std::string& s : split_names(attr(c.node, "activations", ""))) {
    auto it = names.find(lower(s));
    if (it == names.end()) unsupported(c, "activation " + s);
    acts.push_back(it->second);
  }
  if (!attr(c.node, "activations_alpha", "").empty() || !attr(c.node, "activations_beta", "").empty())
    unsupported(c, "activations_alpha/beta");
  const Value lens = tv(cast_tensor(tensor_in(c.in, n_out == 3 ? 3 : 2, c.node), DT::I64));
  std::vector<const Value*> in{c.in[0], &w, &r, &b, &lens};
  in.insert(in.end(), states.begin(), states.end());
  auto out = onnx(
      op, in, c.path, c.depth,
      [&](onnx::NodeProto& n) {
        set_i(n, "layout", 1);
        set_i(n, "hidden_size", attr_int(c.node, "hidden_size", 0));
        set_s(n, "direction", lower(attr(c.node, "direction", "forward")));
        if (!acts.empty()) set_strings(n, "activations", acts);
        set_f(n, "clip", float_attr(c.node, "clip", 0.0));
        if (more) more(n);
      },
      n_out);
  out[0] = tv(transpose(*out[0].t, {0, 2, 1, 3}));
  const Tensor& len = *lens.t;
  for (size_t o = 1; o < out.size(); ++o) {
    Tensor st = *out[o].t;
    const int64_t nb = st.shape.empty() ? 0 : st.shape[0], per = nb ? st.numel() / nb : 0;
    for (int64_t k = 0; k < len.numel() && k < nb; ++k)
      if (len.i[k] == 0) std::fill(st.f.begin() + k * per, st.f.begin() + (k + 1) * per, 0.0);
    out[o] = tv(std::move(st));
  }
  return out;
}

// LSTMSequence-5: gates f,i,c,o -> ONNX's i,o,f,c; one bias (ONNX's recurrent bias zero).
std::vector<Value> IrRunner::op_lstm_sequence(const OpCall& c) {
  if (c.in.size() < 7) fail("LSTMSequence needs 7 inputs");
  const std::vector<int64_t> order{1, 3, 0, 2};
  const Value w = tv(ir::reorder_blocks(tensor_in(c.in, 4, c.node), order));
  const Value r = tv(ir::reorder_blocks(tensor_in(c.in, 5, c.node), order));
  const Tensor b = ir::reorder_blocks(tensor_in(c.in, 6, c.node), order);
  const Tensor zero(b.dt, b.shape);
  return recurrent_sequence(c, "LSTM", w, r, tv(concat({&b, &zero}, 1)), {c.in[1], c.in[2]}, 3, {});
}

// GRUSequence-5: gates z,r,h as ONNX's; B [dirs, 3H] (ONNX's recurrent bias zero) or, with linear_before_reset,
// [dirs, 4H] = z, r, input h, recurrent h biases.
std::vector<Value> IrRunner::op_gru_sequence(const OpCall& c) {
  if (c.in.size() < 6) fail("GRUSequence needs 6 inputs");
  const bool lbr = attr_bool(c.node, "linear_before_reset", false);
  const Tensor& b = tensor_in(c.in, 5, c.node);
  if (b.rank() != 2 || !is_float(b.dt)) fail("GRUSequence B needs a floating-point rank 2, got " + b.describe());
  const int64_t H = b.shape[1] / (lbr ? 4 : 3), D = b.shape[0];
  Tensor bb(b.dt, {D, 6 * H});
  for (int64_t d = 0; d < D; ++d)
    for (int64_t j = 0; j < (lbr ? 4 : 3) * H; ++j)
      bb.f[d * 6 * H + (j < 3 * H ? j : 2 * H + j)] = b.f[d * b.shape[1] + j];
  return recurrent_sequence(c, "GRU", *c.in[3], *c.in[4], tv(std::move(bb)), {c.in[1]}, 2,
                            [&](onnx::NodeProto& n) { set_i(n, "linear_before_reset", lbr); });
}

// RNNSequence-5: B [dirs, H] (ONNX's recurrent bias zero).
std::vector<Value> IrRunner::op_rnn_sequence(const OpCall& c) {
  if (c.in.size() < 6) fail("RNNSequence needs 6 inputs");
  const Tensor& b = tensor_in(c.in, 5, c.node);
  const Tensor zero(b.dt, b.shape);
  return recurrent_sequence(c, "RNN", *c.in[3], *c.in[4], tv(concat({&b, &zero}, 1)), {c.in[1]}, 2, {});
}

CaseResult run_case(const Model& m, const RunConfig& cfg, const std::vector<Value>& inputs,
                    const std::vector<std::optional<Value>>* golden, const std::map<std::string, bool>& pins,
                    Trace& trace, std::vector<Value>& outputs) {
  CaseResult cr;
  IrRunner ir(m, case_options(cr, cfg, pins));
  run_timed(cr, [&] { outputs = ir.run(inputs); });
  trace = ir.trace();
  // The Results are read only after a run that passed: a model without a main graph fails its run.
  const auto res = cr.status == CaseStatus::Passed ? ir.results(0) : std::vector<int>{};
  finish_case(cr, cfg, pins, trace, outputs, golden, res.size(), [&](size_t k, OutputResult& o) {
    const Node& rn = m.node(0, res[k]);
    o.name = rn.display();
    return rn.inputs.empty() ? std::string() : check_port(outputs[k], rn.inputs[0]);
  });
  return cr;
}

std::string save_case(const fs::path& dir, int index, const std::vector<Value>& inputs,
                      const std::vector<Value>& outputs, const std::map<std::string, bool>& pins) {
  return save_case(dir, index, inputs, outputs, pins,
                   [](bool output, size_t k) { return (output ? "output_" : "input_") + std::to_string(k); });
}

}  // namespace

namespace {

// The main graph's Parameters as synthesis sees them: in order, each dim open where the IR leaves it dynamic (a
// bounded dim is kept as the data gives it).
std::vector<InputDecl> input_decls(const Model& m) { return ir_input_decls(m); }

// Phase kSynthesize of the IR driver: synthesize_phase with the IR executor.
void synthesize_ir(const Model& model, const RunConfig& cfg, DataPlan& plan, size_t s, const std::string& name,
                   std::vector<Value> base, ModelResult& mr, PinState& state, MemorySets& memory, int& save_index) {
  synthesize_phase(
      cfg, plan, s, name, base, input_decls(model),
      [&](const std::vector<Value>& in, Trace& trace) {
        RunOptions ro;
        ro.limits = cfg.limits;
        IrRunner ir(model, ro);
        run_keeping_trace(
            trace, [&] { ir.run(in); }, [&] { return ir.trace(); });
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

std::vector<InputDecl> ir_input_decls(const Model& m) {
  std::vector<InputDecl> out;
  if (m.graphs.empty()) return out;
  for (const Node& n : m.graphs[0].nodes) {
    if (n.op != "Parameter") continue;
    InputDecl d;
    d.name = n.display();
    if (!n.outputs.empty() && n.outputs[0].type().kind == TypeDesc::Kind::Tensor)
      d.dt = dt_of(n.outputs[0].type().elem);
    if (!n.outputs.empty() && n.outputs[0].shape().rank_known) {
      d.has_shape = true;
      for (const Dim& dim : n.outputs[0].shape().dims) {
        d.dims.push_back(dim.is_dynamic() ? std::nullopt : std::optional<int64_t>(dim.lo));
        d.dim_names.emplace_back();
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> ir_output_names(const Model& m) {
  std::vector<std::string> out;
  if (m.graphs.empty()) return out;
  for (const Node& n : m.graphs[0].nodes)
    if (n.op == "Result") out.push_back(n.display());
  return out;
}

std::vector<Value> run_ir_once(const Model& model, const std::vector<Value>& inputs,
                               const std::map<std::string, bool>& pins, const Limits& limits, Trace& trace) {
  if (!model.ir || model.graphs.empty()) fail("not an OpenVINO IR with a main graph");
  RunOptions ro;
  ro.limits = limits;
  ro.pins = pins;
  IrRunner ir(model, ro);
  std::vector<Value> outputs;
  run_keeping_trace(
      trace, [&] { outputs = ir.run(inputs); }, [&] { return ir.trace(); });
  return outputs;
}

std::vector<std::string> ir_op_types() { return IrRunner::op_types(); }

ModelResult run_ir_model(const Model& loaded, const fs::path& model_path, const RunConfig& config) {
  ModelResult mr;
  RunConfig cfg = config;
  mr.model = model_path.string();
  const Model* model = &loaded;
  if (!model->ir) {
    mr.error = model_path.string() + ": not an OpenVINO IR";
    return mr;
  }
  if (!record_all_ifs(loaded, cfg, mr)) return mr;
  for (const auto& p : model->ir->problems)
    if (p.kind != IrProblem::Kind::BadAttribute) {
      mr.error = model_path.string() + ": " + p.message;
      return mr;
    }
  if (auto why = readability_of(*model); !why.empty()) {
    mr.error = model_path.string() + ": " + why;
    return mr;
  }
  if (model->graphs.empty()) {
    mr.error = model_path.string() + ": no graph";
    return mr;
  }
  // Which branches pinning may reach: from the conditions the IR loader traced (a shape guard is never pinned).
  if (!cfg.policy) cfg.policy = std::make_shared<const BranchPolicy>(*model);
  guard().limits = cfg.limits;
  size_t n_params = 0, n_results = 0;
  for (const auto& n : model->graphs[0].nodes) {
    n_params += n.op == "Parameter";
    n_results += n.op == "Result";
  }

  DataPlan plan = plan_data_sets(model_path, cfg, n_params > 0);
  if (!plan.error.empty()) {
    mr.error = plan.error;
    return mr;
  }
  MemorySets memory;  // input sets made in memory: --random, then synthesized
  if (auto e = add_random_sets(input_decls(*model), cfg, plan, memory); !e.empty()) {
    mr.error = e;
    return mr;
  }
  ExecBackend b;
  b.outputs = n_results;
  b.load = [&](const DataSet& ds) {
    LoadedSet l;
    try {
      if (ds.inputs.size() > n_params)
        fail("data set has input_" + std::to_string(ds.inputs.size() - 1) + ", the model has " +
             std::to_string(n_params) + " Parameters");
      for (size_t k = 0; k < n_params; ++k) {
        if (k >= ds.inputs.size() || ds.inputs[k].empty()) fail("data set has no input_" + std::to_string(k));
        l.inputs.push_back(read_golden(ds.inputs[k]));
      }
      if (ds.outputs.size() > n_results)
        fail("data set has output_" + std::to_string(ds.outputs.size() - 1) + ", the model has " +
             std::to_string(n_results) + " Results");
      for (size_t k = 0; k < n_results; ++k) {
        if (k >= ds.outputs.size() || ds.outputs[k].empty()) l.golden.emplace_back();
        else l.golden.emplace_back(read_golden(ds.outputs[k]));
      }
    } catch (const ExecError& e) {
      l.error = e.what();  // every unreadable data set fails its case
    }
    return l;
  };
  b.synthesize = [&](DataPlan& p, size_t s, const std::string& name, const std::vector<Value>& inputs, ModelResult& r,
                     PinState& state, MemorySets& mem,
                     int& save_index) { synthesize_ir(*model, cfg, p, s, name, inputs, r, state, mem, save_index); };
  b.run = [&](const std::vector<Value>& inputs, const std::vector<std::optional<Value>>* golden, const PinSet& pins,
              Trace& trace,
              std::vector<Value>& outputs) { return run_case(*model, cfg, inputs, golden, pins, trace, outputs); };
  b.save = [&](int index, const std::vector<Value>& inputs, const std::vector<Value>& outputs, const PinSet& pins) {
    return save_case(cfg.save_dir, index, inputs, outputs, pins);
  };
  run_data_sets(plan, memory, cfg, mr, b);
  return mr;
}

}  // namespace condlint::exec
