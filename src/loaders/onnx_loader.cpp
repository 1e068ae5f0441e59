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
