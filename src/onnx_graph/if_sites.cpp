#include "onnx_graph/if_sites.hpp"

#include <set>
#include <type_traits>
#include <vector>

#include "model/node_path.hpp"

namespace condlint::onnx_graph {

namespace {

constexpr int kMaxDepth = 64;

bool is_if(const onnx::NodeProto& n) { return n.op_type() == "If" && (n.domain().empty() || n.domain() == "ai.onnx"); }

std::string node_label(const onnx::NodeProto& n, int k) { return node_path::node_segment(n.name(), n.op_type(), k); }

std::string sub_label(const onnx::NodeProto& n, const std::string& attr) {
  if (is_if(n)) return attr == "then_branch" ? "then" : attr == "else_branch" ? "else" : attr;
  return attr == "body" ? "body" : attr;
}

// Walks a node list and every graph under it iteratively (depth-bounded), calling f(node, list, path, along):
// `list` is the node list the node sits in (a graph's or a model-local function's), `along` the branches of
// the enclosing Ifs. C: const access.
template <bool C>
using NodeList = std::conditional_t<C, const google::protobuf::RepeatedPtrField<onnx::NodeProto>,
                                    google::protobuf::RepeatedPtrField<onnx::NodeProto>>;

template <bool C, class F>
void walk_nodes(NodeList<C>* root, const std::string& root_path, F&& f) {
  struct Item {
    NodeList<C>* nodes;
    std::string path;
    std::map<std::string, bool> along;
    int depth;
  };
  std::vector<Item> stack{{root, root_path, {}, 0}};
  while (!stack.empty()) {
    Item it = std::move(stack.back());
    stack.pop_back();
    if (it.depth > kMaxDepth) continue;
    std::vector<Item> children;
    for (int k = 0; k < it.nodes->size(); ++k) {
      auto* n = [&]() {
        if constexpr (C) return &it.nodes->Get(k);
        else return it.nodes->Mutable(k);
      }();
      const std::string npath = it.path + "/" + node_label(*n, k);
      f(*n, *it.nodes, npath, it.along);
      for (int a = 0; a < n->attribute_size(); ++a) {
        auto* attr = [&]() {
          if constexpr (C) return &n->attribute(a);
          else return n->mutable_attribute(a);
        }();
        if (!attr->has_g()) continue;
        auto along = it.along;
        if (is_if(*n) && (attr->name() == "then_branch" || attr->name() == "else_branch"))
          along[npath] = attr->name() == "then_branch";
        NodeList<C>* sub = [&]() {
          if constexpr (C) return &attr->g().node();
          else return attr->mutable_g()->mutable_node();
        }();
        children.push_back({sub, npath + "/" + sub_label(*n, attr->name()), std::move(along), it.depth + 1});
      }
    }
    for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back(std::move(*c));
  }
}

// The path prefix of a model-local function's nodes: function:DOMAIN.NAME (an If in it is pinned for every call).
std::string function_path(const onnx::FunctionProto& fn) { return "function:" + fn.domain() + "." + fn.name(); }

// The main graph, then every model-local function.
template <class M, class F>
void walk(M& m, F&& f) {
  constexpr bool C = std::is_const_v<M>;
  if constexpr (C) {
    walk_nodes<true>(&m.graph().node(), "main", f);
    for (const auto& fn : m.functions()) walk_nodes<true>(&fn.node(), function_path(fn), f);
  } else {
    walk_nodes<false>(m.mutable_graph()->mutable_node(), "main", f);
    for (auto& fn : *m.mutable_functions()) walk_nodes<false>(fn.mutable_node(), function_path(fn), f);
  }
}

}  // namespace

std::vector<IfSite> find_ifs(const onnx::ModelProto& m) {
  std::vector<IfSite> out;
  walk(m, [&](const onnx::NodeProto& n, const NodeList<true>&, const std::string& path,
              const std::map<std::string, bool>& along) {
    if (is_if(n)) out.push_back({path, along});
  });
  return out;
}

std::vector<std::map<std::string, bool>> branch_variants(const std::vector<IfSite>& ifs, int max_variants) {
  std::vector<std::map<std::string, bool>> out;
  std::set<std::map<std::string, bool>> seen;
  for (const auto& s : ifs)
    for (bool b : {true, false}) {
      auto p = s.along;
      p[s.path] = b;
      if (seen.insert(p).second) {
        if (static_cast<int>(out.size()) >= max_variants) return out;
        out.push_back(std::move(p));
      }
    }
  return out;
}

std::string pin_model(const onnx::ModelProto& m, const std::map<std::string, bool>& pins, onnx::ModelProto& out) {
  out = m;
  struct Site {
    onnx::NodeProto* node;
    NodeList<false>* list;  // the graph's or the function's nodes
  };
  std::map<std::string, Site> sites;
  walk(out,
       [&](onnx::NodeProto& n, NodeList<false>& list, const std::string& path, const std::map<std::string, bool>&) {
         if (is_if(n) && pins.count(path)) sites[path] = {&n, &list};
       });
  // A pin in the spelling of condlint 0.2 (a '/' inside a name written as it is) names the one If whose path it is the
  // legacy spelling of.
  std::map<std::string, std::vector<std::string>> by_legacy;
  walk(out, [&](onnx::NodeProto& n, NodeList<false>&, const std::string& path, const std::map<std::string, bool>&) {
    if (is_if(n) && node_path::has_escapes(path)) by_legacy[node_path::legacy(path)].push_back(path);
  });
  for (const auto& pin : pins) {
    const std::string& key = pin.first;
    if (sites.count(key)) continue;
    auto it = by_legacy.find(key);
    if (it == by_legacy.end() || it->second.size() != 1) continue;
    const std::string& real = it->second.front();
    walk(out, [&](onnx::NodeProto& n, NodeList<false>& list, const std::string& p, const std::map<std::string, bool>&) {
      if (p == real && is_if(n)) sites[key] = {&n, &list};
    });
  }
  int counter = 0;
  for (const auto& [path, value] : pins) {
    auto it = sites.find(path);
    if (it == sites.end()) return "no If at " + path;
    onnx::NodeProto* n = it->second.node;
    NodeList<false>* list = it->second.list;
    if (n->input_size() < 1) return "If " + path + " has no condition input";
    const std::string name = "condlint_pin_" + std::to_string(counter++) + "_" + (value ? "true" : "false");
    n->set_input(0, name);
    onnx::NodeProto c;
    c.set_op_type("Constant");
    c.set_name(name);
    c.add_output(name);
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_int32_data(value ? 1 : 0);
    // A Constant has no inputs, so the front of the graph keeps the nodes topologically sorted.
    *list->Add() = std::move(c);
    for (int k = list->size() - 1; k > 0; --k) list->SwapElements(k, k - 1);
  }
  return "";
}

std::string pins_label(const std::map<std::string, bool>& pins) {
  std::string s;
  for (const auto& [k, v] : pins) s += (s.empty() ? "" : ", ") + k + "=" + (v ? "then" : "else");
  return s;
}

}  // namespace condlint::onnx_graph
