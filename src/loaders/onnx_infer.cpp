// ONNX loader, inference: each node's output types from onnx's per-node inference (results kept per node pattern),
// from the facts of a newer definition (Judge), through a model-local function's body, or for If, Loop and Scan from
// their subgraphs; a declared type compared with what its node computes (ONNX007, ONNX008).
#include "loaders/onnx_builder.hpp"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>

#include "loaders/onnx_newer_inference.hpp"

namespace condlint::onnx_build {

// The shape of the tensor inside a sequence or optional (or of the tensor itself), for messages.
std::string inner_shape_str(const onnx::TypeProto& t) {
  const onnx::TypeProto* p = &t;
  for (int depth = 0; depth < 32 && p; ++depth) {
    if (p->has_sequence_type()) p = p->sequence_type().has_elem_type() ? &p->sequence_type().elem_type() : nullptr;
    else if (p->has_optional_type()) p = p->optional_type().has_elem_type() ? &p->optional_type().elem_type() : nullptr;
    else break;
  }
  return p ? onnx_shape(*p).str() : std::string("?");
}

// Types the outputs of node n (inferred, refined by what the file declares where the two agree) and defines them in
// graph g's scope.
void OnnxBuilder::finish_node(int g, int n) {
  const onnx::NodeProto& np = gi_[g].proto->node(n);
  std::vector<const onnx::TypeProto*>& inferred = inferred_scratch_;  // finish_node does not nest
  inferred.assign(static_cast<size_t>(np.output_size()), nullptr);
  const InputState in = input_state(g, n, np);
  std::vector<char> tainted(static_cast<size_t>(np.output_size()), in.tainted ? 1 : 0);
  const bool has_bodies = !model_->graphs[g].nodes[n].bodies.empty();
  bool beyond_onnx = in.beyond_onnx;
  bool failed = in.tainted;
  if (!has_bodies) {
    bool call_failed = false;
    if (type_call(g, n, np, in, inferred, call_failed) ? call_failed : infer(g, n, np, in, inferred)) failed = true;
    if (failed) std::fill(tainted.begin(), tainted.end(), 1);
  } else {
    infer_control_flow(g, n, np, inferred, tainted, beyond_onnx);
  }
  const int64_t here = int64_t(g) << 32 | n;
  Node& node = model_->graphs[g].nodes[n];
  node.outputs.reserve(np.output_size());
  onnx::TypeProto refined;
  for (int k = 0; k < np.output_size(); ++k) {
    const std::string& name = np.output(k);
    const onnx::TypeProto* decl = name.empty() ? nullptr : declared_type(g, name);
    const onnx::TypeProto* type = decl ? decl : inferred[k];
    bool bad = tainted[k] != 0;
    // An If's declared outputs are compared with its branches by the generic rules (C007, C010).
    // (Sequences and optionals are compared here: those rules see only a tensor's shape.)
    const bool is_if =
        has_bodies && if_at_.count(here) && decl && (decl->has_tensor_type() || decl->has_sparse_tensor_type());
    if (decl && inferred[k] && !name.empty() && decl != inferred[k] && !is_if) {
      const TypeDesc dt = onnx_type_desc(*decl), it = onnx_type_desc(*inferred[k]);
      const Shape ds = onnx_shape(*decl), is = onnx_shape(*inferred[k]);
      using Differs = OnnxDeclaredVsComputed::Differs;
      std::optional<OnnxDeclaredVsComputed> c;
      auto differs = [&](Differs d, std::string declared, std::string computed) {
        c.emplace();
        c->differs = d;
        c->declared = std::move(declared);
        c->computed = std::move(computed);
      };
      if (!same_type(dt, it)) {
        differs(Differs::Type, dt.str(), it.str());
      } else if (!compatible(ds, is)) {
        differs(Differs::Shape, ds.str(), is.str());
      } else if (onnx_type_depth(*decl) <= kMaxInferTypeDepth && onnx_type_depth(*inferred[k]) <= kMaxInferTypeDepth &&
                 !refine_onnx_type(*inferred[k], *decl, refined)) {
        differs(Differs::ElementShape, dt.str(), it.str());
        c->declared_element_shape = inner_shape_str(*decl);
        c->computed_element_shape = inner_shape_str(*inferred[k]);
      }
      if (c) {
        c->graph = g;
        c->node = n;
        c->output = k;
        c->name = name;
        c->rests_on_reported = bad;  // one root cause, one finding: ONNX007 leaves these out
        c->beyond_onnx = beyond_onnx;
        c->loc = loc(g, n);
        data_->declared_vs_computed.push_back(std::move(*c));
        type = inferred[k];
        bad = true;
      } else if (onnx_type_depth(*decl) <= kMaxInferTypeDepth && onnx_type_depth(*inferred[k]) <= kMaxInferTypeDepth &&
                 refine_onnx_type(*inferred[k], *decl, refined)) {
        type = intern(refined).tp;
      }
    }
    int id = -1;
    if (!name.empty()) {
      Value v;
      v.src = Value::NodeOutput;
      v.node = n;
      v.output = k;
      v.name = name;
      v.tp = type;
      v.tainted = bad;
      v.beyond_onnx = beyond_onnx;
      if (!type && !bad) v.unknown_root = in.unknown_root != -2 ? in.unknown_root : here;
      if (np.op_type() == "Constant" && k == 0)
        for (const auto& a : np.attribute())
          if (a.name() == "value" && a.has_t() && a.t().data_location() != onnx::TensorProto::EXTERNAL) {
            if (tensor_data_ok(a.t(), g, n, "")) v.data = &a.t();
            else v.tainted = true;
          }
      id = define(g, std::move(v), g > 0);
    }
    model_->graphs[g].nodes[n].outputs.push_back(port_of(name, id));
  }
  (void)node;
  if (const auto at = if_at_.find(here); at != if_at_.end()) build_view(static_cast<size_t>(at->second));
  follow_branches(g, n, np, failed);
}

bool OnnxBuilder::infer(int g, int n, const onnx::NodeProto& np, const InputState& in,
                        std::vector<const onnx::TypeProto*>& out_types) {
  // Never an older definition's inference for a node whose opset selects a newer one.
  if (const Judge& j = judge(np); j.kind != Judge::Linked) {
    if (j.kind == Judge::Facts) return facts_infer(g, n, np, in, *j.facts, out_types);
    uninferred_roots_.insert(int64_t(g) << 32 | n);
    return false;
  }
  const std::string& dom = np.domain();
  const std::string domain = dom == "ai.onnx" ? std::string() : dom;
  auto op = data_->opsets.find(domain);
  if (op == data_->opsets.end()) return false;
  // One registry lookup (and one copy of the inference function) per op type, not per node.
  std::string key = np.op_type();
  key += '\0';
  key += domain;
  auto cached = schema_cache_.find(key);
  if (cached == schema_cache_.end()) {
    const onnx::OpSchema* sc = onnx::OpSchemaRegistry::Schema(np.op_type(), static_cast<int>(op->second), domain);
    CachedSchema c{sc, {}, nullptr};
    if (sc && sc->has_type_and_shape_inference_function()) c.fn = sc->GetTypeAndShapeInferenceFunction();
    else if (sc && sc->HasFunction()) c.body = sc->GetFunction();  // GreaterOrEqual-12 and the like
    cached = schema_cache_.emplace(std::move(key), std::move(c)).first;
  }
  const onnx::OpSchema* schema = cached->second.schema;
  if (!schema || (!cached->second.fn && !cached->second.body)) return false;
  NodeContext& ctx = ctx_;
  ctx.reset(np);
  const Node& node = model_->graphs[g].nodes[n];
  ctx.in_types.reserve(np.input_size());
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) {
      ctx.in_types.push_back(nullptr);
      ctx.in_data.push_back(nullptr);
      continue;
    }
    const int id = input_id(g, n, np, i);
    if (id < 0 || !values_[id].tp) return false;  // an input of unknown type: nothing to infer from
    if (onnx_type_depth(*values_[id].tp) > kMaxInferTypeDepth) return false;  // onnx copies types recursively
    ctx.in_types.push_back(values_[id].tp);
    ctx.in_data.push_back(values_[id].data);
  }
  // The cache key: attributes that hold tensors or graphs make a node its own pattern (and a long key).
  bool cacheable = true;
  for (const auto& a : np.attribute())
    if (!a.ref_attr_name().empty()) {
      // A function's attribute its calls do not agree on: the operator would read its own default instead.
      uninferred_roots_.insert(int64_t(g) << 32 | n);
      return false;
    }
  for (const auto& a : np.attribute())
    if (a.has_t() || a.has_g() || a.has_sparse_tensor() || a.tensors_size() || a.graphs_size() ||
        a.sparse_tensors_size())
      cacheable = false;
  if (cacheable) {
    auto put = [this](const void* p) { infer_key_.append(reinterpret_cast<const char*>(&p), sizeof p); };
    infer_key_.clear();
    put(schema);
    put(reinterpret_cast<const void*>(ctx.n_out));
    for (size_t i = 0; i < ctx.in_types.size(); ++i) {
      put(ctx.in_types[i]);
      put(ctx.in_data[i]);
    }
    for (const auto& a : np.attribute()) {
      const size_t at = infer_key_.size();
      infer_key_.append(sizeof(size_t), '\0');
      a.AppendToString(&infer_key_);
      const size_t len = infer_key_.size() - at - sizeof(size_t);
      infer_key_.replace(at, sizeof(size_t), reinterpret_cast<const char*>(&len), sizeof len);
    }
    if (auto hit = inferred_.find(infer_key_); hit != inferred_.end()) {
      for (size_t k = 0; k < hit->second.size() && k < out_types.size(); ++k) out_types[k] = hit->second[k];
      return false;
    }
  }
  const char* step = "inference";
  try {
    if (cached->second.fn) {
      cached->second.fn(ctx);
    } else {
      // No inference function: onnx infers through the function body, and so does condlint.
      onnx::shape_inference::InferShapeForFunctionNode(*cached->second.body, onnx::OpSchemaRegistry::Instance(), ctx);
    }
    // The schema's type constraints, as onnx's strict inference checks them. Only for inputs of at most two levels
    // (tensor, sequence of tensor): onnx's check files every type string it sees in a process-wide table.
    bool shallow = true;
    for (const auto* t : ctx.in_types)
      if (t && onnx_type_depth(*t) > 2) shallow = false;
    if (shallow) {
      step = "type check";
      schema->CheckInputOutputType(ctx);
    }
  } catch (const std::exception& e) {
    // One root cause, one finding: a failure that rests on a reported problem is its consequence.
    if (!in.tainted) {
      std::string msg = e.what();
      if (auto cut = msg.find("\n"); cut != std::string::npos) msg.resize(cut);
      problem(PKind::InferenceFailed,
              node.op + " " + qname(node.name) + " in " + where(g) + " is invalid: onnx's " + np.op_type() + "-" +
                  std::to_string(schema->SinceVersion()) + " " + step + " fails: " + msg,
              loc(g, n));
    } else if (detached_failure_ && detached_failure_->empty()) {
      std::string msg = e.what();
      if (auto cut = msg.find("\n"); cut != std::string::npos) msg.resize(cut);
      *detached_failure_ = np.op_type() + " " + qname(np.name()) + ": onnx's " + np.op_type() + "-" +
                           std::to_string(schema->SinceVersion()) + " " + step + " fails: " + msg;
    }
    return true;
  }
  std::vector<const onnx::TypeProto*> result(ctx.n_out, nullptr);
  for (size_t k = 0; k < ctx.n_out; ++k)
    if (ctx.out[k]->value_case() != onnx::TypeProto::VALUE_NOT_SET) result[k] = intern(*ctx.out[k]).tp;
  for (size_t k = 0; k < result.size() && k < out_types.size(); ++k) out_types[k] = result[k];
  if (cacheable) inferred_.emplace(infer_key_, std::move(result));
  return false;
}

OnnxBuilder::Judge OnnxBuilder::judge_at(const std::string& op, const std::string& domain, int64_t version) {
  const std::string d = domain == "ai.onnx" ? std::string() : domain;
  const int newest = schema_facts::newest_opset(d);
  if (newest <= 0 || version <= 0) return {};  // a domain no onnx defines: nothing to compare
  if (version > newest) return {Judge::Unjudged, nullptr};
  const schema_facts::OpFacts* f = schema_facts::select(d, op, version);
  if (!f) return {};  // no definition in the newer onnx either: the linked onnx's verdict ("no operator") stands
  const onnx::OpSchema* old = onnx::OpSchemaRegistry::Schema(op, static_cast<int>(version), d);
  if (old && old->SinceVersion() >= f->since_version) return {};
  return {Judge::Facts, f};
}

const OnnxBuilder::Judge& OnnxBuilder::judge(const onnx::NodeProto& np) {
  judge_key_.assign(np.op_type()).append(1, '\0').append(np.domain());
  auto it = judges_.find(judge_key_);
  if (it == judges_.end()) {
    const std::string d = np.domain() == "ai.onnx" ? std::string() : np.domain();
    const auto imported = data_->opsets.find(d);
    Judge j = imported == data_->opsets.end() ? Judge{} : judge_at(np.op_type(), d, imported->second);
    it = judges_.emplace(judge_key_, j).first;
  }
  return it->second;
}

bool OnnxBuilder::facts_infer(int g, int n, const onnx::NodeProto& np, const InputState& in,
                              const schema_facts::OpFacts& f, std::vector<const onnx::TypeProto*>& out_types) {
  using namespace schema_facts;
  auto formal = [&](const Run& run, bool is_input, int k) -> const FormalFacts* {
    if (k < run.count) return is_input ? &input(f, k) : &output(f, k);
    if (run.count > 0) {
      const FormalFacts& last = is_input ? input(f, run.count - 1) : output(f, run.count - 1);
      if (last.option == kVariadic) return &last;
    }
    return nullptr;
  };
  auto constraint_of = [&](std::string_view name) -> const ConstraintFacts* {
    for (int c = 0; c < f.constraints.count; ++c)
      if (name == constraint(f, c).name) return &constraint(f, c);
    return nullptr;
  };
  auto allows = [](std::string_view list, std::string_view type) {
    for (size_t at = 0; at <= list.size();) {
      const size_t end = std::min(list.find(';', at), list.size());
      if (list.substr(at, end - at) == type) return true;
      at = end + 1;
    }
    return false;
  };
  // The type each constraint is bound to by the inputs (a variadic formal of mixed types binds nothing).
  std::vector<std::pair<std::string_view, std::string>> bound;
  std::string err;
  for (int i = 0; i < np.input_size() && err.empty(); ++i) {
    if (np.input(i).empty()) continue;
    const FormalFacts* p = formal(f.inputs, true, i);
    const int id = lookup(np.input(i));
    if (!p || id < 0 || !values_[id].tp) continue;  // the count is the checker's; an unknown type binds nothing
    const std::string type = onnx_type_string(*values_[id].tp);
    if (type.empty()) continue;  // a type the linked onnx cannot spell (float8, int4 ...): not judged
    const ConstraintFacts* c = constraint_of(p->type_str);
    if (!allows(c ? allowed_types(*c) : std::string_view(p->type_str), type)) {
      err = "input " + std::to_string(i) + " " + qname(np.input(i)) + " is " + type + ", which " +
            (c ? std::string("its type constraint ") + p->type_str + " does not allow"
               : std::string("is not ") + p->type_str);
      break;
    }
    if (!c || (p->option == kVariadic && !p->homogeneous)) continue;
    auto b = std::find_if(bound.begin(), bound.end(), [&](const auto& x) { return x.first == p->type_str; });
    if (b == bound.end()) bound.emplace_back(p->type_str, type);
    else if (b->second != type)
      err = "input " + std::to_string(i) + " " + qname(np.input(i)) + " is " + type + " where an earlier input binds " +
            p->type_str + " to " + b->second;
  }
  if (!err.empty()) {
    if (!in.tainted) {
      const Node& node = model_->graphs[g].nodes[n];
      problem(PKind::InferenceFailed,
              node.op + " " + qname(node.name) + " in " + where(g) + " is invalid: " + facts_label(np, f) +
                  " type check fails: " + err,
              loc(g, n));
    } else if (detached_failure_ && detached_failure_->empty()) {
      *detached_failure_ =
          np.op_type() + " " + qname(np.name()) + ": " + facts_label(np, f) + " type check fails: " + err;
    }
    return true;
  }
  // Each output's element type where the definition fixes it: one allowed type, or the type an input binds its
  // constraint to; then the shape (and the rest of the type) where condlint has an inference for the definition
  // (loaders/onnx_newer_inference).
  std::vector<onnx::TypeProto> typed(out_types.size());
  for (int k = 0; k < np.output_size() && static_cast<size_t>(k) < out_types.size(); ++k) {
    if (np.output(k).empty()) continue;
    const FormalFacts* p = formal(f.outputs, false, k);
    std::string_view one;
    if (p) {
      const ConstraintFacts* c = constraint_of(p->type_str);
      if (!c) {
        one = p->type_str;
      } else if (allowed_types(*c).find(';') == std::string_view::npos) {
        one = allowed_types(*c);
      } else if (p->option != kVariadic || p->homogeneous) {
        auto b = std::find_if(bound.begin(), bound.end(), [&](const auto& x) { return x.first == p->type_str; });
        if (b != bound.end()) one = b->second;
      }
    }
    int elem = onnx::TensorProto::UNDEFINED;
    if (one.size() > 8 && one.substr(0, 7) == "tensor(" && one.back() == ')') {
      std::string upper(one.substr(7, one.size() - 8));
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      onnx::TensorProto::DataType dt;
      if (onnx::TensorProto::DataType_Parse(upper, &dt)) elem = dt;
      else elem = onnx_elem_number(one.substr(7, one.size() - 8));  // a type newer than the linked onnx
    }
    if (elem != onnx::TensorProto::UNDEFINED) typed[static_cast<size_t>(k)].mutable_tensor_type()->set_elem_type(elem);
  }
  if (!newer_inference_hook(g, n, np, in, f, typed)) return true;
  bool all_typed = true;
  for (size_t k = 0; k < typed.size(); ++k) {
    if (np.output(static_cast<int>(k)).empty()) continue;
    if (typed[k].value_case() == onnx::TypeProto::VALUE_NOT_SET) all_typed = false;
    else out_types[k] = intern(typed[k]).tp;
  }
  if (!all_typed) uninferred_roots_.insert(int64_t(g) << 32 | n);
  return false;
}

bool OnnxBuilder::newer_inference_hook(int g, int n, const onnx::NodeProto& np, const InputState& in,
                                       const schema_facts::OpFacts& f, std::vector<onnx::TypeProto>& typed) {
  if (*f.domain != '\0' || !newer_inference::has_inference(np.op_type(), f.since_version)) return true;
  // A node the checker rejected computes nothing the definition defines: its outputs rest on that finding.
  if (error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return false;
  std::vector<newer_inference::Input> inputs(static_cast<size_t>(np.input_size()));
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) continue;
    auto& x = inputs[static_cast<size_t>(i)];
    x.present = true;
    const int id = lookup(np.input(i));
    if (id < 0 || values_[id].tainted) continue;
    x.type = values_[id].tp && onnx_type_depth(*values_[id].tp) <= kMaxInferTypeDepth ? values_[id].tp : nullptr;
    x.data = values_[id].data;
  }
  std::string err;
  if (newer_inference::infer(np, f.since_version, inputs, typed, err) != newer_inference::Outcome::Failed) return true;
  if (!in.tainted)
    problem(PKind::InferenceFailed,
            node_label(g, n) + " in " + where(g) + " is invalid: " + facts_label(np, f) + " inference fails: " + err,
            loc(g, n));
  return false;
}

void OnnxBuilder::infer_control_flow(int g, int n, const onnx::NodeProto& np, std::vector<const onnx::TypeProto*>& out,
                                     std::vector<char>& tainted, bool& beyond_onnx) {
  const bool default_domain = np.domain().empty() || np.domain() == "ai.onnx";
  if (!default_domain) return;
  // onnx infers an If's outputs as the union of its branches, as below; a Loop's or a Scan's less than condlint does.
  beyond_onnx = !if_at_.count(int64_t(g) << 32 | n);
  if (auto at = if_at_.find(int64_t(g) << 32 | n); at != if_at_.end()) {
    // If: an output is what both branches can give (onnx's UnionShapeInfo), never one branch's type; when the
    // condition is decided for every input the declared types allow, what the live branch gives.
    IfInfo& ii = ifs_[at->second];
    if (ii.has_cond_name && ii.cond_value >= 0)
      ii.provenance = trace_condition(np.input(0), [this](const std::string& nm) { return cond_value(nm); });
    if (ii.branch[0] < 0 || ii.branch[1] < 0) return;
    const int live = ii.provenance.decided == 1 ? 0 : ii.provenance.decided == 0 ? 1 : -1;
    beyond_onnx = live >= 0;  // one branch's type where onnx has the union
    for (int bg : ii.branch)
      for (int id : gi_[bg].output_values) beyond_onnx = beyond_onnx || (id >= 0 && values_[id].beyond_onnx);
    for (int k = 0; k < np.output_size(); ++k) {
      bool t = false;
      const onnx::TypeProto* a = branch_output_type(ii.branch[0], k, &t);
      const onnx::TypeProto* b = branch_output_type(ii.branch[1], k, &t);
      out[k] = live == 0 ? a : live == 1 ? b : union_of(a, b);
      tainted[k] = t;
    }
    return;
  }
  const auto& bodies = model_->graphs[g].nodes[n].bodies;
  if (bodies.size() != 1 || bodies[0].first != "body") return;
  const int bg = bodies[0].second;
  auto input_type = [&](int i) -> const onnx::TypeProto* {
    if (i >= np.input_size() || np.input(i).empty()) return nullptr;
    const int id = lookup(np.input(i));
    return id >= 0 && !values_[id].tainted ? values_[id].tp : nullptr;
  };
  auto body_out = [&](int k) -> const onnx::TypeProto* {
    bool t = false;
    const onnx::TypeProto* tp = branch_output_type(bg, k, &t);
    return t ? nullptr : tp;
  };
  // A tensor type with one more leading dim of unknown size (a scan output stacks one value per iteration).
  auto stacked = [&](const onnx::TypeProto* tp) -> const onnx::TypeProto* {
    if (!tp || tp->value_case() != onnx::TypeProto::kTensorType || tp->tensor_type().elem_type() == 0) return nullptr;
    onnx::TypeProto s;
    s.mutable_tensor_type()->set_elem_type(tp->tensor_type().elem_type());
    if (tp->tensor_type().has_shape()) {
      auto* sh = s.mutable_tensor_type()->mutable_shape();
      sh->add_dim();
      for (const auto& d : tp->tensor_type().shape().dim()) *sh->add_dim() = d;
    }
    return intern(s).tp;
  };
  if (np.op_type() == "Loop") {
    // Inputs: M, cond, v_initial[N]; body outputs: cond, v_final[N], scan[K]; node outputs: v_final[N], scan[K].
    // A loop-carried value is its initial value (no iteration) or the body's output (some iterations).
    const int carried = std::max(0, np.input_size() - 2);
    // The body's formal inputs (iteration number, condition, the carried values) take what the Loop passes, as
    // onnx's Loop inference binds them: their count and declared types must agree.
    const auto& formal = gi_[bg].proto->input();
    const bool in_tainted = input_state(g, n, np).tainted;
    std::string bad;
    if (formal.size() != 2 + carried) {
      bad = "the body has " + std::to_string(formal.size()) + " inputs but the Loop passes " +
            std::to_string(2 + carried) + " (iteration number, condition and " + std::to_string(carried) +
            " loop-carried value" + (carried == 1 ? ")" : "s)");
    } else {
      onnx::TypeProto fixed[2], scratch;
      fixed[0].mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
      fixed[1].mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
      for (int k = 0; k < formal.size() && bad.empty(); ++k) {
        // M and cond as given (their types reach the body), else what the body receives when they are omitted.
        const onnx::TypeProto* given = input_type(k);
        const onnx::TypeProto* passed = k < 2 && !given ? &fixed[k] : given;
        if (!passed || !formal[k].has_type() || formal[k].type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
          continue;
        if (onnx_type_depth(*passed) > kMaxInferTypeDepth || onnx_type_depth(formal[k].type()) > kMaxInferTypeDepth ||
            onnx_max_rank(formal[k].type()) > kMaxRank)
          continue;
        // Shapes: the body's declaration must admit what is passed (a dim may differ between iterations, so only
        // the element type and kind are compared for carried values, as onnx does).
        onnx::TypeProto a = *passed, b = formal[k].type();
        if (a.has_tensor_type()) a.mutable_tensor_type()->clear_shape();
        if (b.has_tensor_type()) b.mutable_tensor_type()->clear_shape();
        if (!refine_onnx_type(a, b, scratch))
          bad = "body input " + std::to_string(k) + " " + qname(formal[k].name()) + " is declared " +
                onnx_type_desc(formal[k].type()).str() + " but the Loop passes " + onnx_type_desc(*passed).str();
      }
    }
    if (!bad.empty()) std::fill(tainted.begin(), tainted.end(), 1);
    if (!bad.empty() && !in_tainted)
      problem(PKind::InferenceFailed,
              node_label(g, n) + " in " + where(g) + " is invalid: onnx's Loop inference fails: " + bad, loc(g, n));
    for (int k = 0; k < np.output_size(); ++k) {
      if (k < carried) {
        const onnx::TypeProto* init = input_type(k + 2);
        const onnx::TypeProto* body = body_out(k + 1);
        out[k] = union_of(init, body);
        // Tensors of two element types have no union; onnx's Loop inference takes a carried output's element type
        // from the body's output (its shape may change between iterations), so a declaration of the initial
        // value's type contradicts it there, as here (ONNX007).
        if (!out[k] && init && body && init->has_tensor_type() && body->has_tensor_type() &&
            init->tensor_type().elem_type() != 0 && body->tensor_type().elem_type() != 0 &&
            init->tensor_type().elem_type() != body->tensor_type().elem_type()) {
          onnx::TypeProto e;
          e.mutable_tensor_type()->set_elem_type(body->tensor_type().elem_type());
          out[k] = intern(e).tp;
        }
      } else {
        out[k] = stacked(body_out(k + 1));
      }
    }
  } else if (np.op_type() == "Scan") {
    // Inputs: states[N], scan inputs; body outputs: states[N], scan outputs; a scan output's stacked axis may be
    // moved (scan_output_axes): its shape is then left unknown.
    int num_scan_inputs = -1;
    bool axes = false;
    for (const auto& a : np.attribute()) {
      if (a.name() == "num_scan_inputs") num_scan_inputs = static_cast<int>(a.i());
      if (a.name() == "scan_output_axes") axes = true;
    }
    if (num_scan_inputs < 0 || num_scan_inputs > np.input_size()) return;
    const int states = np.input_size() - num_scan_inputs;
    for (int k = 0; k < np.output_size(); ++k) {
      if (k < states) {
        out[k] = union_of(input_type(k), body_out(k));
      } else if (const onnx::TypeProto* b = body_out(k);
                 b && b->value_case() == onnx::TypeProto::kTensorType && b->tensor_type().elem_type() != 0) {
        if (!axes) {
          out[k] = stacked(b);
        } else {
          onnx::TypeProto e;
          e.mutable_tensor_type()->set_elem_type(b->tensor_type().elem_type());
          out[k] = intern(e).tp;
        }
      }
    }
  }
}

const onnx::TypeProto* OnnxBuilder::branch_output_type(int bg, int k, bool* tainted) const {
  const auto& decl = gi_[bg].proto->output();
  const auto& outs = gi_[bg].output_values;
  if (k >= decl.size()) return nullptr;
  const onnx::TypeProto* inferred = nullptr;
  if (k < static_cast<int>(outs.size()) && outs[k] >= 0) {
    inferred = values_[outs[k]].tp;
    if (values_[outs[k]].tainted && tainted) *tainted = true;
  }
  if (decl[k].has_type() && decl[k].type().value_case() != onnx::TypeProto::VALUE_NOT_SET) {
    if (const auto* t = declared_of(decl[k], bg)) {
      // A tensor declared without a shape: the shape inference proves for the value is the output's (onnx's If
      // inference merges the two the same way), where the element types agree.
      if (t->has_tensor_type() && !t->tensor_type().has_shape() && inferred && inferred->has_tensor_type() &&
          inferred->tensor_type().has_shape() && inferred->tensor_type().elem_type() == t->tensor_type().elem_type() &&
          !(tainted && *tainted))
        return inferred;
      return t;
    }
    if (tainted) *tainted = true;  // past a limit, reported once
    return nullptr;
  }
  return inferred;
}

// The union of two types, interned; null when either is unknown or nothing sound can be said of both.
const onnx::TypeProto* OnnxBuilder::union_of(const onnx::TypeProto* a, const onnx::TypeProto* b) {
  if (!a || !b) return nullptr;
  if (a == b) return a;
  if (onnx_type_depth(*a) > kMaxInferTypeDepth || onnx_type_depth(*b) > kMaxInferTypeDepth) return nullptr;
  onnx::TypeProto u;
  if (!union_onnx_types(*a, *b, u)) return nullptr;
  return intern(u).tp;
}

namespace {

// Whether a node of the function's body reads `name` where its operator needs a value: an input the linked onnx's
// schema (at the body's opset) declares single, not optional. ONNX Runtime refuses a call that leaves such an input
// out ("marked single but has an empty string"); a left-out input the body never reads, or reads where the operator
// takes an optional one, is accepted by onnx's checker and ONNX Runtime alike. Nodes of subgraphs and operators the
// linked onnx does not know are not judged (no finding rests on them).
bool body_needs_input(const onnx::FunctionProto& fp, const std::string& name) {
  for (const auto& bn : fp.node()) {
    const std::string domain = bn.domain() == "ai.onnx" ? std::string() : bn.domain();
    int version = -1;
    for (const auto& op : fp.opset_import())
      if ((op.domain() == "ai.onnx" ? std::string() : op.domain()) == domain) version = static_cast<int>(op.version());
    if (version < 0) continue;
    const onnx::OpSchema* sc = onnx::OpSchemaRegistry::Schema(bn.op_type(), version, domain);
    if (!sc || sc->inputs().empty()) continue;
    for (int i = 0; i < bn.input_size(); ++i) {
      if (bn.input(i) != name) continue;
      const auto& formal = sc->inputs()[std::min(static_cast<size_t>(i), sc->inputs().size() - 1)];
      if (formal.GetOption() == onnx::OpSchema::Single && static_cast<size_t>(i) < sc->inputs().size()) return true;
    }
  }
  return false;
}

}  // namespace

bool OnnxBuilder::type_call(int g, int n, const onnx::NodeProto& np, const InputState& in,
                            std::vector<const onnx::TypeProto*>& out, bool& failed) {
  const int f = functions_ ? functions_->callee(np) : -1;
  if (f < 0) return false;
  // A call that leaves out an input the function declares is not typed through the body (its outputs are unknown);
  // it is a finding only where the body reads that input where its operator needs a value (body_needs_input).
  const onnx::FunctionProto& fp = functions_->function(f);
  for (int k = 0; k < fp.input_size(); ++k)
    if (k >= np.input_size() || np.input(k).empty()) {
      if (!in.tainted && body_needs_input(fp, fp.input(k)))
        problem(PKind::InferenceFailed,
                node_label(g, n) + " in " + where(g) + " is invalid: it leaves out input " + std::to_string(k) + " " +
                    qname(fp.input(k)) + " of function " + qname(fp.domain() + "." + fp.name()) +
                    ", which the body reads where its operator needs a value (ONNX Runtime refuses the model)",
                loc(g, n));
      failed = true;
      return true;
    }
  std::vector<const onnx::TypeProto*> types;
  std::vector<const onnx::TensorProto*> data;
  for (int i = 0; i < np.input_size(); ++i) {
    const int id = np.input(i).empty() ? -1 : input_id(g, n, np, i);
    const bool known = id >= 0 && !values_[id].tainted && values_[id].tp && interned_.count(values_[id].tp);
    types.push_back(known ? values_[id].tp : nullptr);
    data.push_back(known ? values_[id].data : nullptr);
  }
  // A body walked already (a call from a function walked later, in a cycle) learns nothing more from it.
  if (!function_walked_[static_cast<size_t>(f)]) call_sites_[static_cast<size_t>(f)].add(np, types);
  // An unknown output of a call is condlint's ignorance (a bound, calls that do not agree), never ONNX013's.
  uninferred_roots_.insert(int64_t(g) << 32 | n);
  const int saved_graph = input_ids_graph_, saved_node = input_ids_node_;
  typing_graph_ = g;
  typing_node_ = n;
  input_ids_graph_ = -1;  // the nodes typed inside read their inputs from their own scope
  std::string why;
  typer_->type_call(f, np, types, data, out, &why);
  if (!why.empty() && !in.tainted) call_failures_[static_cast<size_t>(f)].push_back({g, n, std::move(why)});
  input_ids_graph_ = saved_graph;
  input_ids_node_ = saved_node;
  return true;
}

// onnx's inference for a node inside a call's body: the node sees only its inputs, under their names (a scope of
// its own in place of the walk's), and reports nothing (the body's own walk does).
std::string OnnxBuilder::infer_detached(const onnx::NodeProto& np, const std::vector<const onnx::TypeProto*>& in,
                                        const std::vector<const onnx::TensorProto*>& data,
                                        std::vector<const onnx::TypeProto*>& out) {
  std::swap(visible_, detached_);
  const size_t first = values_.size();
  for (int i = 0; i < np.input_size() && static_cast<size_t>(i) < in.size(); ++i) {
    if (np.input(i).empty() || !in[static_cast<size_t>(i)]) continue;
    Value v;
    v.src = Value::Input;
    v.name = np.input(i);
    v.tp = in[static_cast<size_t>(i)];
    v.typed = &intern(*v.tp);
    v.data = static_cast<size_t>(i) < data.size() ? data[static_cast<size_t>(i)] : nullptr;
    values_.push_back(std::move(v));
    visible_.assign(np.input(i), static_cast<int>(values_.size() - 1));
  }
  InputState quiet;
  quiet.tainted = true;  // nothing is reported from here: a failure is handed back
  std::string why;
  detached_failure_ = &why;
  const bool failed = infer(typing_graph_, typing_node_, np, quiet, out);
  detached_failure_ = nullptr;
  if (failed) std::fill(out.begin(), out.end(), nullptr);
  for (const auto& name : np.input())
    if (!name.empty()) visible_.erase(name);
  values_.resize(first);
  std::swap(visible_, detached_);
  return failed ? (why.empty() ? np.op_type() + " " + qname(np.name()) + ": onnx's inference fails" : why) : "";
}

}  // namespace condlint::onnx_build
