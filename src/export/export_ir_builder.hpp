// The OpenVINO IR exporter's state and building blocks, shared by its driver (export_ir.cpp: the walk over the
// graphs, one layer at a time) and the lowerings of its ops, one file per family (export_ir_ops_*.cpp). Each op is a
// row of IrExporter::lowerings(), a table by OpenVINO op name; the element-wise ops that are one ONNX op each come
// from exec/ir_onnx_ops, as in the IR executor.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "exec/ir_exec.hpp"
#include "exec/tensor.hpp"
#include "export/export.hpp"
#include "model/model.hpp"

namespace condlint::xport::ir_export {

using exec::DT;
using exec::dt_of;

// Why an element type has no export.
std::string no_onnx_type(ElemType e);
int64_t ir_version_for(int64_t opset);
bool parse_bool(const std::string& v, bool& out);
std::optional<std::vector<int64_t>> parse_int_list(const std::string& s);
// A declared shape worth writing into a ValueInfo: the port lists its dims.
std::optional<Shape> port_shape(const Port& p);
void set_type(onnx::ValueInfoProto& vi, ElemType e, const std::optional<Shape>& s);

class IrExporter {
 public:
  IrExporter(const Model& m, const ExportOptions& o, ExportResult& r);
  void run();

 private:
  struct OutSpec {
    int result = -1;
    std::string name;
    enum Kind { Plain, CondScalar, PassThrough } kind = Plain;
    std::string pass;  // PassThrough: the value to output
  };
  struct Work {
    int g = 0;
    onnx::GraphProto* gp = nullptr;
    int path = 0;  // ONNX path of the graph, as onnx_graph::find_ifs names it (an index into paths_)
    std::map<int, std::string> bound;  // Parameter node -> value name
    std::map<int, ElemType> bound_elem;
    std::vector<OutSpec> outs;
    bool main = false;
  };

  struct GraphState {
    std::vector<std::vector<std::string>> names;  // node -> output -> value name
    std::vector<std::vector<ElemType>> elems;     // node -> output -> element type (Unknown when not known)
  };

  // ---------- names, problems, helpers ----------
  std::string fresh(const std::string& hint);
  void problem(int g, int k, const std::string& why);
  void note(const std::string& s);
  ElemType param_elem(const Node& p) const;
  std::optional<Shape> param_shape(const Node& p) const;
  std::string attr(const Node& n, const std::string& name, const std::string& def) const;
  onnx::NodeProto* add(onnx::GraphProto* gp, const std::string& op, const std::vector<std::string>& ins,
                       const std::vector<std::string>& outs, const std::string& name);
  static void set_i(onnx::NodeProto* n, const std::string& name, int64_t v);
  static void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v);
  static void set_s(onnx::NodeProto* n, const std::string& name, const std::string& v);
  // A Constant node holding an int64 tensor (dims empty = scalar).
  std::string const_i64(onnx::GraphProto* gp, const std::vector<int64_t>& v, const std::vector<int64_t>& dims,
                        const std::string& hint);
  std::string const_scalar(onnx::GraphProto* gp, DT dt, int64_t v, const std::string& hint);
  std::string cast(onnx::GraphProto* gp, const std::string& x, DT to, const std::string& hint);
  // ---------- Const data ----------
  // Reads a Const's bytes from the .bin; "" and a problem on failure.
  bool const_proto(int g, int k, onnx::TensorProto& tp);
  // The integer values of a Const feeding input `i` of node k (small tensors only), or nullopt.
  std::optional<std::vector<int64_t>> const_ints(int g, int k, size_t i);
  ElemType elem_in(const GraphState& st, const Node& n, size_t i) const;
  // A value as int64 (Cast unless known i64) and, when `flat`, as a 1-D tensor.
  std::string as_i64(onnx::GraphProto* gp, GraphState& st, int g, int k, size_t i, const std::vector<std::string>& in,
                     bool flat, const std::string& hint);
  bool broadcast_ok(int g, int k);
  void build(Work& w, std::vector<Work>& children);
  // Layer k of w's graph, in topological order: its value names and element types in `st`, its ONNX nodes in w.gp.
  void build_layer(Work& w, GraphState& st, int k, std::vector<Work>& children, std::set<std::string>& control_names);
  // A body Parameter: the value its port map binds, with that value's element type (the IR executor does not
  // convert, so the bound type wins over the declared one).
  void bind_parameter(Work& w, GraphState& st, int k);
  // The ONNX names of layer k's inputs; false when one is not connected or its source could not be exported.
  bool input_names(const Work& w, const GraphState& st, int k, std::vector<std::string>& in);
  // The graph's outputs: pass-throughs, the Results' values, and a Loop body's condition as a boolean scalar.
  void add_outputs(Work& w, const GraphState& st);
  void problem_graph(int g, const std::string& why);
  // ONNX paths as a tree of segments: nesting can be thousands deep, so full paths are built only when listed.
  struct PathNode {
    int parent;
    std::string seg;
  };
  std::vector<PathNode> paths_;
  int sub_path(int parent, const std::string& seg) {
    paths_.push_back({parent, seg});
    return static_cast<int>(paths_.size()) - 1;
  }
  std::string full_path(int id) const;
  // Ifs deeper than diff's walk reaches cannot be pinned; they are not listed.
  static constexpr int kMaxListedDepth = 64;
  void record_if(int g, int k, int path_id) {
    if (m_.graphs[g].depth >= kMaxListedDepth) {
      note("Ifs nested deeper than " + std::to_string(kMaxListedDepth) +
           " levels are exported but not listed (pins cannot name them)");
      return;
    }
    r_.if_paths[m_.path_of(g, k)] = full_path(path_id);
  }
  std::string control_name(const Node& node, int k, std::set<std::string>& used);
  bool translate_if(Work& w, GraphState& st, int k, const std::vector<std::string>& in, std::vector<Work>& children,
                    std::set<std::string>& control_names);

  // ---------- ops ----------

  // What a lowering works on: layer k of w's graph with its input value names; it writes the ONNX nodes into gp, the
  // output names are `outs` (fresh, from the layer's name) and it sets the output element types it knows in `elems`.
  // Its helpers report a problem at the layer in the words every lowering uses.
  struct OpCall {
    IrExporter& x;
    Work& w;
    GraphState& st;
    int g, k;
    onnx::GraphProto* gp;
    const Node& node;
    const std::vector<std::string>& in;
    std::vector<std::string>& outs;
    std::vector<ElemType>& elems;
    const std::string nm;  // the layer's display name: the ONNX node's name and the stem of the values it adds
    std::vector<Work>& children;
    std::set<std::string>& control_names;

    void problem(const std::string& why) { x.problem(g, k, why); }
    // False with a problem when the layer does not have `count` inputs (`count` or `count + 1` when `or_one_more`).
    bool need(size_t count, bool or_one_more = false);
    // Output 0 takes input i's element type when its own is not known.
    void same_elem(size_t i);
    // The layer's attribute `name`, or `def` when it has none.
    std::string attr(const std::string& name, const std::string& def) const { return x.attr(node, name, def); }
    // The attribute `name` (`def` when absent) as a boolean, an integer or a list of integers; false with a problem
    // naming the attribute and its text when it is not one.
    bool bool_attr(const char* name, const char* def, bool& v);
    bool int_attr(const char* name, const char* def, int64_t& v);
    bool ints_attr(const char* name, std::vector<int64_t>& v);
    // A node in gp.
    onnx::NodeProto* add(const std::string& op, const std::vector<std::string>& ins,
                         const std::vector<std::string>& outs, const std::string& name) {
      return x.add(gp, op, ins, outs, name);
    }
    // The layer's own node: output 0 of the layer, named as the layer.
    onnx::NodeProto* add_out(const std::string& op, const std::vector<std::string>& ins) {
      return x.add(gp, op, ins, {outs[0]}, nm);
    }
    // The integer values of the Const feeding input i, or nullopt (IrExporter::const_ints).
    std::optional<std::vector<int64_t>> const_ints(size_t i) { return x.const_ints(g, k, i); }
    // Input i as a 1-D int64 tensor; the values it adds are named from the layer's name and `suffix`.
    std::string flat_i64(size_t i, const std::string& suffix) {
      return x.as_i64(gp, st, g, k, i, in, true, nm + suffix);
    }
  };
  // A lowering: true when the layer is exported; false after a problem naming the node.
  using Lowering = bool (IrExporter::*)(OpCall&);
  // The ops by OpenVINO name (export_ir.cpp).
  static const std::map<std::string_view, Lowering>& lowerings();

  bool translate(Work& w, GraphState& st, int k, const std::vector<std::string>& in, std::vector<Work>& children,
                 std::set<std::string>& control_names);

  // export_ir_ops_elementwise.cpp
  bool lower_binary(OpCall& c, const std::string& onnx_op);
  bool lower_unary(OpCall& c, const std::string& onnx_op);
  bool lower_const(OpCall& c);
  bool lower_not_equal(OpCall& c);
  bool lower_divide(OpCall& c);
  bool lower_select(OpCall& c);
  bool lower_convert(OpCall& c);
  bool lower_round(OpCall& c);
  // An op that is one ONNX op with an integer attribute `axis` (default `def`) and input 0's element type.
  bool lower_with_axis(OpCall& c, const std::string& onnx_op, const char* def);
  // A note that `op` (in its `mode`, when it has one) is exported as `onnx_op`, which the IR executor cannot check.
  void note_unchecked(const std::string& op, const std::string& mode, const std::string& onnx_op);
  // export_ir_ops_shape.cpp
  bool lower_concat(OpCall& c);
  bool lower_reshape(OpCall& c);
  bool lower_squeeze(OpCall& c);
  bool lower_shape_of(OpCall& c);
  bool lower_gather(OpCall& c);
  bool lower_strided_slice(OpCall& c);
  bool lower_transpose(OpCall& c);
  bool lower_broadcast(OpCall& c);
  // export_ir_ops_compute.cpp
  bool lower_matmul(OpCall& c);
  bool lower_reduce(OpCall& c);
  bool lower_softmax(OpCall& c);
  bool lower_convolution(OpCall& c);
  // export_ir_ops_control.cpp
  bool lower_if(OpCall& c);
  bool lower_loop(OpCall& c);
  // What a Loop's port map binds, checked (loop_ports).
  struct LoopPorts {
    const IrLoop* lm = nullptr;
    int body = -1;
    std::unordered_map<int64_t, int> by_id;  // body layer id -> node
    std::map<int, size_t> initial;           // body Parameter -> Loop input index
    int iter_node = -1, cond_node = -1;
    std::map<int, int> back_to;  // Parameter -> Result (last wins, as the executor assigns in order)
  };
  // A Loop output that is a scan output of the ONNX Loop: `scan` indexes the ONNX Loop's outputs.
  struct LoopPost {
    size_t scan;
    int pos;
    std::optional<int64_t> axis;
    int result;
  };
  int loop_layer(int g, int k, const LoopPorts& lp, int64_t id, const char* op);
  bool loop_ports(int g, int k, const std::vector<std::string>& in, LoopPorts& lp);
  std::pair<std::string, std::string> loop_trip_and_cond(OpCall& c);
  bool loop_outputs(OpCall& c, const LoopPorts& lp, const std::vector<std::pair<int, int>>& carried,
                    const std::vector<std::string>& lout, std::vector<LoopPost>& posts);
  bool loop_scan_output(OpCall& c, const LoopPorts& lp, const LoopPost& p, const std::string& s);
  bool lower_tensor_iterator(OpCall& c);

  const Model& m_;
  const ExportOptions& o_;
  ExportResult& r_;
  std::map<std::pair<int, int>, size_t> consts_, ifs_;
  std::unordered_set<std::string> used_;
  int64_t counter_ = 0;
};

}  // namespace condlint::xport::ir_export
