// ONNX loader: the entry points (load_onnx) and the builder's steps in their order (OnnxBuilder::build); the
// state they share and what each step does: onnx_builder.hpp.
#include "loaders/onnx_builder.hpp"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "loaders/loader.hpp"

namespace condlint {

namespace onnx_build {

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
  if (!stream_ || root_node_count_ == 0) free_owned_bytes();
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
  auto m = onnx_model_shell(path);
  SourceLocation l;
  l.graph = 0;
  m->onnx->problems.push_back({PKind::Parse, error, l});
  return m;
}

}  // namespace

std::unique_ptr<Model> onnx_model_shell(const std::string& path) {
  auto m = std::make_unique<Model>();
  m->format = Format::ONNX;
  m->path = path;
  m->onnx = std::make_unique<OnnxData>();
  Graph g;
  g.role = "main";
  m->graphs.push_back(g);
  return m;
}

std::unique_ptr<Model> load_onnx(const std::string& path, const std::string& bytes, bool keep_proto) {
  return load_onnx_from(path, bytes, keep_proto);
}

std::unique_ptr<Model> load_onnx_view(const std::string& path, std::string_view bytes, bool keep_proto) {
  return load_onnx_from(path, bytes, keep_proto);
}

std::unique_ptr<Model> load_onnx(const std::string& path, std::string&& bytes, bool keep_proto) {
  return load_onnx_from(path, std::move(bytes), keep_proto);
}

}  // namespace condlint
