#include "loaders/ir_shapes.hpp"

#include <cmath>
#include <map>
#include <string>

#include "loaders/ir_shape_rules.hpp"
#include "model/condition_trace.hpp"
#include "model/graph_order.hpp"

namespace condlint {

namespace {

uint64_t key(int graph, int node) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(graph)) << 32) | static_cast<uint32_t>(node);
}

class Inference {
 public:
  Inference(const Model& m, std::unordered_map<uint64_t, std::vector<Shape>>& out)
      : m_(m), consts_(m), out_(out), const_index_(index_ir_consts(m)) {
    proven_ = [this](const ValueRef& r) -> const Shape* {
      auto it = out_.find(key(r.graph, r.node));
      if (it == out_.end() || r.output < 0 || static_cast<size_t>(r.output) >= it->second.size()) return nullptr;
      return it->second[static_cast<size_t>(r.output)].rank_known ? &it->second[static_cast<size_t>(r.output)] : nullptr;
    };
    // A rule that reads a shape from an input (Reshape's target, Broadcast's) reads what the tracer computes of it.
    consts_.set_values([this](const ValueRef& r) -> IrConstInts::Partial {
      const auto v = trace_model_values(m_, r, &const_index_, &proven_);
      if (!v) return std::nullopt;
      std::vector<std::optional<int64_t>> out;
      for (const auto& e : *v)
        out.push_back(e && std::fabs(*e) < 9e15 && *e == std::floor(*e) ? std::optional<int64_t>(static_cast<int64_t>(*e))
                                                                          : std::nullopt);
      return out;
    });
    for (const IrIf& i : m.ir->ifs) ifs_.emplace(key(i.graph, i.node), &i);
    for (const IrConst& c : m.ir->consts) consts_by_layer_.emplace(key(c.graph, c.node), &c);
  }

  // Infers graph g, whose Parameters (by node index) are bound to `bound` where an If binds them.
  void graph(int g, const std::map<int, Shape>& bound, int depth) {
    const auto& nodes = m_.graphs[static_cast<size_t>(g)].nodes;
    for (const int n : topological_order(m_, g, /*self_loop_blocks=*/true)) {
      const Node& node = nodes[static_cast<size_t>(n)];
      std::vector<Shape> outs(node.outputs.size(), Shape::unknown());
      if (node.op == "Parameter") {
        if (auto b = bound.find(n); b != bound.end() && !outs.empty()) outs[0] = b->second;
        else if (g == 0 && node.attrs.find("shape") && !outs.empty()) outs[0] = node.outputs[0].shape();
      } else if (node.op == "Const") {
        if (auto c = consts_by_layer_.find(key(g, n)); c != consts_by_layer_.end() && c->second->shape && !outs.empty())
          outs[0] = *c->second->shape;  // the <data shape> OpenVINO builds the Const with
      } else if (auto it = ifs_.find(key(g, n)); it != ifs_.end()) {
        if (depth < kIrShapesMaxDepth) if_outputs(*it->second, node, depth, outs);
      } else {
        const ShapeVerdict v = ir_shape_rule(m_, consts_, g, n, inputs(node));
        if (v.kind == ShapeVerdict::Kind::Ok)
          for (size_t k = 0; k < outs.size() && k < v.out.size(); ++k) outs[k] = v.out[k];
      }
      out_[key(g, n)] = std::move(outs);
    }
  }

 private:
  std::vector<Shape> inputs(const Node& node) const {
    std::vector<Shape> in;
    for (const ValueRef& s : node.sources) in.push_back(shape_of(s));
    return in;
  }

  Shape shape_of(const ValueRef& s) const {
    if (!s.valid()) return Shape::unknown();
    auto it = out_.find(key(s.graph, s.node));
    if (it == out_.end() || s.output < 0 || static_cast<size_t>(s.output) >= it->second.size()) return Shape::unknown();
    return it->second[static_cast<size_t>(s.output)];
  }

  // Each body inferred with its Parameters bound to the If's inputs; each If output the union of what the two
  // bodies' Results give (the port map's outputs in the order of their external ids, as the executor reads them).
  void if_outputs(const IrIf& info, const Node& node, int depth, std::vector<Shape>& outs) {
    std::vector<Shape> per_branch[2];
    for (int b = 0; b < 2; ++b) {
      const int body = info.body_graph[b];
      if (body < 0 || body >= static_cast<int>(m_.graphs.size())) return;
      const auto& bnodes = m_.graphs[static_cast<size_t>(body)].nodes;
      std::unordered_map<std::string, int> by_id;
      for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) by_id.emplace(bnodes[static_cast<size_t>(i)].id.str(), i);
      std::map<int, Shape> bound;
      std::map<int64_t, int> results;  // external port id -> Result node (the first entry wins)
      for (const IrPortMapEntry& e : info.port_map[b]) {
        if (!e.has_external || !e.has_internal) continue;
        auto p = by_id.find(std::to_string(e.internal_layer_id));
        if (p == by_id.end()) continue;
        if (e.is_input) {
          if (e.external_port_id >= 0 && static_cast<size_t>(e.external_port_id) < node.sources.size() &&
              bnodes[static_cast<size_t>(p->second)].op == "Parameter")
            bound.emplace(p->second, shape_of(node.sources[static_cast<size_t>(e.external_port_id)]));
        } else if (bnodes[static_cast<size_t>(p->second)].op == "Result") {
          results.emplace(e.external_port_id, p->second);
        }
      }
      graph(body, bound, depth + 1);
      for (const auto& [ext, r] : results) {
        const Node& res = bnodes[static_cast<size_t>(r)];
        per_branch[b].push_back(res.sources.empty() ? Shape::unknown() : shape_of(res.sources[0]));
      }
    }
    // A condition the shapes inferred so far decide: only the branch that runs gives the outputs (OpenVINO folds
    // such a condition to a constant and infers the If from that branch alone).
    const int decided =
        node.sources.empty() ? -1 : trace_model_condition(m_, node.sources[0], &const_index_, &proven_).decided;
    for (size_t j = 0; j < outs.size() && j < per_branch[0].size() && j < per_branch[1].size(); ++j)
      outs[j] = decided == 1   ? per_branch[0][j]
                : decided == 0 ? per_branch[1][j]
                               : merge_branches_openvino(per_branch[0][j], per_branch[1][j]);
  }

  const Model& m_;
  IrConstInts consts_;
  std::unordered_map<uint64_t, std::vector<Shape>>& out_;
  std::unordered_map<uint64_t, const IrIf*> ifs_;
  std::unordered_map<uint64_t, const IrConst*> consts_by_layer_;
  IrConstIndex const_index_;
  ProvenShapes proven_;
};

}  // namespace

IrShapes::IrShapes(const Model& m) {
  if (!m.ir || m.graphs.empty()) return;
  Inference(m, by_layer_).graph(0, {}, 0);
}

const Shape* IrShapes::of(const ValueRef& ref) const {
  if (!ref.valid()) return nullptr;
  auto it = by_layer_.find(key(ref.graph, ref.node));
  if (it == by_layer_.end() || ref.output < 0 || static_cast<size_t>(ref.output) >= it->second.size()) return nullptr;
  const Shape& s = it->second[static_cast<size_t>(ref.output)];
  return s.rank_known ? &s : nullptr;
}

}  // namespace condlint
