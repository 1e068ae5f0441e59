// The nodes after an If judged once per branch with the format's shape rules (IR, NNAPI): see branch_follow.hpp.
#include "loaders/branch_follow.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "model/graph_order.hpp"

namespace condlint {

namespace shape_rules {

bool can_be(const Dim& d, int64_t v) { return d.lo <= v && (d.hi < 0 || v <= d.hi); }

ShapeVerdict broadcast(const std::vector<Shape>& in, const std::string& a_text, const std::string& b_text) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  if (in.size() < 2 || !in[0].rank_known || !in[1].rank_known) {
    v.out.push_back(Shape::unknown());
    return v;
  }
  const Shape &a = in[0], &b = in[1];
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  Shape out = Shape::of(std::vector<Dim>(rank, Dim::dynamic()));
  for (size_t i = 0; i < rank; ++i) {
    const Dim da = i < a.dims.size() ? a.dims[a.dims.size() - 1 - i] : Dim::fixed(1);
    const Dim db = i < b.dims.size() ? b.dims[b.dims.size() - 1 - i] : Dim::fixed(1);
    if (!can_be(da, 1) && !can_be(db, 1) && !da.intersects(db))
      return ShapeVerdict::fails(
          "dimension " + da.str() + " cannot broadcast with " + db.str() + " (they differ and neither is 1)",
          "broadcast " + a_text + " with " + b_text);
    Dim& o = out.dims[rank - 1 - i];
    if (da == Dim::fixed(1)) o = db;
    else if (db == Dim::fixed(1) || da == db) o = da;
  }
  v.out.push_back(std::move(out));
  return v;
}

ShapeVerdict concat(const std::vector<Shape>& in, int64_t axis, const std::vector<std::string>& texts) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  std::string all;
  for (size_t i = 0; i < texts.size(); ++i) all += (i ? " and " : "") + texts[i];
  const Shape* first = nullptr;
  bool all_known = true;
  for (const Shape& s : in) {
    if (!s.rank_known) {
      all_known = false;
      continue;
    }
    if (!first) first = &s;
    else if (s.dims.size() != first->dims.size())
      return ShapeVerdict::fails(
          "the ranks " + std::to_string(first->dims.size()) + " and " + std::to_string(s.dims.size()) + " differ",
          "concatenate " + all);
  }
  if (!first) {
    v.out.push_back(Shape::unknown());
    return v;
  }
  const auto rank = static_cast<int64_t>(first->dims.size());
  const int64_t ax = axis < 0 ? axis + rank : axis;
  if (ax < 0 || ax >= rank)
    return ShapeVerdict::fails("axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank),
                               "concatenate " + all);
  Shape out = *first;
  Dim sum = Dim::fixed(0);
  for (const Shape& s : in) {
    if (!s.rank_known) continue;
    for (int64_t k = 0; k < rank; ++k) {
      const Dim& d = s.dims[static_cast<size_t>(k)];
      if (k == ax) {
        sum = d.is_static() && sum.is_static() ? Dim::fixed(sum.lo + d.lo) : Dim::dynamic();
        continue;
      }
      Dim& o = out.dims[static_cast<size_t>(k)];
      if (!o.intersects(d))
        return ShapeVerdict::fails(
            "dimension " + std::to_string(k) + " is " + o.str() + " in one input and " + d.str() + " in another",
            "concatenate " + all);
      if (!o.is_static() && d.is_static()) o = d;
    }
  }
  out.dims[static_cast<size_t>(ax)] = all_known ? sum : Dim::dynamic();
  v.out.push_back(std::move(out));
  return v;
}

}  // namespace shape_rules

namespace {

using Shapes = std::vector<std::vector<Shape>>;  // per node, per output

class Follower {
 public:
  Follower(const Model& m, const BranchFollowRules& r, BranchFollowFacts& out) : m_(m), r_(r), out_(out) {
    for (size_t c = 0; c < m.conditionals.size(); ++c)
      cond_at_[key(m.conditionals[c].graph, m.conditionals[c].node)] = static_cast<int>(c);
  }

  void run() {
    for (size_t c = 0; c < m_.conditionals.size(); ++c)
      if (may_differ(m_.conditionals[c])) follow(static_cast<int>(c));
  }

 private:
  // Whether the branches may give different shapes: not when the file states every output of both branches with
  // the same static shape (as in most models; nothing is inferred for them, so a large model costs nothing here).
  static bool may_differ(const ConditionalView& c) {
    const auto& t = c.branch[0].outputs;
    const auto& e = c.branch[1].outputs;
    if (t.size() != e.size()) return true;
    for (size_t j = 0; j < t.size(); ++j) {
      const Shape a = t[j].value.comparable_shape(), b = e[j].value.comparable_shape();
      if (!a.is_static() || !(a == b)) return true;
    }
    return false;
  }

  static uint64_t key(int a, int b) { return uint64_t(uint32_t(a)) << 32 | uint32_t(b); }
  bool valid_node(int g, int n) const {
    return g >= 0 && g < static_cast<int>(m_.graphs.size()) && n >= 0 &&
           n < static_cast<int>(m_.graphs[static_cast<size_t>(g)].nodes.size());
  }

  const std::vector<int>& order(int g) {
    auto it = order_.find(g);
    if (it == order_.end()) it = order_.emplace(g, topological_order(m_, g, true)).first;
    return it->second;
  }

  // What node n's inputs are, given the graph's shapes `s` and a branch's shapes over them.
  std::vector<Shape> inputs_of(int g, int n, const Shapes& s,
                               const std::unordered_map<uint64_t, std::pair<Shape, int>>* over = nullptr) {
    const Node& node = m_.node(g, n);
    std::vector<Shape> in(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueRef src = i < node.sources.size() ? node.sources[i] : ValueRef{};
      if (!src.valid()) {
        in[i] = r_.unproduced(g, n, static_cast<int>(i));
        continue;
      }
      if (over)
        if (auto o = over->find(key(src.node, src.output)); src.graph == g && o != over->end()) {
          in[i] = o->second.first;
          continue;
        }
      const Shapes* from = src.graph == g ? &s : nullptr;
      if (!from)
        if (auto it = memo_.find(src.graph); it != memo_.end()) from = &it->second;
      if (from && static_cast<size_t>(src.node) < from->size() &&
          static_cast<size_t>(src.output) < (*from)[static_cast<size_t>(src.node)].size())
        in[i] = (*from)[static_cast<size_t>(src.node)][static_cast<size_t>(src.output)];
    }
    return in;
  }

  // The shapes of graph g's values as the format's rules compute them (unknown where they cannot say).
  const Shapes& base(int g, int depth) {
    if (auto it = memo_.find(g); it != memo_.end()) return it->second;
    Shapes& s = memo_[g];  // a reference into a node-based map: stays valid while bodies are added
    const Graph& gr = m_.graphs[static_cast<size_t>(g)];
    s.resize(gr.nodes.size());
    for (size_t n = 0; n < gr.nodes.size(); ++n) s[n].assign(gr.nodes[n].outputs.size(), Shape::unknown());
    for (int n : order(g)) {
      std::vector<Shape>& outs = s[static_cast<size_t>(n)];
      std::vector<bool> done(outs.size(), false);
      for (size_t k = 0; k < outs.size(); ++k)
        if (auto st = r_.stated(g, n, static_cast<int>(k))) {
          outs[k] = *st;
          done[k] = true;
        }
      if (auto c = cond_at_.find(key(g, n)); c != cond_at_.end()) {
        const ConditionalView& view = m_.conditionals[static_cast<size_t>(c->second)];
        for (size_t j = 0; j < outs.size(); ++j) {
          if (done[j] || depth >= kBranchFollowMaxDepth) continue;
          const Shape t = branch_shape(c->second, 0, static_cast<int>(j), depth + 1);
          const Shape e = branch_shape(c->second, 1, static_cast<int>(j), depth + 1);
          const int live = view.provenance.decided;  // 1: the condition is always true (the then branch runs)
          outs[j] = live == 1 ? t : live == 0 ? e : merge_branches(t, e);
        }
        continue;
      }
      const ShapeVerdict v = r_.infer(g, n, inputs_of(g, n, s));
      if (v.kind != ShapeVerdict::Kind::Ok) continue;
      for (size_t k = 0; k < outs.size() && k < v.out.size(); ++k)
        if (!done[k]) outs[k] = v.out[k];
    }
    return s;
  }

  Shape branch_shape(int c, int b, int j, int depth) {
    const ConditionalView& view = m_.conditionals[static_cast<size_t>(c)];
    if (view.branch[b].graph < 0) return Shape::unknown();
    const auto [ref, shape] = r_.branch_source(view, b, j);
    if (!ref.valid() || !valid_node(ref.graph, ref.node)) return shape;
    const Shapes& s = base(ref.graph, depth);
    const auto& outs = s[static_cast<size_t>(ref.node)];
    return static_cast<size_t>(ref.output) < outs.size() ? outs[static_cast<size_t>(ref.output)] : Shape::unknown();
  }

  SourceLocation at_node(int g, int n) const { return r_.where ? r_.where(g, n) : SourceLocation(m_.node(g, n).loc); }

  std::string typed(int g, int n, int k, bool input, const Shape& s) const { return r_.elem(g, n, k, input) + s.str(); }

  void follow(int c) {
    const ConditionalView& view = m_.conditionals[static_cast<size_t>(c)];
    const int g = view.graph, n = view.node;
    if (!valid_node(g, n)) return;
    const Shapes& s = base(g, 0);
    const size_t outputs = s[static_cast<size_t>(n)].size();
    std::vector<Shape> by[2];
    for (int b = 0; b < 2; ++b)
      for (size_t j = 0; j < outputs; ++j) by[b].push_back(branch_shape(c, b, static_cast<int>(j), 1));
    bool differ = false;
    for (int b = 0; b < 2; ++b)
      for (size_t j = 0; j < outputs; ++j)
        differ = differ || (by[b][j].rank_known && !(by[b][j] == s[static_cast<size_t>(n)][j]));
    if (!differ) return;
    const std::vector<int>& ord = order(g);
    const auto at = std::find(ord.begin(), ord.end(), n);
    if (at == ord.end()) return;
    bool gap_noted = false, limited = false;
    for (int b = 0; b < 2; ++b) {
      if (view.provenance.decided >= 0 && view.provenance.decided != (b == 0 ? 1 : 0)) continue;  // dead (C012)
      // (node, output) -> its shape under this branch and the If output the path left by.
      std::unordered_map<uint64_t, std::pair<Shape, int>> over;
      std::unordered_map<uint64_t, int> steps;
      for (size_t j = 0; j < outputs; ++j) {
        const Shape& mine = by[b][j];
        if (!mine.rank_known || mine == s[static_cast<size_t>(n)][j]) continue;
        over[key(n, static_cast<int>(j))] = {mine, static_cast<int>(j)};
        steps[key(n, static_cast<int>(j))] = 0;
      }
      if (over.empty()) continue;
      int visited = 0;
      for (auto it = at + 1; it != ord.end(); ++it) {
        const int p = *it;
        const Node& node = m_.node(g, p);
        int origin = -1, step = 0;
        for (const ValueRef& src : node.sources)
          if (src.valid() && src.graph == g)
            if (auto o = over.find(key(src.node, src.output)); o != over.end()) {
              if (origin < 0) origin = o->second.second;
              step = std::max(step, steps[key(src.node, src.output)] + 1);
            }
        if (origin < 0) continue;
        if (++visited > kBranchFollowMaxNodes) {
          if (!limited) out_.limits.push_back({c, kBranchFollowMaxNodes, at_node(g, p)});
          limited = true;
          break;
        }
        const std::vector<Shape> in = inputs_of(g, p, s, &over);
        const ShapeVerdict v = r_.infer(g, p, in);
        if (v.kind == ShapeVerdict::Kind::Fails) {
          BranchBreak br;
          BranchBreak::Pick pick;
          pick.conditional = c;
          pick.branch = b;
          pick.output = origin;
          pick.type = typed(g, n, origin, false, by[b][static_cast<size_t>(origin)]);
          const Shape& other = by[1 - b][static_cast<size_t>(origin)];
          if (other.rank_known) pick.other = typed(g, n, origin, false, other);
          br.picks.push_back(std::move(pick));
          br.graph = g;
          br.node = p;
          br.steps = step;
          for (size_t i = 0; i < in.size(); ++i)
            br.input_types.push_back(typed(g, p, static_cast<int>(i), true, in[i]));
          br.error = v.error;
          br.verb = v.verb;
          br.judged_by = r_.judged_by + " " + node.op.str() + " shape rule";
          br.loc = at_node(g, p);
          out_.breaks.push_back(std::move(br));
          continue;  // one root cause, one finding: what comes after it is judged on the union
        }
        if (v.kind == ShapeVerdict::Kind::NoRule) {
          if (!gap_noted) out_.gaps.push_back({c, g, p, node.op.str(), at_node(g, p)});
          gap_noted = true;
          continue;
        }
        if (v.kind != ShapeVerdict::Kind::Ok) continue;
        for (size_t k = 0; k < v.out.size() && k < s[static_cast<size_t>(p)].size(); ++k) {
          if (v.out[k] == s[static_cast<size_t>(p)][k]) continue;  // the branch agrees with the union again
          over[key(p, static_cast<int>(k))] = {v.out[k], origin};
          steps[key(p, static_cast<int>(k))] = step;
        }
      }
    }
  }

  const Model& m_;
  const BranchFollowRules& r_;
  BranchFollowFacts& out_;
  std::unordered_map<uint64_t, int> cond_at_;
  std::unordered_map<int, Shapes> memo_;
  std::unordered_map<int, std::vector<int>> order_;
};

}  // namespace

void follow_branches(const Model& m, const BranchFollowRules& rules, BranchFollowFacts& out) {
  if (m.conditionals.empty()) return;
  Follower f(m, rules, out);
  f.run();
}

}  // namespace condlint
