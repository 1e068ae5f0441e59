// IR -> ONNX: If and Loop, whose bodies become ONNX graphs the driver fills later (children).
#include "export/export_ir_builder.hpp"

#include <limits>
#include <unordered_map>

namespace condlint::xport::ir_export {

bool IrExporter::lower_if(OpCall& c) { return translate_if(c.w, c.st, c.k, c.in, c.children, c.control_names); }

bool IrExporter::lower_tensor_iterator(OpCall& c) {
  c.problem(
      "TensorIterator is not exported (condlint's IR executor does not run it, so an export could not be checked)");
  return false;
}

bool IrExporter::translate_if(Work& w, GraphState& st, int k, const std::vector<std::string>& in,
                              std::vector<Work>& children, std::set<std::string>& control_names) {
  const int g = w.g;
  const Node& node = m_.node(g, k);
  auto it = ifs_.find({g, k});
  if (it == ifs_.end() || in.empty()) {
    problem(g, k, "If without bodies or condition");
    return false;
  }
  const IrIf& info = m_.ir->ifs[it->second];
  const char* roles[2] = {"then", "else"};
  struct Branch {
    std::map<int, std::string> bound;
    std::map<int, ElemType> bound_elem;
    std::vector<int> results;  // by If output
  } br[2];
  bool ok = true;
  const size_t n_out = node.outputs.size();
  if (n_out == 0) {
    problem(g, k, "If without outputs (an ONNX If has at least one)");
    return false;
  }
  for (int b = 0; b < 2; ++b) {
    const int body = info.body_graph[b];
    if (body < 0) {
      problem(g, k, std::string("If has no ") + roles[b] + "_body");
      ok = false;
      continue;
    }
    const auto& bnodes = m_.graphs[body].nodes;
    std::unordered_map<std::string, int> by_id;
    for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) by_id.emplace(bnodes[i].id, i);
    std::map<int64_t, int64_t> outs;  // external port id -> internal layer id (first wins), as the executor
    for (const auto& e : info.port_map[b]) {
      if (!e.has_external || !e.has_internal) continue;
      if (!e.is_input) {
        outs.emplace(e.external_port_id, e.internal_layer_id);
        continue;
      }
      if (e.external_port_id < 0 || e.external_port_id >= static_cast<int64_t>(in.size())) {
        problem(g, k,
                std::string(roles[b]) + "_port_map input external_port_id " + std::to_string(e.external_port_id) +
                    " is not an If input");
        ok = false;
        continue;
      }
      auto p = by_id.find(std::to_string(e.internal_layer_id));
      if (p == by_id.end() || bnodes[p->second].op != "Parameter") {
        problem(g, k,
                std::string(roles[b]) + "_port_map input internal_layer_id " + std::to_string(e.internal_layer_id) +
                    " is not a Parameter");
        ok = false;
        continue;
      }
      br[b].bound.emplace(p->second, in[e.external_port_id]);
      br[b].bound_elem.emplace(p->second, elem_in(st, node, static_cast<size_t>(e.external_port_id)));
    }
    for (const auto& [ext, internal] : outs) {
      if (ext < 0) continue;
      auto p = by_id.find(std::to_string(internal));
      if (p == by_id.end() || bnodes[p->second].op != "Result") {
        problem(g, k,
                std::string(roles[b]) + "_port_map output internal_layer_id " + std::to_string(internal) +
                    " is not a Result");
        ok = false;
        break;
      }
      if (br[b].results.size() < n_out) br[b].results.push_back(p->second);
    }
    if (br[b].results.size() < n_out) {
      problem(g, k,
              std::string(roles[b]) + " branch maps " + std::to_string(br[b].results.size()) +
                  " outputs, the If declares " + std::to_string(n_out));
      ok = false;
    }
  }
  if (!ok) return false;
  const std::string name = control_name(node, k, control_names);
  const int npath = sub_path(w.path, name);
  record_if(g, k, npath);
  std::string cond = in[0];
  if (elem_in(st, node, 0) != ElemType::Boolean) cond = cast(w.gp, cond, DT::Bool, node.display() + "_cond");
  // ONNX If wants a one-element condition; the IR executor accepts any one-element tensor too.
  auto* n = add(w.gp, "If", {cond}, st.names[k], name);
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* bg = a->mutable_g();
    bg->set_name(name + "_" + roles[b]);
    Work cw;
    cw.g = info.body_graph[b];
    cw.gp = bg;
    cw.path = sub_path(npath, roles[b]);
    cw.bound = std::move(br[b].bound);
    cw.bound_elem = std::move(br[b].bound_elem);
    for (size_t o = 0; o < n_out; ++o)
      cw.outs.push_back(
          {br[b].results[o], fresh(name + "_" + roles[b] + "_out" + std::to_string(o)), OutSpec::Plain, ""});
    children.push_back(std::move(cw));
  }
  return true;
}

// Layer `id` of the Loop's body when it is a `op`; -1 and a problem otherwise.
int IrExporter::loop_layer(int g, int k, const LoopPorts& lp, int64_t id, const char* op) {
  auto it = lp.by_id.find(id);
  if (it == lp.by_id.end() || m_.graphs[lp.body].nodes[it->second].op != op) {
    problem(g, k, "Loop port_map names layer " + std::to_string(id) + ", which is not a " + op + " of the body");
    return -1;
  }
  return it->second;
}

// The Loop's body and what its port map binds; false after a problem.
bool IrExporter::loop_ports(int g, int k, const std::vector<std::string>& in, LoopPorts& lp) {
  const Node& node = m_.node(g, k);
  lp.lm = m_.ir->loop_at(g, k);
  for (const auto& [role, gi] : node.bodies)
    if (role == "body") lp.body = gi;
  if (!lp.lm || lp.body < 0) {
    problem(g, k, "Loop without <body> or <port_map>");
    return false;
  }
  if (in.size() < 2) {
    problem(g, k, "Loop needs a trip count and an execution condition input");
    return false;
  }
  const auto& bnodes = m_.graphs[lp.body].nodes;
  for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) {
    int64_t id = 0;
    if (parse_int64(bnodes[i].id, id)) lp.by_id.emplace(id, i);
  }
  bool ok = true;
  auto layer = [&](int64_t id, const char* op) {
    const int r = loop_layer(g, k, lp, id, op);
    if (r < 0) ok = false;
    return r;
  };
  for (const auto& e : lp.lm->ins) {
    if (e.sliced) {
      problem(g, k, "Loop with a sliced input (axis) is not exported (the IR executor does not run it either)");
      return false;
    }
    if (e.ext < 0 || e.ext >= static_cast<int64_t>(in.size())) {
      problem(g, k, "Loop port_map input " + std::to_string(e.ext) + " is not a Loop input");
      return false;
    }
    const int p = layer(e.internal, "Parameter");
    if (p >= 0) lp.initial[p] = static_cast<size_t>(e.ext);
  }
  lp.iter_node = lp.lm->iter_layer >= 0 ? layer(lp.lm->iter_layer, "Parameter") : -1;
  lp.cond_node = lp.lm->cond_layer >= 0 ? layer(lp.lm->cond_layer, "Result") : -1;
  for (const auto& [from, to] : lp.lm->back) {
    const int r = layer(from, "Result"), p = layer(to, "Parameter");
    if (r >= 0 && p >= 0) lp.back_to[p] = r;
  }
  return ok;
}

// The ONNX Loop's trip count (int64 scalar; a negative IR trip count means "no limit") and its first condition.
std::pair<std::string, std::string> IrExporter::loop_trip_and_cond(OpCall& c) {
  onnx::GraphProto* gp = c.gp;
  const std::string& nm = c.nm;
  std::string trip = c.in[0];
  if (elem_in(c.st, c.node, 0) != ElemType::I64) trip = cast(gp, trip, DT::I64, nm + "_trip_i64");
  {
    const std::string shp = const_i64(gp, {}, {0}, nm + "_scalar_shape");
    const std::string ts = fresh(nm + "_trip_scalar");
    add(gp, "Reshape", {trip, shp}, {ts}, ts);
    const std::string zero = const_i64(gp, {0}, {}, nm + "_zero");
    const std::string big = const_i64(gp, {std::numeric_limits<int64_t>::max()}, {}, nm + "_no_limit");
    const std::string neg = fresh(nm + "_trip_negative");
    add(gp, "Less", {ts, zero}, {neg}, neg);
    trip = fresh(nm + "_trip");
    add(gp, "Where", {neg, big, ts}, {trip}, trip);
  }
  std::string cond = c.in[1];
  if (elem_in(c.st, c.node, 1) != ElemType::Boolean) cond = cast(gp, cond, DT::Bool, nm + "_cond_bool");
  {
    const std::string shp = const_i64(gp, {}, {0}, nm + "_cond_shape");
    const std::string cs = fresh(nm + "_cond");
    add(gp, "Reshape", {cond, shp}, {cs}, cs);
    cond = cs;
  }
  return {trip, cond};
}

// The Loop's outputs by the port map: a carried variable's last value is an Identity of the Loop's final value;
// the others are scan outputs, returned in `posts`. False after a problem.
bool IrExporter::loop_outputs(OpCall& c, const LoopPorts& lp, const std::vector<std::pair<int, int>>& carried,
                              const std::vector<std::string>& lout, std::vector<LoopPost>& posts) {
  const Node& node = c.node;
  std::vector<bool> mapped(node.outputs.size(), false);
  for (const auto& o : lp.lm->outs) {
    int pos = -1;
    for (size_t j = 0; j < node.outputs.size(); ++j)
      if (node.outputs[j].id == std::to_string(o.ext)) pos = static_cast<int>(j);
    if (pos < 0 && o.ext >= 0 && o.ext < static_cast<int64_t>(node.outputs.size())) pos = static_cast<int>(o.ext);
    if (pos < 0) {
      c.problem("Loop port_map output " + std::to_string(o.ext) + " is not a Loop output");
      return false;
    }
    const int r = loop_layer(c.g, c.k, lp, o.internal, "Result");
    if (r < 0) return false;
    mapped[pos] = true;
    if (!o.axis) {
      // The last value: a carried variable when the Result feeds a back edge (zero iterations give the initial
      // value, as the executor does), else the last element of a scan output.
      int found = -1;
      for (size_t i = 0; i < carried.size(); ++i)
        if (carried[i].second == r) found = static_cast<int>(i);
      if (found >= 0) {
        if (!c.outs[pos].empty())
          add(c.gp, "Identity", {lout[found]}, {c.outs[pos]}, c.nm + "_out" + std::to_string(pos));
        continue;
      }
    }
    posts.push_back({0, pos, o.axis, r});
  }
  for (size_t j = 0; j < mapped.size(); ++j)
    if (!mapped[j]) {
      c.problem("Loop output " + std::to_string(j) + " is not mapped by the port map");
      return false;
    }
  return true;
}

// A scan output after the Loop: the last element, or the IR concatenation along `axis`. False after a problem.
bool IrExporter::loop_scan_output(OpCall& c, const LoopPorts& lp, const LoopPost& p, const std::string& s) {
  onnx::GraphProto* gp = c.gp;
  const std::string& nm = c.nm;
  const std::string& out = c.outs[p.pos];
  if (!p.axis) {
    // Gather of index -1 fails on zero iterations, as the executor does ("no initial value").
    set_i(add(gp, "Gather", {s, const_i64(gp, {-1}, {}, nm + "_last")}, {out}, nm + "_last_value"), "axis", 0);
    return true;
  }
  const Node& rn = m_.graphs[lp.body].nodes[p.result];
  auto rs = rn.inputs.empty() ? std::nullopt : port_shape(rn.inputs[0]);
  if (!rs) {
    c.problem("Loop output " + std::to_string(p.pos) + " concatenates along axis " + std::to_string(*p.axis) +
              " values of unknown rank (Result '" + rn.display() + "')");
    return false;
  }
  const int64_t r = static_cast<int64_t>(rs->dims.size());
  int64_t ax = *p.axis < 0 ? *p.axis + r : *p.axis;
  if (ax < 0 || ax >= r) {
    c.problem("Loop output axis " + std::to_string(*p.axis) + " is out of range for rank " + std::to_string(r));
    return false;
  }
  // stacked [N, d0..] -> [d0..d(ax-1), N, d(ax)..] -> merge N with d(ax).
  std::vector<int64_t> perm;
  for (int64_t d = 1; d <= ax; ++d) perm.push_back(d);
  perm.push_back(0);
  for (int64_t d = ax + 1; d <= r; ++d) perm.push_back(d);
  const std::string t = fresh(nm + "_scan_T");
  set_ints(add(gp, "Transpose", {s}, {t}, t), "perm", perm);
  const std::string shp = fresh(nm + "_scan_shape");
  add(gp, "Shape", {t}, {shp}, shp);
  auto slice = [&](int64_t b, int64_t e, const std::string& hint) {
    const std::string o = fresh(hint);
    add(gp, "Slice", {shp, const_i64(gp, {b}, {1}, hint + "_b"), const_i64(gp, {e}, {1}, hint + "_e")}, {o}, o);
    return o;
  };
  const std::string head = slice(0, ax, nm + "_head"), nd = slice(ax, ax + 1, nm + "_n"),
                    dd = slice(ax + 1, ax + 2, nm + "_d"), tail = slice(ax + 2, r + 1, nm + "_tail");
  const std::string prod = fresh(nm + "_merged");
  add(gp, "Mul", {nd, dd}, {prod}, prod);
  const std::string ns = fresh(nm + "_concat_shape");
  set_i(add(gp, "Concat", {head, prod, tail}, {ns}, ns), "axis", 0);
  add(gp, "Reshape", {t, ns}, {out}, nm + "_concat");
  note(
      "Loop concatenated outputs are exported as ONNX scan outputs reshaped; with zero iterations ONNX gives an "
      "empty tensor where OpenVINO fails");
  return true;
}

// An IR Loop as an ONNX Loop: the body's inputs are the iteration number, the condition and one per carried
// Parameter; its outputs the condition, the carried values and the scan outputs.
bool IrExporter::lower_loop(OpCall& c) {
  const int g = c.g, k = c.k;
  const std::vector<std::string>& in = c.in;
  const std::string& nm = c.nm;
  LoopPorts lp;
  if (!loop_ports(g, k, in, lp)) return false;
  const auto& bnodes = m_.graphs[lp.body].nodes;
  const std::string name = control_name(c.node, k, c.control_names);
  const int npath = sub_path(c.w.path, name);
  const auto [trip, cond] = loop_trip_and_cond(c);
  Work cw;
  cw.g = lp.body;
  cw.path = sub_path(npath, "body");
  std::vector<std::string> loop_ins{trip, cond};
  auto* lnode = add(c.gp, "Loop", {}, {}, name);
  auto* a = lnode->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* bg = a->mutable_g();
  bg->set_name(name + "_body");
  cw.gp = bg;
  const std::string iter_in = fresh(nm + "_iter"), cond_in = fresh(nm + "_cond_in");
  {
    auto* vi = bg->add_input();
    vi->set_name(iter_in);
    set_type(*vi, ElemType::I64, Shape::scalar());
    vi = bg->add_input();
    vi->set_name(cond_in);
    set_type(*vi, ElemType::Boolean, Shape::scalar());
  }
  if (lp.iter_node >= 0) {
    const Node& it = bnodes[lp.iter_node];
    const ElemType ie = it.outputs.empty() ? ElemType::I64 : it.outputs[0].type().elem;
    auto dt = dt_of(ie);
    if (!dt || ie == ElemType::I64) {
      cw.bound[lp.iter_node] = iter_in;
      cw.bound_elem[lp.iter_node] = ElemType::I64;
    } else {
      cw.bound[lp.iter_node] = cast(bg, iter_in, *dt, nm + "_iter_cast");
      cw.bound_elem[lp.iter_node] = ie;
    }
  }
  // Body outputs: condition first.
  if (lp.cond_node >= 0) cw.outs.push_back({lp.cond_node, fresh(nm + "_cond_out"), OutSpec::CondScalar, ""});
  else cw.outs.push_back({-1, fresh(nm + "_cond_out"), OutSpec::PassThrough, cond_in});
  std::vector<std::pair<int, int>> carried;  // (Parameter, Result)
  for (const auto& [p, r] : lp.back_to) {
    auto ini = lp.initial.find(p);
    if (ini == lp.initial.end()) {
      problem(g, k,
              "body Parameter '" + bnodes[p].display() + "' has a back edge but no initial value in the port map");
      return false;
    }
    const std::string vin = fresh(bnodes[p].display() + "_in");
    auto* vi = bg->add_input();
    vi->set_name(vin);
    const ElemType e = elem_in(c.st, c.node, ini->second);
    if (is_concrete(e) && dt_of(e)) set_type(*vi, e, std::nullopt);
    cw.bound[p] = vin;
    cw.bound_elem[p] = e;
    loop_ins.push_back(in[ini->second]);
    cw.outs.push_back({r, fresh(bnodes[p].display() + "_next"), OutSpec::Plain, ""});
    carried.emplace_back(p, r);
  }
  for (const auto& [p, ext] : lp.initial)
    if (!cw.bound.count(p)) {  // loop-invariant: read the outer value directly
      cw.bound[p] = in[ext];
      cw.bound_elem[p] = elem_in(c.st, c.node, ext);
    }
  // Loop outputs: carried finals, then scan outputs.
  std::vector<std::string> lout;
  for (const auto& [p, r] : carried) lout.push_back(fresh(nm + "_final_" + bnodes[p].display()));
  std::vector<LoopPost> posts;
  if (!loop_outputs(c, lp, carried, lout, posts)) return false;
  for (auto& p : posts) {
    p.scan = lout.size();
    lout.push_back(fresh(nm + "_scan" + std::to_string(p.pos)));
    cw.outs.push_back({p.result, fresh(nm + "_scan_out" + std::to_string(p.pos)), OutSpec::Plain, ""});
  }
  for (const auto& i : loop_ins) lnode->add_input(i);
  for (const auto& o : lout) lnode->add_output(o);
  for (const auto& p : posts)
    if (!loop_scan_output(c, lp, p, lout[p.scan])) return false;
  c.children.push_back(std::move(cw));
  return true;
}

}  // namespace condlint::xport::ir_export
