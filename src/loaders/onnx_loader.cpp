// ONNX loader: the entry points (load_onnx) and the builder's steps in their order (OnnxBuilder::build); the
// state they share and what each step does: onnx_builder.hpp.
#include <onnx/checker.h>
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <thread>
#include <unordered_set>

#include "loaders/loader.hpp"
#include "loaders/onnx_builder.hpp"
#include "loaders/onnx_branch_consumers.hpp"
#include "loaders/onnx_condition.hpp"
#include "loaders/onnx_functions.hpp"
#include "loaders/onnx_newer_inference.hpp"
#include "loaders/onnx_node_context.hpp"
#include "loaders/onnx_util.hpp"
#include "model/memory_hint.hpp"
#include "model/name_table.hpp"
#include "model/onnx_data.hpp"
#include "model/onnx_schema_facts.hpp"

namespace condlint {

namespace onnx_build {

CondValue OnnxBuilder::cond_value(const std::string& nm, const OnnxBranchFollow::World* world) const {
  CondValue cv;
  const int id = lookup(nm);
  if (id < 0) return cv;
  const Value& v = values_[id];
  cv.kind = v.src == Value::Input         ? CondValue::Kind::GraphInput
            : v.src == Value::Initializer ? CondValue::Kind::Initializer
                                          : CondValue::Kind::NodeOutput;
  if (v.src == Value::NodeOutput) cv.producer = &gi_[v.graph].proto->node(v.node);
  cv.data = v.data;
  if (world) cv.shape = world->tp ? onnx_shape(*world->tp) : Shape::unknown();
  else if (!v.tainted) cv.shape = v.shape();
  return cv;
}

void OnnxBuilder::follow_branches(int g, int n, const onnx::NodeProto& np, bool settled) {
  using Follow = OnnxBranchFollow;
  if (const auto at = if_at_.find(int64_t(g) << 32 | n); at != if_at_.end()) {
    const IfInfo& ii = ifs_[at->second];
    if (ii.branch[0] < 0 || ii.branch[1] < 0) return;
    std::vector<std::array<Follow::BranchOutput, 2>> outs(static_cast<size_t>(np.output_size()));
    for (int k = 0; k < np.output_size(); ++k)
      for (int b = 0; b < 2; ++b) {
        Follow::BranchOutput& o = outs[static_cast<size_t>(k)][static_cast<size_t>(b)];
        bool t = false;
        const onnx::TypeProto* tp = branch_output_type(ii.branch[b], k, &t);
        o.tp = t || !tp || onnx_type_depth(*tp) > kMaxInferTypeDepth ? nullptr : tp;
        const auto& ov = gi_[ii.branch[b]].output_values;
        if (k < static_cast<int>(ov.size()) && ov[k] >= 0 && values_[ov[k]].src == Value::NodeOutput) {
          o.graph = values_[ov[k]].graph;
          o.node = values_[ov[k]].node;
          o.output = values_[ov[k]].output;
        }
      }
    const int live = ii.provenance.decided == 1 ? 0 : ii.provenance.decided == 0 ? 1 : -1;
    // A condition that reads values whose types differ between earlier branches (a rank guard on an earlier guard's
    // output) is traced again under each case of those branches: a case may decide it.
    std::vector<Follow::CaseLive> cases;
    bool opaque = false;
    if (follow_->active() && live < 0 && ii.has_cond_name && ii.cond_value >= 0) {
      auto as_traced = [this](const std::string& nm, const Follow::World* w) { return cond_value(nm, w); };
      std::vector<std::string> names;
      std::vector<const std::vector<Follow::World>*> lists;
      (void)trace_condition(np.input(0), [&](const std::string& nm) {
        const int id = lookup(nm);
        if (id >= 0 && values_[id].src == Value::NodeOutput)
          if (const auto* f = follow_->facts_at(values_[id].graph, values_[id].node, values_[id].output)) {
            names.push_back(nm);
            lists.push_back(f);
          }
        return as_traced(nm, nullptr);
      });
      std::vector<std::pair<std::vector<Follow::Pick>, std::vector<int>>> found;
      if (!lists.empty() && !follow_->cases_of(lists, found)) opaque = true;
      for (size_t c = 0; !lists.empty() && !opaque && c < found.size(); ++c) {
        const ConditionProvenance p = trace_condition(np.input(0), [&](const std::string& nm) {
          for (size_t j = 0; j < names.size(); ++j)
            if (names[j] == nm) return as_traced(nm, &(*lists[j])[static_cast<size_t>(found[c].second[j])]);
          return as_traced(nm, nullptr);
        });
        cases.push_back({found[c].first, p.decided == 1 ? 0 : p.decided == 0 ? 1 : -1});
      }
    }
    follow_->if_finished(at->second, g, n, live, ii.provenance.traced ? ii.provenance.text : std::string(), outs, cases,
                         opaque);
    return;
  }
  if (!follow_->active() || !model_->graphs[g].nodes[n].bodies.empty()) return;
  std::vector<Follow::Input> inputs(static_cast<size_t>(np.input_size()));
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) continue;
    const int id = input_id(g, n, np, i);
    if (id < 0) return;  // an undefined name: ONNX009's
    const Value& v = values_[id];
    Follow::Input& in = inputs[static_cast<size_t>(i)];
    if (v.src == Value::NodeOutput) {
      in.graph = v.graph;
      in.node = v.node;
      in.output = v.output;
    }
    in.tp = v.tainted ? nullptr : v.tp;
    in.data = v.data;
  }
  const std::string domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
  const auto op = data_->opsets.find(domain);
  follow_->node_finished(g, n, np, inputs, op == data_->opsets.end() ? -1 : op->second, judge(np).kind == Judge::Linked,
                         settled);
}

ValueDesc OnnxBuilder::desc_of(int value_id, const std::string& label) const {
  ValueDesc d;
  d.label = label;
  if (value_id < 0) return d;
  const Value& v = values_[value_id];
  d.present = true;
  // A type that rests on a reported problem is not compared again by the generic rules (one root cause, one finding).
  if (!v.tainted) {
    d.type = v.type();
    d.shape = v.shape();
  }
  d.loc = loc(v.graph, v.src == Value::NodeOutput ? v.node : -1);
  return d;
}

void OnnxBuilder::build_view(size_t index) {
  const IfInfo& ii = ifs_[index];
  if (view_built_.size() <= index) view_built_.resize(index + 1);
  const Node& node = model_->graphs[ii.graph].nodes[ii.node];
  ConditionalView view;
  view.graph = ii.graph;
  view.node = ii.node;
  view.name = "If " + qname(node.name);
  view.loc = node.loc;
  if (ii.has_cond_name && ii.cond_value >= 0) {
    const Value& v = values_[ii.cond_value];
    std::string label = v.src == Value::Input ? "graph input " + qname(v.name)
                        : v.src == Value::Initializer
                            ? "initializer " + qname(v.name)
                            : "output " + qname(v.name) + " of " + node_label(v.graph, v.node);
    view.has_condition = true;
    view.condition = desc_of(ii.cond_value, label);
    view.condition.loc = node.loc;
  }
  const onnx::NodeProto& np = gi_[ii.graph].proto->node(ii.node);
  for (int j = 0; j < np.output_size(); ++j) {
    ValueDesc d;
    d.present = true;
    d.label = "If output " + std::to_string(j) + " " + qname(np.output(j));
    d.loc = node.loc;
    if (const onnx::TypeProto* t = np.output(j).empty() ? nullptr : declared_type(ii.graph, np.output(j))) {
      d.type = onnx_type_desc(*t);
      d.shape = onnx_shape(*t);
    }
    view.outputs.push_back(std::move(d));
  }
  for (int b = 0; b < 2; ++b) {
    BranchView& br = view.branch[b];
    br.name = b == 0 ? "then" : "else";
    br.graph = ii.branch[b];
    if (br.graph < 0) continue;
    const GraphInfo& info = gi_[br.graph];
    const auto& outs = info.proto->output();
    for (int k = 0; k < outs.size(); ++k) {
      OutputBinding ob;
      ob.output_index = k;
      ob.loc = loc(br.graph);
      const onnx::TypeProto* tp = nullptr;
      const bool disputed = info.output_values[k] >= 0 && values_[info.output_values[k]].tainted;
      if (disputed) tp = nullptr;  // already reported where it starts (ONNX007, ONNX008, ONNX018)
      else if (outs[k].has_type() && outs[k].type().value_case() != onnx::TypeProto::VALUE_NOT_SET)
        tp = declared_of(outs[k], br.graph);
      else if (info.output_values[k] >= 0) tp = values_[info.output_values[k]].tp;
      ob.value.present = true;
      ob.value.label = (b == 0 ? "then_branch output " : "else_branch output ") + qname(outs[k].name());
      ob.value.loc = loc(br.graph);
      if (tp) {
        ob.value.type = onnx_type_desc(*tp);
        ob.value.shape = onnx_shape(*tp);
        data_->branch_output_types.push_back({static_cast<int>(index), b, k, onnx_type_string(*tp)});
      }
      br.outputs.push_back(std::move(ob));
    }
  }
  view.provenance = ii.provenance;
  if (model_->conditionals.size() <= index) model_->conditionals.resize(index + 1);
  model_->conditionals[index] = std::move(view);
  view_built_[index] = 1;
}

void OnnxBuilder::build_views() {
  const Judge if_judge = onnx_opset_ > 0 ? judge_at("If", "", onnx_opset_) : Judge{};
  if (if_judge.kind == Judge::Facts && if_judge.facts->outputs.count > 0) {
    const std::string_view param = schema_facts::output(*if_judge.facts, 0).type_str;
    for (int c = 0; c < if_judge.facts->constraints.count; ++c) {
      const auto& tc = schema_facts::constraint(*if_judge.facts, c);
      if (param != tc.name) continue;
      const std::string_view all = schema_facts::allowed_types(tc);
      for (size_t at = 0; at <= all.size();) {
        const size_t end = std::min(all.find(';', at), all.size());
        data_->if_allowed_types.emplace(all.substr(at, end - at));
        at = end + 1;
      }
    }
  }
  const onnx::OpSchema* schema = onnx_opset_ > 0 && if_judge.kind == Judge::Linked
                                     ? onnx::OpSchemaRegistry::Schema("If", static_cast<int>(onnx_opset_), "")
                                     : nullptr;
  if (schema && !schema->outputs().empty()) {
    const std::string& param = schema->outputs()[0].GetTypeStr();
    for (const auto& c : schema->typeConstraintParams())
      if (c.type_param_str == param)
        data_->if_allowed_types.insert(c.allowed_type_strs.begin(), c.allowed_type_strs.end());
  }
  // An If the walk never finished (none today) gets its view here; the views are in the order the Ifs were read.
  view_built_.resize(ifs_.size());
  for (size_t i = 0; i < ifs_.size(); ++i)
    if (!view_built_[i]) build_view(i);
  std::stable_sort(
      data_->branch_output_types.begin(), data_->branch_output_types.end(),
      [](const OnnxBranchOutputType& x, const OnnxBranchOutputType& y) { return x.conditional < y.conditional; });
}

void OnnxBuilder::checker_problem(int g, int n, const std::string& what, const std::string& why) {
  if (error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return;
  std::string reason = why;
  if (auto cut = reason.find('\n'); cut != std::string::npos) reason.resize(cut);
  while (!reason.empty() && (reason.back() == ' ' || reason.back() == ':')) reason.pop_back();
  problem(PKind::CheckerRejects, what + ": " + reason, loc(g, n));
}

void OnnxBuilder::checker_model() {
  const onnx::ModelProto& m = *proto_;
  const int64_t ir = m.ir_version();
  // An IR version above onnx's own is ONNX016's note, not an error: a newer onnx accepts such models.
  if (ir == 0) checker_problem(0, -1, "onnx's checker rejects the model", "the model has no ir_version");
  // IR versions the linked onnx does not know but a newer onnx defines get ONNX016's note; a version no onnx has
  // defined (the newest, 14, came with late-2025 onnx) is an error, as it is for onnx's checker.
  if (ir > kNewestIrVersion)
    checker_problem(0, -1, "onnx's checker rejects the model",
                    "IR version " + std::to_string(ir) + " is newer than any onnx defines (the newest is " +
                        std::to_string(kNewestIrVersion) + ")");
  std::unordered_set<std::string_view> keys;
  for (const auto& e : m.metadata_props())
    if (!keys.insert(e.key()).second) {
      checker_problem(0, -1, "onnx's checker rejects the model", "metadata_props has the key '" + e.key() + "' twice");
      break;
    }
  std::unordered_map<std::string, int> imports;
  for (const auto& os : m.opset_import()) imports[os.domain()] = static_cast<int>(os.version());
  if (ir >= 3 && imports.empty())
    checker_problem(0, -1, "onnx's checker rejects the model", "a model of IR version 3 or later must import an opset");
  if (ir > 0 && ir < 3 && !imports.empty())
    checker_problem(0, -1, "onnx's checker rejects the model",
                    "a model of IR version " + std::to_string(ir) + " (< 3) cannot have opset_import");
  if (ir > 0 && ir < 3 && imports.empty()) imports[""] = 1;
  checker_ctx_.set_ir_version(static_cast<int>(ir));
  checker_ctx_.set_opset_imports(imports);
  // Every IR version an onnx release defines is checked: the linked onnx's rules for graphs, values and nodes hold
  // for the newer IR versions too (they added element types, which are left to ONNX016's note, and fields the linked
  // protobuf skips), and nodes whose definition changed are judged by the newer facts.
  checker_on_ = ir > 0 && ir <= kNewestIrVersion;
  checker_sub_ctx_ = checker_ctx_;
  checker_sub_ctx_.set_is_main_graph(false);
  // Model-local functions are checked after their bodies are walked (checker_functions).
}

void OnnxBuilder::checker_graph(int g) {
  if (!checker_on_ || gi_[g].in_function) return;  // function bodies: checker_functions
  const onnx::GraphProto& gp = *gi_[g].proto;
  auto where_g = [&] { return "onnx's checker rejects " + where(g); };  // built only when a check fails
  if (gp.name().empty()) checker_problem(g, -1, where_g(), "the graph has no name");
  const onnx::checker::CheckerContext& ctx = g == 0 ? checker_ctx_ : checker_sub_ctx_;
  auto check_vi = [&](const onnx::ValueInfoProto& vi, const char* what) {
    try {
      onnx::checker::check_value_info(vi, ctx);
      return true;
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), std::string(what) + " " + qname(vi.name()) + ": " + e.what());
      return false;
    }
  };
  bool vi_ok = true;
  for (const auto& vi : gp.input()) vi_ok = vi_ok && check_vi(vi, "graph input");
  for (const auto& vi : gp.output()) vi_ok = vi_ok && check_vi(vi, "graph output");
  std::unordered_set<std::string_view> inputs, inits;
  if (checker_ctx_.get_ir_version() <= 3)
    for (const auto& vi : gp.input()) inputs.insert(vi.name());
  auto check_init = [&](const onnx::TensorProto& t, bool sparse) {
    const std::string who = std::string(sparse ? "sparse initializer" : "initializer") + " " + qname(t.name());
    if (t.name().empty()) return checker_problem(g, -1, where_g(), who + " has no name");
    if (!inits.insert(t.name()).second) return checker_problem(g, -1, where_g(), who + " is defined twice");
    if (!sparse && checker_ctx_.get_ir_version() <= 3 && !inputs.count(t.name()))
      checker_problem(g, -1, where_g(), who + " is not a graph input (IR version 3 and earlier)");
  };
  for (const auto& t : gp.initializer()) {
    check_init(t, false);
    try {
      if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        // Where the data lies is ONNX014 / ONNX015's (onnx's check would probe the path); a value here too is wrong.
        if (t.float_data_size() || t.int32_data_size() || t.string_data_size() || t.int64_data_size() ||
            t.raw_data().size() || t.double_data_size() || t.uint64_data_size())
          checker_problem(g, -1, where_g(), qname(t.name()) + " is stored externally and also holds data");
      } else if (!linked_knows(t)) {                // an element type newer than the linked onnx: ONNX016 names it
      } else if (measure_tensor(t).holds_dims()) {  // data that cannot hold its dims is ONNX018's
        onnx::checker::check_tensor(t, ctx);
      }
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), e.what());
    }
  }
  for (const auto& st : gp.sparse_initializer()) {
    check_init(st.values(), true);
    if (!linked_knows(st.values())) continue;
    try {
      onnx::checker::check_sparse_tensor(st, ctx);
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), e.what());
    }
  }
}

void OnnxBuilder::checker_node(int g, int n, const onnx::NodeProto& np) {
  if (!checker_on_ || gi_[g].in_function || error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return;
  // The message is built only for a node that fails (this runs for every node).
  auto what = [&] { return "onnx's checker rejects " + node_label(g, n) + " in " + where(g); };
  if (np.op_type().empty()) return checker_problem(g, n, what(), "the node has no op_type");
  if (np.input_size() == 0 && np.output_size() == 0)
    return checker_problem(g, n, what(), "the node has no input and no output");
  if (onnx::checker::check_is_experimental_op(np.op_type())) return;  // onnx's checker stops there too
  const auto& imports = checker_ctx_.get_opset_imports();
  const auto dit = imports.find(np.domain());
  if (dit == imports.end()) return checker_problem(g, n, what(), "no opset import for domain '" + np.domain() + "'");
  const onnx::checker::CheckerContext& ctx = g == 0 ? checker_ctx_ : checker_sub_ctx_;
  const Judge& judged = judge(np);
  if (judged.kind == Judge::Unjudged) return;  // no definition known: ONNX016 names the operator
  try {
    const onnx::checker::LexicalScopeContext lex;
    for (const auto& a : np.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0) {
        if (!linked_knows(a)) continue;  // a tensor of an element type newer than the linked onnx (ONNX016)
        onnx::checker::check_attribute(a, ctx, lex);  // no subgraph: onnx's own check, which does not recurse
        continue;
      }
      // A subgraph attribute: its fields here; the subgraphs are checked where the walk enters them.
      if (a.name().empty()) fail_check("an attribute of the node has no name");
      if (checker_ctx_.get_ir_version() >= 2 && !a.has_type()) fail_check("attribute '", a.name(), "' has no type");
      const auto want = a.has_g() ? onnx::AttributeProto::GRAPH : onnx::AttributeProto::GRAPHS;
      if (a.has_type() && a.type() != want)
        fail_check("type field and data field mismatch in attribute ", a.name(), ".");
      const int fields = a.has_f() + a.has_i() + a.has_s() + a.has_t() + a.has_g() + a.has_tp() +
                         a.has_sparse_tensor() + (a.floats_size() > 0) + (a.ints_size() > 0) + (a.strings_size() > 0) +
                         (a.tensors_size() > 0) + (a.graphs_size() > 0) + (a.sparse_tensors_size() > 0) +
                         (a.type_protos_size() > 0);
      if (fields > 1) fail_check("Attribute (name: ", a.name(), ") should not contain more than one value field.");
    }
    if (judged.kind == Judge::Facts) {
      try {
        facts_verify(np, *judged.facts);
      } catch (const std::exception& e) {
        fail_check("by ", facts_label(np, *judged.facts), ": ", e.what());
      }
      return;
    }
    // One registry lookup per operator, domain and version, not per node.
    std::string& key = checker_key_;
    key.assign(np.op_type()).append(1, '\0').append(np.domain());
    auto cached = checker_schemas_.find(key);
    if (cached == checker_schemas_.end())
      cached =
          checker_schemas_.emplace(key, ctx.get_schema_registry()->GetSchema(np.op_type(), dit->second, np.domain()))
              .first;
    const onnx::OpSchema* schema = cached->second;
    if (!schema) {
      const std::string& d = np.domain();
      if (d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.training")
        fail_check("no operator ", np.op_type(), " is registered for ", d.empty() ? "ai.onnx" : d, " opset ",
                   dit->second);
    } else if (schema->Deprecated()) {
      fail_check(np.op_type(), " is deprecated in opset ", dit->second);
    } else {
      schema->Verify(np);
    }
  } catch (const std::exception& e) {
    checker_problem(g, n, what(), e.what());
  }
}

void OnnxBuilder::facts_verify(const onnx::NodeProto& np, const schema_facts::OpFacts& f) {
  using schema_facts::kSingle;
  using schema_facts::kVariadic;
  if (f.deprecated) fail_check(np.op_type(), " is deprecated since opset ", f.since_version);
  const int n_in = np.input_size(), n_out = np.output_size();
  if (n_in < f.min_input || n_in > f.max_input)
    fail_check("Node (", np.name(), ") has input size ", n_in, " not in range [min=", f.min_input,
               ", max=", f.max_input, "].");
  if (n_out < f.min_output || n_out > f.max_output)
    fail_check("Node (", np.name(), ") has output size ", n_out, " not in range [min=", f.min_output,
               ", max=", f.max_output, "].");
  auto formals = [&](const char* what, int count, int declared, auto formal, auto name) {
    for (int k = 0; k < count; ++k) {
      if (k >= declared) {
        if (declared > 0 && formal(declared - 1).option == kVariadic) break;
        fail_check("Node (", np.name(), ") has more ", what, "s (", count, ") than declared (", declared,
                   ") in op definition.");
      }
      if (name(k).empty() && formal(k).option == kSingle)
        fail_check("Node (", np.name(), ")'s ", what, " ", k, " is marked single but has an empty string in the graph");
    }
  };
  formals(
      "input", n_in, f.inputs.count, [&](int k) -> const auto& { return schema_facts::input(f, k); },
      [&](int k) -> const std::string& { return np.input(k); });
  formals(
      "output", n_out, f.outputs.count, [&](int k) -> const auto& { return schema_facts::output(f, k); },
      [&](int k) -> const std::string& { return np.output(k); });
  std::unordered_set<std::string_view> seen;
  for (const auto& a : np.attribute()) {
    if (!seen.insert(a.name()).second) fail_check("Attribute '", a.name(), "' appeared multiple times.");
    const schema_facts::AttributeFacts* fact = nullptr;
    for (int k = 0; k < f.attributes.count && !fact; ++k)
      if (a.name() == schema_facts::attribute(f, k).name) fact = &schema_facts::attribute(f, k);
    if (!fact) {
      if (a.name().rfind("__", 0) == 0) continue;  // an internal symbol: onnx's checker lets it pass
      fail_check("Unrecognized attribute: ", a.name(), " for operator ", np.op_type());
    }
    if (a.type() != fact->type) fail_check("Mismatched attribute type in '", np.name(), " : ", a.name(), "'");
    if (!a.ref_attr_name().empty()) continue;  // its value comes from the calling function
    using AP = onnx::AttributeProto;
    const char* field = nullptr;
    switch (a.type()) {
      case AP::FLOAT: field = a.has_f() ? nullptr : "f"; break;
      case AP::INT: field = a.has_i() ? nullptr : "i"; break;
      case AP::STRING: field = a.has_s() ? nullptr : "s"; break;
      case AP::TENSOR: field = a.has_t() ? nullptr : "t"; break;
      case AP::GRAPH: field = a.has_g() ? nullptr : "g"; break;
      case AP::SPARSE_TENSOR: field = a.has_sparse_tensor() ? nullptr : "sparse_tensor"; break;
      case AP::TYPE_PROTO: field = a.has_tp() ? nullptr : "tp"; break;
      default: break;  // a list may be empty
    }
    if (field) fail_check("Attribute '", a.name(), "' is expected to have field '", field, "'");
  }
  for (int k = 0; k < f.attributes.count; ++k) {
    const auto& fact = schema_facts::attribute(f, k);
    if (fact.required && !seen.count(fact.name)) fail_check("Required attribute '", fact.name, "' is missing.");
  }
}

// A Model with its main graph and nothing read into it yet.
void OnnxBuilder::start_model() {
  model_ = std::make_unique<Model>();
  model_->format = Format::ONNX;
  model_->path = path_;
  model_->onnx = std::make_unique<OnnxData>();
  data_ = model_->onnx.get();
  Graph main;
  main.role = "main";
  main.loc = loc(0);
  model_->graphs.push_back(main);
}

std::unique_ptr<Model> OnnxBuilder::build() {
  start_model();
  follow_ = std::make_unique<OnnxBranchFollow>(*data_);
  dir_ = fs::path(path_).parent_path();
  // The parsed messages take about nine times their bytes, weights once (bench/README.md). Unless the executor keeps
  // them, the main graph's nodes are parsed as the walk reaches them (below) and only the weights up front (bytes
  // that cannot be split are then parsed whole, with less pre-faulted than they touch: slower, never wrong).
  const size_t weights = weight_bytes(bytes_);
  const MemoryHint parse_hint(keep_proto_ ? (bytes_.size() - weights) * 9 + weights : weights);
  // The parsed messages are freed as the walk goes (unless the executor keeps them): kept apart from what lives on.
  if (!keep_proto_) young_.emplace();
  if (keep_proto_) stream_ = false;
  const bool parse_ok = parse();
  if (young_) young_->close();
  if (!parse_ok) return std::move(model_);
  // Parsed: the messages hold what the walk needs (raw_data weights too), but for the main graph's nodes when they
  // are parsed as the walk goes (their bytes go after the last one).
  if (!stream_ || root_node_count_ == 0) std::string().swap(owned_bytes_);
  // Then about 0.75 KB of model, values and inferred types per node when the whole model was parsed first, 0.55 KB
  // when its main graph's nodes are parsed as the walk goes (measured on the 10,000-If chain of
  // bench/onnx_gen.hpp); weights add nothing. The hint is what the walk surely touches: pages of the pre-faulted
  // region that no allocation reaches count as RSS all the same (the chain: 121 MiB with 300 bytes per node, as fast
  // as with 600, which took 159 MiB). When a whole parse's subgraphs are freed as the walk goes, the Model is built
  // in the pages they leave (the young heap above) and no region is pre-faulted.
  Counts counts = count_nodes(proto_->graph());
  if (stream_) count_wire_nodes(root_nodes_, counts);
  release_walked_ = !keep_proto_ && !parsed_on_big_stack_;
  const bool walk_frees = release_walked_ && counts.subgraph_nodes > 0;
  if (walk_frees && !stream_) compact_root_nodes();
  const MemoryHint build_hint(stream_ ? counts.nodes * 300 : walk_frees ? 0 : counts.nodes * 750);

  data_->ir_version = proto_->ir_version();
  for (const auto& os : proto_->opset_import()) {
    const std::string d = os.domain() == "ai.onnx" ? std::string() : os.domain();
    data_->opsets[d] = os.version();
  }
  if (auto it = data_->opsets.find(""); it != data_->opsets.end()) onnx_opset_ = it->second;
  else if (data_->ir_version > 0 && data_->ir_version < 3) onnx_opset_ = 1;  // IR < 3 predates opset_import
  data_->onnx_opset = onnx_opset_;
  if (onnx_opset_ > 0) {
    // The If version the opset selects, by the newest definitions condlint knows; none when the opset is newer still.
    if (const Judge j = judge_at("If", "", onnx_opset_); j.kind == Judge::Facts)
      data_->if_since_version = j.facts->since_version;
    else if (j.kind == Judge::Linked)
      if (const auto* s = onnx::OpSchemaRegistry::Schema("If", static_cast<int>(onnx_opset_), ""))
        data_->if_since_version = s->SinceVersion();
  }
  checker_model();

  // Size the lists once (the counts above are exact), so the walk does not move hundreds of thousands of values,
  // graphs and views as they grow.
  // (When the walk frees subgraphs it recycles their values' slots: values_ then holds about the main graph's.)
  if (!release_walked_) values_.reserve(counts.values + 16);  // the scope table stays small: only names in scope
  model_->graphs.reserve(counts.graphs);
  gi_.reserve(counts.graphs);
  ifs_.reserve(counts.ifs);
  model_->conditionals.reserve(counts.ifs);

  GraphInfo root;
  root.proto = &proto_->graph();
  gi_.push_back(std::move(root));
  if (proto_->functions_size() > 0) {
    functions_ = std::make_unique<onnx_functions::FunctionIndex>(*proto_);
    hooks_ = std::make_unique<Hooks>(*this);
    typer_ = std::make_unique<onnx_functions::CallTyper>(*functions_, *hooks_);
    call_sites_.resize(static_cast<size_t>(functions_->size()));
    call_failures_.resize(static_cast<size_t>(functions_->size()));
    function_walked_.assign(static_cast<size_t>(functions_->size()), 0);
    function_graphs_.assign(static_cast<size_t>(functions_->size()), {-1, -1});
  }
  if (!walk(0)) {
    // A node protobuf rejects: nothing of the file is read, as when the whole parse fails (its top level scans).
    start_model();
    reject_bytes(WireScan{});
    return std::move(model_);
  }
  walk_functions();
  checker_functions();
  build_views();
  // A model parsed on the big stack must be freed there too (~OnnxBuilder): only a shallow one is handed on.
  if (keep_proto_ && !parsed_on_big_stack_) {
    data_->proto = std::shared_ptr<const onnx::ModelProto>(proto_);
    proto_ = nullptr;
  }
  return std::move(model_);
}

// Each model-local function's body, once, as a root graph of its own ("function:DOMAIN.NAME"), after every graph
// that calls it where the calls allow: its inputs typed as all its calls agree, its attribute references replaced
// by the values all its calls give (loaders/onnx_functions). Its Ifs become conditionals like any other.
void OnnxBuilder::walk_functions() {
  if (!functions_) return;
  for (const int f : functions_->order()) {
    const onnx::FunctionProto& fp = proto_->functions(f);
    onnx_functions::CallSites& sites = call_sites_[static_cast<size_t>(f)];
    if (!functions_->callers_first(f)) sites.add_unknown();  // a caller in a cycle with it comes later
    onnx::GraphProto& body = function_bodies_.emplace_back();
    onnx_functions::body_graph(fp, sites, body);
    const int gid = static_cast<int>(model_->graphs.size());
    Graph gr;
    gr.role = onnx_functions::function_path(fp);
    gr.own_root = true;
    gr.loc = loc(gid);
    model_->graphs.push_back(std::move(gr));
    GraphInfo info;
    info.proto = &body;
    info.in_function = true;
    info.function_root = true;
    gi_.push_back(std::move(info));
    (void)walk(gid);  // only the main graph's nodes are parsed as the walk goes
    function_walked_[static_cast<size_t>(f)] = 1;
    function_graphs_[static_cast<size_t>(f)] = {gid, static_cast<int>(model_->graphs.size())};
    // A failure that only the calls' own types expose (they do not agree, so the body was walked without them):
    // reported at each call, unless the body reports a problem itself (one root cause, one finding).
    bool body_reports = false;
    for (const OnnxProblem& p : data_->problems)
      if (p.kind == PKind::InferenceFailed && p.loc.graph >= gid) body_reports = true;
    if (!body_reports)
      for (const CallFailure& c : call_failures_[static_cast<size_t>(f)])
        problem(PKind::InferenceFailed,
                node_label(c.graph, c.node) + " in " + where(c.graph) +
                    " is invalid: onnx's inference through function " + qname(fp.domain() + "." + fp.name()) +
                    " fails for this call's input types at " + c.why,
                loc(c.graph, c.node));
  }
}

// onnx's checker for the model-local functions (check_model_local_functions: each function with the model's
// imports merged with its own), one function at a time so that a rejection names its function, and never where
// the function's walk already recorded an error (one root cause, one finding).
void OnnxBuilder::checker_functions() {
  const onnx::ModelProto& m = *proto_;
  if (!checker_on_ || m.ir_version() < 8 || m.functions_size() == 0) return;
  auto function_has_error = [&](int f) {
    const auto [first, end] =
        function_graphs_.empty() ? std::pair<int, int>{-1, -1} : function_graphs_[static_cast<size_t>(f)];
    for (const int64_t at : error_at_) {
      const int g = static_cast<int>(at >> 32);
      if (g >= first && g < end) return true;
    }
    return false;
  };
  auto where_f = [&](int f) {
    const int g = function_graphs_.empty() ? -1 : function_graphs_[static_cast<size_t>(f)].first;
    return g >= 0 ? g : 0;
  };
  // A function body's node whose opset selects a definition newer than the linked onnx's is judged by the newer
  // facts: then every body node is checked here, each by the definition its function's imports select.
  std::vector<std::vector<Judge>> judged(static_cast<size_t>(m.functions_size()));
  bool newer = false;
  for (int f = 0; f < m.functions_size(); ++f) {
    const onnx::FunctionProto& fp = m.functions(f);
    for (const auto& nd : fp.node()) {
      Judge j;
      for (const auto& os : fp.opset_import())
        if (os.domain() == nd.domain() ||
            ((os.domain().empty() || os.domain() == "ai.onnx") && (nd.domain().empty() || nd.domain() == "ai.onnx")))
          j = judge_at(nd.op_type(), nd.domain(), os.version());
      newer = newer || j.kind != Judge::Linked;
      judged[static_cast<size_t>(f)].push_back(j);
    }
  }
  if (!newer) {
    std::unordered_map<std::string, int> imports(checker_ctx_.get_opset_imports());
    for (const auto& fp : m.functions())
      for (const auto& os : fp.opset_import())
        if (!imports.count(os.domain())) imports[os.domain()] = static_cast<int>(os.version());
    onnx::checker::CheckerContext ctx = checker_ctx_;
    ctx.set_opset_imports(imports);
    for (int f = 0; f < m.functions_size(); ++f) {
      if (function_has_error(f)) continue;
      try {
        onnx::checker::LexicalScopeContext lex;
        onnx::checker::check_function(m.functions(f), ctx, lex);
      } catch (const std::exception& e) {
        checker_problem(where_f(f), -1, "onnx's checker rejects a model-local function", e.what());
      }
    }
    return;
  }
  for (int f = 0; f < m.functions_size(); ++f) {
    if (function_has_error(f)) continue;
    const onnx::FunctionProto& fp = m.functions(f);
    for (int k = 0; k < fp.node_size(); ++k) {
      const onnx::NodeProto& nd = fp.node(k);
      const Judge& j = judged[static_cast<size_t>(f)][static_cast<size_t>(k)];
      try {
        if (j.kind == Judge::Facts) {
          try {
            facts_verify(nd, *j.facts);
          } catch (const std::exception& e) {
            fail_check("by ", facts_label(nd, *j.facts), ": ", e.what());
          }
        } else if (j.kind == Judge::Linked) {
          for (const auto& os : fp.opset_import())
            if (os.domain() == nd.domain() && os.version() > 0 && os.version() <= kMaxOpsetVersion)
              if (const auto* sc =
                      onnx::OpSchemaRegistry::Schema(nd.op_type(), static_cast<int>(os.version()), nd.domain()))
                sc->Verify(nd);
        }
      } catch (const std::exception& e) {
        checker_problem(
            where_f(f), -1, "onnx's checker rejects a model-local function",
            "function " + qname(fp.name()) + ", node " + qname(nd.name()) + " (" + nd.op_type() + "): " + e.what());
        break;
      }
    }
  }
}

}  // namespace onnx_build

namespace {

using onnx_build::OnnxBuilder;
using onnx_build::PKind;

template <typename Bytes>
std::unique_ptr<Model> load_onnx_from(const std::string& path, Bytes&& bytes, bool keep_proto) {
  std::string error;
  try {
    auto b = std::make_unique<OnnxBuilder>(path, std::forward<Bytes>(bytes), keep_proto);
    auto m = b->build();
    // The parsed messages and the builder's tables: freed here, or left to the process's exit when the
    // process lints this one model (a 10,000-If model spends tens of milliseconds freeing them).
    if (loader_teardown_skipped()) (void)b.release();
    return m;
  } catch (const std::bad_alloc&) {
    error = "out of memory while reading the file";
  } catch (const std::exception& e) {
    error = std::string("internal error while reading the file: ") + e.what();
  }
  auto m = std::make_unique<Model>();
  m->format = Format::ONNX;
  m->path = path;
  m->onnx = std::make_unique<OnnxData>();
  Graph g;
  g.role = "main";
  m->graphs.push_back(g);
  SourceLocation l;
  l.graph = 0;
  m->onnx->problems.push_back({PKind::Parse, error, l});
  return m;
}

}  // namespace

std::unique_ptr<Model> load_onnx(const std::string& path, const std::string& bytes, bool keep_proto) {
  return load_onnx_from(path, bytes, keep_proto);
}

std::unique_ptr<Model> load_onnx(const std::string& path, std::string&& bytes, bool keep_proto) {
  return load_onnx_from(path, std::move(bytes), keep_proto);
}

}  // namespace condlint
