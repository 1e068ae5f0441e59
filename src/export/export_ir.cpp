// OpenVINO IR -> ONNX. The IR is read with the lint loader (load_ir), as the IR executor reads it
// (src/exec/ir_exec.cpp), and every op is translated into ONNX nodes that compute exactly what the IR
// executor computes. What has no exact ONNX form becomes a problem naming the node; no model is written then.
//
// Graphs are translated with an explicit work stack (bodies can nest thousands deep): an If or Loop creates
// its body GraphProtos and queues them; protobuf keeps sub-messages at stable addresses, so the queued
// pointers stay valid while the parent graph grows.
#include <algorithm>
#include <algorithm>

#include "exec/ir_onnx_ops.hpp"
#include "exec/onnx_io.hpp"
#include "export/export_ir_builder.hpp"
#include "loaders/loader.hpp"
#include "model/graph_order.hpp"
#include "onnx_graph/if_sites.hpp"

namespace condlint::xport::ir_export {

IrExporter::IrExporter(const Model& m, const ExportOptions& o, ExportResult& r) : m_(m), o_(o), r_(r) {
  for (size_t k = 0; k < m.ir->consts.size(); ++k) consts_[{m.ir->consts[k].graph, m.ir->consts[k].node}] = k;
  for (size_t k = 0; k < m.ir->ifs.size(); ++k) ifs_[{m.ir->ifs[k].graph, m.ir->ifs[k].node}] = k;
}

void IrExporter::run() {
  auto& model = r_.model;
  model.set_ir_version(ir_version_for(o_.opset));
  model.set_producer_name("condlint");
  model.set_producer_version(CONDLINT_VERSION);
  auto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(o_.opset);
  auto* g = model.mutable_graph();
  g->set_name("main");
  g->set_doc_string("exported by condlint from the OpenVINO IR " + m_.path);
  Work w;
  w.g = 0;
  w.gp = g;
  paths_.push_back({-1, "main"});
  w.path = 0;
  w.main = true;
  const auto& nodes = m_.graphs[0].nodes;
  for (int k = 0; k < static_cast<int>(nodes.size()); ++k) {
    if (nodes[k].op == "Parameter") {
      const Node& p = nodes[k];
      const std::string name = fresh(p.display());
      w.bound[k] = name;
      auto* vi = g->add_input();
      vi->set_name(name);
      ElemType e = param_elem(p);
      if (!is_concrete(e)) problem(0, k, "Parameter has no element type; an ONNX graph input needs one");
      else if (!dt_of(e)) problem(0, k, no_onnx_type(e));
      else {
        const auto shape = param_shape(p);
        set_type(*vi, e, shape);
        if (!shape || !shape->rank_known)
          note("input '" + name +
               "' has a dynamic rank; ONNX states that by leaving out the shape (runtimes accept "
               "it, onnx.checker wants a rank on main-graph inputs)");
      }
    } else if (nodes[k].op == "Result") {
      w.outs.push_back({k, fresh(nodes[k].display()), OutSpec::Plain, ""});
    }
  }
  std::vector<Work> stack;
  stack.push_back(std::move(w));
  while (!stack.empty()) {
    Work cur = std::move(stack.back());
    stack.pop_back();
    std::vector<Work> children;
    build(cur, children);
    for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back(std::move(*c));
  }
}

void IrExporter::build(Work& w, std::vector<Work>& children) {
  const int g = w.g;
  const auto& nodes = m_.graphs[g].nodes;
  const int n = static_cast<int>(nodes.size());
  GraphState st;
  st.names.resize(n);
  st.elems.resize(n);
  // Topological order, as the IR executor runs it (lowest ready index first).
  const std::vector<int> order = topological_order(m_, g, /*self_loop_blocks=*/false);
  std::set<std::string> control_names;  // If/Loop node names in this graph (paths must be unique)
  for (const int k : order) build_layer(w, st, k, children, control_names);
  if (static_cast<int>(order.size()) != n)
    problem_graph(g, "the graph has a cycle; " + std::to_string(n - static_cast<int>(order.size())) +
                         " layers never become ready");
  add_outputs(w, st);
}

// Layer k of w's graph, in topological order: its value names and element types in `st`, its ONNX nodes in w.gp.
void IrExporter::build_layer(Work& w, GraphState& st, int k, std::vector<Work>& children,
                             std::set<std::string>& control_names) {
  const int g = w.g;
  const Node& node = m_.graphs[g].nodes[k];
  st.names[k].assign(std::max<size_t>(node.outputs.size(), 1), "");
  st.elems[k].assign(st.names[k].size(), ElemType::Unknown);
  for (size_t o = 0; o < node.outputs.size(); ++o)
    if (node.outputs[o].type().kind == TypeDesc::Kind::Tensor) st.elems[k][o] = node.outputs[o].type().elem;
  // Declared element types ONNX cannot hold.
  bool type_bad = false;
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    const ElemType e = node.outputs[o].type().elem;
    if (node.outputs[o].type().kind == TypeDesc::Kind::Tensor && is_concrete(e) && !dt_of(e)) {
      problem(g, k, "output " + std::to_string(o) + ": " + no_onnx_type(e));
      type_bad = true;
    }
  }
  if (type_bad) return;
  if (node.op == "Parameter") {
    bind_parameter(w, st, k);
    return;
  }
  std::vector<std::string> in;
  if (!input_names(w, st, k, in)) return;
  if (node.op == "Result") {
    if (in.empty()) {
      problem(g, k, "Result has no input");
      return;
    }
    st.names[k][0] = in[0];
    st.elems[k][0] = elem_in(st, node, 0);
    if (node.inputs.size() == 1 && node.inputs[0].type().kind == TypeDesc::Kind::Tensor &&
        is_concrete(node.inputs[0].type().elem) && !is_concrete(st.elems[k][0]))
      st.elems[k][0] = node.inputs[0].type().elem;
    return;
  }
  for (size_t o = 0; o < st.names[k].size(); ++o)
    st.names[k][o] = fresh(node.display() + (o ? ":" + std::to_string(o) : ""));
  const size_t before = r_.problems.size();
  if (!translate(w, st, k, in, children, control_names)) {
    if (r_.problems.size() == before) problem(g, k, "cannot be exported");
    for (auto& s : st.names[k]) s.clear();
    return;
  }
  // value_info: element types. Shapes only on the graphs' inputs and outputs: IR files state inner shapes
  // that nothing checks (hand-written bodies declare the concatenated shape inside a Loop body, say), and
  // ONNX shape inference would reject the model for a claim the computation never relied on.
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    const ElemType e = st.elems[k][o];
    if (!is_concrete(e) || !dt_of(e) || st.names[k][o].empty()) continue;
    auto* vi = w.gp->add_value_info();
    vi->set_name(st.names[k][o]);
    // An If's declared outputs are an interface the IR executor checks every branch against: keep them.
    set_type(*vi, e, node.op == "If" ? port_shape(node.outputs[o]) : std::nullopt);
  }
}

// A body Parameter: the value its port map binds, with that value's element type (the IR executor does not
// convert, so the bound type wins over the declared one).
void IrExporter::bind_parameter(Work& w, GraphState& st, int k) {
  const Node& node = m_.graphs[w.g].nodes[k];
  auto it = w.bound.find(k);
  if (it == w.bound.end()) {
    problem(w.g, k, "body Parameter is not bound by the port map (the IR executor cannot run this body either)");
    return;
  }
  st.names[k][0] = it->second;
  ElemType e = param_elem(node);
  if (auto be = w.bound_elem.find(k); be != w.bound_elem.end() && is_concrete(be->second)) e = be->second;
  st.elems[k][0] = e;
}

// The ONNX names of layer k's inputs; false when one is not connected or its source could not be exported.
bool IrExporter::input_names(const Work& w, const GraphState& st, int k, std::vector<std::string>& in) {
  const int g = w.g;
  const auto& nodes = m_.graphs[g].nodes;
  const int n = static_cast<int>(nodes.size());
  const Node& node = nodes[k];
  for (size_t i = 0; i < node.sources.size(); ++i) {
    const ValueRef& s = node.sources[i];
    if (!s.valid() || s.graph != g || s.node >= n || s.node == k) {
      problem(g, k, "input " + std::to_string(i) + " is not connected");
      return false;
    }
    if (s.output >= static_cast<int>(st.names[s.node].size()) || st.names[s.node][s.output].empty()) {
      // The source could not be exported (its problem is reported) or has no such output.
      if (s.output >= static_cast<int>(std::max<size_t>(nodes[s.node].outputs.size(), 1)))
        problem(g, k,
                "input " + std::to_string(i) + " reads output " + std::to_string(s.output) + " of " +
                    nodes[s.node].display() + ", which has no such output");
      return false;
    }
    in.push_back(st.names[s.node][s.output]);
  }
  return true;
}

// The graph's outputs: pass-throughs, the Results' values, and a Loop body's condition as a boolean scalar.
void IrExporter::add_outputs(Work& w, const GraphState& st) {
  const int g = w.g;
  onnx::GraphProto* gp = w.gp;
  const auto& nodes = m_.graphs[g].nodes;
  const int n = static_cast<int>(nodes.size());
  for (const auto& os : w.outs) {
    if (os.kind == OutSpec::PassThrough) {
      add(gp, "Identity", {os.pass}, {os.name}, os.name);
      gp->add_output()->set_name(os.name);
      continue;
    }
    if (os.result < 0 || os.result >= n || st.names[os.result].empty()) continue;  // never ran (a cycle): reported
    const std::string& v = st.names[os.result][0];
    if (v.empty()) continue;  // reported
    auto* out = gp->add_output();
    out->set_name(os.name);
    if (os.kind == OutSpec::CondScalar) {
      const std::string b = cast(gp, v, DT::Bool, os.name + "_bool");
      const std::string shp = const_i64(gp, {}, {0}, os.name + "_scalar_shape");
      add(gp, "Reshape", {b, shp}, {os.name}, os.name);
      set_type(*out, ElemType::Boolean, Shape::scalar());
      continue;
    }
    add(gp, "Identity", {v}, {os.name}, os.name);
    const ElemType e = st.elems[os.result][0];
    const Node& rn = nodes[os.result];
    if (is_concrete(e) && dt_of(e)) set_type(*out, e, rn.inputs.empty() ? std::nullopt : port_shape(rn.inputs[0]));
    else if (w.main)
      problem(g, os.result, "the element type of this output is not known (an ONNX graph output needs one)");
  }
}

// Layer k by its op: the element-wise ops of exec/ir_onnx_ops, then the table.
bool IrExporter::translate(Work& w, GraphState& st, int k, const std::vector<std::string>& in,
                           std::vector<Work>& children, std::set<std::string>& control_names) {
  const Node& node = m_.node(w.g, k);
  OpCall c{*this, w, st, w.g, k, w.gp, node, in, st.names[k], st.elems[k], node.display(), children, control_names};
  static const std::set<std::string> boolean_out{"Equal",        "NotEqual",   "Less",      "Greater",    "LessEqual",
                                                 "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "LogicalNot"};
  if (boolean_out.count(node.op) && !is_concrete(c.elems[0])) c.elems[0] = ElemType::Boolean;
  if (auto it = exec::ir_binary_ops().find(node.op); it != exec::ir_binary_ops().end())
    return lower_binary(c, it->second);
  if (auto it = exec::ir_unary_ops().find(node.op); it != exec::ir_unary_ops().end()) return lower_unary(c, it->second);
  if (auto it = lowerings().find(node.op); it != lowerings().end()) return (this->*(it->second))(c);
  problem(w.g, k,
          "op " + node.op + (node.version.empty() ? "" : " (" + node.version.str() + ")") +
              " has no ONNX export (condlint's IR executor does not run it either)");
  return false;
}

const std::map<std::string_view, IrExporter::Lowering>& IrExporter::lowerings() {
  static const std::map<std::string_view, Lowering> table = {
      {"Const", &IrExporter::lower_const},
      {"Constant", &IrExporter::lower_const},
      {"NotEqual", &IrExporter::lower_not_equal},
      {"Divide", &IrExporter::lower_divide},
      {"Select", &IrExporter::lower_select},
      {"Convert", &IrExporter::lower_convert},
      {"Round", &IrExporter::lower_round},
      {"Concat", &IrExporter::lower_concat},
      {"Reshape", &IrExporter::lower_reshape},
      {"Squeeze", &IrExporter::lower_squeeze},
      {"Unsqueeze", &IrExporter::lower_squeeze},
      {"ShapeOf", &IrExporter::lower_shape_of},
      {"Gather", &IrExporter::lower_gather},
      {"StridedSlice", &IrExporter::lower_strided_slice},
      {"Transpose", &IrExporter::lower_transpose},
      {"Broadcast", &IrExporter::lower_broadcast},
      {"MatMul", &IrExporter::lower_matmul},
      {"ReduceSum", &IrExporter::lower_reduce},
      {"ReduceMean", &IrExporter::lower_reduce},
      {"ReduceMax", &IrExporter::lower_reduce},
      {"ReduceMin", &IrExporter::lower_reduce},
      {"ReduceProd", &IrExporter::lower_reduce},
      {"Softmax", &IrExporter::lower_softmax},
      {"SoftMax", &IrExporter::lower_softmax},  // opset8, as OpenVINO writes it
      {"Convolution", &IrExporter::lower_convolution},
      {"If", &IrExporter::lower_if},
      {"Loop", &IrExporter::lower_loop},
      {"TensorIterator", &IrExporter::lower_tensor_iterator},
  };
  return table;
}

}  // namespace condlint::xport::ir_export

namespace condlint::xport {

ExportResult export_ir(const Model& loaded, const fs::path& xml, const ExportOptions& o) {
  ExportResult r;
  if (o.opset < 13 || o.opset > 21) {
    r.problems.push_back("opset " + std::to_string(o.opset) + ": the IR export writes opsets 13 to 21");
    return r;
  }
  const Model* model = &loaded;
  if (!model->ir) {
    r.error = xml.string() + ": not an OpenVINO IR";
    r.problems.push_back(r.error);
    return r;
  }
  for (const auto& p : model->ir->problems)
    if (p.kind != IrProblem::Kind::BadAttribute) {
      r.error = xml.string() + ": " + p.message;
      r.problems.push_back(r.error);
      return r;
    }
  if (model->graphs.empty()) {
    r.error = xml.string() + ": no graph";
    r.problems.push_back(r.error);
    return r;
  }
  try {
    ir_export::IrExporter(*model, o, r).run();
  } catch (const std::exception& e) {
    r.problems.push_back(std::string("internal error: ") + e.what());
  }
  if (!r.problems.empty()) return r;
  if (!o.pins.empty()) {
    std::map<std::string, bool> pins;
    for (const auto& [path, v] : o.pins) {
      auto it = r.if_paths.find(path);
      if (it == r.if_paths.end()) {
        r.problems.push_back("pin '" + path + "' names no If of the model (its Ifs: " + [&] {
          std::string s;
          for (const auto& [p, _] : r.if_paths) s += (s.empty() ? "" : ", ") + p;
          return s.empty() ? std::string("none") : s;
        }() + ")");
        continue;
      }
      pins[it->second] = v;
    }
    if (!r.problems.empty()) return r;
    onnx::ModelProto pinned;
    if (auto e = onnx_graph::pin_model(r.model, pins, pinned); !e.empty()) {
      r.problems.push_back("cannot pin: " + e);
      return r;
    }
    r.model = std::move(pinned);
    r.notes.push_back("pinned: " + onnx_graph::pins_label(o.pins));
  }
  return r;
}

}  // namespace condlint::xport
