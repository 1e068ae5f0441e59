// ONNX loader, the parse: the file's bytes into onnx::ModelProto through protobuf (recursion limit raised, bounded;
// what nests past what this thread's stack bears is parsed on a thread with a big stack), the main graph's nodes
// one at a time as the walk reaches them (split_main_graph), the owned bytes given back as the walk passes them, and
// the counts of nodes and values the walk sizes its lists by; and what a mapped file is parsed from
// (load_onnx_mapped: its large weights stripped by loaders/onnx_wire, never copied). Everything the loader reads of
// the bytes themselves is here.
#include "loaders/onnx_builder.hpp"

#include <onnx/onnx_pb.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "io/mapped_file.hpp"
#include "loaders/onnx_wire.hpp"

namespace condlint::onnx_build {

namespace {

constexpr int kRecursionLimit = 100000;          // protobuf message nesting; 1,000 nested Ifs need ~3,000
constexpr int kFallbackRecursionLimit = 8000;    // when no parsing thread can be started
constexpr int kInlineRecursionLimit = 200;       // parsed on the caller's stack (about 60 nested Ifs)
constexpr size_t kParseStack = size_t(1) << 30;  // stack of the parsing thread (reserved, not touched)

// The main graph cut out of a model's bytes: the model's fields around its graph, the runs of the graph's fields
// between its nodes, and each node's bytes. Parsed piece by piece in this order they give the model parsed whole
// (protobuf merges a message's fields in the order they come), so the walk can parse the main graph's nodes one at a
// time as it reaches them, and the parsed branches of all of them are never in memory at once.
struct MainGraphSplit {
  std::string_view before, after;             // the model's fields before and after its graph
  std::vector<std::string_view> graph_parts;  // the graph's fields, without its nodes
  std::vector<std::string_view> nodes;        // each of graph.node, in order
};

// False when the bytes do not scan, or hold no graph field or more than one: they are then parsed whole.
bool split_main_graph(std::string_view b, MainGraphSplit& out) {
  size_t graphs = 0;
  WireField graph;
  const bool scanned = for_each_wire_field(b, [&](const WireField& f) {
    if (f.number == 7) {
      ++graphs;
      graph = f;
    }
  });
  if (!scanned || graphs != 1 || graph.wire != 2) return false;
  out.before = b.substr(0, graph.begin);
  out.after = b.substr(graph.end);
  const std::string_view g = graph.payload;
  size_t run = 0;  // where the current run of other fields starts
  const bool ok = for_each_wire_field(g, [&](const WireField& f) {
    if (f.number != 1 || f.wire != 2) return;
    if (f.begin > run) out.graph_parts.push_back(g.substr(run, f.begin - run));
    out.nodes.push_back(f.payload);
    run = f.end;
  });
  if (!ok) return false;
  if (run < g.size()) out.graph_parts.push_back(g.substr(run));
  return true;
}

// Runs fn on a thread with a kParseStack stack (reserved, not touched): protobuf parses and frees nested messages
// recursively, so a hostile nesting must not reach the caller's stack. False when no such thread can be started.
template <class F>
bool on_big_stack(F& fn) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_t tid;
  const bool ran = pthread_attr_setstacksize(&attr, kParseStack) == 0 && pthread_create(
                                                                             &tid, &attr,
                                                                             [](void* f) -> void* {
                                                                               (*static_cast<F*>(f))();
                                                                               return nullptr;
                                                                             },
                                                                             &fn) == 0;
  pthread_attr_destroy(&attr);
  if (ran) pthread_join(tid, nullptr);
  return ran;
}

// Merges serialized bytes (< 2 GiB) into a message; false when protobuf rejects them or they nest past `limit`.
bool merge_bytes(std::string_view bytes, google::protobuf::MessageLite& m, int limit) {
  if (bytes.empty()) return true;
  try {
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetRecursionLimit(limit);
    return m.MergeFromCodedStream(&in) && in.ConsumedEntireMessage();
  } catch (const std::exception&) {
    return false;
  }
}

// What does not parse within the inline limit: parsed again into a fresh *m, as deep as kRecursionLimit, on a thread
// with a big stack, where a failed parse's partial messages are freed too (*m is then an empty message); without such
// a thread, as deep as the caller's stack bears. `big`: parsed on the big stack, so to be freed there.
template <class M>
bool parse_past_inline_limit(std::string_view bytes, M*& m, bool& big) {
  m = new M;
  bool ok = false;
  auto job = [&] {
    ok = merge_bytes(bytes, *m, kRecursionLimit);
    if (!ok) {
      delete m;
      m = new M;
    }
  };
  if (on_big_stack(job)) {
    big = ok;
    return ok;
  }
  big = false;
  return merge_bytes(bytes, *m, kFallbackRecursionLimit);
}

}  // namespace

// Bytes of the main graph's initializers and sparse initializers, by a shallow scan of the wire format (the
// model's field 7, and in it fields 5 and 15), without parsing. 0 when the bytes do not scan.
size_t weight_bytes(std::string_view b) {
  size_t total = 0;
  const bool ok = for_each_wire_field(b, [&](const WireField& f) {
    if (f.number == 7 && f.wire == 2)
      (void)for_each_wire_field(f.payload, [&](const WireField& gf) {
        if ((gf.number == 5 || gf.number == 15) && gf.wire == 2) total += gf.payload.size();
      });
  });
  return ok ? std::min(total, b.size()) : 0;
}

Counts count_nodes(const onnx::GraphProto& root) {
  Counts n;
  std::vector<const onnx::GraphProto*> todo{&root};
  while (!todo.empty()) {
    const onnx::GraphProto* g = todo.back();
    todo.pop_back();
    ++n.graphs;
    n.nodes += static_cast<size_t>(g->node_size());
    if (g != &root) n.subgraph_nodes += static_cast<size_t>(g->node_size());
    n.values += static_cast<size_t>(g->input_size() + g->initializer_size() + g->sparse_initializer_size());
    for (const auto& node : g->node()) {
      n.values += static_cast<size_t>(node.output_size());
      if (node.op_type() == "If") ++n.ifs;
      for (const auto& a : node.attribute()) {
        if (a.has_g()) todo.push_back(&a.g());
        for (const auto& sg : a.graphs()) todo.push_back(&sg);
      }
    }
  }
  return n;
}

// count_nodes' counts for nodes still in their bytes (the main graph's, split_main_graph), by a scan of the wire
// format (NodeProto output 2, op_type 4, attribute 5; AttributeProto g 6, graphs 11; GraphProto node 1, input 11,
// initializer 5, sparse_initializer 15). They size the walk's lists; bytes that do not scan are counted as far as
// they scan (the node then fails to parse).
void count_wire_nodes(const std::vector<std::string_view>& nodes, Counts& n) {
  std::vector<std::pair<std::string_view, bool>> todo;  // bytes, is a graph (else a node)
  for (std::string_view node : nodes) todo.emplace_back(node, false);
  n.nodes += nodes.size();
  while (!todo.empty()) {
    const auto [bytes, is_graph] = todo.back();
    todo.pop_back();
    if (is_graph) {
      ++n.graphs;
      (void)for_each_wire_field(bytes, [&](const WireField& f) {
        if (f.wire != 2) return;
        if (f.number == 1) {
          ++n.nodes;
          ++n.subgraph_nodes;
          todo.emplace_back(f.payload, false);
        } else if (f.number == 5 || f.number == 11 || f.number == 15) {
          ++n.values;
        }
      });
      continue;
    }
    std::string_view op;
    (void)for_each_wire_field(bytes, [&](const WireField& f) {
      if (f.wire != 2) return;
      if (f.number == 2) ++n.values;
      else if (f.number == 4) op = f.payload;
      else if (f.number == 5)
        (void)for_each_wire_field(f.payload, [&](const WireField& a) {
          if (a.wire == 2 && (a.number == 6 || a.number == 11)) todo.emplace_back(a.payload, true);
        });
    });
    if (op == "If") ++n.ifs;
  }
}

// The finding for bytes protobuf rejects, where the scan of their top level says the problem starts.
void OnnxBuilder::reject_bytes(const WireScan& scan) {
  SourceLocation l = loc(0);
  l.offset = scan.offset;
  std::string msg = "not a valid ONNX ModelProto";
  // What git leaves in place of a model stored in Git LFS whose data is not checked out: a short text, named as such.
  if (std::string_view(bytes_).substr(0, 40) == "version https://git-lfs.github.com/spec/")
    msg += ": the file is a Git LFS pointer, not the model: is the data checked out (git lfs pull)?";
  else if (bytes_.size() > static_cast<size_t>(INT32_MAX)) msg += ": the file is larger than protobuf's 2 GiB limit";
  else if (!scan.error.empty()) msg += ": " + scan.error + " at byte " + std::to_string(scan.offset);
  else msg += ": protobuf rejects the bytes (a field holds the wrong wire type or invalid UTF-8)";
  problem(PKind::Parse, msg, l);
}

// Everything but the main graph's nodes, whose bytes are kept for parse_root_node. False (and nothing kept) when the
// bytes do not split or a piece does not parse within the inline limit: the model is then parsed whole.
bool OnnxBuilder::parse_main_graph_apart() {
  MainGraphSplit split;
  if (!split_main_graph(bytes_, split)) return false;
  onnx::GraphProto* graph = proto_->mutable_graph();
  bool ok = merge_bytes(split.before, *proto_, kInlineRecursionLimit);
  for (std::string_view part : split.graph_parts) ok = ok && merge_bytes(part, *graph, kInlineRecursionLimit - 1);
  ok = ok && merge_bytes(split.after, *proto_, kInlineRecursionLimit);
  if (!ok) {
    proto_->Clear();
    return false;
  }
  root_nodes_ = std::move(split.nodes);
  root_node_count_ = static_cast<int>(root_nodes_.size());
  return true;
}

// Parses node i of the main graph (the walk reaches them in order) into the graph, as parse() parses a model: within
// the inline limit on this thread, else on a big stack (and then the model is freed there, and no more subgraphs are
// freed on this thread as the walk leaves them). False when protobuf rejects the node. The owned bytes before the
// next node are read no more: their pages go back to the system as the walk goes (drop_read_bytes), all of them
// after the last node.
bool OnnxBuilder::parse_root_node(int i) {
  onnx::GraphProto* graph = proto_->mutable_graph();
  if (graph->node_size() != i || i >= root_node_count_) return false;
  const std::string_view bytes = root_nodes_[static_cast<size_t>(i)];
  if (!merge_bytes(bytes, *graph->add_node(), kInlineRecursionLimit - 2)) {
    graph->mutable_node()->RemoveLast();  // what was parsed of it nests within the inline limit: cleared here
    onnx::NodeProto* node = nullptr;
    bool big = false;
    if (!parse_past_inline_limit(bytes, node, big)) {
      delete node;  // empty, or nested no deeper than the caller's stack bears
      return false;
    }
    graph->mutable_node()->AddAllocated(node);
    if (big) {
      parsed_on_big_stack_ = true;
      release_walked_ = false;
    }
  }
  if (i + 1 == root_node_count_) {
    std::vector<std::string_view>().swap(root_nodes_);
    free_owned_bytes();
  } else if (owns_bytes_) {
    drop_read_bytes(static_cast<size_t>(root_nodes_[static_cast<size_t>(i) + 1].data() - owned_bytes_.data()));
  }
  return true;
}

// Gives the whole pages of the owned bytes before `upto` back to the system (they read as zeros after), 4 MiB or more
// at a time: a page given back is faulted in again when the allocator reuses it, which costs more than it saves on
// files of a few megabytes (1 MiB batches quadrupled the page faults of linting the pinned real models). Only the
// builder's own copy: the caller's bytes are never touched.
void OnnxBuilder::drop_read_bytes(size_t upto) {
  constexpr size_t kBatch = size_t(4) << 20;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (page == 0 || upto < bytes_dropped_ + kBatch) return;
  const auto base = reinterpret_cast<uintptr_t>(owned_bytes_.data());
  const uintptr_t from = (base + bytes_dropped_ + page - 1) / page * page;
  const uintptr_t to = (base + upto) / page * page;
  if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  bytes_dropped_ = upto;
}

OnnxBuilder::~OnnxBuilder() {
  // Freeing is as recursive as parsing: a model that needed the big stack to parse needs it to be freed (and when no
  // thread can be started for that, its messages are left to the process rather than risk the stack).
  auto free_proto = [this] { delete proto_; };
  if (parsed_on_big_stack_) (void)on_big_stack(free_proto);
  else free_proto();
}

bool OnnxBuilder::parse() {
  // protobuf parses (and frees) nested messages recursively. Most models nest a few dozen messages deep: they are
  // parsed here with a limit this thread's stack bears. What fails that is parsed again on a thread whose stack is
  // large enough for the bounded limit, so a hostile nesting is a finding, never a crash; a failed parse's partial
  // messages are freed there too, and a deep model that parses is freed on such a thread (~OnnxBuilder).
  // Everything after parsing is iterative.
  bool ok = false;
  // onnx's schema registry (~10 ms, built on first use, once per process) is built meanwhile on another thread: the
  // per-node inference needs it next.
  static std::atomic<bool> registry_started{false};
  struct Joined {
    std::thread t;
    ~Joined() {
      if (t.joinable()) t.join();
    }
  } registry;
  if (!registry_started.exchange(true)) {
    try {
      registry.t = std::thread([] { (void)onnx::OpSchemaRegistry::Schema("If", 1, ""); });
    } catch (const std::exception&) {  // no thread: the first inference builds it
    }
  }
  if (bytes_.size() <= static_cast<size_t>(INT32_MAX) && stream_ && parse_main_graph_apart()) {
    ok = true;
  } else if (bytes_.size() <= static_cast<size_t>(INT32_MAX)) {
    stream_ = false;
    ok = merge_bytes(bytes_, *proto_, kInlineRecursionLimit);  // proto_ is empty: nothing or a failed split was in it
    if (!ok) {
      delete proto_;
      ok = parse_past_inline_limit(bytes_, proto_, parsed_on_big_stack_);
    }
  }
  if (!ok) {
    reject_bytes(scan_wire(bytes_, kRecursionLimit));
    return false;
  }
  if (!proto_->has_graph()) {
    problem(PKind::Parse,
            proto_->ir_version() == 0
                ? "not an ONNX model: the bytes parse as protobuf but hold no ir_version and no graph"
                : "the ModelProto has no graph",
            loc(0));
    return false;
  }
  return true;
}

// The main graph's nodes live until the walk ends, while the subgraphs under them are freed as it goes. As parsed,
// their messages sit among those of the subgraphs parsed between them, and an allocator gives a page back for
// other sizes only when its last block is freed: a few live messages would hold every page of the subgraphs.
// Copied to fresh memory (their subgraphs moved, not copied), they leave those pages to the Model built next.
void OnnxBuilder::compact_root_nodes() {
  auto& nodes = *proto_->mutable_graph()->mutable_node();
  std::vector<onnx::GraphProto*> taken;
  std::vector<google::protobuf::RepeatedPtrField<onnx::GraphProto>> taken_lists;
  for (auto& np : nodes) {
    const auto na = static_cast<size_t>(np.attribute_size());
    taken.assign(na, nullptr);
    taken_lists.clear();
    taken_lists.resize(na);
    for (size_t i = 0; i < na; ++i) {
      auto* a = np.mutable_attribute(static_cast<int>(i));
      if (a->has_g()) taken[i] = a->release_g();
      taken_lists[i].Swap(a->mutable_graphs());
    }
    onnx::NodeProto fresh(np);
    for (size_t i = 0; i < na; ++i) {
      auto* a = fresh.mutable_attribute(static_cast<int>(i));
      if (taken[i]) a->set_allocated_g(taken[i]);
      a->mutable_graphs()->Swap(&taken_lists[i]);
    }
    np.Swap(&fresh);  // `np` keeps its address and takes the fresh memory; the parsed copy goes with `fresh`
  }
}

}  // namespace condlint::onnx_build

namespace condlint {

std::unique_ptr<Model> load_onnx_mapped(const std::string& path, const std::shared_ptr<const io::MappedFile>& file,
                                        bool keep_proto, size_t threshold) {
  const std::string_view all = file->bytes();
  // The file parsed whole. Bytes that scan with nothing to strip are all structure, which the parse takes about nine
  // times in memory anyway: they are copied (in pieces whose mapped pages go back behind the copy), and the loader
  // gives the copy's pages back as its walk passes them, as for a file read. Bytes that do not scan are parsed from
  // the mapping itself: protobuf rejects them where they stop scanning, without a copy of the whole file.
  constexpr size_t kPiece = size_t{8} << 20;
  auto whole = [&](bool copy) {
    if (!copy) {
      auto m = load_onnx_view(path, all, keep_proto);
      file->release(0, all.size());
      return m;
    }
    std::string bytes;
    bytes.reserve(all.size());
    for (size_t at = 0; at < all.size(); at += kPiece) {
      bytes.append(all.substr(at, kPiece));
      file->release(at, kPiece);
    }
    return load_onnx(path, std::move(bytes), keep_proto);
  };
  SlimModel slim;
  const std::string mark = new_mark(file);
  if (!slim_model(all, mark, threshold, slim, file.get())) return whole(/*copy=*/false);
  if (slim.entries > kMaxOnnxEntries) {
    // Not parsed: a model of millions of tiny entries costs hundreds of bytes of memory for each of its bytes.
    file->release(0, all.size());
    auto m = onnx_model_shell(path);
    SourceLocation l;
    l.graph = 0;
    m->over_limits.push_back({"the nodes, initializers and value declarations of the model's graphs",
                              static_cast<int64_t>(slim.entries), static_cast<int64_t>(kMaxOnnxEntries), l,
                              "entries", /*whole_model=*/true});
    return m;
  }
  if (slim.stripped == 0) return whole(/*copy=*/true);
  file->release(0, all.size());
  auto model = load_onnx(path, std::move(slim.bytes), keep_proto);
  // Bytes protobuf rejects are judged whole, so that the finding and its offset are the file's.
  bool rejected = !model || !model->onnx;
  if (!rejected)
    for (const auto& p : model->onnx->problems) rejected = rejected || p.kind == OnnxProblem::Kind::Parse;
  if (rejected) return whole(/*copy=*/false);
  model->onnx->payload_file = file;
  return model;
}

}  // namespace condlint
