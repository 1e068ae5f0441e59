#include "model/model.hpp"

#include "io/mapped_file.hpp"

#include "model/node_path.hpp"

#include <algorithm>

#include "model/nnapi_data.hpp"
#include "model/onnx_data.hpp"
#include "model/tflite_data.hpp"

namespace condlint {

const std::string& SharedText::str() const {
  static const std::string empty;
  return s_ ? *s_ : empty;
}

SharedText TextTable::get(std::string_view s) {
  if (auto it = by_text_.find(s); it != by_text_.end()) return SharedText(it->second);
  auto keep = std::make_shared<const std::string>(s);
  by_text_.emplace(std::string_view(*keep), keep);
  return SharedText(std::move(keep));
}

const std::string* Attributes::find(std::string_view name) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  return it != items_.end() && it->first == name ? &it->second : nullptr;
}

void Attributes::set(std::string name, std::string value) {
  auto& v = items_.vec();
  // Layers list their attributes mostly in order, so the search usually ends at the back.
  auto it = !v.empty() && v.back().first < name
                ? v.end()
                : std::lower_bound(v.begin(), v.end(), name,
                                   [](const Entry& e, const std::string& n) { return e.first < n; });
  if (it != v.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    v.emplace(it, std::move(name), std::move(value));
  }
}

std::string_view to_string(Format f) {
  switch (f) {
    case Format::IR: return "ir";
    case Format::ONNX: return "onnx";
    case Format::NNAPI: return "nnapi";
    case Format::TFLITE: return "tflite";
  }
  return "ir";
}

}  // namespace condlint

namespace condlint {

Model::Model() = default;
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

// Segments of one graph level, innermost first: the graph's role, then the node that owns it.
static void level_segments(const Model& m, int g, std::vector<std::string>& out) {
  const Graph& gr = m.graphs[g];
  out.push_back(gr.role);
  const auto& pn = m.graphs[gr.parent_graph].nodes;
  out.push_back(gr.parent_node >= 0 && gr.parent_node < static_cast<int>(pn.size())
                    ? node_path::escape(pn[gr.parent_node].display())
                    : std::string("?"));
}

int Model::anchor_of(int g) const {
  // The ancestor at depth kHeadLevels (memoized, so a whole deep chain costs linear time once).
  if (anchor_cache_.size() != graphs.size()) anchor_cache_.assign(graphs.size(), -2);
  std::vector<int> chain;
  int cur = g;
  while (cur > 0 && anchor_cache_[cur] == -2 && graphs[cur].depth > kHeadLevels && chain.size() <= graphs.size()) {
    chain.push_back(cur);
    cur = graphs[cur].parent_graph;
  }
  int anchor = cur <= 0 ? cur : (anchor_cache_[cur] != -2 ? anchor_cache_[cur] : cur);
  for (int c : chain) anchor_cache_[c] = anchor;
  return anchor;
}

std::string Model::path_of(int graph, int node) const {
  const std::string root = graphs.empty() || graphs[0].role.empty() ? "main" : graphs[0].role;
  if (graph < 0 || graph >= static_cast<int>(graphs.size())) return root;
  // Collects the segments of up to `max_levels` levels above g (innermost first); returns where it stopped
  // (0 = reached the root). Bounded, so a malformed parent chain can never loop.
  std::string out = root;
  auto walk = [&](int g, int max_levels, std::vector<std::string>& segs) {
    for (int levels = 0; g > 0 && levels < max_levels; ++levels) {
      const int parent = graphs[g].parent_graph;
      if (parent < 0 || parent >= static_cast<int>(graphs.size())) {
        // A root of its own: an ONNX function's body names the path; an NNAPI subgraph nothing references hangs
        // under main.
        if (graphs[g].own_root) out = graphs[g].role;
        else segs.push_back(graphs[g].role);
        return 0;
      }
      level_segments(*this, g, segs);
      g = parent;
    }
    return g;
  };
  std::vector<std::string> tail;  // innermost first
  if (node >= 0 && node < static_cast<int>(graphs[graph].nodes.size()))
    tail.push_back(node_path::escape(graphs[graph].nodes[node].display()));
  // Walk up at most kTailLevels levels; a deeper path keeps its head and tail and elides the middle,
  // so one finding costs O(1) however deep the model is nested.
  const int stop = walk(graph, kTailLevels, tail);
  if (stop > 0) {
    const int anchor = anchor_of(stop);
    std::vector<std::string> head;
    if (anchor > 0 && anchor != stop && walk(anchor, kHeadLevels + 1, head) == 0) {
      for (auto it = head.rbegin(); it != head.rend(); ++it) out += "/" + *it;
      out += "/...(" + std::to_string(graphs[stop].depth - graphs[anchor].depth) + " levels)...";
    } else {
      out += "/...";
    }
  }
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
    out += '/';
    out += *it;
  }
  return out;
}

std::string Model::full_path_of(int graph, int node) const {
  const std::string root = graphs.empty() || graphs[0].role.empty() ? "main" : graphs[0].role;
  if (graph < 0 || graph >= static_cast<int>(graphs.size())) return root;
  std::vector<std::string> segs;  // innermost first
  std::string own;                // the root's role when it is a root of its own (a function's body)
  if (node >= 0 && node < static_cast<int>(graphs[graph].nodes.size()))
    segs.push_back(node_path::escape(graphs[graph].nodes[node].display()));
  // Bounded by the graph count, so a malformed parent chain can never loop.
  for (int g = graph, guard = 0; g > 0 && guard < static_cast<int>(graphs.size()); ++guard) {
    const int parent = graphs[g].parent_graph;
    if (parent < 0 || parent >= static_cast<int>(graphs.size())) {
      if (graphs[g].own_root) own = graphs[g].role;
      else segs.push_back(graphs[g].role);
      break;
    }
    level_segments(*this, g, segs);
    g = parent;
  }
  std::string out = own.empty() ? root : own;
  for (auto it = segs.rbegin(); it != segs.rend(); ++it) out += "/" + *it;
  return out;
}

std::unordered_map<std::string, std::string> function_call_paths(const Model& m) {
  std::unordered_map<std::string, std::string> out;
  std::unordered_map<std::string, std::string> roles;  // "DOMAIN.NAME" -> the body's role
  const std::string_view prefix = "function:";
  for (const Graph& g : m.graphs)
    if (g.own_root && g.role.rfind(prefix, 0) == 0) roles.emplace(g.role.substr(prefix.size()), g.role);
  if (roles.empty()) return out;
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g)
    for (int n = 0; n < static_cast<int>(m.graphs[g].nodes.size()); ++n) {
      const Node& node = m.graphs[g].nodes[n];
      // The loader writes the default domain as "ai.onnx"; a function of the empty domain is "function:.NAME".
      const std::string& d = node.version.str();
      auto it = roles.find(d + "." + node.op.str());
      if (it == roles.end() && d == "ai.onnx") it = roles.find("." + node.op.str());
      if (it != roles.end()) out.emplace(m.full_path_of(g, n), it->second);
    }
  return out;
}

std::string body_path_through(const std::unordered_map<std::string, std::string>& calls, const std::string& exec_path) {
  if (calls.empty()) return exec_path;
  // Left to right, each prefix that ends before a '/' and names a call continues in the called body (node names
  // may hold '/', so every '/' is tried).
  std::string done;  // the Model's path of what is consumed, ending in '/' once a call was entered
  size_t from = 0;
  for (size_t i = exec_path.find('/'); i != std::string::npos; i = exec_path.find('/', i + 1)) {
    auto it = calls.find(done + exec_path.substr(from, i - from));
    if (it == calls.end()) continue;
    done = it->second + "/";
    from = i + 1;
  }
  return done + exec_path.substr(from);
}

std::string Model::body_path_of(const std::string& exec_path) const {
  if (!call_paths_built_) {
    call_paths_ = function_call_paths(*this);
    call_paths_built_ = true;
  }
  return body_path_through(call_paths_, exec_path);
}

std::optional<std::string_view> IrData::weight_bytes(int64_t offset, uint64_t size) const {
  if (!weights || offset < 0) return std::nullopt;
  const std::string_view all = weights->bytes();
  if (static_cast<uint64_t>(offset) > all.size() || size > all.size() - static_cast<uint64_t>(offset))
    return std::nullopt;
  return all.substr(static_cast<size_t>(offset), static_cast<size_t>(size));
}

const IrLoop* IrData::loop_at(int graph, int node) const {
  for (const IrLoop& l : loops)
    if (l.graph == graph && l.node == node) return &l;
  return nullptr;
}

}  // namespace condlint
