// `condlint export` for NNAPI models (docs/nnapi-json.md): the model as an ONNX ModelProto that computes what
// the NNAPI executor (src/exec/nnapi_exec.cpp, which follows Android's CpuExecutor) computes.
//
// Shape of the translation
// - The document is read by the lint loader (load_nnapi): `value` shorthand packed, Blob files kept inside the
//   model's directory, every enum spelling. A document the loader cannot read completely is not exported.
// - Every use of a referenced subgraph is a fresh copy (an instance) with globally unique value names, so one
//   subgraph referenced from several places never shares names. Formal inputs of an instance are bound to the
//   caller's ONNX values by name (outer-scope references), which is how ONNX branches see their inputs.
// - IF -> If with both instances as branch graphs. WHILE -> the condition instance inlined before a Loop, and a
//   Loop body holding the body instance followed by a second condition instance on the new values.
// - Values flow with the quantization parameters the executor gives them (a caller's value keeps its own
//   scale/zero point inside a branch; SLICE keeps its input's); an IF or WHILE whose branches would make them
//   depend on the data is a problem, never a guess.
// - Arithmetic: float32/float16/int32 natively where IEEE/int32 arithmetic gives the executor's result bit for
//   bit; quantized operands and FULLY_CONNECTED in double, exactly as the executor (dequantize (q - zp) * scale,
//   compute, requantize round-half-to-even + clamp).
// - The walk is iterative (an explicit stack of instance frames), bounded in nesting depth and total size;
//   subgraph reference cycles are problems.
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "onnx_graph/if_sites.hpp"
#include "export/export.hpp"
#include "exec/onnx_io.hpp"
#include "loaders/loader.hpp"
#include "model/nnapi_data.hpp"

namespace condlint::xport {

namespace {

constexpr int kMaxDepth = 64;          // as exec::Limits::max_depth and diff's find_ifs
constexpr size_t kMaxNodes = 250'000;  // total ONNX nodes of one export
constexpr size_t kMaxProblems = 50;
constexpr int kMinOpset = 13, kMaxOpset = 17;  // ONNX 1.12 knows opsets up to 17

enum OT : int32_t {
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
enum LT : int32_t { TEMP = 0, IN = 1, OUT = 2, CCOPY = 3, CREF = 4, NOVAL = 5, SUBG = 6 };

// ONNX element type of an NNAPI operand type (0 when there is none).
int onnx_elem(int32_t t) {
  switch (t) {
    case F32:
    case TF32: return onnx::TensorProto::FLOAT;
    case F16:
    case TF16: return onnx::TensorProto::FLOAT16;
    case I32:
    case TI32: return onnx::TensorProto::INT32;
    case U32: return onnx::TensorProto::UINT32;
    case BOOL:
    case TB8: return onnx::TensorProto::BOOL;
    case TQ8A: return onnx::TensorProto::UINT8;
    case TQ8AS:
    case TQ8S:
    case TQ8SPC: return onnx::TensorProto::INT8;
    case TQ16S: return onnx::TensorProto::INT16;
    case TQ16A: return onnx::TensorProto::UINT16;
    default: return 0;
  }
}
unsigned elem_bytes(int32_t t) {
  switch (t) {
    case F32:
    case TF32:
    case I32:
    case TI32:
    case U32: return 4;
    case F16:
    case TF16:
    case TQ16S:
    case TQ16A: return 2;
    case BOOL:
    case TB8:
    case TQ8A:
    case TQ8AS:
    case TQ8S:
    case TQ8SPC: return 1;
    default: return 0;
  }
}
bool is_scalar_type(int32_t t) { return t == F32 || t == I32 || t == U32 || t == BOOL || t == F16 || t == SUBGRAPH; }
bool is_quant(int32_t t) { return t == TQ8A || t == TQ8AS || t == TQ8S || t == TQ16S || t == TQ16A; }
bool is_floatt(int32_t t) { return t == F32 || t == TF32 || t == F16 || t == TF16; }
bool is_int32t(int32_t t) { return t == I32 || t == TI32; }
bool is_boolt(int32_t t) { return t == BOOL || t == TB8; }
std::pair<double, double> quant_range(int32_t t) {
  switch (t) {
    case TQ8A: return {0, 255};
    case TQ16A: return {0, 65535};
    case TQ16S: return {-32768, 32767};
    default: return {-128, 127};
  }
}

std::string fmtd(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

// What the executor knows about a value at run time, as far as it is static.
struct Info {
  int32_t type = 0;
  double scale = 0;
  int32_t zp = 0;
  std::vector<uint32_t> dims;              // declared (for annotations only)
  std::optional<std::vector<int64_t>> ci;  // the value, when it is an integer/bool constant (small)
  int subgraph = -1;                       // SUBGRAPH operand: referenced index
  bool no_value = false;                   // NO_VALUE operand
};
bool same_quant(const Info& a, const Info& b) { return a.type == b.type && a.scale == b.scale && a.zp == b.zp; }
std::string info_str(const Info& i) {
  std::string s = nn::operand_type_name(i.type);
  if (is_quant(i.type)) s += " (scale " + fmtd(i.scale) + ", zeroPoint " + std::to_string(i.zp) + ")";
  return s;
}

struct Val {
  bool has = false;
  std::string name;  // ONNX value ("" for SUBGRAPH / NO_VALUE until materialized)
  Info info;
  int const_graph = -1, const_operand = -1;  // a constant not yet materialized as an initializer
};

struct Frame {
  int graph = 0;                            // NnapiData::subgraphs index (0 = main)
  onnx::GraphProto* target = nullptr;       // where the instance's nodes go
  std::string onnx_path;                    // find_ifs path of `target`
  std::string prefix;                       // node-name prefix inside `target`
  std::string nn_path;                      // executor path of the instance
  std::vector<Val> args;                    // bound formal inputs
  std::vector<std::string> out_names;       // names the outputs must carry
  std::vector<std::optional<Info>> expect;  // what the caller needs each output to be
  std::string role;                         // "IF 'main/IF#0' then branch", for messages
  bool cond_to_scalar = false;              // WHILE condition: output 0 reshaped to a scalar
  int depth = 0;
  std::vector<int> chain;  // graphs of the enclosing instances (cycle detection)
  // progress
  bool started = false;
  size_t cursor = 0;
  int phase = 0;
  std::vector<Val> vals;
  std::string loop_cond;  // WHILE in progress: the condition computed before the loop
  size_t problems_at_start = 0;
};

struct Exporter {
  const NnapiData& d;
  const ExportOptions& opt;
  ExportResult& r;
  onnx::GraphProto* main = nullptr;
  std::map<std::string, int> used;  // value names -> next suffix
  std::map<std::pair<int, int>, std::string> const_names;
  std::map<std::string, std::string> gen_consts;
  std::unordered_map<std::string, std::vector<std::string>> if_copies;  // NNAPI If path -> ONNX If paths
  size_t nodes = 0;
  size_t dropped_problems = 0;
  bool abort = false;  // a problem that makes going on pointless (nesting, cycles, size)
  std::set<std::string> note_set;
  bool has_while = false, has_slice = false, has_fc = false, has_int_mul = false, has_quant = false;

  Exporter(const NnapiData& dd, const ExportOptions& o, ExportResult& rr) : d(dd), opt(o), r(rr) {}

  void problem(const std::string& s) {
    if (r.problems.size() < kMaxProblems) r.problems.push_back(s);
    else ++dropped_problems;
  }
  void note(const std::string& s) {
    if (note_set.insert(s).second) r.notes.push_back(s);
  }

  std::string fresh(std::string base) {
    if (base.empty()) base = "v";
    auto [it, inserted] = used.emplace(base, 1);
    if (inserted) return base;
    for (;;) {
      std::string c = base + "_" + std::to_string(it->second++);
      if (used.emplace(c, 1).second) return c;
    }
  }

  // ---- ONNX building blocks
  onnx::NodeProto* node(Frame& f, const std::string& type, const std::vector<std::string>& ins, const std::string& out,
                        const std::string& name) {
    ++nodes;
    auto* n = f.target->add_node();
    n->set_op_type(type);
    n->set_name(f.prefix + name);
    for (const auto& i : ins) n->add_input(i);
    n->add_output(out);
    return n;
  }
  static void attr_i(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static onnx::GraphProto* attr_g(onnx::NodeProto* n, const std::string& name) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    return a->mutable_g();
  }

  std::string initializer(const std::string& base, onnx::TensorProto t) {
    const std::string name = fresh(base);
    t.set_name(name);
    *main->add_initializer() = std::move(t);
    return name;
  }
  // Generated constants, shared by content.
  std::string cst(const std::string& key, const std::function<onnx::TensorProto()>& make) {
    auto it = gen_consts.find(key);
    if (it != gen_consts.end()) return it->second;
    const std::string name = initializer("c_" + key, make());
    gen_consts[key] = name;
    return name;
  }
  std::string cst_double(double v) {
    return cst("f64_" + fmtd(v), [v] {
      onnx::TensorProto t;
      t.set_data_type(onnx::TensorProto::DOUBLE);
      t.add_double_data(v);
      return t;
    });
  }
  std::string cst_scalar(int elem, double v) {
    return cst("t" + std::to_string(elem) + "_" + fmtd(v), [elem, v] {
      onnx::TensorProto t;
      t.set_data_type(elem);
      if (elem == onnx::TensorProto::FLOAT) t.add_float_data(static_cast<float>(v));
      else if (elem == onnx::TensorProto::DOUBLE) t.add_double_data(v);
      else if (elem == onnx::TensorProto::FLOAT16) t.add_int32_data(exec::f32_to_f16_bits(static_cast<float>(v)));
      else if (elem == onnx::TensorProto::INT64) t.add_int64_data(static_cast<int64_t>(v));
      else t.add_int32_data(static_cast<int32_t>(v));
      return t;
    });
  }
  std::string cst_i64s(const std::vector<int64_t>& v) {
    std::string key = "i64";
    for (auto x : v) key += "_" + std::to_string(x);
    return cst(key, [v] {
      onnx::TensorProto t;
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_dims(static_cast<int64_t>(v.size()));
      for (auto x : v) t.add_int64_data(x);
      return t;
    });
  }
  std::string cst_empty_i64() {  // shape [] for Reshape to a scalar
    return cst("i64_empty", [] {
      onnx::TensorProto t;
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_dims(0);
      return t;
    });
  }

  // ---- operand bytes
  const NnSubgraph& sg(int g) const { return d.subgraphs[g]; }

  // The bytes of a constant operand, or nullopt with the reason in `err`.
  std::optional<std::string> const_bytes(int g, int k, std::string& err) {
    const NnOperand& o = sg(g).operands[k];
    const std::string* blob = nullptr;
    if (o.lifetime == CCOPY) {
      if (!d.operand_values_loaded) return err = "operandValues could not be read", std::nullopt;
      blob = &d.operand_values;
    } else {
      if (o.pool_index >= d.pools.size() || !d.pools[o.pool_index].loaded)
        return err = "pool " + std::to_string(o.pool_index) + " does not exist or could not be read", std::nullopt;
      blob = &d.pools[o.pool_index].bytes;
    }
    const unsigned eb = elem_bytes(o.type);
    if (eb == 0) return err = nn::operand_type_name(o.type) + " constants cannot be exported", std::nullopt;
    uint64_t n = 1;
    if (!is_scalar_type(o.type)) {
      if (o.dimensions.empty()) return err = "constant of unknown rank", std::nullopt;
      for (auto dd : o.dimensions) {
        if (dd == 0) return err = "constant with an unknown dimension", std::nullopt;
        n *= dd;
        if (n > (1ULL << 32)) return err = "constant too large", std::nullopt;
      }
    } else if (!o.dimensions.empty()) {
      return err = "scalar constant with dimensions", std::nullopt;
    }
    if (static_cast<uint64_t>(o.length) != n * eb)
      return err = "constant length " + std::to_string(o.length) + " does not match its shape", std::nullopt;
    if (static_cast<uint64_t>(o.offset) + o.length > blob->size())
      return err = "constant runs past the end of its blob", std::nullopt;
    return blob->substr(o.offset, o.length);
  }

  std::optional<std::vector<int64_t>> const_ints(int g, int k) {
    const NnOperand& o = sg(g).operands[k];
    if (!is_int32t(o.type) && !is_boolt(o.type)) return std::nullopt;
    if (o.lifetime != CCOPY && o.lifetime != CREF) return std::nullopt;
    if (o.length > 256) return std::nullopt;
    std::string err;
    auto b = const_bytes(g, k, err);  // a broken constant is reported where it is used
    if (!b) return std::nullopt;
    std::vector<int64_t> v;
    const unsigned eb = elem_bytes(o.type);
    for (size_t p = 0; p + eb <= b->size(); p += eb) {
      if (eb == 4) {
        int32_t x;
        std::memcpy(&x, b->data() + p, 4);
        v.push_back(x);
      } else {
        v.push_back((*b)[p] != 0);
      }
    }
    return v;
  }

  std::string op_where(const Frame& f, size_t i, int32_t type) const {
    return f.nn_path + "/" + nn::operation_name(type) + "#" + std::to_string(i) + " (subgraph " +
           (f.graph == 0 ? std::string("main") : "referenced[" + std::to_string(f.graph - 1) + "]") + ", operation " +
           std::to_string(i) + ", " + nn::operation_name(type) + ")";
  }

  // Materializes a constant as a main-graph initializer (once per operand).
  std::string materialize(Val& v, const std::string& where) {
    if (!v.name.empty() || v.const_graph < 0) return v.name;
    auto key = std::make_pair(v.const_graph, v.const_operand);
    if (auto it = const_names.find(key); it != const_names.end()) return v.name = it->second;
    const NnOperand& o = sg(v.const_graph).operands[v.const_operand];
    std::string err;
    auto bytes = const_bytes(v.const_graph, v.const_operand, err);
    if (!bytes) return problem(where + ": constant operand " + std::to_string(v.const_operand) + ": " + err), "";
    onnx::TensorProto t;
    t.set_data_type(onnx_elem(o.type));
    for (auto dd : o.dimensions) t.add_dims(dd);
    if (is_boolt(o.type))
      for (auto& c : *bytes) c = c != 0;
    t.set_raw_data(*bytes);
    const std::string name = initializer(o.name.empty() ? "const" : o.name, std::move(t));
    const_names[key] = name;
    return v.name = name;
  }

  // ---- value info
  void set_type(onnx::ValueInfoProto* vi, int32_t type, const std::vector<uint32_t>* dims, const std::string& name) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx_elem(type));
    if (!dims) return;
    if (is_scalar_type(type)) {
      tt->mutable_shape();
      return;
    }
    if (dims->empty()) return;  // unknown rank
    auto* sh = tt->mutable_shape();
    for (size_t k = 0; k < dims->size(); ++k) {
      auto* dm = sh->add_dim();
      if ((*dims)[k] == 0) dm->set_dim_param(name + "_d" + std::to_string(k));
      else dm->set_dim_value((*dims)[k]);
    }
  }
  static bool fully_known(const std::vector<uint32_t>& dims, int32_t type) {
    if (is_scalar_type(type)) return true;
    if (dims.empty()) return false;
    for (auto x : dims)
      if (x == 0) return false;
    return true;
  }

  static Info decl_info(const NnOperand& o) {
    Info i;
    i.type = o.type;
    i.scale = o.scale;
    i.zp = o.zero_point;
    i.dims = o.dimensions;
    return i;
  }

  // ---- conversions (executor semantics)
  // The value as double: (q - zp) * scale for quantized types, the number itself otherwise.
  std::string to_real(Frame& f, const std::string& name, const Info& in, const std::string& label) {
    auto* c = node(f, "Cast", {name}, fresh(name + "_f64"), label + "/f64");
    attr_i(c, "to", onnx::TensorProto::DOUBLE);
    std::string x = c->output(0);
    if (is_quant(in.type)) {
      if (in.zp != 0)
        x = node(f, "Sub", {x, cst_double(in.zp)}, fresh(name + "_minus_zp"), label + "/minus_zp")->output(0);
      if (in.scale != 1.0)
        x = node(f, "Mul", {x, cst_double(in.scale)}, fresh(name + "_real"), label + "/scale")->output(0);
    }
    return x;
  }
  // From double to the output's type: nearbyint(v / scale) + zp clamped for quantized types; a cast otherwise.
  bool from_real(Frame& f, const std::string& x0, const Info& out, const std::string& out_name,
                 const std::string& label, const std::string& where) {
    std::string x = x0;
    if (is_quant(out.type)) {
      if (!(out.scale > 0)) return problem(where + ": output scale " + fmtd(out.scale) + " is not positive"), false;
      if (out.scale != 1.0)
        x = node(f, "Div", {x, cst_double(out.scale)}, fresh(out_name + "_scaled"), label + "/div_scale")->output(0);
      x = node(f, "Round", {x}, fresh(out_name + "_round"), label + "/round")->output(0);
      if (out.zp != 0)
        x = node(f, "Add", {x, cst_double(out.zp)}, fresh(out_name + "_plus_zp"), label + "/plus_zp")->output(0);
      auto [lo, hi] = quant_range(out.type);
      x = node(f, "Clip", {x, cst_double(lo), cst_double(hi)}, fresh(out_name + "_clamped"), label + "/clamp")
              ->output(0);
    } else if (!is_floatt(out.type)) {
      return problem(where + ": the result type " + nn::operand_type_name(out.type) + " is not exported"), false;
    }
    auto* c = node(f, "Cast", {x}, out_name, label + "/to_output");
    attr_i(c, "to", onnx_elem(out.type));
    return true;
  }
  // Fused activation on a value of ONNX element type `elem`.
  std::string activation(Frame& f, const std::string& x, int64_t act, int elem, const std::string& out,
                         const std::string& label) {
    if (act == 0) return node(f, "Identity", {x}, out, label + "/out")->output(0);
    const bool is_int = elem == onnx::TensorProto::INT32;
    if (act == 1) {
      if (is_int) return node(f, "Max", {x, cst_scalar(elem, 0)}, out, label + "/relu")->output(0);
      return node(f, "Relu", {x}, out, label + "/relu")->output(0);
    }
    const double lo = act == 2 ? -1 : 0, hi = act == 2 ? 1 : 6;
    return node(f, "Clip", {x, cst_scalar(elem, lo), cst_scalar(elem, hi)}, out,
                label + (act == 2 ? "/relu1" : "/relu6"))
        ->output(0);
  }

  // ---- frames
  std::vector<Frame> stack;

  void run(Frame root) {
    stack.push_back(std::move(root));
    while (!stack.empty() && !abort) {
      if (nodes > kMaxNodes) {
        abort = true;
        problem("the export would exceed " + std::to_string(kMaxNodes) +
                " ONNX nodes (each use of a referenced subgraph is a copy of it)");
        break;
      }
      const size_t idx = stack.size() - 1;
      if (step(idx)) stack.erase(stack.begin() + static_cast<long>(idx));
    }
  }

  // Returns true when frame idx is finished. May push frames (then returns false to let them run first).
  bool step(size_t idx) {
    Frame* f = &stack[idx];
    const NnSubgraph& g = sg(f->graph);
    if (!f->started) {
      f->started = true;
      f->problems_at_start = r.problems.size() + dropped_problems;
      if (f->args.size() != g.input_indexes.size()) {
        problem(f->nn_path + ": " + f->role + " passes " + std::to_string(f->args.size()) + " values to subgraph " +
                g.label + ", which takes " + std::to_string(g.input_indexes.size()));
        return true;
      }
      if (f->out_names.size() != g.output_indexes.size()) {
        problem(f->nn_path + ": " + f->role + " expects " + std::to_string(f->out_names.size()) +
                " outputs from subgraph " + g.label + ", which has " + std::to_string(g.output_indexes.size()));
        return true;
      }
      f->vals.assign(g.operands.size(), Val{});
      for (size_t k = 0; k < g.operands.size(); ++k) {
        const NnOperand& o = g.operands[k];
        Val& v = f->vals[k];
        v.info = decl_info(o);
        if (o.lifetime == CCOPY || o.lifetime == CREF) {
          v.has = true;
          v.const_graph = f->graph;
          v.const_operand = static_cast<int>(k);
          v.info.ci = const_ints(f->graph, static_cast<int>(k));
        } else if (o.lifetime == SUBG) {
          v.has = true;
          v.info.subgraph = static_cast<int>(o.offset);
        } else if (o.lifetime == NOVAL) {
          v.has = true;
          v.info.no_value = true;
        }
      }
      for (size_t k = 0; k < g.input_indexes.size(); ++k) {
        const uint32_t o = g.input_indexes[k];
        if (o >= g.operands.size()) {
          problem(f->nn_path + ": input " + std::to_string(k) + " names operand " + std::to_string(o) +
                  ", which does not exist");
          return true;
        }
        Val v = f->args[k];
        if (v.info.dims.empty()) v.info.dims = g.operands[o].dimensions;
        f->vals[o] = v;
      }
      std::set<uint32_t> preassigned;
      for (size_t k = 0; k < g.output_indexes.size(); ++k) {
        const uint32_t o = g.output_indexes[k];
        if (o >= g.operands.size()) {
          problem(f->nn_path + ": output " + std::to_string(k) + " names operand " + std::to_string(o) +
                  ", which does not exist");
          return true;
        }
        const int32_t lt = g.operands[o].lifetime;
        if ((lt == TEMP || lt == OUT) && !f->cond_to_scalar && !f->vals[o].has && preassigned.insert(o).second)
          f->vals[o].name = f->out_names[k];
      }
    }
    while (f->cursor < g.operations.size()) {
      const size_t before = stack.size();
      const bool done = op(idx);
      f = &stack[idx];
      if (!done) return false;  // a WHILE waits for its condition frame
      ++f->cursor;
      f->phase = 0;
      if (stack.size() != before) return false;  // run the pushed branch/body frames first
    }
    finish(*f);
    return true;
  }

  void finish(Frame& f) {
    const NnSubgraph& g = sg(f.graph);
    std::set<std::string> used_out;
    for (size_t k = 0; k < g.output_indexes.size(); ++k) {
      Val& v = f.vals[g.output_indexes[k]];
      const std::string where =
          f.nn_path + " output " + std::to_string(k) + " (operand " + std::to_string(g.output_indexes[k]) + ")";
      if (!v.has) {
        // (after a problem in this instance the operation that would write it was not exported: said already)
        if (r.problems.size() + dropped_problems == f.problems_at_start) problem(where + " is never written");
        continue;
      }
      if (v.info.subgraph >= 0 || v.info.no_value) {
        problem(where + " is a " + (v.info.no_value ? "NO_VALUE" : "SUBGRAPH") +
                " operand; it cannot be an ONNX value");
        continue;
      }
      if (k < f.expect.size() && f.expect[k]) {
        const Info& e = *f.expect[k];
        const bool ok = f.cond_to_scalar ? is_boolt(v.info.type) : same_quant(v.info, e);
        if (!ok) {
          problem(f.role + " output " + std::to_string(k) + " (" + f.nn_path + ") is " + info_str(v.info) + ", " +
                  (f.cond_to_scalar ? std::string("a WHILE condition must be TENSOR_BOOL8")
                                    : "the caller needs " + info_str(e)) +
                  "; the executor would carry the branch's value");
          continue;
        }
      }
      const std::string src = materialize(v, where);
      if (src.empty()) continue;
      const std::string& want = f.out_names[k];
      if (f.cond_to_scalar) {
        node(f, "Reshape", {src, cst_empty_i64()}, want, "cond_scalar");
      } else if (src != want || !used_out.insert(want).second) {
        node(f, "Identity", {src}, want, "output_" + std::to_string(k));
      }
    }
  }

  // Input k of the operation as a value (problem when it has none).
  Val* input(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
    if (k >= o.inputs.size()) return problem(where + ": too few inputs"), nullptr;
    const uint32_t idx = o.inputs[k];
    if (idx >= f.vals.size())
      return problem(where + ": input " + std::to_string(k) + " names operand " + std::to_string(idx) +
                     ", which does not exist"),
             nullptr;
    Val& v = f.vals[idx];
    if (!v.has)
      return problem(where + ": input " + std::to_string(k) + " (operand " + std::to_string(idx) +
                     ") is read before it is written"),
             nullptr;
    return &v;
  }
  // A tensor input: materialized, not a SUBGRAPH / NO_VALUE.
  Val* tensor_in(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
    Val* v = input(f, o, k, where);
    if (!v) return nullptr;
    if (v->info.no_value)
      return problem(where + ": input " + std::to_string(k) + " has no value (NO_VALUE); the execution would fail"),
             nullptr;
    if (v->info.subgraph >= 0)
      return problem(where + ": input " + std::to_string(k) + " is a SUBGRAPH operand"), nullptr;
    if (onnx_elem(v->info.type) == 0)
      return problem(where + ": input " + std::to_string(k) + " has type " + nn::operand_type_name(v->info.type) +
                     ", which is not exported"),
             nullptr;
    if (v->info.type == TQ8SPC)
      return problem(where + ": input " + std::to_string(k) +
                     " is TENSOR_QUANT8_SYMM_PER_CHANNEL, which is not exported"),
             nullptr;
    if (materialize(*v, where).empty()) return nullptr;
    return v;
  }
  std::optional<int64_t> const_scalar(Frame& f, const NnOperation& o, size_t k, const std::string& where,
                                      const char* what) {
    Val* v = input(f, o, k, where);
    if (!v) return std::nullopt;
    if (!v->info.ci || v->info.ci->size() != 1)
      return problem(where + ": the " + std::string(what) + " (input " + std::to_string(k) +
                     ") is not a constant; only constant " + what + "s are exported"),
             std::nullopt;
    return v->info.ci->front();
  }
  // Output k: its ONNX name (pre-assigned or fresh) and declared info.
  Val* output(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
    if (k >= o.outputs.size()) return problem(where + ": too few outputs"), nullptr;
    const uint32_t idx = o.outputs[k];
    if (idx >= f.vals.size())
      return problem(where + ": output " + std::to_string(k) + " names operand " + std::to_string(idx) +
                     ", which does not exist"),
             nullptr;
    Val& v = f.vals[idx];
    const NnOperand& d0 = sg(f.graph).operands[idx];
    if (v.has || (d0.lifetime != TEMP && d0.lifetime != OUT))
      return problem(where + ": output " + std::to_string(k) + " (operand " + std::to_string(idx) +
                     ") is not a temporary or subgraph output, or is written twice"),
             nullptr;
    if (onnx_elem(d0.type) == 0)
      return problem(where + ": output " + std::to_string(k) + " has type " + nn::operand_type_name(d0.type) +
                     ", which is not exported"),
             nullptr;
    if (v.name.empty()) v.name = fresh(d0.name.empty() ? "t" : d0.name);
    v.info = decl_info(d0);
    return &v;
  }
  void written(Val* v) { v->has = true; }

  // Executes the lowering of operation f.cursor; returns false when it must wait for pushed frames.
  bool op(size_t idx) {
    Frame& f = stack[idx];
    const NnOperation& o = sg(f.graph).operations[f.cursor];
    const std::string L = nn::operation_name(o.type) + "#" + std::to_string(f.cursor);
    const std::string where = op_where(f, f.cursor, o.type);
    switch (o.type) {
      case 0:
      case 36:
      case 18:
      case 30: return arith(f, o, L, where), true;  // ADD SUB MUL DIV
      case 58:
      case 59:
      case 54:
      case 53:
      case 48:
      case 68: return compare(f, o, L, where), true;
      case 61:
      case 63:
      case 62: return logical(f, o, L, where), true;  // LOGICAL_AND OR NOT
      case 9: return fully_connected(f, o, L, where), true;
      case 2: return concatenation(f, o, L, where), true;
      case 86: return slice(f, o, L, where), true;
      case 96: return if_op(idx, o, L, where), true;
      case 97: return while_op(idx, o, L, where);
      default:
        problem(where + ": " + nn::operation_name(o.type) +
                " is not exported (supported: ADD, SUB, MUL, DIV, LESS, LESS_EQUAL, "
                "GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL, LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, FULLY_CONNECTED, "
                "CONCATENATION, SLICE, IF, WHILE)");
        return true;
    }
  }

  void arith(Frame& f, const NnOperation& o, const std::string& L, const std::string& where) {
    Val* a = tensor_in(f, o, 0, where);
    Val* b = a ? tensor_in(f, o, 1, where) : nullptr;
    if (!b) return;
    auto act = const_scalar(f, o, 2, where, "fused activation");
    if (!act) return;
    if (*act < 0 || *act > 3)
      return problem(where + ": fused activation code " + std::to_string(*act) + " is not NONE, RELU, RELU1 or RELU6");
    Val* y = output(f, o, 0, where);
    if (!y) return;
    const int32_t ta = a->info.type;
    if (is_floatt(ta) != is_floatt(b->info.type) || is_quant(ta) != is_quant(b->info.type) ||
        is_int32t(ta) != is_int32t(b->info.type) || (!is_quant(ta) && onnx_elem(ta) != onnx_elem(b->info.type)))
      return problem(where + ": operand types differ (" + info_str(a->info) + " and " + info_str(b->info) + ")");
    static const std::map<int32_t, const char*> kOnnx = {{0, "Add"}, {36, "Sub"}, {18, "Mul"}, {30, "Div"}};
    const char* op_type = kOnnx.at(o.type);
    if (is_quant(ta)) {
      if (o.type == 30) return problem(where + ": DIV of quantized tensors is not exported");
      if (!is_quant(y->info.type)) return problem(where + ": quantized inputs, output " + info_str(y->info));
      has_quant = true;
      const std::string xa = to_real(f, a->name, a->info, L + "/a"), xb = to_real(f, b->name, b->info, L + "/b");
      const std::string z = node(f, op_type, {xa, xb}, fresh(y->name + "_real"), L)->output(0);
      const std::string za = *act ? activation(f, z, *act, onnx::TensorProto::DOUBLE, fresh(y->name + "_act"), L) : z;
      if (!from_real(f, za, y->info, y->name, L, where)) return;
    } else if (is_floatt(ta) || is_int32t(ta)) {
      if (onnx_elem(y->info.type) != onnx_elem(ta))
        return problem(where + ": inputs are " + info_str(a->info) + ", output " + info_str(y->info));
      if (is_int32t(ta) && o.type == 30) return problem(where + ": DIV of TENSOR_INT32 is not exported");
      if (is_int32t(ta) && o.type == 18) has_int_mul = true;
      if (*act == 0) {
        node(f, op_type, {a->name, b->name}, y->name, L);
      } else {
        const std::string z = node(f, op_type, {a->name, b->name}, fresh(y->name + "_pre"), L)->output(0);
        activation(f, z, *act, onnx_elem(ta), y->name, L);
      }
    } else {
      return problem(where + ": " + nn::operation_name(o.type) + " of " + info_str(a->info) + " is not exported");
    }
    written(y);
  }

  void compare(Frame& f, const NnOperation& o, const std::string& L, const std::string& where) {
    Val* a = tensor_in(f, o, 0, where);
    Val* b = a ? tensor_in(f, o, 1, where) : nullptr;
    if (!b) return;
    Val* y = output(f, o, 0, where);
    if (!y) return;
    if (!is_boolt(y->info.type)) return problem(where + ": the output is " + info_str(y->info) + ", not TENSOR_BOOL8");
    static const std::map<int32_t, const char*> kOnnx = {{58, "Less"},    {59, "LessOrEqual"}, {54, "GreaterOrEqual"},
                                                         {53, "Greater"}, {48, "Equal"},       {68, "Equal"}};
    std::string xa = a->name, xb = b->name;
    if (is_quant(a->info.type) || is_quant(b->info.type)) {
      if (!is_quant(a->info.type) || !is_quant(b->info.type))
        return problem(where + ": operand types differ (" + info_str(a->info) + " and " + info_str(b->info) + ")");
      has_quant = true;
      xa = to_real(f, xa, a->info, L + "/a");
      xb = to_real(f, xb, b->info, L + "/b");
    } else if (onnx_elem(a->info.type) != onnx_elem(b->info.type)) {
      return problem(where + ": operand types differ (" + info_str(a->info) + " and " + info_str(b->info) + ")");
    }
    if (o.type == 68) {
      const std::string e = node(f, "Equal", {xa, xb}, fresh(y->name + "_eq"), L)->output(0);
      node(f, "Not", {e}, y->name, L + "/not");
    } else {
      node(f, kOnnx.at(o.type), {xa, xb}, y->name, L);
    }
    written(y);
  }

  void logical(Frame& f, const NnOperation& o, const std::string& L, const std::string& where) {
    const bool unary = o.type == 62;
    Val* a = tensor_in(f, o, 0, where);
    Val* b = a && !unary ? tensor_in(f, o, 1, where) : a;
    if (!b) return;
    Val* y = output(f, o, 0, where);
    if (!y) return;
    if (!is_boolt(a->info.type) || !is_boolt(b->info.type) || !is_boolt(y->info.type))
      return problem(where + ": operands are not TENSOR_BOOL8");
    if (unary) node(f, "Not", {a->name}, y->name, L);
    else node(f, o.type == 61 ? "And" : "Or", {a->name, b->name}, y->name, L);
    written(y);
  }

  void fully_connected(Frame& f, const NnOperation& o, const std::string& L, const std::string& where) {
    Val* x = tensor_in(f, o, 0, where);
    Val* w = x ? tensor_in(f, o, 1, where) : nullptr;
    Val* b = w ? tensor_in(f, o, 2, where) : nullptr;
    if (!b) return;
    auto act = const_scalar(f, o, 3, where, "fused activation");
    if (!act) return;
    if (*act < 0 || *act > 3)
      return problem(where + ": fused activation code " + std::to_string(*act) + " is not NONE, RELU, RELU1 or RELU6");
    Val* y = output(f, o, 0, where);
    if (!y) return;
    has_fc = true;
    for (const Val* v : {x, w, b})
      if (!is_floatt(v->info.type) && !is_quant(v->info.type) && !(v == b && is_int32t(v->info.type)))
        return problem(where + ": " + info_str(v->info) + " operands are not exported");
    const auto& wd = w->info.dims;
    const auto& bd = b->info.dims;
    if (wd.size() != 2 || wd[0] == 0 || bd.size() != 1 || bd[0] != wd[0])
      return problem(where +
                     ": the weights must be declared [units, input_size] and the bias [units] (the executor's bias "
                     "handling depends on the sizes; these are not declared)");
    if (is_quant(x->info.type) || is_quant(w->info.type)) has_quant = true;
    const std::string xd = to_real(f, x->name, x->info, L + "/input");
    const std::string wdn = to_real(f, w->name, w->info, L + "/weights");
    std::string shape;
    if (wd[1] != 0) {
      shape = cst_i64s({-1, static_cast<int64_t>(wd[1])});
    } else {
      const std::string sw = node(f, "Shape", {w->name}, fresh(y->name + "_wshape"), L + "/wshape")->output(0);
      const std::string sz =
          node(f, "Slice", {sw, cst_i64s({1}), cst_i64s({2})}, fresh(y->name + "_size"), L + "/size")->output(0);
      shape = node(f, "Concat", {cst_i64s({-1}), sz}, fresh(y->name + "_2d"), L + "/shape2d")->output(0);
      attr_i(f.target->mutable_node(f.target->node_size() - 1), "axis", 0);
    }
    const std::string x2 = node(f, "Reshape", {xd, shape}, fresh(y->name + "_in2d"), L + "/reshape")->output(0);
    // Bias as the executor reads it: an int32 bias with a scale is bias * scale; with scale 0 next to quantized
    // operands it is bias * input_scale * weights_scale (in that order); otherwise its real value.
    std::string bias;
    if (is_int32t(b->info.type)) {
      auto* c = node(f, "Cast", {b->name}, fresh(b->name + "_f64"), L + "/bias_f64");
      attr_i(c, "to", onnx::TensorProto::DOUBLE);
      bias = c->output(0);
      if (b->info.scale > 0) {
        if (b->info.scale != 1.0)
          bias =
              node(f, "Mul", {bias, cst_double(b->info.scale)}, fresh(b->name + "_real"), L + "/bias_scale")->output(0);
      } else if (is_quant(x->info.type)) {
        bias = node(f, "Mul", {bias, cst_double(x->info.scale)}, fresh(b->name + "_xs"), L + "/bias_input_scale")
                   ->output(0);
        bias = node(f, "Mul", {bias, cst_double(w->info.scale)}, fresh(b->name + "_real"), L + "/bias_weights_scale")
                   ->output(0);
      } else {
        return problem(where + ": a TENSOR_INT32 bias without scale next to float operands is not exported");
      }
    } else {
      bias = to_real(f, b->name, b->info, L + "/bias");
    }
    auto* gm = node(f, "Gemm", {x2, wdn, bias}, fresh(y->name + "_real"), L);
    attr_i(gm, "transB", 1);
    std::string z = gm->output(0);
    if (*act) z = activation(f, z, *act, onnx::TensorProto::DOUBLE, fresh(y->name + "_act"), L);
    if (!from_real(f, z, y->info, y->name, L, where)) return;
    written(y);
  }

  void concatenation(Frame& f, const NnOperation& o, const std::string& L, const std::string& where) {
    if (o.inputs.size() < 2) return problem(where + ": CONCATENATION needs inputs and an axis");
    std::vector<Val*> xs;
    for (size_t k = 0; k + 1 < o.inputs.size(); ++k) {
      Val* v = tensor_in(f, o, k, where);
      if (!v) return;
      xs.push_back(v);
    }
    auto axis = const_scalar(f, o, o.inputs.size() - 1, where, "axis");
    if (!axis) return;
    Val* y = output(f, o, 0, where);
    if (!y) return;
    bool native = true, any_quant = false;
    for (Val* v : xs) {
      any_quant = any_quant || is_quant(v->info.type);
      if (is_quant(y->info.type) ? !same_quant(v->info, y->info) : onnx_elem(v->info.type) != onnx_elem(y->info.type))
        native = false;
    }
    std::vector<std::string> names;
    if (native) {
      for (Val* v : xs) names.push_back(v->name);
      attr_i(node(f, "Concat", names, y->name, L), "axis", *axis);
    } else {
      if (!any_quant && !is_quant(y->info.type)) return problem(where + ": inputs and output differ in type");
      has_quant = true;
      for (size_t k = 0; k < xs.size(); ++k)
        names.push_back(to_real(f, xs[k]->name, xs[k]->info, L + "/in" + std::to_string(k)));
      auto* c = node(f, "Concat", names, fresh(y->name + "_real"), L);
      attr_i(c, "axis", *axis);
      if (!from_real(f, c->output(0), y->info, y->name, L, where)) return;
    }
    written(y);
  }

  void slice(Frame& f, const NnOperation& o, const std::string& L, const std::string& where) {
    Val* x = tensor_in(f, o, 0, where);
    Val* beg = x ? tensor_in(f, o, 1, where) : nullptr;
    Val* sz = beg ? tensor_in(f, o, 2, where) : nullptr;
    if (!sz) return;
    if (!is_int32t(beg->info.type) || !is_int32t(sz->info.type))
      return problem(where + ": begin and size must be TENSOR_INT32");
    Val* y = output(f, o, 0, where);
    if (!y) return;
    if (onnx_elem(y->info.type) != onnx_elem(x->info.type))
      return problem(where + ": input " + info_str(x->info) + ", output " + info_str(y->info));
    has_slice = true;
    std::string starts, ends;
    if (beg->info.ci && sz->info.ci && beg->info.ci->size() == sz->info.ci->size() &&
        std::none_of(sz->info.ci->begin(), sz->info.ci->end(), [](int64_t v) { return v == -1; })) {
      std::vector<int64_t> e;
      for (size_t k = 0; k < beg->info.ci->size(); ++k) e.push_back((*beg->info.ci)[k] + (*sz->info.ci)[k]);
      starts = cst_i64s(*beg->info.ci);
      ends = cst_i64s(e);
    } else {
      auto* c1 = node(f, "Cast", {beg->name}, fresh(y->name + "_starts"), L + "/starts");
      attr_i(c1, "to", onnx::TensorProto::INT64);
      auto* c2 = node(f, "Cast", {sz->name}, fresh(y->name + "_sizes"), L + "/sizes");
      attr_i(c2, "to", onnx::TensorProto::INT64);
      starts = c1->output(0);
      const std::string sizes = c2->output(0);
      const std::string sum = node(f, "Add", {starts, sizes}, fresh(y->name + "_ends"), L + "/ends")->output(0);
      const std::string all =
          node(f, "Equal", {sizes, cst_i64s({-1})}, fresh(y->name + "_to_end"), L + "/to_end")->output(0);
      const std::string shp = node(f, "Shape", {x->name}, fresh(y->name + "_shape"), L + "/shape")->output(0);
      ends = node(f, "Where", {all, shp, sum}, fresh(y->name + "_ends_all"), L + "/ends_all")->output(0);
    }
    node(f, "Slice", {x->name, starts, ends}, y->name, L);
    y->info.scale = x->info.scale;  // the executor's SLICE keeps the input's quantization
    y->info.zp = x->info.zp;
    written(y);
  }

  bool subgraph_ok(Frame& f, int sub, const std::string& where, const char* what) {
    if (sub < 0 || static_cast<size_t>(sub) >= d.referenced_count()) {
      problem(where + ": the " + std::string(what) + " operand does not name a referenced subgraph");
      return false;
    }
    if (std::find(f.chain.begin(), f.chain.end(), sub + 1) != f.chain.end() || f.graph == sub + 1) {
      problem(where + ": subgraph reference cycle: referenced[" + std::to_string(sub) + "] is used inside itself");
      abort = true;
      return false;
    }
    if (f.depth + 1 > kMaxDepth) {
      problem(where + ": nesting deeper than " + std::to_string(kMaxDepth) + " levels");
      abort = true;
      return false;
    }
    return true;
  }

  Frame child(const Frame& f, int sub, onnx::GraphProto* target, std::string onnx_path, std::string prefix,
              std::string nn_path) {
    Frame c;
    c.graph = sub + 1;
    c.target = target;
    c.onnx_path = std::move(onnx_path);
    c.prefix = std::move(prefix);
    c.nn_path = std::move(nn_path);
    c.depth = f.depth + 1;
    c.chain = f.chain;
    c.chain.push_back(f.graph);
    return c;
  }

  void if_op(size_t idx, const NnOperation& o, const std::string& L, const std::string& where) {
    Frame& f = stack[idx];
    if (o.inputs.size() < 3) return problem(where + ": IF needs a condition and two branches");
    Val* c = input(f, o, 0, where);
    Val* tb = c ? input(f, o, 1, where) : nullptr;
    Val* eb = tb ? input(f, o, 2, where) : nullptr;
    if (!eb) return;
    const std::string nn_if = f.nn_path + "/" + L;
    const std::string onnx_if = f.onnx_path + "/" + f.prefix + L;
    std::string cond;
    if (c->info.no_value) {
      cond = cst("empty_bool", [] {
        onnx::TensorProto t;
        t.set_data_type(onnx::TensorProto::BOOL);
        t.add_dims(0);
        return t;
      });
      note("IF '" + nn_if +
           "': the condition has no value (NO_VALUE); it is exported as an empty tensor, so the If fails "
           "at run time as the NNAPI execution does (unless it is pinned)");
    } else {
      Val* cv = tensor_in(f, o, 0, where);
      if (!cv) return;
      if (!is_boolt(cv->info.type))
        return problem(where + ": the condition is " + info_str(cv->info) + ", not TENSOR_BOOL8");
      cond = cv->name;
    }
    if (!subgraph_ok(f, tb->info.subgraph, where, "then") || !subgraph_ok(f, eb->info.subgraph, where, "else")) return;
    std::vector<Val> args;
    for (size_t k = 3; k < o.inputs.size(); ++k) {
      Val* v = input(f, o, k, where);
      if (!v) return;
      if (v->info.no_value) return problem(where + ": input " + std::to_string(k) + " has no value (NO_VALUE)");
      if (v->info.subgraph < 0 && materialize(*v, where).empty()) return;
      args.push_back(*v);
    }
    std::vector<Val*> outs;
    for (size_t k = 0; k < o.outputs.size(); ++k) {
      Val* y = output(f, o, k, where);
      if (!y) return;
      outs.push_back(y);
    }
    auto* n = node(f, "If", {cond}, outs.empty() ? std::string() : outs[0]->name, L);
    n->clear_output();
    for (Val* y : outs) n->add_output(y->name);
    if_copies[nn_if].push_back(onnx_if);
    Frame branches[2];
    for (int br = 0; br < 2; ++br) {
      const char* side = br == 0 ? "then" : "else";
      onnx::GraphProto* bg = attr_g(n, br == 0 ? "then_branch" : "else_branch");
      bg->set_name(fresh(L + "_" + side));
      Frame cf = child(f, (br == 0 ? tb : eb)->info.subgraph, bg, onnx_if + "/" + side, "", nn_if + "/" + side);
      cf.args = args;
      cf.role = "IF '" + nn_if + "' " + side + " branch";
      for (size_t k = 0; k < outs.size(); ++k) {
        const std::string& base = sg(f.graph).operands[o.outputs[k]].name;
        const std::string on = fresh((base.empty() ? "y" : base) + "_" + side);
        cf.out_names.push_back(on);
        cf.expect.push_back(outs[k]->info);
        const auto& dims = outs[k]->info.dims;
        set_type(bg->add_output(), outs[k]->info.type, fully_known(dims, outs[k]->info.type) ? &dims : nullptr, on);
      }
      branches[br] = std::move(cf);
    }
    for (Val* y : outs) written(y);
    // else below then: the then branch is built first
    stack.push_back(std::move(branches[1]));
    stack.push_back(std::move(branches[0]));
  }

  bool while_op(size_t idx, const NnOperation& o, const std::string& L, const std::string& where) {
    Frame* f = &stack[idx];
    has_while = true;
    if (o.inputs.size() < 2) return problem(where + ": WHILE needs a condition and a body"), true;
    Val* cg = input(*f, o, 0, where);
    Val* bg = cg ? input(*f, o, 1, where) : nullptr;
    if (!bg) return true;
    const std::string nn_w = f->nn_path + "/" + L;
    const std::string onnx_w = f->onnx_path + "/" + f->prefix + L;
    if (!subgraph_ok(*f, cg->info.subgraph, where, "condition") || !subgraph_ok(*f, bg->info.subgraph, where, "body"))
      return true;
    const NnSubgraph& body = sg(bg->info.subgraph + 1);
    const size_t nv = o.inputs.size() - 2, m = o.outputs.size(), mk = body.output_indexes.size();
    if (mk < m || mk > nv)
      return problem(where + ": the body has " + std::to_string(mk) + " outputs; the WHILE has " + std::to_string(m) +
                     " outputs and " + std::to_string(nv) + " values"),
             true;
    std::vector<Val> init;
    for (size_t k = 0; k < nv; ++k) {
      Val* v = tensor_in(*f, o, k + 2, where);
      if (!v) return true;
      init.push_back(*v);
    }
    if (f->phase == 0) {
      // The condition on the initial values, inlined before the Loop.
      Frame cf = child(*f, cg->info.subgraph, f->target, f->onnx_path, f->prefix + L + "/cond/", nn_w + "/cond");
      cf.args = init;
      f->loop_cond = fresh(L + "_cond0");
      cf.out_names = {f->loop_cond};
      cf.expect = {Info{}};
      cf.cond_to_scalar = true;
      cf.role = "WHILE '" + nn_w + "' condition";
      f->phase = 1;
      stack.push_back(std::move(cf));
      return false;
    }
    std::vector<Val*> outs;
    for (size_t k = 0; k < m; ++k) {
      Val* y = output(*f, o, k, where);
      if (!y) return true;
      outs.push_back(y);
    }
    std::vector<std::string> ins{"", f->loop_cond};
    for (size_t k = 0; k < mk; ++k) ins.push_back(init[k].name);
    auto* n = node(*f, "Loop", ins, "", L);
    n->clear_output();
    for (size_t k = 0; k < mk; ++k) n->add_output(k < m ? outs[k]->name : fresh(L + "_unused" + std::to_string(k)));
    onnx::GraphProto* b = attr_g(n, "body");
    b->set_name(fresh(L + "_body"));
    const std::string iter = fresh(L + "_iter"), cin = fresh(L + "_cond_in"), cout = fresh(L + "_cond_out");
    std::vector<uint32_t> none;
    set_type(b->add_input(), I32, &none, iter);
    b->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    set_type(b->add_input(), BOOL, &none, cin);
    set_type(b->add_output(), BOOL, &none, cout);
    std::vector<Val> body_args, cond_args;
    std::vector<std::string> body_outs;
    for (size_t k = 0; k < nv; ++k) {
      if (k < mk) {
        Val vin = init[k], vout = init[k];
        const std::string& nm = sg(f->graph).operands[o.inputs[k + 2]].name;
        vin.name = fresh((nm.empty() ? "v" : nm) + "_in");
        vout.name = fresh((nm.empty() ? "v" : nm) + "_next");
        vin.info.ci.reset();
        vout.info.ci.reset();
        vin.const_graph = vout.const_graph = -1;
        set_type(b->add_input(), init[k].info.type, nullptr, vin.name);
        set_type(b->add_output(), init[k].info.type, nullptr, vout.name);
        body_outs.push_back(vout.name);
        body_args.push_back(vin);
        cond_args.push_back(vout);
      } else {
        body_args.push_back(init[k]);
        cond_args.push_back(init[k]);
      }
    }
    Frame cf = child(*f, cg->info.subgraph, b, onnx_w + "/body", "cond/", nn_w + "/cond");
    cf.args = cond_args;
    cf.out_names = {cout};
    cf.expect = {Info{}};
    cf.cond_to_scalar = true;
    cf.role = "WHILE '" + nn_w + "' condition";
    Frame bf = child(*f, bg->info.subgraph, b, onnx_w + "/body", "", nn_w + "/body");
    bf.args = body_args;
    bf.out_names = body_outs;
    for (size_t k = 0; k < mk; ++k) bf.expect.push_back(init[k].info);
    bf.role = "WHILE '" + nn_w + "' body (loop value)";
    for (size_t k = 0; k < m; ++k) {
      outs[k]->info = init[k].info;  // the executor's WHILE outputs are the loop values as they flow
      outs[k]->info.ci.reset();
      written(outs[k]);
    }
    f = nullptr;
    stack.push_back(std::move(cf));
    stack.push_back(std::move(bf));
    return true;
  }
};

exec::Value example_value(const NnValue& ex, const NnOperand& decl) {
  using namespace exec;
  Dims dims;
  for (auto x : decl.dimensions) dims.push_back(x);
  if (ex.dimensions) dims.assign(ex.dimensions->begin(), ex.dimensions->end());
  const int elem = onnx_elem(decl.type);
  if (elem == 0) fail("operand type " + nn::operand_type_name(decl.type) + " cannot be fed");
  Tensor t(static_cast<DT>(elem), dims);
  if (static_cast<int64_t>(ex.data.size()) != t.numel())
    fail("example data has " + std::to_string(ex.data.size()) + " values for shape " + dims_str(dims));
  for (int64_t k = 0; k < t.numel(); ++k) {
    const double e = ex.data[static_cast<size_t>(k)];
    if (is_float(t.dt)) t.f[k] = round_to(t.dt, e);
    else t.i[k] = static_cast<int64_t>(e);
  }
  normalize(t);
  return Value::tensor(std::move(t));
}

// The examples as data sets of the exported model (an example that expects a failure cannot be data: a note).
void export_examples(const NnapiData& d, ExportResult& r) {
  const NnSubgraph& mg = d.subgraphs[0];
  for (size_t e = 0; e < d.examples.size(); ++e) {
    const NnExample& ex = d.examples[e];
    const std::string name = "example_" + std::to_string(e);
    if (ex.expect_failure) {
      r.notes.push_back(name +
                        " is skipped: it expects the execution to fail (a condition without value or a loop "
                        "timeout), which cannot be fed to an ONNX runtime as data");
      continue;
    }
    ExportedDataSet ds;
    ds.name = name;
    try {
      if (ex.inputs.size() != mg.input_indexes.size())
        exec::fail("it has " + std::to_string(ex.inputs.size()) + " inputs, the model " +
                   std::to_string(mg.input_indexes.size()));
      for (size_t k = 0; k < ex.inputs.size(); ++k)
        ds.inputs.push_back(example_value(ex.inputs[k], mg.operands[mg.input_indexes[k]]));
      for (size_t k = 0; k < ex.outputs.size() && k < mg.output_indexes.size(); ++k)
        ds.outputs.push_back(ex.outputs[k].is_null ? exec::Value{}
                                                   : example_value(ex.outputs[k], mg.operands[mg.output_indexes[k]]));
    } catch (const std::exception& err) {
      r.notes.push_back(name + " is skipped: " + err.what());
      continue;
    }
    r.data_sets.push_back(std::move(ds));
  }
}

// What the export computes differently from Android, or only as the executor does: said once per model.
void add_semantics_notes(const NnapiData& d, Exporter& x) {
  if (d.relax_float32_to_float16)
    x.note(
        "relaxComputationFloat32toFloat16: float32 arithmetic is exported as float32, as the executor computes it "
        "(Android may use float16 range and precision; compare with the float16 tolerances)");
  bool any_f16 = false;
  for (const auto& s : d.subgraphs)
    for (const auto& od : s.operands) any_f16 = any_f16 || od.type == TF16 || od.type == F16;
  if (any_f16)
    x.note("float16 operands are exported as ONNX float16; ADD/SUB/MUL/DIV round once to float16 as the executor does");
  if (x.has_quant)
    x.note(
        "quantized operands are computed as the executor does: dequantized to double ((q - zeroPoint) * scale), "
        "computed in double, requantized with round-half-to-even and clamping (Cast/Sub/Mul ... "
        "Div/Round/Add/Clip/Cast)");
  if (x.has_fc) x.note("FULLY_CONNECTED is computed in double (Gemm); the summation order is the runtime's");
  if (x.has_slice)
    x.note(
        "SLICE: begin/size out of range make the NNAPI execution fail; ONNX Slice clamps them instead (valid inputs "
        "give identical results)");
  if (x.has_while)
    x.note(
        "WHILE: NNAPI fails a loop that exceeds its timeout; the ONNX Loop has no trip limit (runtimes' own limits "
        "apply)");
  if (x.has_int_mul)
    x.note(
        "TENSOR_INT32 MUL: the executor multiplies in double, so products beyond 2^53 may differ from ONNX's int32 "
        "product");
}

// Pins (NNAPI paths) applied to every ONNX copy of the If.
void apply_pins(const ExportOptions& o, ExportResult& r) {
  std::map<std::string, bool> pins;
  for (const auto& [p, b] : o.pins) {
    auto it = r.if_path_copies.find(p);
    if (it == r.if_path_copies.end()) {
      r.problems.push_back("pin: no IF at '" + p + "'");
      continue;
    }
    for (const auto& q : it->second) pins[q] = b;
  }
  if (!r.ok()) return;
  onnx::ModelProto pinned;
  if (auto e = onnx_graph::pin_model(r.model, pins, pinned); !e.empty()) r.problems.push_back("pin: " + e);
  else r.model = std::move(pinned);
}

// The main subgraph's inputs and outputs declared on the ONNX graph, into the root frame.
void declare_main_io(const NnSubgraph& mg, Exporter& x, onnx::GraphProto* g, Frame& root) {
  for (size_t k = 0; k < mg.input_indexes.size(); ++k) {
    const uint32_t idx = mg.input_indexes[k];
    if (idx >= mg.operands.size()) {
      x.problem("main input " + std::to_string(k) + " names operand " + std::to_string(idx) + ", which does not exist");
      continue;
    }
    const NnOperand& od = mg.operands[idx];
    Val v;
    v.has = true;
    v.info = Exporter::decl_info(od);
    if (onnx_elem(od.type) == 0 || od.type == TQ8SPC) {
      x.problem("main input " + std::to_string(k) + " (operand " + std::to_string(idx) + ") has type " +
                nn::operand_type_name(od.type) + ", which is not exported");
      continue;
    }
    v.name = x.fresh(od.name.empty() ? "input_" + std::to_string(k) : od.name);
    if (!is_scalar_type(od.type) && od.dimensions.empty())
      x.note("main input " + std::to_string(k) + " '" + v.name +
             "' has unknown rank: exported without a shape (the ONNX "
             "checker wants one for main-graph inputs)");
    x.set_type(g->add_input(), od.type, &od.dimensions, v.name);
    root.args.push_back(v);
  }
  for (size_t k = 0; k < mg.output_indexes.size(); ++k) {
    const uint32_t idx = mg.output_indexes[k];
    const NnOperand* od = idx < mg.operands.size() ? &mg.operands[idx] : nullptr;
    const std::string name = x.fresh(od && !od->name.empty() ? od->name : "output_" + std::to_string(k));
    root.out_names.push_back(name);
    if (od) {
      if (!is_scalar_type(od->type) && od->dimensions.empty())
        x.note("main output " + std::to_string(k) + " '" + name +
               "' has unknown rank: exported without a shape (the ONNX "
               "checker wants one for main-graph outputs)");
      root.expect.push_back(std::nullopt);
      x.set_type(g->add_output(), od->type, &od->dimensions, name);
    }
  }
}

}  // namespace

ExportResult export_nnapi(const Model& loaded, const fs::path& path, const ExportOptions& o) {
  ExportResult r;
  const Model* model = &loaded;
  if (!model->nnapi) {
    r.problems.push_back(path.string() + ": not an NNAPI model");
    return r;
  }
  const NnapiData& d = *model->nnapi;
  for (const auto& p : d.problems) {
    if (r.problems.size() >= kMaxProblems) break;
    r.problems.push_back((p.loc.pointer.empty() ? std::string() : p.loc.pointer + ": ") + p.message);
  }
  if (!d.structurally_valid && r.problems.empty()) r.problems.push_back("the document is not a valid NNAPI model");
  if (!r.problems.empty() || d.subgraphs.empty()) {
    if (r.problems.empty()) r.problems.push_back("the document has no main subgraph");
    return r;
  }
  if (o.opset < kMinOpset || o.opset > kMaxOpset) {
    r.problems.push_back("opset " + std::to_string(o.opset) + " is not supported (" + std::to_string(kMinOpset) +
                         " to " + std::to_string(kMaxOpset) + ")");
    return r;
  }

  onnx::ModelProto& m = r.model;
  m.set_ir_version(o.opset <= 14 ? 7 : 8);
  m.set_producer_name("condlint");
  m.set_producer_version(CONDLINT_VERSION);
  m.set_doc_string("exported from the NNAPI model " + path.filename().string());
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(o.opset);
  auto* g = m.mutable_graph();
  std::string stem = path.filename().string();
  if (stem.size() > 11) stem.resize(stem.size() - 11);
  g->set_name(d.name.empty() ? stem : d.name);

  Exporter x(d, o, r);
  x.main = g;
  const NnSubgraph& mg = d.subgraphs[0];
  Frame root;
  root.graph = 0;
  root.target = g;
  root.onnx_path = "main";
  root.nn_path = "main";
  root.role = "main";
  declare_main_io(mg, x, g, root);
  if (r.problems.empty()) x.run(std::move(root));
  // The main outputs' element types follow the values (the executor compares stored values).
  if (r.problems.empty()) {
    for (size_t k = 0; k < mg.output_indexes.size(); ++k) {
      const NnOperand& od = mg.operands[mg.output_indexes[k]];
      if (onnx_elem(od.type) == 0)
        x.problem("main output " + std::to_string(k) + " has type " + nn::operand_type_name(od.type) +
                  ", which is not exported");
    }
  }
  if (x.dropped_problems) r.problems.push_back("... and " + std::to_string(x.dropped_problems) + " more problems");

  // If paths: the first copy (for an IF in a WHILE condition: the evaluation before the loop).
  if (r.ok())
    for (auto& [nnp, copies] : x.if_copies) {
      r.if_paths[nnp] = copies.front();
      r.if_path_copies[nnp] = std::move(copies);
    }
  add_semantics_notes(d, x);
  if (r.ok() && !o.pins.empty()) apply_pins(o, r);
  if (r.ok()) export_examples(d, r);  // golden data: the examples
  return r;
}

}  // namespace condlint::xport
