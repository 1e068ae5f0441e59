#include "exec/nnapi_exec.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "exec/compare.hpp"
#include "exec/kernel_util.hpp"
#include "exec/onnx_io.hpp"
#include "exec/random_inputs.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"
#include "model/nnapi_data.hpp"
#include "model/node_path.hpp"
#include "rules/readability.hpp"

namespace condlint::exec {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- model
struct KernelEntry;
const KernelEntry* kernel_of(int type);  // null: not an operation the executor runs

const char* op_name(int t);

struct Operand {
  std::string name;
  int type = 0, lifetime = 0;
  Dims dims;
  double scale = 0;
  int zp = 0;
  uint32_t pool = 0, offset = 0, length = 0;
};
struct Operation {
  int type = 0;
  std::vector<uint32_t> in, out;
};
struct Graph {
  std::vector<Operand> operands;
  std::vector<Operation> ops;
  std::vector<uint32_t> inputs, outputs;
};
struct NModel {
  Graph main;
  std::vector<Graph> referenced;
  std::string values;
  std::vector<std::string> pools;
  bool relaxed = false;
  bool any_f16 = false;
  const std::vector<NnExample>* examples = nullptr;
};

// The executor's view of the model the NNAPI loader read (one reader per format: the same document, Blobs and
// packed `value`s that lint checks), in the types the kernels use.
Graph graph_of(const NnSubgraph& sg) {
  Graph out;
  for (const NnOperand& o : sg.operands) {
    Operand x;
    x.name = o.name;
    x.type = o.type;
    x.lifetime = o.lifetime;
    for (uint32_t d : o.dimensions) x.dims.push_back(d);
    x.scale = o.scale;
    x.zp = o.zero_point;
    x.pool = o.pool_index;
    x.offset = o.offset;
    x.length = o.length;
    out.operands.push_back(std::move(x));
  }
  for (const NnOperation& op : sg.operations) out.ops.push_back(Operation{op.type, op.inputs, op.outputs});
  out.inputs = sg.input_indexes;
  out.outputs = sg.output_indexes;
  return out;
}

NModel model_of(const NnapiData& nn) {
  NModel m;
  if (nn.subgraphs.empty()) fail("the model has no main subgraph");
  m.main = graph_of(nn.subgraphs[0]);
  for (size_t g = 1; g < nn.subgraphs.size(); ++g) m.referenced.push_back(graph_of(nn.subgraphs[g]));
  m.values = nn.operand_values;
  for (const NnBlob& b : nn.pools) m.pools.push_back(b.bytes);
  m.relaxed = nn.relax_float32_to_float16;
  auto scan = [&](const Graph& g) {
    for (const auto& o : g.operands) m.any_f16 = m.any_f16 || o.type == nn::TENSOR_FLOAT16 || o.type == nn::FLOAT16;
  };
  scan(m.main);
  for (const auto& g : m.referenced) scan(g);
  m.examples = &nn.examples;
  return m;
}

// ---------------------------------------------------------------- values
DT storage_dt(int type) {
  switch (type) {
    case nn::FLOAT32:
    case nn::TENSOR_FLOAT32: return DT::F32;
    case nn::FLOAT16:
    case nn::TENSOR_FLOAT16: return DT::F16;
    case nn::INT32:
    case nn::TENSOR_INT32: return DT::I32;
    case nn::UINT32: return DT::U32;
    case nn::BOOL:
    case nn::TENSOR_BOOL8: return DT::Bool;
    case nn::TENSOR_QUANT8_ASYMM: return DT::U8;
    case nn::TENSOR_QUANT8_ASYMM_SIGNED:
    case nn::TENSOR_QUANT8_SYMM:
    case nn::TENSOR_QUANT8_SYMM_PER_CHANNEL: return DT::I8;
    case nn::TENSOR_QUANT16_SYMM: return DT::I16;
    case nn::TENSOR_QUANT16_ASYMM: return DT::U16;
    default: throw ExecError(ErrKind::Unsupported, "NNAPI operand type " + std::to_string(type));
  }
}
bool is_quant(int t) {
  return t == nn::TENSOR_QUANT8_ASYMM || t == nn::TENSOR_QUANT8_ASYMM_SIGNED || t == nn::TENSOR_QUANT8_SYMM ||
         t == nn::TENSOR_QUANT16_SYMM || t == nn::TENSOR_QUANT16_ASYMM;
}

struct NVal {
  bool has = false;
  int type = 0;
  double scale = 0;
  int zp = 0;
  Tensor t;
  int subgraph = -1;  // nn::SUBGRAPH operand: referenced index
};

Tensor decode(const std::string& bytes, uint32_t off, uint32_t len, DT dt, const Dims& dims) {
  const int64_t n = checked_numel(dims);
  if (static_cast<uint64_t>(off) + len > bytes.size())
    fail("constant at offset " + std::to_string(off) + " length " + std::to_string(len) + " runs past its blob");
  if (static_cast<int64_t>(len) != n * dt_bytes(dt))
    fail("constant length " + std::to_string(len) + " does not match its shape " + dims_str(dims));
  onnx::TensorProto tp;
  tp.set_data_type(static_cast<int>(dt));
  for (auto d : dims) tp.add_dims(d);
  tp.set_raw_data(bytes.substr(off, len));
  return tensor_from_proto(tp);
}

double real(const NVal& v, int64_t k) {
  const double x = v.t.getf(k);
  return is_quant(v.type) ? (x - v.zp) * v.scale : x;
}

// Builds an output value of the declared type from real numbers (quantizes when needed).
NVal make_out(const Operand& decl, Dims shape, const std::vector<double>& vals, bool relaxed) {
  NVal o;
  o.has = true;
  o.type = decl.type;
  o.scale = decl.scale;
  o.zp = decl.zp;
  o.t = Tensor(storage_dt(decl.type), std::move(shape));
  for (int64_t k = 0; k < o.t.numel(); ++k) {
    double v = vals[k];
    if (is_quant(decl.type)) {
      const double q = std::nearbyint(v / decl.scale) + decl.zp;
      const double lo = decl.type == nn::TENSOR_QUANT8_ASYMM    ? 0
                        : decl.type == nn::TENSOR_QUANT16_ASYMM ? 0
                        : decl.type == nn::TENSOR_QUANT16_SYMM  ? -32768
                                                                : -128;
      const double hi = decl.type == nn::TENSOR_QUANT8_ASYMM    ? 255
                        : decl.type == nn::TENSOR_QUANT16_ASYMM ? 65535
                        : decl.type == nn::TENSOR_QUANT16_SYMM  ? 32767
                                                                : 127;
      o.t.i[k] = static_cast<int64_t>(std::clamp(q, lo, hi));
    } else if (is_float(o.t.dt)) {
      (void)relaxed;
      o.t.f[k] = v;
    } else {
      o.t.i[k] = double_to_int(o.t.dt, v);
    }
  }
  normalize(o.t);
  return o;
}

double activate(double v, int act) {
  switch (act) {
    case 1: return std::max(0.0, v);
    case 2: return std::clamp(v, -1.0, 1.0);
    case 3: return std::clamp(v, 0.0, 6.0);
    default: return v;
  }
}

// ---------------------------------------------------------------- interpreter
struct Exec;
// One entry per operation the executor runs: its AIDL name (nn::operation_name gives the number's name, so the
// operation codes are defined once, in model/nnapi_data), its kernel, and for the element-wise ones the function of
// two values (comparisons give 0 or 1 and take no fused activation).
struct KernelEntry {
  const char* name;
  void (Exec::*kernel)(const Graph&, const Operation&, std::vector<NVal>&, const std::string&, int);
  double (*binary)(double, double) = nullptr;
  bool comparison = false;
};

struct Exec {
  const NModel& m;
  const RunConfig& cfg;
  std::map<std::string, bool> pins;
  Trace trace;
  std::chrono::steady_clock::time_point start;

  const Graph& graph(int idx) {
    if (idx < 0 || idx >= static_cast<int>(m.referenced.size()))
      fail("SUBGRAPH operand names referenced[" + std::to_string(idx) + "], which does not exist");
    return m.referenced[idx];
  }

  std::vector<NVal> run(const Graph& g, const std::vector<NVal>& inputs, const std::string& path, int depth) {
    if (depth > cfg.limits.max_depth)
      throw ExecError(ErrKind::Resource, "nesting deeper than " + std::to_string(cfg.limits.max_depth) + " at " + path);
    if (inputs.size() != g.inputs.size())
      fail(path + " takes " + std::to_string(g.inputs.size()) + " inputs, given " + std::to_string(inputs.size()));
    std::vector<NVal> v(g.operands.size());
    for (size_t k = 0; k < g.operands.size(); ++k) {
      const Operand& o = g.operands[k];
      if (o.lifetime == nn::CONSTANT_COPY || o.lifetime == nn::CONSTANT_REFERENCE) {
        const std::string* b = &m.values;
        if (o.lifetime == nn::CONSTANT_REFERENCE) {
          if (o.pool >= m.pools.size())
            fail("operand " + std::to_string(k) + " names pool " + std::to_string(o.pool) + ", which does not exist");
          b = &m.pools[o.pool];
        }
        v[k].has = true;
        v[k].type = o.type;
        v[k].scale = o.scale;
        v[k].zp = o.zp;
        v[k].t = decode(*b, o.offset, o.length, storage_dt(o.type), o.dims);
      } else if (o.lifetime == nn::SUBGRAPH_LT) {
        v[k].has = true;
        v[k].type = nn::SUBGRAPH;
        v[k].subgraph = static_cast<int>(o.offset);
      }
    }
    for (size_t k = 0; k < inputs.size(); ++k) v[g.inputs[k]] = inputs[k];
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Operation& op = g.ops[i];
      const char* name = op_name(op.type);
      const std::string opath = node_path::child(path, node_path::node_segment("", name ? name : "op", i));
      if (!name)
        throw ExecError(ErrKind::Unsupported, "unsupported op " + nn::operation_name(op.type) + " at " + opath);
      try {
        exec_op(g, op, v, opath, depth);
      } catch (const ExecError& e) {
        const std::string msg = e.what();
        if (msg.rfind("at ", 0) == 0 || msg.rfind("unsupported op", 0) == 0 || e.kind == ErrKind::Timeout) throw;
        throw ExecError(e.kind, "at " + opath + ": " + msg);
      }
    }
    std::vector<NVal> outs;
    for (auto o : g.outputs) {
      if (!v[o].has) fail(path + ": output operand " + std::to_string(o) + " is never written");
      outs.push_back(v[o]);
    }
    return outs;
  }

  const NVal& in(const std::vector<NVal>& v, const Operation& op, size_t k) {
    if (k >= op.in.size()) fail("operation has too few inputs");
    const NVal& x = v[op.in[k]];
    if (!x.has) fail("input " + std::to_string(k) + " (operand " + std::to_string(op.in[k]) + ") has no value");
    return x;
  }
  int scalar_i(const std::vector<NVal>& v, const Operation& op, size_t k) {
    const NVal& x = in(v, op, k);
    if (x.t.numel() < 1) fail("scalar input " + std::to_string(k) + " is empty");
    return static_cast<int>(x.t.geti(0));
  }

  void check_time(const std::string& path) {
    if (cfg.limits.deadline.passed())
      throw ExecError(ErrKind::Timeout, "WHILE at " + path + ": " + cfg.limits.deadline.reached());
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (ms > static_cast<double>(cfg.limits.timeout_ms))
      throw ExecError(ErrKind::Timeout, "WHILE at " + path + " exceeded the loop timeout of " +
                                            std::to_string(cfg.limits.timeout_ms) + " ms");
  }

  // The declared operand of the operation's output k.
  static const Operand& out_decl(const Graph& g, const Operation& op, size_t k) {
    if (k >= op.out.size()) fail("operation has too few outputs");
    return g.operands[op.out[k]];
  }

  void exec_op(const Graph& g, const Operation& op, std::vector<NVal>& v, const std::string& path, int depth) {
    const KernelEntry* k = kernel_of(op.type);
    if (!k) throw ExecError(ErrKind::Unsupported, "unsupported op " + nn::operation_name(op.type) + " at " + path);
    (this->*(k->kernel))(g, op, v, path, depth);
  }

  // ADD SUB MUL GREATER_EQUAL LESS LESS_EQUAL: broadcast, the entry's function, the fused activation.
  void elementwise(const Graph& g, const Operation& op, std::vector<NVal>& v, const std::string&, int) {
    const KernelEntry* k_ = kernel_of(op.type);
    const NVal& a = in(v, op, 0);
    const NVal& b = in(v, op, 1);
    const bool cmp = k_->comparison;
    const int act = cmp ? 0 : scalar_i(v, op, 2);
    const Dims o = broadcast_shapes({&a.t.shape, &b.t.shape});
    std::vector<double> r(checked_numel(o));
    const bool ints = !is_float(a.t.dt) && !is_quant(a.type);
    for_broadcast(o, std::array<Dims, 2>{bstrides(a.t.shape, o), bstrides(b.t.shape, o)},
                  [&](int64_t k, const std::array<int64_t, 2>& ix) {
                    const double x = real(a, ix[0]), y = real(b, ix[1]);
                    double z = k_->binary(x, y);
                    if (ints && !cmp) z = static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(z)));
                    r[k] = activate(z, act);
                  });
    v[op.out[0]] = make_out(out_decl(g, op, 0), o, r, m.relaxed);
  }

  // FULLY_CONNECTED.
  void fully_connected(const Graph& g, const Operation& op, std::vector<NVal>& v, const std::string&, int) {
    const NVal& x = in(v, op, 0);
    const NVal& w = in(v, op, 1);
    const NVal& b = in(v, op, 2);
    const int act = scalar_i(v, op, 3);
    if (w.t.rank() != 2) fail("FULLY_CONNECTED weights must be 2-D");
    const int64_t units = w.t.shape[0], size = w.t.shape[1];
    if (size == 0 || x.t.numel() % size) fail("FULLY_CONNECTED input size does not divide the input");
    const int64_t batch = x.t.numel() / size;
    std::vector<double> r(batch * units);
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t u = 0; u < units; ++u) {
        double s =
            b.t.numel() > u ? (b.type == nn::TENSOR_INT32 && b.scale > 0 ? b.t.getf(u) * b.scale : real(b, u)) : 0.0;
        if (b.type == nn::TENSOR_INT32 && b.scale == 0 && is_quant(x.type)) s = b.t.getf(u) * x.scale * w.scale;
        for (int64_t k = 0; k < size; ++k) s += real(x, bi * size + k) * real(w, u * size + k);
        r[bi * units + u] = activate(s, act);
      }
    v[op.out[0]] = make_out(out_decl(g, op, 0), {batch, units}, r, m.relaxed);
  }

  // CONCATENATION.
  void concatenation(const Graph& g, const Operation& op, std::vector<NVal>& v, const std::string&, int) {
    if (op.in.size() < 2) fail("CONCATENATION needs inputs and an axis");
    const int axis_raw = scalar_i(v, op, op.in.size() - 1);
    std::vector<Tensor> reals;
    std::vector<const Tensor*> ps;
    for (size_t k = 0; k + 1 < op.in.size(); ++k) {
      const NVal& x = in(v, op, k);
      Tensor t(DT::F64, x.t.shape);
      for (int64_t e = 0; e < t.numel(); ++e) t.f[e] = real(x, e);
      reals.push_back(std::move(t));
    }
    for (auto& t : reals) ps.push_back(&t);
    Tensor c = concat(ps, norm_axis(axis_raw, static_cast<int64_t>(reals[0].rank())));
    v[op.out[0]] = make_out(out_decl(g, op, 0), c.shape, c.f, m.relaxed);
  }

  // SLICE.
  void slice(const Graph& g, const Operation& op, std::vector<NVal>& v, const std::string&, int) {
    const NVal& x = in(v, op, 0);
    const NVal& beg = in(v, op, 1);
    const NVal& sz = in(v, op, 2);
    const int64_t r = static_cast<int64_t>(x.t.rank());
    if (beg.t.numel() != r || sz.t.numel() != r) fail("SLICE begin/size must have one entry per dimension");
    Dims od(r);
    for (int64_t a = 0; a < r; ++a) {
      const int64_t b0 = beg.t.geti(a), s0 = sz.t.geti(a);
      od[a] = s0 == -1 ? x.t.shape[a] - b0 : s0;
      if (b0 < 0 || od[a] < 0 || b0 + od[a] > x.t.shape[a]) fail("SLICE out of range");
    }
    NVal o = x;
    o.type = out_decl(g, op, 0).type;
    o.t = Tensor(x.t.dt, od);
    const Dims xs = strides_of(x.t.shape);
    int64_t base = 0;
    for (int64_t a = 0; a < r; ++a) base += beg.t.geti(a) * xs[a];
    for_broadcast(od, std::array<Dims, 1>{xs},
                  [&](int64_t k, const std::array<int64_t, 1>& ix) { copy_elem(x.t, base + ix[0], o.t, k); });
    v[op.out[0]] = o;
  }

  // IF: the branch the condition (or a pin) selects.
  void if_op(const Graph& g, const Operation& op, std::vector<NVal>& v, const std::string& path, int depth) {
    if (op.in.size() < 3) fail("IF needs a condition and two branches");
    const NVal& c = in(v, op, 0);
    if (c.t.numel() != 1) fail("IF condition must hold one value");
    const bool computed = c.t.geti(0) != 0;
    auto& site = trace.ifs[path];
    site.computed.insert(computed);
    bool use = computed;
    if (auto it = pins.find(path); it != pins.end()) {
      use = it->second;
      site.pinned = true;
    }
    site.ran.insert(use);
    const NVal& br = in(v, op, use ? 1 : 2);
    if (br.subgraph < 0) fail("IF branch operand is not a SUBGRAPH");
    std::vector<NVal> args;
    for (size_t k = 3; k < op.in.size(); ++k) args.push_back(in(v, op, k));
    auto outs = run(graph(br.subgraph), args, node_path::branch(path, use), depth + 1);
    if (outs.size() != op.out.size())
      fail("IF branch gives " + std::to_string(outs.size()) + " outputs, the IF has " + std::to_string(op.out.size()));
    for (size_t k = 0; k < outs.size(); ++k) {
      const Operand& d = out_decl(g, op, k);
      if (outs[k].type != d.type)
        trace.branch_problems.push_back("IF '" + path + "' " + (use ? "then" : "else") + " branch output " +
                                        std::to_string(k) + " has operand type " + std::to_string(outs[k].type) +
                                        ", the IF declares " + std::to_string(d.type));
      else if (!d.dims.empty() && std::find(d.dims.begin(), d.dims.end(), 0) == d.dims.end() &&
               d.dims != outs[k].t.shape)
        trace.branch_problems.push_back("IF '" + path + "' " + (use ? "then" : "else") + " branch output " +
                                        std::to_string(k) + " has shape " + dims_str(outs[k].t.shape) +
                                        ", the IF declares " + dims_str(d.dims));
      v[op.out[k]] = outs[k];
    }
  }

  // WHILE: the condition graph, then the body, within the time and iteration limits.
  void while_op(const Graph&, const Operation& op, std::vector<NVal>& v, const std::string& path, int depth) {
    if (op.in.size() < 2) fail("WHILE needs condition and body");
    const NVal& cg = in(v, op, 0);
    const NVal& bg = in(v, op, 1);
    if (cg.subgraph < 0 || bg.subgraph < 0) fail("WHILE condition/body operand is not a SUBGRAPH");
    const Graph& cond = graph(cg.subgraph);
    const Graph& body = graph(bg.subgraph);
    const size_t m_out = op.out.size();
    const size_t nv = op.in.size() - 2;
    if (body.outputs.size() < m_out || body.outputs.size() > nv) fail("WHILE body output count does not fit");
    const size_t mk = body.outputs.size();
    std::vector<NVal> vals;
    for (size_t k = 0; k < nv; ++k) vals.push_back(in(v, op, k + 2));
    for (int64_t it = 0;; ++it) {
      check_time(path);
      if (it >= cfg.limits.max_loop_iterations)
        throw ExecError(ErrKind::Timeout,
                        "WHILE at " + path + " ran " + std::to_string(it) + " iterations (iteration limit)");
      auto c = run(cond, vals, path + "/cond", depth + 1);
      if (c.size() != 1 || c[0].t.numel() != 1) fail("WHILE condition must give one boolean value");
      if (!c[0].t.geti(0)) break;
      auto outs = run(body, vals, node_path::body(path), depth + 1);
      for (size_t k = 0; k < mk; ++k) vals[k] = outs[k];
    }
    for (size_t k = 0; k < m_out; ++k) v[op.out[k]] = vals[k];
  }
};

const KernelEntry kKernels[] = {
    {"ADD", &Exec::elementwise, [](double x, double y) { return x + y; }},
    {"CONCATENATION", &Exec::concatenation},
    {"FULLY_CONNECTED", &Exec::fully_connected},
    {"MUL", &Exec::elementwise, [](double x, double y) { return x * y; }},
    {"SUB", &Exec::elementwise, [](double x, double y) { return x - y; }},
    {"GREATER_EQUAL", &Exec::elementwise, [](double x, double y) { return x >= y ? 1.0 : 0.0; }, true},
    {"LESS", &Exec::elementwise, [](double x, double y) { return x < y ? 1.0 : 0.0; }, true},
    {"LESS_EQUAL", &Exec::elementwise, [](double x, double y) { return x <= y ? 1.0 : 0.0; }, true},
    {"SLICE", &Exec::slice},
    {"IF", &Exec::if_op},
    {"WHILE", &Exec::while_op},
};

const KernelEntry* kernel_of(int type) {
  static const NnOperationTable<KernelEntry> table(kKernels);
  return table.find(type);
}

const char* op_name(int type) {
  const KernelEntry* k = kernel_of(type);
  return k ? k->name : nullptr;
}

// The value of operand `o` holding `t` (cast to the type the operand stores).
NVal input_value(const Operand& o, Tensor t) {
  NVal v;
  v.has = true;
  v.type = o.type;
  v.scale = o.scale;
  v.zp = o.zp;
  v.t = t.dt == storage_dt(o.type) ? std::move(t) : cast_tensor(t, storage_dt(o.type));
  return v;
}

NVal value_from_example(const NnValue& ex, const Operand& decl) {
  return input_value(decl, example_tensor(ex, storage_dt(decl.type), decl.dims));
}

}  // namespace

namespace {

struct Example {
  std::string name;
  bool expect_failure = false;
  std::vector<NVal> inputs;
  std::vector<std::optional<NVal>> golden;  // empty for synthesized inputs
  std::string synthesized;                  // what was synthesized ("" for an example of the file)
};

// One run of `ex` with `pins`: its case (compared with the example's outputs unless derived) and what it took.
CaseResult run_example(const NModel& m, const RunConfig& cfg, const Example& ex, const PinSet& pins, bool derived,
                       Trace& trace, bool& ran) {
  CaseResult cr;
  cr.data_set = ex.name;
  cr.pins = pins;
  cr.derived = derived;
  cr.synthesized = ex.synthesized;
  ran = false;
  if (cfg.limits.deadline.passed()) return not_run(std::move(cr), cfg.limits);
  Exec x{m, cfg, pins, {}, std::chrono::steady_clock::now()};
  std::vector<NVal> outs;
  try {
    outs = x.run(m.main, ex.inputs, "main", 0);
    ran = true;
  } catch (const ExecError& err) {
    cr.message = err.what();
    cr.status = err.kind == ErrKind::Unsupported ? CaseStatus::Unsupported : CaseStatus::Failed;
  } catch (const std::exception& err) {
    cr.message = std::string("internal error: ") + err.what();
    cr.status = CaseStatus::Failed;
  }
  cr.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - x.start).count();
  trace = x.trace;
  for (auto& [p, site] : trace.ifs) cr.if_branches[p] = std::vector<bool>(site.ran.begin(), site.ran.end());
  cr.branch_problems = trace.branch_problems;
  if (ex.expect_failure && !derived) {
    if (cr.status == CaseStatus::Failed) {
      cr.status = CaseStatus::Passed;
      cr.message = "failed as expected: " + cr.message;
    } else if (ran) {
      cr.status = CaseStatus::Mismatch;
      cr.message = "the example expects the execution to fail, but it ran";
    }
    return cr;
  }
  if (!ran) return cr;
  const bool loose = m.relaxed || m.any_f16;
  for (size_t k = 0; k < outs.size(); ++k) {
    OutputResult o;
    o.name = "output " + std::to_string(k);
    if (!derived && k < ex.golden.size() && ex.golden[k]) {
      o.compared = true;
      cr.golden = true;
      const NVal& g = *ex.golden[k];
      const bool q = is_quant(g.type) || g.t.dt == DT::I32;
      std::optional<double> atol = cfg.atol, rtol = cfg.rtol;
      if (!atol) atol = q ? 1.0 : (g.t.dt == DT::Bool ? 0.0 : (loose || g.t.dt == DT::F16) ? 5 * 0.0009765625 : 1e-5);
      if (!rtol)
        rtol = q || g.t.dt == DT::Bool        ? 0.0
               : (loose || g.t.dt == DT::F16) ? 5 * 0.0009765625
                                              : 5 * 1.1920928955078125e-7;
      Tensor actual = outs[k].t;
      if (actual.dt != g.t.dt) actual = cast_tensor(actual, g.t.dt);
      Comparison c = compare_values(Value::tensor(actual), Value::tensor(g.t), atol, rtol);
      o.ok = c.ok;
      o.detail = c.reason;
      o.max_abs = c.max_abs;
      o.max_rel = c.max_rel;
      o.first_index = c.first_index;
      o.tolerance = c.tolerance;
    }
    if (!o.ok && cr.status == CaseStatus::Passed) {
      cr.status = CaseStatus::Mismatch;
      cr.message = o.name + ": " + o.detail;
    }
    cr.outputs.push_back(o);
  }
  if (!cr.branch_problems.empty()) {
    cr.status = CaseStatus::Mismatch;
    cr.message = cr.branch_problems.front();
  }
  return cr;
}

// The main subgraph's inputs as synthesis sees them. Only booleans, 32-bit integers and floats are offered (a
// quantized input's stored value is not the value a condition compares); NNAPI has no op that reads a shape, so no
// dim is left open to resize.
std::vector<InputDecl> nnapi_input_decls(const NModel& m) {
  std::vector<InputDecl> out;
  for (size_t k = 0; k < m.main.inputs.size(); ++k) {
    InputDecl d;
    const uint32_t idx = m.main.inputs[k];
    if (idx < m.main.operands.size()) {
      const Operand& o = m.main.operands[idx];
      static const std::set<int> kPlain = {nn::BOOL,         nn::TENSOR_BOOL8, nn::INT32,
                                           nn::TENSOR_INT32, nn::FLOAT32,      nn::TENSOR_FLOAT32};
      const bool plain = kPlain.count(o.type) > 0;
      d.name = plain ? (o.name.empty() ? "operand " + std::to_string(idx) : o.name) : std::string();
    }
    out.push_back(std::move(d));
  }
  return out;
}

// The main subgraph's inputs as --random makes them: named by the operand's name (else "operand N"), of the type the
// executor stores it in, with the operand's dims (0: open); a scalar type has rank 0.
std::vector<InputDecl> nnapi_random_decls(const NModel& m) {
  std::vector<InputDecl> out;
  for (uint32_t idx : m.main.inputs) {
    InputDecl d;
    d.name = "operand " + std::to_string(idx);
    if (idx < m.main.operands.size()) {
      const Operand& o = m.main.operands[idx];
      if (!o.name.empty()) d.name = o.name;
      try {
        d.dt = storage_dt(o.type);
      } catch (const ExecError&) {  // a type the executor cannot hold: --random says so
      }
      d.has_shape = nn::is_scalar(o.type) || !o.dims.empty();
      for (int64_t dim : o.dims) d.dims.push_back(dim > 0 ? std::optional<int64_t>(dim) : std::nullopt);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// --random N: N input sets made from the declared inputs (no golden outputs), run after the model's examples.
std::string add_random_examples(const NModel& m, const RunConfig& cfg, std::vector<Example>& examples) {
  if (cfg.random.count <= 0) return "";
  std::vector<RandomSet> sets;
  if (auto e = random_sets(nnapi_random_decls(m), cfg.random, sets); !e.empty()) return e;
  for (const RandomSet& set : sets) {
    Example ex;
    ex.name = set.name;
    for (size_t i = 0; i < set.values.size() && i < m.main.inputs.size(); ++i)
      ex.inputs.push_back(input_value(m.main.operands[m.main.inputs[i]], *set.values[i].t));
    examples.push_back(std::move(ex));
  }
  return "";
}

}  // namespace

namespace {

// The model's examples as inputs and golden outputs; an example that does not fit the model is a failed case.
std::vector<Example> read_examples(const NModel& m, ModelResult& mr) {
  std::vector<Example> examples;
  for (size_t e = 0; e < m.examples->size(); ++e) {
    const NnExample& ej = (*m.examples)[e];
    Example ex;
    ex.name = "examples/" + std::to_string(e);
    ex.expect_failure = ej.expect_failure;
    try {
      if (ej.inputs.size() != m.main.inputs.size())
        fail("example has " + std::to_string(ej.inputs.size()) + " inputs, the model " +
             std::to_string(m.main.inputs.size()));
      for (size_t k = 0; k < ej.inputs.size(); ++k)
        ex.inputs.push_back(value_from_example(ej.inputs[k], m.main.operands[m.main.inputs[k]]));
      for (size_t k = 0; k < ej.outputs.size() && k < m.main.outputs.size(); ++k)
        ex.golden.push_back(ej.outputs[k].is_null ? std::nullopt
                                                  : std::optional<NVal>(value_from_example(
                                                        ej.outputs[k], m.main.operands[m.main.outputs[k]])));
    } catch (const std::exception& x) {
      CaseResult cr;
      cr.data_set = ex.name;
      cr.status = CaseStatus::Failed;
      cr.message = std::string("example: ") + x.what();
      mr.cases.push_back(cr);
      continue;
    }
    examples.push_back(std::move(ex));
  }
  return examples;
}

// The NNAPI driver's runs in the shared order (runner.hpp, PinState): every example as its data takes it; then inputs
// synthesized to select the branches none took; then pins, only for branches neither reached.
class NnapiDriver {
 public:
  NnapiDriver(const NModel& m, const RunConfig& cfg, ModelResult& mr) : m_(m), cfg_(cfg), mr_(mr) {}

  void run(std::vector<Example> examples) {
    examples_ = std::move(examples);
    for (const Example& ex : examples_) run_natural(ex);
    if (cfg_.both_branches && cfg_.policy && !cfg_.limits.deadline.passed()) synthesize();
    if (cfg_.both_branches) pin_other_branches();
  }

 private:
  void record(CaseResult cr, const Trace& trace, bool derived) {
    for (auto& [p, site] : trace.ifs) {
      auto& cov = mr_.if_coverage[p];
      for (bool b : site.ran) {
        if (std::find(cov.begin(), cov.end(), b) == cov.end()) cov.push_back(b);
        if (!derived) natural_.insert({p, b});
      }
    }
    mr_.cases.push_back(std::move(cr));
  }

  void run_natural(const Example& ex) {
    Trace trace;
    bool ran = false;
    CaseResult cr = run_example(m_, cfg_, ex, ex.synthesized.empty() ? cfg_.pins : PinSet{}, false, trace, ran);
    natural_trace_.push_back(ran ? std::optional<Trace>(trace) : std::nullopt);
    record(std::move(cr), trace, false);
  }

  // Inputs synthesized from the first example that ran, for the branches no example took.
  void synthesize() {
    const Example* base = nullptr;
    for (size_t e = 0; e < examples_.size() && !base; ++e)
      if (natural_trace_[e] && !examples_[e].expect_failure) base = &examples_[e];
    std::set<std::string> seen;
    for (const auto& [p, ran] : mr_.if_coverage) seen.insert(p);
    const auto wanted = wanted_branches(seen, natural_, *cfg_.policy);
    if (!base || wanted.empty()) return;
    const std::vector<NVal> base_inputs = base->inputs;
    const std::string base_name = base->name;
    std::vector<Value> base_values;
    for (const NVal& v : base_inputs) base_values.push_back(Value::tensor(v.t));
    auto to_nvals = [&](const std::vector<Value>& in) {
      std::vector<NVal> out = base_inputs;
      for (size_t k = 0; k < out.size() && k < in.size(); ++k)
        if (in[k].is_tensor()) out[k].t = *in[k].t;
      return out;
    };
    SynthesisOptions so;
    so.limits = cfg_.limits;
    SynthesisResult sr = synthesize_inputs(
        nnapi_input_decls(m_),
        [&](const std::vector<Value>& in, Trace& trace) {
          Exec x{m_, cfg_, {}, {}, std::chrono::steady_clock::now()};
          run_keeping_trace(
              trace, [&] { x.run(m_.main, to_nvals(in), "main", 0); }, [&] { return x.trace; });
        },
        *cfg_.policy, base_values, wanted, so);
    for (const auto& [key, why] : sr.failed) mr_.synthesis_failed[key.first][key.second] = why;
    for (const auto& set : sr.sets) {
      Example ex;
      ex.name = base_name;
      ex.synthesized = set.what;
      ex.inputs = to_nvals(set.inputs);
      run_natural(ex);
      examples_.push_back(std::move(ex));
    }
  }

  // Pins, per example that ran, for the branches neither the examples nor synthesized inputs reached.
  void pin_other_branches() {
    for (size_t e = 0; e < examples_.size(); ++e) {
      if (!natural_trace_[e]) continue;
      std::set<std::pair<std::string, bool>> done = natural_;
      std::vector<PinSet> work{cfg_.pins};
      queue_other_branches(*natural_trace_[e], cfg_.pins, done, nullptr, "", work, cfg_.policy.get(), &mr_.not_pinned,
                           &mr_.synthesis_failed);
      for (size_t w = 1; w < work.size() && static_cast<int>(w) < cfg_.max_runs_per_data_set; ++w) {
        Trace trace;
        bool ran = false;
        CaseResult cr = run_example(m_, cfg_, examples_[e], work[w], true, trace, ran);
        record(std::move(cr), trace, true);
        if (ran)
          queue_other_branches(trace, work[w], done, nullptr, "", work, cfg_.policy.get(), &mr_.not_pinned,
                               &mr_.synthesis_failed);
      }
    }
  }

  const NModel& m_;
  const RunConfig& cfg_;
  ModelResult& mr_;
  std::vector<Example> examples_;
  std::set<std::pair<std::string, bool>> natural_;
  std::vector<std::optional<Trace>> natural_trace_;
};

}  // namespace

ModelResult run_nnapi_model(const Model& model, const fs::path& path, const RunConfig& config) {
  ModelResult mr;
  mr.model = path.string();
  RunConfig cfg = config;
  guard().limits = cfg.limits;
  if (!model.nnapi) {
    mr.error = path.string() + ": not an NNAPI model";
    return mr;
  }
  if (!record_all_ifs(model, cfg, mr)) return mr;
  if (auto why = readability_of(model); !why.empty()) {  // what lint cannot read is not run
    mr.error = path.string() + ": " + why;
    return mr;
  }
  NModel m;
  try {
    m = model_of(*model.nnapi);
  } catch (const ExecError& e) {
    mr.error = path.string() + ": " + e.what();
    return mr;
  }
  if (m.examples->empty() && cfg.random.count <= 0) {
    mr.error = "no golden data: the model has no `examples` (run it on random inputs with --random N)";
    return mr;
  }
  if (!cfg.policy)  // which branches pinning may reach, from the conditions the loader traced
    cfg.policy = std::make_shared<const BranchPolicy>(model);
  std::vector<Example> examples = read_examples(m, mr);
  if (auto e = add_random_examples(m, cfg, examples); !e.empty()) {
    mr.error = path.string() + ": " + e;
    return mr;
  }
  NnapiDriver(m, cfg, mr).run(std::move(examples));
  tally(mr);
  return mr;
}

NnapiRun run_nnapi_once(const Model& model, const std::vector<Value>& inputs, const std::map<std::string, bool>& pins,
                        const Limits& limits) {
  NnapiRun out;
  guard().limits = limits;
  try {
    if (!model.nnapi) fail("not an NNAPI model");
    if (auto why = readability_of(model); !why.empty()) fail(why);
    const NModel m = model_of(*model.nnapi);
    if (inputs.size() != m.main.inputs.size())
      fail("given " + std::to_string(inputs.size()) + " inputs, the model takes " +
           std::to_string(m.main.inputs.size()));
    std::vector<NVal> args;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!inputs[k].is_tensor()) fail("input " + std::to_string(k) + " is not a tensor");
      args.push_back(input_value(m.main.operands[m.main.inputs[k]], *inputs[k].t));
    }
    RunConfig cfg;
    cfg.limits = limits;
    Exec x{m, cfg, pins, {}, std::chrono::steady_clock::now()};
    auto outs = x.run(m.main, args, "main", 0);
    for (auto& o : outs) out.outputs.push_back(Value::tensor(o.t));
    out.trace = x.trace;
    out.ok = true;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

Tensor example_tensor(const NnValue& ex, DT dt, Dims dims) {
  if (ex.dimensions) dims.assign(ex.dimensions->begin(), ex.dimensions->end());
  Tensor t(dt, dims);
  if (static_cast<int64_t>(ex.data.size()) != t.numel())
    fail("example data has " + std::to_string(ex.data.size()) + " values for shape " + dims_str(dims));
  for (int64_t k = 0; k < t.numel(); ++k) {
    const double e = ex.data[static_cast<size_t>(k)];
    if (is_float(t.dt)) t.f[k] = round_to(t.dt, e);
    else t.i[k] = static_cast<int64_t>(e);
  }
  return t;
}

}  // namespace condlint::exec
