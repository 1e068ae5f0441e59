// The nodes after an If judged once per branch with the format's shape rules (IR, NNAPI): see branch_follow.hpp.
#include "loaders/branch_follow.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <unordered_map>

#include "loaders/branch_cases.hpp"
#include "model/condition_trace.hpp"
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

namespace {
std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

ShapeVerdict reshape(const Shape& in, const std::vector<int64_t>& target, bool special_zero,
                     const std::string& in_text) {
  constexpr int64_t kHuge = int64_t(1) << 40;  // past it a product is not computed (no overflow, no claim)
  std::vector<Dim> dims;
  int inferred = -1;
  int64_t known = 1;  // the product of the target's dims other than -1, while all are static
  bool all_static = true;
  for (size_t i = 0; i < target.size(); ++i) {
    const int64_t t = target[i];
    Dim d = Dim::dynamic();
    if (t == -1) {
      if (inferred >= 0) return ShapeVerdict::unknown();  // two -1: refused whatever the branch gives
      inferred = static_cast<int>(i);
    } else if (t == 0 && special_zero) {
      if (in.rank_known && i < in.dims.size()) d = in.dims[i];
    } else if (t >= 0 && t < kHuge) {
      d = Dim::fixed(t);
    } else {
      return ShapeVerdict::unknown();
    }
    if (t != -1) {
      if (d.is_static() && known < kHuge && d.lo < kHuge) known *= d.lo;
      else all_static = false;
    }
    dims.push_back(d);
  }
  // The element count when known and small (0 otherwise with `counted` false).
  uint64_t count = 0;
  bool counted = false;
  if (in.rank_known)
    if (const auto c = in.element_count(); c && *c < static_cast<uint64_t>(kHuge)) {
      count = *c;
      counted = true;
    }
  const std::string verb = "reshape " + in_text + " to " + ints_text(target);
  if (counted && all_static && known < kHuge) {
    const auto total = static_cast<int64_t>(count);
    if (inferred < 0 && total != known)
      return ShapeVerdict::fails(
          std::to_string(total) + " elements cannot fill a shape of " + std::to_string(known) + " elements", verb);
    if (inferred >= 0 && known > 0 && total % known != 0)
      return ShapeVerdict::fails(
          std::to_string(total) + " elements do not divide into parts of " + std::to_string(known) + " for the -1",
          verb);
    if (inferred >= 0 && known > 0) dims[static_cast<size_t>(inferred)] = Dim::fixed(total / known);
  }
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  v.out.push_back(Shape::of(std::move(dims)));
  return v;
}

ShapeVerdict transpose(const Shape& in, const std::vector<int64_t>& order, const std::string& in_text) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  if (!in.rank_known) {
    v.out.push_back(order.empty() ? Shape::unknown() : Shape::of(std::vector<Dim>(order.size(), Dim::dynamic())));
    return v;
  }
  const size_t rank = in.dims.size();
  if (order.empty()) {
    v.out.push_back(Shape::of(std::vector<Dim>(in.dims.rbegin(), in.dims.rend())));
    return v;
  }
  if (order.size() != rank)
    return ShapeVerdict::fails("the order " + ints_text(order) + " has " + std::to_string(order.size()) +
                                   " entries for rank " + std::to_string(rank),
                               "transpose " + in_text + " by " + ints_text(order));
  std::vector<bool> used(rank, false);
  std::vector<Dim> dims;
  for (int64_t o : order) {
    const int64_t a = o;
    if (a < 0 || a >= static_cast<int64_t>(rank) || used[static_cast<size_t>(a)])
      return ShapeVerdict::unknown();  // not a permutation: refused whatever the branch gives
    used[static_cast<size_t>(a)] = true;
    dims.push_back(in.dims[static_cast<size_t>(a)]);
  }
  v.out.push_back(Shape::of(std::move(dims)));
  return v;
}

}  // namespace shape_rules

namespace {

// The walk of condition_reads: each node visited once, within the budget; a node walked through is a source itself
// when its inputs read none.
class ReadsWalk {
 public:
  ReadsWalk(const Model& m, const std::function<ReadLeaf(int, int)>& node_leaf,
            const std::function<ReadLeaf(int, int, int)>& input_leaf)
      : m_(m), node_leaf_(node_leaf), input_leaf_(input_leaf) {}

  // Whether input i of node n of graph g reads a source (or an unknown value).
  bool input(int g, int n, int i) {
    if (out.unknown) return true;
    if (++inputs_ > kMaxInputs) return leaf(ReadLeaf::unknown());  // a node of very many inputs: not walked
    const Node& node = m_.node(g, n);
    const ValueRef ref =
        static_cast<size_t>(i) < node.sources.size() ? node.sources[static_cast<size_t>(i)] : ValueRef{};
    if (ref.valid() && ref.graph < static_cast<int>(m_.graphs.size()) &&
        ref.node < static_cast<int>(m_.graphs[static_cast<size_t>(ref.graph)].nodes.size()))
      return node_at(ref.graph, ref.node);
    if (ref.valid()) return leaf(ReadLeaf::unknown());
    return leaf(input_leaf_ ? input_leaf_(g, n, i) : ReadLeaf::unknown());
  }

  // The sources found, once the walk is done (none listed when an unknown value is among them).
  void finish() {
    if (!out.unknown) out.sources.assign(sources_.begin(), sources_.end());
  }

  ConditionReads out;

 private:
  bool leaf(const ReadLeaf& l) {
    switch (l.kind) {
      case ReadLeaf::Kind::Constant: return false;
      case ReadLeaf::Kind::Source: sources_.insert(l.name); return true;
      case ReadLeaf::Kind::Through:
      case ReadLeaf::Kind::Bound:
      case ReadLeaf::Kind::Unknown: out.unknown = true; return true;
    }
    return true;
  }

  bool node_at(int g, int n) {
    const uint64_t k = uint64_t(uint32_t(g)) << 32 | uint32_t(n);
    if (auto it = state_.find(k); it != state_.end()) {
      if (it->second == kBusy) out.unknown = true;  // a cycle: nothing is claimed of it
      return it->second != kNone;
    }
    if (++visited_ > kConditionReadsMaxNodes) return leaf(ReadLeaf::unknown());
    const ReadLeaf l = node_leaf_ ? node_leaf_(g, n) : ReadLeaf::through();
    if (l.kind == ReadLeaf::Kind::Bound) {
      state_[k] = kBusy;
      const bool valid =
          l.graph >= 0 && l.graph < static_cast<int>(m_.graphs.size()) && l.node >= 0 &&
          l.node < static_cast<int>(m_.graphs[static_cast<size_t>(l.graph)].nodes.size()) && l.input >= 0 &&
          l.input < static_cast<int>(
                        m_.graphs[static_cast<size_t>(l.graph)].nodes[static_cast<size_t>(l.node)].inputs.size());
      const bool reads = valid ? input(l.graph, l.node, l.input) : leaf(ReadLeaf::unknown());
      state_[k] = reads ? kReads : kNone;
      return reads;
    }
    if (l.kind != ReadLeaf::Kind::Through) {
      const bool reads = leaf(l);
      state_[k] = reads ? kReads : kNone;
      return reads;
    }
    state_[k] = kBusy;
    bool reads = false;
    const Node& node = m_.node(g, n);
    for (size_t i = 0; i < node.inputs.size() && !out.unknown; ++i) reads = input(g, n, static_cast<int>(i)) || reads;
    if (!reads) sources_.insert("the output of " + node.op.str() + " '" + node.display() + "'");
    state_[k] = kReads;
    return true;
  }

  static constexpr int kBusy = 0, kNone = 1, kReads = 2;
  static constexpr int kMaxInputs = 16 * kConditionReadsMaxNodes;
  const Model& m_;
  const std::function<ReadLeaf(int, int)>& node_leaf_;
  const std::function<ReadLeaf(int, int, int)>& input_leaf_;
  std::unordered_map<uint64_t, int> state_;
  std::set<std::string> sources_;
  int visited_ = 0, inputs_ = 0;
};

using Shapes = std::vector<std::vector<Shape>>;  // per node, per output

// One If's branch in a case of branches: the If, its branch and the output the path leaves it by.
struct Pick {
  int conditional = -1;
  int branch = 0;
  int output = 0;
};

// A value's shape in one case of branches (the picks, sorted by conditional, select it), with the nodes from the
// first If to it.
struct World {
  std::vector<Pick> picks;
  Shape shape;
  int steps = 0;
};

class Follower {
 public:
  Follower(const Model& m, const BranchFollowRules& r, BranchFollowFacts& out) : m_(m), r_(r), out_(out) {
    for (size_t c = 0; c < m.conditionals.size(); ++c)
      cond_at_[key(m.conditionals[c].graph, m.conditionals[c].node)] = static_cast<int>(c);
  }

  // Each graph that holds an If whose branches may differ is walked once, in topological order from its first such
  // If: the Ifs' branch shapes start there and every case of branches that meets at a node is judged there.
  void run() {
    std::vector<int> graphs;
    std::unordered_map<int, bool> seen;
    for (size_t c = 0; c < m_.conditionals.size(); ++c) {
      const ConditionalView& v = m_.conditionals[c];
      if (!may_differ(v) || !valid_node(v.graph, v.node)) continue;
      if (!seen.emplace(v.graph, true).second) continue;
      graphs.push_back(v.graph);
    }
    for (int g : graphs) walk(g);
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

  // What node n's inputs are, given the graph's shapes `s`.
  std::vector<Shape> inputs_of(int g, int n, const Shapes& s) {
    const Node& node = m_.node(g, n);
    std::vector<Shape> in(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueRef src = i < node.sources.size() ? node.sources[i] : ValueRef{};
      if (!src.valid()) {
        in[i] = r_.unproduced(g, n, static_cast<int>(i));
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
          outs[j] = live == 1 ? t : live == 0 ? e : r_.union_of ? r_.union_of(t, e) : merge_branches(t, e);
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

  // What is known of conditional c's condition: its value (a node output) and its traced text with both spellings
  // of its negation (what BranchCases judges a case by).
  const BranchCondition& condition(int c) {
    auto it = conditions_.find(c);
    if (it != conditions_.end()) return it->second;
    const ConditionalView& v = m_.conditionals[static_cast<size_t>(c)];
    BranchCondition k = BranchCondition::traced(v.provenance.traced ? v.provenance.text : std::string());
    if (valid_node(v.graph, v.node) && !m_.node(v.graph, v.node).sources.empty())
      k.value = m_.node(v.graph, v.node).sources[0];
    return conditions_.emplace(c, std::move(k)).first->second;
  }

  // The data sources conditional c's condition reads (kept: every break of a combination asks).
  const ConditionReads& reads(int c) {
    auto it = reads_.find(c);
    if (it != reads_.end()) return it->second;
    const ConditionalView& v = m_.conditionals[static_cast<size_t>(c)];
    ConditionReads rd;
    if (valid_node(v.graph, v.node) && !m_.node(v.graph, v.node).inputs.empty())
      rd = condition_reads(m_, v.graph, v.node, 0, r_.read_node, r_.read_input);
    else rd.unknown = true;
    return reads_.emplace(c, std::move(rd)).first->second;
  }

  // Adds the picks of `more` to picks (sorted by conditional), noting their Ifs in ifs; false when no input selects
  // them all.
  bool add_picks(std::vector<Pick>& picks, const std::vector<Pick>& more, std::set<int>& ifs) {
    return BranchCases::add_all(
        picks, more, [this](int c) -> const BranchCondition& { return condition(c); }, &ifs);
  }

  void limit(int c, bool combinations, int64_t how_many, int g, int n) {
    if (!cases_.limit(c)) return;
    out_.limits.push_back({c, how_many, at_node(g, n), combinations});
  }

  // Whether the condition of the If at node n reads (through any number of nodes) a value whose shape differs
  // between the branches of an earlier If: then which branch it takes in a case of those is not known, and a
  // case with its branches is not proven to happen. Bounded: past the bound it is taken as reading one.
  bool reads_followed(int g, int n, const std::unordered_map<uint64_t, std::vector<World>>& facts) {
    const Node& node = m_.node(g, n);
    if (node.sources.empty() || !node.sources[0].valid() || node.sources[0].graph != g) return false;
    std::vector<int> todo{node.sources[0].node};
    std::unordered_map<int, bool> seen{{node.sources[0].node, true}};
    if (facts.count(key(node.sources[0].node, node.sources[0].output))) return true;
    for (size_t steps = 0; !todo.empty(); ++steps) {
      if (steps > static_cast<size_t>(kBranchFollowMaxNodes)) return true;
      const int at = todo.back();
      todo.pop_back();
      for (const ValueRef& src : m_.node(g, at).sources) {
        if (!src.valid() || src.graph != g) continue;
        if (facts.count(key(src.node, src.output))) return true;
        if (seen.emplace(src.node, true).second) todo.push_back(src.node);
      }
    }
    return false;
  }

  // The If c at node n of graph g: the shape of each output under each live branch where they differ.
  void seed(int c, int g, int n, const Shapes& s, std::unordered_map<uint64_t, std::vector<World>>& facts) {
    const ConditionalView& view = m_.conditionals[static_cast<size_t>(c)];
    const size_t outputs = s[static_cast<size_t>(n)].size();
    Seed& sd = seeds_[c];
    sd.graph = g;
    sd.node = n;
    for (int b = 0; b < 2; ++b)
      for (size_t j = 0; j < outputs; ++j) sd.by[b].push_back(branch_shape(c, b, static_cast<int>(j), 1));
    sd.dependent = reads_followed(g, n, facts);
    for (size_t j = 0; j < outputs; ++j) {
      bool differ = false;
      for (int b = 0; b < 2; ++b)
        differ = differ || (sd.by[b][j].rank_known && !(sd.by[b][j] == s[static_cast<size_t>(n)][j]));
      if (!differ) continue;
      std::vector<World> worlds;
      for (int b = 0; b < 2; ++b) {
        if (view.provenance.decided >= 0 && view.provenance.decided != (b == 0 ? 1 : 0)) continue;  // dead (C012)
        worlds.push_back({{Pick{c, b, static_cast<int>(j)}}, sd.by[b][j], 0});
      }
      if (worlds.size() > 1) facts[key(n, static_cast<int>(j))] = std::move(worlds);
    }
  }

  void record_break(int g, int p, const std::vector<Pick>& picks, int steps, const std::vector<Shape>& in,
                    const ShapeVerdict& v) {
    BranchBreak br;
    for (const Pick& pk : picks) {
      const Seed& sd = seeds_[pk.conditional];
      BranchBreak::Pick bp;
      bp.conditional = pk.conditional;
      bp.branch = pk.branch;
      bp.output = pk.output;
      bp.type = typed(sd.graph, sd.node, pk.output, false, sd.by[pk.branch][static_cast<size_t>(pk.output)]);
      const Shape& other = sd.by[1 - pk.branch][static_cast<size_t>(pk.output)];
      if (other.rank_known) bp.other = typed(sd.graph, sd.node, pk.output, false, other);
      bp.dependent = sd.dependent;
      const ConditionReads& rd = reads(pk.conditional);
      bp.reads = rd.sources;
      bp.reads_unknown = rd.unknown;
      br.picks.push_back(std::move(bp));
    }
    br.graph = g;
    br.node = p;
    br.steps = steps;
    for (size_t i = 0; i < in.size(); ++i) br.input_types.push_back(typed(g, p, static_cast<int>(i), true, in[i]));
    br.error = v.error;
    br.verb = v.verb;
    br.judged_by = r_.judged_by + " " + m_.node(g, p).op.str() + " shape rule";
    br.loc = at_node(g, p);
    out_.breaks.push_back(std::move(br));
    cases_.failed(picks);
  }

  // Node p reads values whose shape differs between branches: judged once per case of branches that meets there.
  void judge(int g, int p, const Shapes& s, std::unordered_map<uint64_t, std::vector<World>>& facts) {
    const Node& node = m_.node(g, p);
    struct Case {
      std::vector<Pick> picks;
      std::vector<Shape> in;
      int steps = 0;
    };
    std::vector<Case> cases(1);
    cases[0].in = inputs_of(g, p, s);
    std::set<int> conds;
    for (size_t i = 0; i < node.sources.size() && i < cases[0].in.size(); ++i) {
      const ValueRef& src = node.sources[i];
      if (!src.valid() || src.graph != g) continue;
      const auto f = facts.find(key(src.node, src.output));
      if (f == facts.end()) continue;
      std::vector<Case> next;
      for (const Case& cs : cases)
        for (const World& w : f->second) {
          Case m = cs;
          if (!add_picks(m.picks, w.picks, conds)) continue;
          m.in[i] = w.shape;
          m.steps = std::max(m.steps, w.steps + 1);
          next.push_back(std::move(m));
        }
      cases = std::move(next);
      if (cases.size() > static_cast<size_t>(kBranchFollowMaxCombinations)) {
        for (int c : conds) limit(c, true, kBranchFollowMaxCombinations, g, p);
        return;
      }
    }
    if (conds.empty()) return;
    for (int c : conds)
      if (cases_.limited(c)) return;
    for (int c : conds)
      if (++visits_[c] > kBranchFollowMaxNodes) {
        limit(c, false, kBranchFollowMaxNodes, g, p);
        return;
      }
    std::vector<std::vector<Shape>> outs;
    std::vector<const Case*> alive;
    for (const Case& cs : cases) {
      if (cases_.failed_before(cs.picks)) continue;
      const ShapeVerdict v = r_.infer(g, p, cs.in);
      switch (v.kind) {
        case ShapeVerdict::Kind::Fails:
          record_break(g, p, cs.picks, cs.steps, cs.in, v);
          continue;  // one root cause, one finding: what comes after it is judged on the union
        case ShapeVerdict::Kind::NoRule:
          for (int c : conds)
            if (gapped_.insert(c).second) out_.gaps.push_back({c, g, p, node.op.str(), at_node(g, p)});
          return;
        case ShapeVerdict::Kind::Terminal: return;
        case ShapeVerdict::Kind::Ok:
        case ShapeVerdict::Kind::Unknown: {
          // What a rule cannot say under a case is what it says of the union (which holds what the case gives).
          std::vector<Shape> o = s[static_cast<size_t>(p)];
          if (v.kind == ShapeVerdict::Kind::Ok)
            for (size_t k = 0; k < o.size() && k < v.out.size(); ++k) o[k] = v.out[k];
          outs.push_back(std::move(o));
          alive.push_back(&cs);
        }
      }
    }
    for (size_t k = 0; k < s[static_cast<size_t>(p)].size(); ++k) {
      bool differ = false;
      for (const auto& o : outs) differ = differ || !(o[k] == s[static_cast<size_t>(p)][k]);
      if (!differ) continue;  // every case agrees with the union again
      std::vector<World> worlds;
      for (size_t a = 0; a < alive.size(); ++a) worlds.push_back({alive[a]->picks, outs[a][k], alive[a]->steps});
      facts[key(p, static_cast<int>(k))] = std::move(worlds);
    }
  }

  void walk(int g) {
    const Shapes& s = base(g, 0);
    const std::vector<int>& ord = order(g);
    std::unordered_map<uint64_t, std::vector<World>> facts;  // (node, output) of graph g -> its cases
    bool started = false;
    for (int p : ord) {
      const auto c = cond_at_.find(key(g, p));
      const bool differing = c != cond_at_.end() && may_differ(m_.conditionals[static_cast<size_t>(c->second)]);
      if (!started && !differing) continue;
      started = true;
      if (!facts.empty()) {
        bool reads = false;
        for (const ValueRef& src : m_.node(g, p).sources)
          reads = reads || (src.valid() && src.graph == g && facts.count(key(src.node, src.output)));
        if (reads) judge(g, p, s, facts);
      }
      if (differing) seed(c->second, g, p, s, facts);
    }
  }

  struct Seed {
    int graph = -1, node = -1;
    std::vector<Shape> by[2];  // each output's shape under each branch
    bool dependent = false;
  };

  const Model& m_;
  const BranchFollowRules& r_;
  BranchFollowFacts& out_;
  std::unordered_map<uint64_t, int> cond_at_;
  std::unordered_map<int, Shapes> memo_;
  std::unordered_map<int, std::vector<int>> order_;
  std::unordered_map<int, BranchCondition> conditions_;
  std::unordered_map<int, Seed> seeds_;
  std::unordered_map<int, ConditionReads> reads_;
  BranchCases cases_;  // the cases that broke a node, the Ifs past a budget
  std::unordered_map<int, int> visits_;
  std::set<int> gapped_;
};

}  // namespace

ConditionReads condition_reads(const Model& m, int g, int n, int i,
                               const std::function<ReadLeaf(int g, int n)>& node_leaf,
                               const std::function<ReadLeaf(int g, int n, int i)>& input_leaf) {
  ReadsWalk w(m, node_leaf, input_leaf);
  if (g < 0 || g >= static_cast<int>(m.graphs.size()) || n < 0 ||
      n >= static_cast<int>(m.graphs[static_cast<size_t>(g)].nodes.size())) {
    w.out.unknown = true;
    return w.out;
  }
  (void)w.input(g, n, i);
  w.finish();
  return w.out;
}

void follow_branches(const Model& m, const BranchFollowRules& rules, BranchFollowFacts& out) {
  if (m.conditionals.empty()) return;
  Follower f(m, rules, out);
  f.run();
}

}  // namespace condlint
