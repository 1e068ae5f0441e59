// NNAPI -> ONNX: IF and WHILE, whose referenced subgraphs become frames of their own (instances).
#include "export/export_nnapi_builder.hpp"

#include <algorithm>

namespace condlint::xport::nnapi_export {

bool Exporter::subgraph_ok(Frame& f, int sub, const std::string& where, const char* what) {
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

Frame Exporter::child(const Frame& f, int sub, onnx::GraphProto* target, std::string onnx_path, std::string prefix,
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

void Exporter::if_op(OpCall& call) {
  Frame& f = stack[call.idx];
  const NnOperation& o = call.o;
  const std::string &L = call.L, &where = call.where;
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

void Exporter::while_op(OpCall& c) {
  Frame* f = &stack[c.idx];
  const NnOperation& o = c.o;
  const std::string &L = c.L, &where = c.where;
  has_while = true;
  if (o.inputs.size() < 2) return problem(where + ": WHILE needs a condition and a body");
  Val* cg = input(*f, o, 0, where);
  Val* bg = cg ? input(*f, o, 1, where) : nullptr;
  if (!bg) return;
  const std::string nn_w = f->nn_path + "/" + L;
  const std::string onnx_w = f->onnx_path + "/" + f->prefix + L;
  if (!subgraph_ok(*f, cg->info.subgraph, where, "condition") || !subgraph_ok(*f, bg->info.subgraph, where, "body"))
    return;
  const NnSubgraph& body = sg(bg->info.subgraph + 1);
  const size_t nv = o.inputs.size() - 2, m = o.outputs.size(), mk = body.output_indexes.size();
  if (mk < m || mk > nv)
    return problem(where + ": the body has " + std::to_string(mk) + " outputs; the WHILE has " + std::to_string(m) +
                   " outputs and " + std::to_string(nv) + " values");
  std::vector<Val> init;
  for (size_t k = 0; k < nv; ++k) {
    Val* v = tensor_in(*f, o, k + 2, where);
    if (!v) return;
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
    c.wait = true;
    return;
  }
  std::vector<Val*> outs;
  for (size_t k = 0; k < m; ++k) {
    Val* y = output(*f, o, k, where);
    if (!y) return;
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
  set_type(b->add_input(), nn::INT32, &none, iter);
  b->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  set_type(b->add_input(), nn::BOOL, &none, cin);
  set_type(b->add_output(), nn::BOOL, &none, cout);
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
  return;
}

}  // namespace condlint::xport::nnapi_export
