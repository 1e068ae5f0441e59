// The TFLite (LiteRT) loader: a .tflite flatbuffer, read in place from its mapping through the reader flatc generates
// from loaders/tflite_schema.fbs. The generated verifier checks every offset, vector, string and table the reader
// follows before anything is read (bounded in depth and in tables); a file it refuses is a TFL001 finding and nothing
// is built. The loader records what the file states (TfliteData) and builds the unified Model: one graph per
// subgraph, hung under the first operator that names it (breadth first from the main subgraph, as the NNAPI loader
// hangs referenced models), one node per operator, and the Conditional view of every IF. It judges nothing: an index
// out of range, a recursion or a count that differs is recorded as written and left to the TFL rules.
#include <cstdint>
#include <deque>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "io/mapped_file.hpp"
#include "loaders/loader.hpp"
#include "model/condition_trace.hpp"
#include "model/node_path.hpp"
#include "model/tflite_data.hpp"
#include "tflite_schema_generated.h"

namespace condlint {
namespace {

// The verifier's bounds: the depth of nested tables (a TFLite model nests five: model, subgraph, operator, options,
// and a tensor's quantization) and the number of tables it may visit (a model of a million tensors stays inside).
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 50'000'000;

template <class V>
std::vector<int32_t> ints(const V* v) {
  std::vector<int32_t> out;
  if (!v) return out;
  out.reserve(v->size());
  for (auto x : *v) out.push_back(static_cast<int32_t>(x));
  return out;
}

void read_options(const tflfb::Operator& op, TflOperator& o);

class TflBuilder {
 public:
  TflBuilder(const std::string& path, std::shared_ptr<const io::MappedFile> file) : path_(path), file_(std::move(file)) {}
  std::unique_ptr<Model> build();

 private:
  int64_t offset_of(const void* p) const {
    return static_cast<int64_t>(static_cast<const char*>(p) - file_->bytes().data());
  }
  SourceLocation at(int64_t offset, int graph = -1, int node = -1) const {
    SourceLocation l;
    l.offset = offset;
    l.graph = graph;
    l.node_index = node;
    return l;
  }
  void problem(std::string message) { d_->problems.push_back({std::move(message), at(0)}); }
  bool read();
  void read_subgraph(const tflfb::SubGraph& sg, const tflfb::Model& fb, TflSubgraph& out);
  void build_graphs();
  void build_views();
  ValueDesc value_of(size_t g, int32_t t, const std::string& role) const;

  const std::string& path_;
  std::shared_ptr<const io::MappedFile> file_;
  std::unique_ptr<Model> model_;
  TfliteData* d_ = nullptr;
};

bool TflBuilder::read() {
  const std::string_view bytes = file_->bytes();
  if (bytes.size() < 8 || !flatbuffers::BufferHasIdentifier(bytes.data(), tflfb::ModelIdentifier())) {
    problem("not a TFLite model: the flatbuffer's file identifier (bytes 4-7) is not \"TFL3\"");
    return false;
  }
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    problem("the file has " + std::to_string(bytes.size()) + " bytes, more than the 2 GiB a flatbuffer can address");
    return false;
  }
  flatbuffers::Verifier v(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), kMaxDepth, kMaxTables);
  if (!tflfb::VerifyModelBuffer(v)) {
    problem("not a valid TFLite flatbuffer: an offset, a vector or a table lies outside the file or is misaligned "
            "(or the file nests deeper than " +
            std::to_string(kMaxDepth) + " tables, or holds more than " + std::to_string(kMaxTables) + ")");
    return false;
  }
  const tflfb::Model& fb = *tflfb::GetModel(bytes.data());
  d_->version = fb.version();
  if (fb.description()) d_->description = fb.description()->str();
  d_->buffer_count = fb.buffers() ? fb.buffers()->size() : 0;
  std::vector<bool> has_data(d_->buffer_count, false);
  d_->buffers.resize(d_->buffer_count);
  if (fb.buffers())
    for (size_t i = 0; i < d_->buffer_count; ++i) {
      const tflfb::Buffer* b = fb.buffers()->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (!b) continue;
      TflBuffer& out = d_->buffers[i];
      if (b->data() && b->data()->size() > 0) {
        out.offset = offset_of(b->data()->Data());
        out.size = b->data()->size();
      } else if (b->offset() > 1) {  // the schema's mark of data past the flatbuffer (a model over 2 GiB)
        out.offset = b->offset() <= static_cast<uint64_t>(INT64_MAX) ? static_cast<int64_t>(b->offset()) : -1;
        out.size = b->size();
      }
      has_data[i] = out.offset >= 0;
    }
  if (fb.signature_defs())
    for (const tflfb::SignatureDef* s : *fb.signature_defs())
      if (s) d_->signatures.emplace_back(s->signature_key() ? s->signature_key()->str() : "", s->subgraph_index());
  if (!fb.subgraphs() || fb.subgraphs()->size() == 0) {
    problem("the model has no subgraph: TFLite runs subgraph 0");
    return false;
  }
  d_->subgraphs.resize(fb.subgraphs()->size());
  for (size_t g = 0; g < d_->subgraphs.size(); ++g) {
    const tflfb::SubGraph* sg = fb.subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(g));
    if (!sg) continue;
    read_subgraph(*sg, fb, d_->subgraphs[g]);
    for (TflTensor& t : d_->subgraphs[g].tensors) t.constant = t.buffer < has_data.size() && has_data[t.buffer];
  }
  return true;
}

void TflBuilder::read_subgraph(const tflfb::SubGraph& sg, const tflfb::Model& fb, TflSubgraph& out) {
  out.offset = offset_of(&sg);
  if (sg.name()) out.name = sg.name()->str();
  out.inputs = ints(sg.inputs());
  out.outputs = ints(sg.outputs());
  if (sg.tensors()) {
    out.tensors.resize(sg.tensors()->size());
    for (size_t i = 0; i < out.tensors.size(); ++i) {
      const tflfb::Tensor* t = sg.tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
      TflTensor& x = out.tensors[i];
      if (!t) continue;
      x.offset = offset_of(t);
      if (t->name()) x.name = t->name()->str();
      x.type = t->type();
      x.buffer = t->buffer();
      x.has_rank = t->has_rank();
      x.is_variable = t->is_variable();
      const size_t rank = t->shape() ? t->shape()->size() : 0;
      if (rank > static_cast<size_t>(kMaxRank)) {
        x.rank_over_limit = true;
        model_->over_limits.push_back({"the shape of tensor " + std::to_string(i) + " '" + x.name + "'",
                                       static_cast<int64_t>(rank), kMaxRank, at(x.offset)});
        continue;
      }
      x.shape = ints(t->shape());
      if (t->shape_signature() && t->shape_signature()->size() <= static_cast<size_t>(kMaxRank))
        x.shape_signature = ints(t->shape_signature());
    }
  }
  const auto* codes = fb.operator_codes();
  if (!sg.operators()) return;
  out.ops.resize(sg.operators()->size());
  for (size_t k = 0; k < out.ops.size(); ++k) {
    const tflfb::Operator* op = sg.operators()->Get(static_cast<flatbuffers::uoffset_t>(k));
    TflOperator& o = out.ops[k];
    if (!op) continue;
    o.offset = offset_of(op);
    o.opcode_index = op->opcode_index();
    o.inputs = ints(op->inputs());
    o.outputs = ints(op->outputs());
    o.options_type = static_cast<uint8_t>(op->builtin_options_type());
    if (codes && o.opcode_index < codes->size()) {
      const tflfb::OperatorCode* c = codes->Get(o.opcode_index);
      if (c) {
        // The larger of the two fields (the byte-sized one is all an old writer has).
        o.op = std::max<int32_t>(c->builtin_code(), c->deprecated_builtin_code());
        o.version = c->version();
        if (c->custom_code()) o.custom = c->custom_code()->str();
      }
    }
    read_options(*op, o);
    if (o.op == tfl::kIf) {
      if (const auto* io = op->builtin_options_as_IfOptions()) {
        o.has_refs = true;
        o.refs = {{"then", io->then_subgraph_index()}, {"else", io->else_subgraph_index()}};
      }
    } else if (o.op == tfl::kWhile) {
      if (const auto* wo = op->builtin_options_as_WhileOptions()) {
        o.has_refs = true;
        o.refs = {{"cond", wo->cond_subgraph_index()}, {"body", wo->body_subgraph_index()}};
      }
    } else if (o.op == tfl::kCallOnce) {
      if (const auto* co = op->builtin_options_as_CallOnceOptions()) {
        o.has_refs = true;
        o.refs = {{"init", co->init_subgraph_index()}};
      }
    }
  }
}

namespace {

const char* activation_name(int8_t a) {
  switch (a) {
    case 0: return "NONE";
    case 1: return "RELU";
    case 2: return "RELU_N1_TO_1";
    case 3: return "RELU6";
    case 4: return "TANH";
    case 5: return "SIGN_BIT";
    default: return "UNKNOWN";
  }
}

template <class V>
std::string join_ints(const V* v) {
  std::string s;
  if (v)
    for (auto x : *v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string text_of(bool b) { return b ? "true" : "false"; }

}  // namespace

// The options the executor reads, by field name (TflOperator::options).
void read_options(const tflfb::Operator& op, TflOperator& o) {
  auto& out = o.options;
  auto put = [&](const char* name, std::string value) { out.emplace_back(name, std::move(value)); };
  if (const auto* a = op.builtin_options_as_AddOptions()) put("fused_activation_function", activation_name(a->fused_activation_function()));
  if (const auto* a = op.builtin_options_as_SubOptions()) put("fused_activation_function", activation_name(a->fused_activation_function()));
  if (const auto* a = op.builtin_options_as_MulOptions()) put("fused_activation_function", activation_name(a->fused_activation_function()));
  if (const auto* a = op.builtin_options_as_DivOptions()) put("fused_activation_function", activation_name(a->fused_activation_function()));
  if (const auto* c = op.builtin_options_as_Conv2DOptions()) {
    put("padding", c->padding() == 0 ? "SAME" : c->padding() == 1 ? "VALID" : "UNKNOWN");
    put("stride_w", std::to_string(c->stride_w()));
    put("stride_h", std::to_string(c->stride_h()));
    put("fused_activation_function", activation_name(c->fused_activation_function()));
    put("dilation_w_factor", std::to_string(c->dilation_w_factor()));
    put("dilation_h_factor", std::to_string(c->dilation_h_factor()));
  }
  if (const auto* f = op.builtin_options_as_FullyConnectedOptions()) {
    put("fused_activation_function", activation_name(f->fused_activation_function()));
    put("weights_format", std::to_string(f->weights_format()));
    put("keep_num_dims", text_of(f->keep_num_dims()));
  }
  if (const auto* s = op.builtin_options_as_SoftmaxOptions()) put("beta", std::to_string(s->beta()));
  if (const auto* c = op.builtin_options_as_ConcatenationOptions()) {
    put("axis", std::to_string(c->axis()));
    put("fused_activation_function", activation_name(c->fused_activation_function()));
  }
  if (const auto* r = op.builtin_options_as_ReshapeOptions()) put("new_shape", join_ints(r->new_shape()));
  if (const auto* g = op.builtin_options_as_GatherOptions()) {
    put("axis", std::to_string(g->axis()));
    put("batch_dims", std::to_string(g->batch_dims()));
  }
  if (const auto* r = op.builtin_options_as_ReducerOptions()) put("keep_dims", text_of(r->keep_dims()));
  if (const auto* s = op.builtin_options_as_StridedSliceOptions()) {
    put("begin_mask", std::to_string(s->begin_mask()));
    put("end_mask", std::to_string(s->end_mask()));
    put("ellipsis_mask", std::to_string(s->ellipsis_mask()));
    put("new_axis_mask", std::to_string(s->new_axis_mask()));
    put("shrink_axis_mask", std::to_string(s->shrink_axis_mask()));
    put("offset", text_of(s->offset()));
  }
  if (const auto* b = op.builtin_options_as_BatchMatMulOptions()) {
    put("adj_x", text_of(b->adj_x()));
    put("adj_y", text_of(b->adj_y()));
  }
}

ValueDesc TflBuilder::value_of(size_t g, int32_t t, const std::string& role) const {
  ValueDesc v;
  v.loc = at(d_->subgraphs[g].offset, static_cast<int>(g));
  const TflTensor* x = d_->tensor(g, t);
  v.label = d_->subgraph_label(g) + " " + d_->describe(g, t) + (role.empty() ? "" : " (" + role + ")");
  if (!x) return v;
  v.present = true;
  v.loc = at(x->offset, static_cast<int>(g));
  const ElemType e = tfl::elem_type(x->type);
  if (e != ElemType::Unknown) v.type = TypeDesc::tensor(e);
  if (x->rank_over_limit) {
    v.shape = Shape::unknown();
    return v;
  }
  const bool sig = x->shape_signature && x->shape_signature->size() == x->shape.size();
  std::vector<Dim> dims;
  for (size_t i = 0; i < x->shape.size(); ++i) {
    const int32_t n = sig ? (*x->shape_signature)[i] : x->shape[i];
    dims.push_back(n < 0 ? Dim::dynamic() : Dim::fixed(n));
  }
  v.shape = Shape::of(std::move(dims));
  // A shape [] is a scalar to the interpreter; a writer that sets has_rank = false may mean a rank not known.
  v.scalar_or_dynamic_rank = x->shape.empty() && !x->has_rank;
  return v;
}

void TflBuilder::build_graphs() {
  auto& graphs = model_->graphs;
  const size_t n = d_->subgraphs.size();
  graphs.resize(n);
  ValueTypeTable types;
  for (size_t g = 0; g < n; ++g) {
    const TflSubgraph& sg = d_->subgraphs[g];
    Graph& gr = graphs[g];
    gr.role = g == 0 ? "main" : "subgraph" + std::to_string(g);
    gr.loc = at(sg.offset, static_cast<int>(g));
    std::vector<std::pair<int, int>> producer(sg.tensors.size(), {-1, -1});
    for (size_t k = 0; k < sg.ops.size(); ++k)
      for (size_t j = 0; j < sg.ops[k].outputs.size(); ++j) {
        const int32_t t = sg.ops[k].outputs[j];
        if (t >= 0 && static_cast<size_t>(t) < producer.size() && producer[t].first < 0)
          producer[t] = {static_cast<int>(k), static_cast<int>(j)};
      }
    gr.nodes.resize(sg.ops.size());
    for (size_t k = 0; k < sg.ops.size(); ++k) {
      const TflOperator& op = sg.ops[k];
      Node& node = gr.nodes[k];
      node.id = std::to_string(k);
      // A CUSTOM operator by its custom_code; an opcode_index past the table (TFL008) as UNKNOWN.
      node.op = op.op == tfl::kCustom && !op.custom.empty() ? op.custom : op.op < 0 ? "UNKNOWN" : tfl::op_name(op.op);
      node.name = node_path::node_segment("", node.op.str(), k);  // TFLite operators have no names
      node.loc = at(op.offset, static_cast<int>(g), static_cast<int>(k));
      for (const auto& [name, value] : op.options) node.attrs.set(name, value);
      auto port = [&](int32_t t) {
        Port p;
        const ValueDesc v = value_of(g, t, "");
        p.id = std::to_string(t);
        p.set_type(types.get(v.type, v.shape));
        const TflTensor* x = d_->tensor(g, t);
        p.set_loc(at(x ? x->offset : op.offset));
        return p;
      };
      for (int32_t t : op.inputs) {
        node.inputs.push_back(port(t));
        ValueRef src;
        if (t >= 0 && static_cast<size_t>(t) < producer.size() && producer[t].first >= 0 &&
            producer[t].first < static_cast<int>(k))
          src = ValueRef{static_cast<int>(g), producer[t].first, producer[t].second};
        node.sources.push_back(src);
      }
      for (int32_t t : op.outputs) node.outputs.push_back(port(t));
    }
  }
  // Tree: each subgraph hangs under the first operator (breadth first from main) that names it; one reached again
  // (by another operator, or by a recursion) is not visited twice, and subgraph 0 is never hung under another.
  std::vector<char> seen(n, 0);
  std::deque<size_t> queue{0};
  seen[0] = 1;
  while (!queue.empty()) {
    const size_t g = queue.front();
    queue.pop_front();
    for (size_t k = 0; k < d_->subgraphs[g].ops.size(); ++k)
      for (const auto& [role, target] : d_->subgraphs[g].ops[k].refs) {
        if (target <= 0 || static_cast<size_t>(target) >= n) continue;
        graphs[g].nodes[k].bodies.emplace_back(role, target);
        if (seen[target]) continue;
        seen[target] = 1;
        graphs[target].parent_graph = static_cast<int>(g);
        graphs[target].parent_node = static_cast<int>(k);
        graphs[target].depth = graphs[g].depth + 1;
        graphs[target].role = role;
        queue.push_back(static_cast<size_t>(target));
      }
  }
  // A subgraph no operator reached from main runs (a signature's entry point, or dead weight: TFL007) is a root of
  // its own: its paths start at "subgraph3", not inside main.
  for (size_t g = 1; g < n; ++g) graphs[g].own_root = !seen[g];
}

void TflBuilder::build_views() {
  const size_t n = d_->subgraphs.size();
  for (size_t g = 0; g < n; ++g) {
    const TflSubgraph& sg = d_->subgraphs[g];
    for (size_t k = 0; k < sg.ops.size(); ++k) {
      const TflOperator& op = sg.ops[k];
      if (op.op != tfl::kIf) continue;
      ConditionalView c;
      c.graph = static_cast<int>(g);
      c.node = static_cast<int>(k);
      c.name = "IF operator " + std::to_string(k) + " in " + d_->subgraph_label(g);
      c.loc = at(op.offset, c.graph, c.node);
      if (!op.inputs.empty()) {
        c.has_condition = op.inputs[0] >= 0;
        if (c.has_condition) {
          c.condition = value_of(g, op.inputs[0], "IF input 0, the condition");
          c.provenance = trace_node_input(*model_, c.graph, c.node, 0);
        }
      }
      for (size_t j = 0; j < op.outputs.size(); ++j)
        c.outputs.push_back(value_of(g, op.outputs[j], "IF output " + std::to_string(j)));
      for (int b = 0; b < 2; ++b) {
        BranchView& br = c.branch[b];
        br.name = b == 0 ? "then" : "else";
        if (!op.has_refs) continue;
        const int32_t target = op.refs[b].second;
        // A branch the file names out of range, or the main subgraph, is no branch (TFL002 says so); a recursion
        // (TFL003) is one the Model does not hang under this IF.
        if (target <= 0 || static_cast<size_t>(target) >= n) continue;
        if (model_->graphs[target].parent_graph != c.graph || model_->graphs[target].parent_node != c.node) {
          bool ancestor = false;
          for (int a = c.graph; a >= 0; a = model_->graphs[a].parent_graph) ancestor |= a == target;
          if (ancestor) continue;
        }
        br.graph = target;
        const TflSubgraph& bg = d_->subgraphs[target];
        for (size_t i = 0; i < bg.inputs.size(); ++i) {
          InputBinding ib;
          ib.outer_index = static_cast<int>(1 + i);
          if (1 + i < op.inputs.size()) ib.outer = value_of(g, op.inputs[1 + i], "IF input " + std::to_string(1 + i));
          ib.inner = value_of(target, bg.inputs[i], br.name + " input " + std::to_string(i));
          ib.loc = c.loc;
          br.inputs.push_back(std::move(ib));
        }
        for (size_t j = 0; j < bg.outputs.size(); ++j) {
          OutputBinding ob;
          ob.output_index = static_cast<int>(j);
          ob.value = value_of(target, bg.outputs[j], br.name + " output " + std::to_string(j));
          ob.loc = at(bg.offset, target);
          br.outputs.push_back(std::move(ob));
        }
      }
      model_->conditionals.push_back(std::move(c));
    }
  }
}

std::unique_ptr<Model> TflBuilder::build() {
  model_ = std::make_unique<Model>();
  model_->format = Format::TFLITE;
  model_->path = path_;
  model_->tflite = std::make_unique<TfliteData>();
  d_ = model_->tflite.get();
  d_->file = file_;
  if (!read()) {
    d_->subgraphs.clear();
    model_->graphs.resize(1);
    model_->graphs[0].role = "main";
    return std::move(model_);
  }
  build_graphs();
  build_views();
  return std::move(model_);
}

}  // namespace

std::unique_ptr<Model> load_tflite(const std::string& path, const std::shared_ptr<const io::MappedFile>& file) {
  try {
    TflBuilder b(path, file);
    return b.build();
  } catch (const std::exception& e) {
    // Out of memory: a finding rather than a crash.
    auto m = std::make_unique<Model>();
    m->format = Format::TFLITE;
    m->path = path;
    m->graphs.resize(1);
    m->graphs[0].role = "main";
    m->tflite = std::make_unique<TfliteData>();
    m->tflite->problems.push_back({std::string("the model could not be loaded: ") + e.what(), SourceLocation{}});
    return m;
  }
}

}  // namespace condlint
