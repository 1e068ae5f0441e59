#include "exec/nnapi_exec.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "exec/compare.hpp"
#include "exec/kernel_util.hpp"
#include "exec/onnx_io.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"
#include "model/nnapi_data.hpp"

namespace condlint::exec {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool is_nnapi_path(const fs::path& p) {
  const std::string s = p.filename().string();
  return s.size() > 11 && s.compare(s.size() - 11, 11, ".nnapi.json") == 0;
}

namespace {

// ---------------------------------------------------------------- model
enum OT {
  F32 = 0,
  I32 = 1,
  U32 = 2,
  TF32 = 3,
  TI32 = 4,
  TQ8A = 5,
  BOOL = 6,
  TQ16S = 7,
  TF16 = 8,
  TB8 = 9,
  F16 = 10,
  TQ8SPC = 11,
  TQ16A = 12,
  TQ8S = 13,
  TQ8AS = 14,
  SUBGRAPH = 15
};
enum LT { TEMP = 0, IN = 1, OUT = 2, CCOPY = 3, CREF = 4, NOVAL = 5, SUBG = 6 };

const std::map<std::string, int> kTypes = {{"FLOAT32", 0},
                                           {"INT32", 1},
                                           {"UINT32", 2},
                                           {"TENSOR_FLOAT32", 3},
                                           {"TENSOR_INT32", 4},
                                           {"TENSOR_QUANT8_ASYMM", 5},
                                           {"BOOL", 6},
                                           {"TENSOR_QUANT16_SYMM", 7},
                                           {"TENSOR_FLOAT16", 8},
                                           {"TENSOR_BOOL8", 9},
                                           {"FLOAT16", 10},
                                           {"TENSOR_QUANT8_SYMM_PER_CHANNEL", 11},
                                           {"TENSOR_QUANT16_ASYMM", 12},
                                           {"TENSOR_QUANT8_SYMM", 13},
                                           {"TENSOR_QUANT8_ASYMM_SIGNED", 14},
                                           {"SUBGRAPH", 15}};
const std::map<std::string, int> kLifetimes = {
    {"TEMPORARY_VARIABLE", 0}, {"SUBGRAPH_INPUT", 1}, {"SUBGRAPH_OUTPUT", 2}, {"CONSTANT_COPY", 3},
    {"CONSTANT_REFERENCE", 4}, {"CONSTANT_POOL", 4},  {"NO_VALUE", 5},        {"SUBGRAPH", 6}};
// The operations the executor runs, by Android's OperationType codes. Each has one entry in kKernels (after Exec).
enum class OperationType : int {
  ADD = 0,
  CONCATENATION = 2,
  FULLY_CONNECTED = 9,
  MUL = 18,
  SUB = 36,
  GREATER_EQUAL = 54,
  LESS = 58,
  LESS_EQUAL = 59,
  SLICE = 73,
  IF = 96,
  WHILE = 97,
};
struct KernelEntry;
const KernelEntry* kernel_of(int type);  // null: not an operation the executor runs
const std::map<std::string, int>& op_codes();

int enum_of(const json& j, const std::map<std::string, int>& names, const char* what) {
  if (j.is_number_integer()) return j.get<int>();
  if (j.is_string()) {
    auto it = names.find(j.get<std::string>());
    if (it != names.end()) return it->second;
    throw ExecError(ErrKind::Unsupported, std::string(what) + " '" + j.get<std::string>() + "'");
  }
  fail(std::string(what) + " is neither a name nor a number");
}

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
  json examples;
};

std::string base64_decode(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int buf = 0, bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const int v = val(c);
    if (v < 0) fail("invalid base64");
    buf = (buf << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xff);
    }
  }
  return out;
}

std::string blob(const json& j, const fs::path& dir) {
  if (j.contains("base64")) return base64_decode(j["base64"].get<std::string>());
  if (j.contains("file")) {
    const std::string rel = j["file"].get<std::string>();
    std::error_code ec;
    const fs::path base = fs::weakly_canonical(dir, ec);
    const fs::path p = fs::weakly_canonical(dir / rel, ec);
    auto [a, b] = std::mismatch(base.begin(), base.end(), p.begin(), p.end());
    if (ec || a != base.end()) fail("blob file '" + rel + "' leaves the model's directory");
    std::string bytes;
    if (auto e = read_file_bytes(p, bytes); !e.empty()) fail(e);
    return bytes;
  }
  fail("blob has neither base64 nor file");
}

// The `value` shorthand (docs/nnapi-json.md, rules 4-7): encoded little-endian, appended to operandValues at
// the offset Android's model builder would use (aligned by the value's byte length), location filled in.
DT storage_dt(int type);
void pack_value(const json& vals, Operand& x, std::string& values) {
  if (x.lifetime != CCOPY) fail("`value` on an operand that is not CONSTANT_COPY");
  if (x.length != 0) fail("`value` together with a location length");
  if (!vals.is_array()) fail("`value` is not an array");
  const DT dt = storage_dt(x.type);
  const bool scalar = x.type == F32 || x.type == I32 || x.type == U32 || x.type == BOOL || x.type == F16;
  uint64_t count = 1;
  if (!scalar) {
    if (x.dims.empty()) fail("`value` needs a fully specified shape");
    for (auto d : x.dims) {
      if (d <= 0) fail("`value` needs a fully specified shape");
      count *= static_cast<uint64_t>(d);
      if (count > (1ull << 32)) fail("`value` too large");
    }
  }
  if (vals.size() != count)
    fail("`value` has " + std::to_string(vals.size()) + " entries for " + std::to_string(count) + " elements");
  std::string bytes;
  const unsigned es = dt_bytes(dt);
  for (const auto& e : vals) {
    uint64_t raw = 0;
    if (dt == DT::Bool) {
      raw = e.get<bool>() ? 1 : 0;
    } else if (dt == DT::F16) {
      uint16_t h;
      if (!nn::to_half(e.get<double>(), h)) fail("`value` entry overflows binary16");
      raw = h;
    } else if (dt == DT::F32) {
      const float f = static_cast<float>(e.get<double>());
      uint32_t w;
      std::memcpy(&w, &f, 4);
      raw = w;
    } else {
      raw = static_cast<uint64_t>(e.get<int64_t>());
    }
    for (unsigned k = 0; k < es; ++k) bytes += static_cast<char>((raw >> (8 * k)) & 0xFF);
  }
  const size_t align = bytes.size() >= 4 ? 4 : bytes.size() >= 2 ? 2 : 1;
  while (values.size() % align) values += '\0';
  if (values.size() + bytes.size() > 0xFFFFFFFFull) fail("operandValues would exceed 4 GiB");
  x.pool = 0;
  x.offset = static_cast<uint32_t>(values.size());
  x.length = static_cast<uint32_t>(bytes.size());
  values += bytes;
}

Graph parse_graph(const json& g, std::string& values) {
  Graph out;
  for (const auto& o : g.at("operands")) {
    Operand x;
    if (o.contains("name") && o["name"].is_string()) x.name = o["name"].get<std::string>();
    x.type = enum_of(o.at("type"), kTypes, "operand type");
    x.lifetime = enum_of(o.at("lifetime"), kLifetimes, "lifetime");
    if (o.contains("dimensions"))
      for (const auto& d : o["dimensions"]) x.dims.push_back(d.get<int64_t>());
    x.scale = o.value("scale", 0.0);
    x.zp = o.value("zeroPoint", 0);
    if (o.contains("value")) pack_value(o["value"], x, values);
    if (o.contains("location")) {
      const auto& l = o["location"];
      x.pool = l.value("poolIndex", 0u);
      x.offset = l.value("offset", 0u);
      x.length = l.value("length", 0u);
    }
    out.operands.push_back(x);
  }
  for (const auto& op : g.at("operations")) {
    Operation x;
    x.type = enum_of(op.at("type"), op_codes(), "operation");
    for (const auto& i : op.at("inputs")) x.in.push_back(i.get<uint32_t>());
    for (const auto& i : op.at("outputs")) x.out.push_back(i.get<uint32_t>());
    out.ops.push_back(x);
  }
  for (const auto& i : g.at("inputIndexes")) out.inputs.push_back(i.get<uint32_t>());
  for (const auto& i : g.at("outputIndexes")) out.outputs.push_back(i.get<uint32_t>());
  auto check = [&](uint32_t i) {
    if (i >= out.operands.size()) fail("operand index " + std::to_string(i) + " out of range");
  };
  for (auto& op : out.ops) {
    for (auto i : op.in) check(i);
    for (auto i : op.out) check(i);
  }
  for (auto i : out.inputs) check(i);
  for (auto i : out.outputs) check(i);
  return out;
}

NModel parse_model(const fs::path& path) {
  std::string bytes;
  if (auto e = read_file_bytes(path, bytes, 1LL << 30); !e.empty()) fail(e);
  json j;
  try {
    j = json::parse(bytes);
  } catch (const std::exception& e) {
    fail(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != "nnapi-model") fail("not an NNAPI model JSON document (format)");
  NModel m;
  try {
    if (j.contains("operandValues")) m.values = blob(j["operandValues"], path.parent_path());
    m.main = parse_graph(j.at("main"), m.values);
    if (j.contains("referenced"))
      for (const auto& g : j["referenced"]) m.referenced.push_back(parse_graph(g, m.values));
    if (j.contains("pools"))
      for (const auto& p : j["pools"]) m.pools.push_back(blob(p, path.parent_path()));
    m.relaxed = j.value("relaxComputationFloat32toFloat16", false);
  } catch (const json::exception& e) {
    fail(std::string("malformed model: ") + e.what());
  }
  auto scan = [&](const Graph& g) {
    for (const auto& o : g.operands) m.any_f16 = m.any_f16 || o.type == TF16 || o.type == F16;
  };
  scan(m.main);
  for (const auto& g : m.referenced) scan(g);
  if (j.contains("examples")) m.examples = j["examples"];
  return m;
}

// ---------------------------------------------------------------- values
DT storage_dt(int type) {
  switch (type) {
    case F32:
    case TF32: return DT::F32;
    case F16:
    case TF16: return DT::F16;
    case I32:
    case TI32: return DT::I32;
    case U32: return DT::U32;
    case BOOL:
    case TB8: return DT::Bool;
    case TQ8A: return DT::U8;
    case TQ8AS:
    case TQ8S:
    case TQ8SPC: return DT::I8;
    case TQ16S: return DT::I16;
    case TQ16A: return DT::U16;
    default: throw ExecError(ErrKind::Unsupported, "NNAPI operand type " + std::to_string(type));
  }
}
bool is_quant(int t) { return t == TQ8A || t == TQ8AS || t == TQ8S || t == TQ16S || t == TQ16A; }

struct NVal {
  bool has = false;
  int type = 0;
  double scale = 0;
  int zp = 0;
  Tensor t;
  int subgraph = -1;  // SUBGRAPH operand: referenced index
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
      const double lo = decl.type == TQ8A ? 0 : decl.type == TQ16A ? 0 : decl.type == TQ16S ? -32768 : -128;
      const double hi = decl.type == TQ8A ? 255 : decl.type == TQ16A ? 65535 : decl.type == TQ16S ? 32767 : 127;
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
// One entry per operation the executor runs: its name in the NNAPI JSON, its kernel, and for the element-wise
// ones the function of two values (comparisons give 0 or 1 and take no fused activation).
struct KernelEntry {
  OperationType type;
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
      if (o.lifetime == CCOPY || o.lifetime == CREF) {
        const std::string* b = &m.values;
        if (o.lifetime == CREF) {
          if (o.pool >= m.pools.size())
            fail("operand " + std::to_string(k) + " names pool " + std::to_string(o.pool) + ", which does not exist");
          b = &m.pools[o.pool];
        }
        v[k].has = true;
        v[k].type = o.type;
        v[k].scale = o.scale;
        v[k].zp = o.zp;
        v[k].t = decode(*b, o.offset, o.length, storage_dt(o.type), o.dims);
      } else if (o.lifetime == SUBG) {
        v[k].has = true;
        v[k].type = SUBGRAPH;
        v[k].subgraph = static_cast<int>(o.offset);
      }
    }
    for (size_t k = 0; k < inputs.size(); ++k) v[g.inputs[k]] = inputs[k];
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Operation& op = g.ops[i];
      const char* name = op_name(op.type);
      const std::string opath = path + "/" + (name ? name : "op") + "#" + std::to_string(i);
      if (!name) throw ExecError(ErrKind::Unsupported, "unsupported op " + std::to_string(op.type) + " at " + opath);
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
    if (!k)
      throw ExecError(ErrKind::Unsupported, std::string("unsupported op ") + std::to_string(op.type) + " at " + path);
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
        double s = b.t.numel() > u ? (b.type == TI32 && b.scale > 0 ? b.t.getf(u) * b.scale : real(b, u)) : 0.0;
        if (b.type == TI32 && b.scale == 0 && is_quant(x.type)) s = b.t.getf(u) * x.scale * w.scale;
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
    auto outs = run(graph(br.subgraph), args, path + (use ? "/then" : "/else"), depth + 1);
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
      auto outs = run(body, vals, path + "/body", depth + 1);
      for (size_t k = 0; k < mk; ++k) vals[k] = outs[k];
    }
    for (size_t k = 0; k < m_out; ++k) v[op.out[k]] = vals[k];
  }
};

const KernelEntry kKernels[] = {
    {OperationType::ADD, "ADD", &Exec::elementwise, [](double x, double y) { return x + y; }},
    {OperationType::CONCATENATION, "CONCATENATION", &Exec::concatenation},
    {OperationType::FULLY_CONNECTED, "FULLY_CONNECTED", &Exec::fully_connected},
    {OperationType::MUL, "MUL", &Exec::elementwise, [](double x, double y) { return x * y; }},
    {OperationType::SUB, "SUB", &Exec::elementwise, [](double x, double y) { return x - y; }},
    {OperationType::GREATER_EQUAL, "GREATER_EQUAL", &Exec::elementwise,
     [](double x, double y) { return x >= y ? 1.0 : 0.0; }, true},
    {OperationType::LESS, "LESS", &Exec::elementwise, [](double x, double y) { return x < y ? 1.0 : 0.0; }, true},
    {OperationType::LESS_EQUAL, "LESS_EQUAL", &Exec::elementwise, [](double x, double y) { return x <= y ? 1.0 : 0.0; },
     true},
    {OperationType::SLICE, "SLICE", &Exec::slice},
    {OperationType::IF, "IF", &Exec::if_op},
    {OperationType::WHILE, "WHILE", &Exec::while_op},
};

const KernelEntry* kernel_of(int type) {
  for (const auto& k : kKernels)
    if (static_cast<int>(k.type) == type) return &k;
  return nullptr;
}

const char* op_name(int type) {
  const KernelEntry* k = kernel_of(type);
  return k ? k->name : nullptr;
}

const std::map<std::string, int>& op_codes() {
  static const std::map<std::string, int> codes = [] {
    std::map<std::string, int> m;
    for (const auto& k : kKernels) m[k.name] = static_cast<int>(k.type);
    return m;
  }();
  return codes;
}

NVal value_from_example(const json& ex, const Operand& decl) {
  NVal v;
  v.has = true;
  v.type = decl.type;
  v.scale = decl.scale;
  v.zp = decl.zp;
  Dims dims = decl.dims;
  if (ex.contains("dimensions")) {
    dims.clear();
    for (const auto& d : ex["dimensions"]) dims.push_back(d.get<int64_t>());
  }
  const json& data = ex.at("data");
  v.t = Tensor(storage_dt(decl.type), dims);
  if (static_cast<int64_t>(data.size()) != v.t.numel())
    fail("example data has " + std::to_string(data.size()) + " values for shape " + dims_str(dims));
  for (int64_t k = 0; k < v.t.numel(); ++k) {
    const json& e = data[k];
    if (is_float(v.t.dt)) v.t.f[k] = round_to(v.t.dt, e.is_boolean() ? double(e.get<bool>()) : e.get<double>());
    else v.t.i[k] = e.is_boolean() ? e.get<bool>() : e.get<int64_t>();
  }
  return v;
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
  Exec x{m, cfg, pins, {}, std::chrono::steady_clock::now()};
  std::vector<NVal> outs;
  ran = false;
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

}  // namespace

ModelResult run_nnapi_model(const fs::path& path, const RunConfig& config) {
  ModelResult mr;
  mr.model = path.string();
  RunConfig cfg = config;
  guard().limits = cfg.limits;
  if (!cfg.vetted) {
    if (auto why = unreadable_file(path); !why.empty()) {
      mr.error = why;
      return mr;
    }
  }
  NModel m;
  try {
    m = parse_model(path);
  } catch (const ExecError& e) {
    mr.error = path.string() + ": " + e.what();
    return mr;
  }
  if (!m.examples.is_array() || m.examples.empty()) {
    mr.error = "no golden data: the model has no `examples`";
    return mr;
  }
  if (!cfg.policy)  // which branches pinning may reach, from the conditions the loader traced
    if (LoadResult lr = load_file(path.string()); lr.model)
      cfg.policy = std::make_shared<const BranchPolicy>(*lr.model);
  std::vector<Example> examples;
  for (size_t e = 0; e < m.examples.size(); ++e) {
    const json& ej = m.examples[e];
    Example ex;
    ex.name = "examples/" + std::to_string(e);
    ex.expect_failure = ej.value("expectFailure", false);
    try {
      const auto& ins = ej.at("inputs");
      if (ins.size() != m.main.inputs.size())
        fail("example has " + std::to_string(ins.size()) + " inputs, the model " +
             std::to_string(m.main.inputs.size()));
      for (size_t k = 0; k < ins.size(); ++k)
        ex.inputs.push_back(value_from_example(ins[k], m.main.operands[m.main.inputs[k]]));
      const auto& outs = ej.at("outputs");
      for (size_t k = 0; k < outs.size() && k < m.main.outputs.size(); ++k)
        ex.golden.push_back(outs[k].is_null()
                                ? std::nullopt
                                : std::optional<NVal>(value_from_example(outs[k], m.main.operands[m.main.outputs[k]])));
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
  // As the other drivers (runner.hpp, PinState): every example as its data takes it; then inputs synthesized to
  // select the branches none took; then pins, only for branches neither reached.
  std::set<std::pair<std::string, bool>> natural;
  std::vector<std::optional<Trace>> natural_trace;
  auto record = [&](CaseResult cr, const Trace& trace, bool derived) {
    for (auto& [p, site] : trace.ifs) {
      auto& cov = mr.if_coverage[p];
      for (bool b : site.ran) {
        if (std::find(cov.begin(), cov.end(), b) == cov.end()) cov.push_back(b);
        if (!derived) natural.insert({p, b});
      }
    }
    mr.cases.push_back(std::move(cr));
  };
  for (const Example& ex : examples) {
    Trace trace;
    bool ran = false;
    CaseResult cr = run_example(m, cfg, ex, cfg.pins, false, trace, ran);
    natural_trace.push_back(ran ? std::optional<Trace>(trace) : std::nullopt);
    record(std::move(cr), trace, false);
  }
  if (cfg.both_branches && cfg.policy) {
    const Example* base = nullptr;
    for (size_t e = 0; e < examples.size() && !base; ++e)
      if (natural_trace[e] && !examples[e].expect_failure) base = &examples[e];
    std::set<std::string> seen;
    for (const auto& [p, ran] : mr.if_coverage) seen.insert(p);
    const auto wanted = wanted_branches(seen, natural, *cfg.policy);
    if (base && !wanted.empty()) {
      const std::vector<InputDecl> decls = nnapi_input_decls(m);
      std::vector<Value> base_values;
      for (const NVal& v : base->inputs) base_values.push_back(Value::tensor(v.t));
      auto to_nvals = [&](const std::vector<Value>& in) {
        std::vector<NVal> out = base->inputs;
        for (size_t k = 0; k < out.size() && k < in.size(); ++k)
          if (in[k].is_tensor()) out[k].t = *in[k].t;
        return out;
      };
      SynthesisOptions so;
      so.limits = cfg.limits;
      SynthesisResult sr = synthesize_inputs(
          decls,
          [&](const std::vector<Value>& in, Trace& trace) {
            Exec x{m, cfg, {}, {}, std::chrono::steady_clock::now()};
            struct Keep {  // the trace as far as the run got, also when it throws
              Trace& t;
              Exec& e;
              ~Keep() { t = e.trace; }
            } keep{trace, x};
            x.run(m.main, to_nvals(in), "main", 0);
          },
          *cfg.policy, base_values, wanted, so);
      for (const auto& [key, why] : sr.failed) mr.synthesis_failed[key.first][key.second] = why;
      for (const auto& set : sr.sets) {
        Example ex;
        ex.name = base->name;
        ex.synthesized = set.what;
        ex.inputs = to_nvals(set.inputs);
        Trace trace;
        bool ran = false;
        CaseResult cr = run_example(m, cfg, ex, {}, false, trace, ran);
        natural_trace.push_back(ran ? std::optional<Trace>(trace) : std::nullopt);
        record(std::move(cr), trace, false);
        examples.push_back(std::move(ex));
      }
    }
  }
  if (cfg.both_branches)
    for (size_t e = 0; e < examples.size(); ++e) {
      if (!natural_trace[e]) continue;
      std::set<std::pair<std::string, bool>> done = natural;
      std::vector<PinSet> work{cfg.pins};
      queue_other_branches(*natural_trace[e], cfg.pins, done, nullptr, "", work, cfg.policy.get(), &mr.not_pinned,
                           &mr.synthesis_failed);
      for (size_t w = 1; w < work.size() && static_cast<int>(w) < cfg.max_runs_per_data_set; ++w) {
        Trace trace;
        bool ran = false;
        CaseResult cr = run_example(m, cfg, examples[e], work[w], true, trace, ran);
        record(std::move(cr), trace, true);
        if (ran)
          queue_other_branches(trace, work[w], done, nullptr, "", work, cfg.policy.get(), &mr.not_pinned,
                               &mr.synthesis_failed);
      }
    }
  tally(mr);
  return mr;
}

NnapiRun run_nnapi_once(const fs::path& path, const std::vector<Value>& inputs, const std::map<std::string, bool>& pins,
                        const Limits& limits) {
  NnapiRun out;
  guard().limits = limits;
  try {
    const NModel m = parse_model(path);
    if (inputs.size() != m.main.inputs.size())
      fail("given " + std::to_string(inputs.size()) + " inputs, the model takes " +
           std::to_string(m.main.inputs.size()));
    std::vector<NVal> args;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Operand& d = m.main.operands[m.main.inputs[k]];
      if (!inputs[k].is_tensor()) fail("input " + std::to_string(k) + " is not a tensor");
      NVal v;
      v.has = true;
      v.type = d.type;
      v.scale = d.scale;
      v.zp = d.zp;
      v.t = *inputs[k].t;
      if (v.t.dt != storage_dt(d.type)) v.t = cast_tensor(v.t, storage_dt(d.type));
      args.push_back(std::move(v));
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

}  // namespace condlint::exec
