// The NNAPI exporter's state and building blocks (see export_nnapi.cpp for the shape of the translation), shared by its
// driver (export_nnapi.cpp: the frames of subgraph instances, one operation at a time) and the lowerings of its
// operations, one file per family (export_nnapi_ops_*.cpp). Each operation is a row of kLowerings, a table by AIDL
// operation name; operand types and lifetimes are model/nnapi_data's nn:: enums.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "export/export.hpp"
#include "model/nnapi_data.hpp"

namespace condlint::xport::nnapi_export {

constexpr int kMaxDepth = 64;          // as exec::Limits::max_depth and diff's find_ifs
constexpr size_t kMaxNodes = 250'000;  // total ONNX nodes of one export
constexpr size_t kMaxProblems = 50;
constexpr int kMinOpset = 13, kMaxOpset = 17;  // ONNX 1.12 knows opsets up to 17

// ONNX element type of an NNAPI operand type (0 when there is none).
inline int onnx_elem(int32_t t) {
  switch (t) {
    case nn::FLOAT32:
    case nn::TENSOR_FLOAT32: return onnx::TensorProto::FLOAT;
    case nn::FLOAT16:
    case nn::TENSOR_FLOAT16: return onnx::TensorProto::FLOAT16;
    case nn::INT32:
    case nn::TENSOR_INT32: return onnx::TensorProto::INT32;
    case nn::UINT32: return onnx::TensorProto::UINT32;
    case nn::BOOL:
    case nn::TENSOR_BOOL8: return onnx::TensorProto::BOOL;
    case nn::TENSOR_QUANT8_ASYMM: return onnx::TensorProto::UINT8;
    case nn::TENSOR_QUANT8_ASYMM_SIGNED:
    case nn::TENSOR_QUANT8_SYMM:
    case nn::TENSOR_QUANT8_SYMM_PER_CHANNEL: return onnx::TensorProto::INT8;
    case nn::TENSOR_QUANT16_SYMM: return onnx::TensorProto::INT16;
    case nn::TENSOR_QUANT16_ASYMM: return onnx::TensorProto::UINT16;
    default: return 0;
  }
}
inline unsigned elem_bytes(int32_t t) {
  switch (t) {
    case nn::FLOAT32:
    case nn::TENSOR_FLOAT32:
    case nn::INT32:
    case nn::TENSOR_INT32:
    case nn::UINT32: return 4;
    case nn::FLOAT16:
    case nn::TENSOR_FLOAT16:
    case nn::TENSOR_QUANT16_SYMM:
    case nn::TENSOR_QUANT16_ASYMM: return 2;
    case nn::BOOL:
    case nn::TENSOR_BOOL8:
    case nn::TENSOR_QUANT8_ASYMM:
    case nn::TENSOR_QUANT8_ASYMM_SIGNED:
    case nn::TENSOR_QUANT8_SYMM:
    case nn::TENSOR_QUANT8_SYMM_PER_CHANNEL: return 1;
    default: return 0;
  }
}
inline bool is_scalar_type(int32_t t) {
  return t == nn::FLOAT32 || t == nn::INT32 || t == nn::UINT32 || t == nn::BOOL || t == nn::FLOAT16 ||
         t == nn::SUBGRAPH;
}
inline bool is_quant(int32_t t) {
  return t == nn::TENSOR_QUANT8_ASYMM || t == nn::TENSOR_QUANT8_ASYMM_SIGNED || t == nn::TENSOR_QUANT8_SYMM ||
         t == nn::TENSOR_QUANT16_SYMM || t == nn::TENSOR_QUANT16_ASYMM;
}
inline bool is_floatt(int32_t t) {
  return t == nn::FLOAT32 || t == nn::TENSOR_FLOAT32 || t == nn::FLOAT16 || t == nn::TENSOR_FLOAT16;
}
inline bool is_int32t(int32_t t) { return t == nn::INT32 || t == nn::TENSOR_INT32; }
inline bool is_boolt(int32_t t) { return t == nn::BOOL || t == nn::TENSOR_BOOL8; }
inline std::pair<double, double> quant_range(int32_t t) {
  switch (t) {
    case nn::TENSOR_QUANT8_ASYMM: return {0, 255};
    case nn::TENSOR_QUANT16_ASYMM: return {0, 65535};
    case nn::TENSOR_QUANT16_SYMM: return {-32768, 32767};
    default: return {-128, 127};
  }
}

inline std::string fmtd(double v) {
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
inline bool same_quant(const Info& a, const Info& b) { return a.type == b.type && a.scale == b.scale && a.zp == b.zp; }
inline std::string info_str(const Info& i) {
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

struct Exporter;
struct OpCall;
// A row of the table of lowerings: the AIDL operation name, the function, the ONNX op it becomes when it is one
// (`negate`: followed by Not).
struct NnLowering {
  std::string_view name;
  void (Exporter::*lower)(OpCall&);
  const char* onnx = nullptr;
  bool negate = false;
};
// One operation to lower: the frame it runs in (Exporter::stack[idx]), its row of the table, its label and its place.
// Its helpers read the operation's operands and report a problem at its place in the words every lowering uses.
struct OpCall {
  Exporter& x;
  size_t idx;
  const NnOperation& o;
  const NnLowering& row;
  const std::string L;      // "ADD#3": the stem of the ONNX node names
  const std::string where;  // the operation's place in problems
  bool wait = false;        // set when the lowering pushed a frame it must wait for (WHILE's condition)

  // The frame the operation runs in; the reference holds until a frame is pushed.
  Frame& frame() const;
  // A problem at the operation's place: "WHERE: what".
  void problem(const std::string& what) const;
  // Input k as a tensor (Exporter::tensor_in); nullptr after a problem.
  Val* in(size_t k) const;
  // Output k (Exporter::output); nullptr after a problem.
  Val* out(size_t k) const;
  // The operands most operations open with, each read only when the ones before it were: tensor inputs 0..n-1 into
  // `ins`, then, when `act` is given, input n as a fused activation code, then output 0 into `y`. False after the
  // first problem.
  bool operands(std::initializer_list<Val**> ins, Val*& y, int64_t* act = nullptr) const;
};
// The row of an operation code; nullptr when the export does not lower it (export_nnapi.cpp).
const NnLowering* lowering_of(int32_t type);
// The names of the table, in its order.
std::string supported_ops();

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

  void problem(const std::string& s);
  void note(const std::string& s);

  std::string fresh(std::string base);

  // ---- ONNX building blocks
  onnx::NodeProto* node(Frame& f, const std::string& type, const std::vector<std::string>& ins, const std::string& out,
                        const std::string& name);
  static void attr_i(onnx::NodeProto* n, const std::string& name, int64_t v);
  static onnx::GraphProto* attr_g(onnx::NodeProto* n, const std::string& name);

  std::string initializer(const std::string& base, onnx::TensorProto t);
  // Generated constants, shared by content.
  std::string cst(const std::string& key, const std::function<onnx::TensorProto()>& make);
  std::string cst_double(double v);
  std::string cst_scalar(int elem, double v);
  std::string cst_i64s(const std::vector<int64_t>& v);
  std::string cst_empty_i64();

  // ---- operand bytes
  const NnSubgraph& sg(int g) const { return d.subgraphs[g]; }

  // The bytes of a constant operand, or nullopt with the reason in `err`.
  std::optional<std::string> const_bytes(int g, int k, std::string& err);

  std::optional<std::vector<int64_t>> const_ints(int g, int k);

  std::string op_where(const Frame& f, size_t i, int32_t type) const;

  // Materializes a constant as a main-graph initializer (once per operand).
  std::string materialize(Val& v, const std::string& where);

  // ---- value info
  void set_type(onnx::ValueInfoProto* vi, int32_t type, const std::vector<uint32_t>* dims, const std::string& name);
  static bool fully_known(const std::vector<uint32_t>& dims, int32_t type);

  static Info decl_info(const NnOperand& o);

  // ---- conversions (executor semantics)
  // The value as double: (q - zp) * scale for quantized types, the number itself otherwise.
  std::string to_real(Frame& f, const std::string& name, const Info& in, const std::string& label);
  // From double to the output's type: nearbyint(v / scale) + zp clamped for quantized types; a cast otherwise.
  bool from_real(Frame& f, const std::string& x0, const Info& out, const std::string& out_name,
                 const std::string& label, const std::string& where);
  // Fused activation on a value of ONNX element type `elem`.
  std::string activation(Frame& f, const std::string& x, int64_t act, int elem, const std::string& out,
                         const std::string& label);

  static bool is(const OpCall& c, std::string_view name) { return c.row.name == name; }

  // ---- frames
  std::vector<Frame> stack;

  void run(Frame root);

  // Returns true when frame idx is finished. May push frames (then returns false to let them run first).
  bool step(size_t idx);

  void finish(Frame& f);

  // Input k of the operation as a value (problem when it has none).
  Val* input(Frame& f, const NnOperation& o, size_t k, const std::string& where);
  // A tensor input: materialized, not a SUBGRAPH / NO_VALUE.
  Val* tensor_in(Frame& f, const NnOperation& o, size_t k, const std::string& where);
  std::optional<int64_t> const_scalar(Frame& f, const NnOperation& o, size_t k, const std::string& where,
                                      const char* what);
  // Input k as a fused activation code: NONE, RELU, RELU1 or RELU6 (0-3); nullopt after a problem.
  std::optional<int64_t> fused_activation(Frame& f, const NnOperation& o, size_t k, const std::string& where);
  // Output k: its ONNX name (pre-assigned or fresh) and declared info.
  Val* output(Frame& f, const NnOperation& o, size_t k, const std::string& where);
  void written(Val* v) { v->has = true; }

  // Executes the lowering of operation f.cursor; returns false when it must wait for pushed frames.
  bool op(size_t idx);

  void arith(OpCall& c);

  void compare(OpCall& c);

  void logical(OpCall& c);

  void fully_connected(OpCall& c);

  void concatenation(OpCall& c);

  void slice(OpCall& c);

  bool subgraph_ok(Frame& f, int sub, const std::string& where, const char* what);

  Frame child(const Frame& f, int sub, onnx::GraphProto* target, std::string onnx_path, std::string prefix,
              std::string nn_path);

  void if_op(OpCall& call);

  void while_op(OpCall& c);
};

}  // namespace condlint::xport::nnapi_export
