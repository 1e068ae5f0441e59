// C014 branch-breaks-consumer: a node after an If fails under one branch (the branches give different types or
// shapes, and the consumer rejects what one of them gives), though the union of both, what one finding may claim of
// the If's output, lets it pass. The loaders follow each branch into the consumers and record each consumer that
// fails first under a case of branches: ONNX with onnx's per-node inference (OnnxData::branch_breaks), IR and NNAPI
// with condlint's shape rules of their ops (BranchFollowFacts). This rule decides how bad it is by what selects the
// branch: the condition's values (an error: some input runs it), only input shapes (a note: the model fails for
// inputs of those shapes, an exporter's shape guard), or nothing (a dead branch: silent).
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/condition_trace.hpp"
#include "model/nnapi_data.hpp"
#include "model/onnx_data.hpp"
#include "rules/engine.hpp"
#include "rules/support/dead_code.hpp"
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::C014 {

// What the consumer cannot do with its inputs, in its own terms where the op is a common one.
std::string cannot(const std::string& op, const std::vector<std::string>& in) {
  std::vector<std::string> given;
  for (const auto& t : in)
    if (!t.empty()) given.push_back(t);
  auto join = [&](const char* sep, size_t upto) {
    std::string s;
    for (size_t i = 0; i < given.size() && i < upto; ++i) s += (i ? sep : "") + given[i];
    return s;
  };
  static const std::set<std::string> multiply{"MatMul", "Gemm", "MatMulInteger"};
  static const std::set<std::string> broadcast{
      "Add",        "Sub",  "Mul",   "Div", "Pow", "Mod", "And",  "Or",    "Xor",      "Equal",
      "Greater",    "Less", "Where", "Max", "Min", "Sum", "Mean", "PRelu", "BitShift", "GreaterOrEqual",
      "LessOrEqual"};
  if (multiply.count(op) && given.size() >= 2) return "multiply " + join(" by ", 2);
  if (broadcast.count(op) && given.size() >= 2) return "broadcast " + join(" with ", given.size());
  if (op == "Concat") return "concatenate " + join(" and ", given.size());
  if (op == "Reshape" && !given.empty()) return "reshape " + given[0];
  return "take " + join(", ", given.size());
}

// The consumer as findings name it: ONNX and IR by name, NNAPI operations by their index in their subgraph.
std::string node_label(const Model& m, int g, int n) {
  if (m.onnx) return onnx_node_label(m, g, n);
  if (g < 0 || g >= static_cast<int>(m.graphs.size()) || n < 0 || n >= static_cast<int>(m.graphs[g].nodes.size()))
    return "a node";
  const Node& node = m.node(g, n);
  if (m.nnapi && static_cast<size_t>(g) < m.nnapi->subgraphs.size())
    return node.op.str() + " operation " + std::to_string(n) + " in " + m.nnapi->subgraphs[g].label;
  return node.op.str() + " '" + node.display() + "'";
}

// How the conditions of Ifs a and b are related: 1 when they are one condition (one value, or the same traced
// text), -1 when one reads as the negation of the other, 0 when condlint knows no relation.
int relation(const Model& m, int a, int b) {
  const ConditionalView& x = m.conditionals[static_cast<size_t>(a)];
  const ConditionalView& y = m.conditionals[static_cast<size_t>(b)];
  const ConditionProvenance &px = x.provenance, &py = y.provenance;
  if (px.traced && py.traced && !px.text.empty() && !py.text.empty()) {
    if (px.text == py.text) return 1;
    if (py.text == negated_condition(px.text, true) || py.text == negated_condition(px.text, false)) return -1;
  }
  if (x.graph != y.graph || x.graph < 0 || x.node < 0 || y.node < 0) return 0;
  const Node& nx = m.node(x.graph, x.node);
  const Node& ny = m.node(y.graph, y.node);
  if (nx.sources.empty() || ny.sources.empty() || nx.inputs.empty() || ny.inputs.empty()) return 0;
  const ValueRef &rx = nx.sources[0], &ry = ny.sources[0];
  if (rx.valid() || ry.valid()) return rx.graph == ry.graph && rx.node == ry.node && rx.output == ry.output ? 1 : 0;
  // Both read a value no node produces: one graph input (ONNX, by name) or operand (NNAPI, by index); an IR port's
  // id names no value.
  return !m.ir && !nx.inputs[0].id.empty() && nx.inputs[0].id == ny.inputs[0].id ? 1 : 0;
}

// The picks of break b that it needs: a pick whose If may take either branch, every other needed pick kept, and the
// consumer still breaks (every such case is a break at it, in `breaking`) is not needed.
std::vector<const BranchBreak::Pick*> needed_picks(const BranchBreak& b,
                                                   const std::set<std::vector<std::pair<int, int>>>& breaking) {
  std::vector<const BranchBreak::Pick*> needed;
  for (const auto& p : b.picks) needed.push_back(&p);
  if (b.picks.size() > 10) return needed;  // 2^10 cases at most are looked up below
  std::vector<size_t> free;                // picks found not needed so far
  for (size_t k = 0; k < b.picks.size(); ++k) {
    std::vector<size_t> tried = free;
    tried.push_back(k);
    bool all = true;
    for (uint32_t bits = 0; all && bits < (1u << tried.size()); ++bits) {
      std::vector<std::pair<int, int>> c;
      for (const auto& p : b.picks) c.emplace_back(p.conditional, p.branch);
      for (size_t t = 0; t < tried.size(); ++t)
        if (bits >> t & 1u) c[tried[t]].second = 1 - c[tried[t]].second;
      all = breaking.count(c) > 0;
    }
    if (all) free.push_back(k);
  }
  needed.clear();
  for (size_t k = 0; k < b.picks.size(); ++k)
    if (std::find(free.begin(), free.end(), k) == free.end()) needed.push_back(&b.picks[k]);
  return needed;
}

// Why the combination of branches that break b needs is not proven to happen ("" when it is): two of its Ifs whose
// conditions are not related and read a common data source (or one not traced) may never take those branches
// together. Ifs whose conditions read disjoint sources take each branch independently: each condition is free on
// its own sources.
std::string unproven_combination(const Model& m, const BranchBreak& b,
                                 const std::set<std::vector<std::pair<int, int>>>& breaking) {
  const std::vector<const BranchBreak::Pick*> needed = needed_picks(b, breaking);
  for (size_t i = 0; i < needed.size(); ++i)
    for (size_t j = i + 1; j < needed.size(); ++j) {
      const BranchBreak::Pick &p = *needed[i], &q = *needed[j];
      if (p.conditional == q.conditional) continue;
      const std::string both = m.conditionals[static_cast<size_t>(p.conditional)].name + " and " +
                               m.conditionals[static_cast<size_t>(q.conditional)].name;
      if (const int rel = relation(m, p.conditional, q.conditional); rel != 0) {
        if ((rel == 1) == (p.branch == q.branch)) continue;  // the branches one condition (or its negation) takes
        return "the conditions of " + both + " are " + (rel == 1 ? "one condition" : "one the negation of the other");
      }
      if (p.reads_unknown || q.reads_unknown) {
        const auto& who = m.conditionals[static_cast<size_t>(p.reads_unknown ? p.conditional : q.conditional)];
        return "the condition of " + who.name + " reads values condlint does not trace to the model's inputs";
      }
      std::vector<std::string> common;
      std::set_intersection(p.reads.begin(), p.reads.end(), q.reads.begin(), q.reads.end(), std::back_inserter(common));
      if (common.empty()) continue;
      std::string names;
      for (size_t k = 0; k < common.size() && k < 3; ++k)
        names += (k ? k + 1 == common.size() ? " and " : ", " : "") + common[k];
      if (common.size() > 3) names += " and " + std::to_string(common.size() - 3) + " more";
      return "the conditions of " + both + " both read " + names;
    }
  return "";
}

// What the format's runtime does with the model when the breaking branch runs (tools/venv's OpenVINO 2025: its CPU
// plugin compiles an If whose branches differ in dims and fails at the consumer, but refuses at compile_model an If
// output whose rank differs between the branches).
std::string fails_there(const Model& m, const BranchBreak& b) {
  if (m.nnapi) return "the NNAPI runtime fails there";
  if (!m.ir) return "ONNX Runtime fails there";
  for (const auto& p : b.picks) {
    const ConditionalView& c = m.conditionals[static_cast<size_t>(p.conditional)];
    const auto& t = c.branch[0].outputs;
    const auto& e = c.branch[1].outputs;
    const auto j = static_cast<size_t>(p.output);
    if (j < t.size() && j < e.size()) {
      const Shape a = t[j].value.comparable_shape(), bb = e[j].value.comparable_shape();
      if (a.rank_known && bb.rank_known && a.dims.size() != bb.dims.size())
        return "OpenVINO's CPU plugin refuses it earlier, at compile_model: an If output of dynamic rank";
    }
  }
  return "OpenVINO fails there at run time";
}

// Where ONNX Runtime runs what onnx's inference of the op rejects, as the generated differential measured it
// (tests/differential, docs/differential-c014.md; ONNX Runtime 1.32): ArgMax, ArgMin and the reductions read a
// scalar as one element, Concat skips an input with no elements, Gemm reads a 1-D first input as one row. Such a case is a note, not an error: the
// runtime does not fail there. Returns what ORT does, or "".
std::string runtime_accepts(const Model& m, const BranchBreak& b) {
  if (m.format != Format::ONNX) return "";
  const std::string op = m.node(b.graph, b.node).op.str();
  auto scalar = [](const std::string& t) { return t.size() >= 2 && t.compare(t.size() - 2, 2, "[]") == 0; };
  auto empty = [](const std::string& t) {
    const auto at = t.find('[');
    if (at == std::string::npos) return false;
    const std::string dims = "," + t.substr(at + 1, t.size() - at - 2) + ",";
    return dims.find(",0,") != std::string::npos;
  };
  const bool reduces = op == "ArgMax" || op == "ArgMin" || op.rfind("Reduce", 0) == 0;
  if (reduces && !b.input_types.empty() && scalar(b.input_types[0]))
    return "ONNX Runtime reads the scalar as one element and runs " + op;
  if (op == "Concat")
    for (const std::string& t : b.input_types)
      if (empty(t)) return "ONNX Runtime skips the input with no elements (" + t + ") and runs Concat";
  // The dims of a type text ("f32[4,3]" -> {"4","3"}), empty for no brackets.
  auto dims = [](const std::string& t) {
    std::vector<std::string> out;
    const auto at = t.find('[');
    if (at == std::string::npos || t.back() != ']') return out;
    std::string cur;
    for (size_t i = at + 1; i + 1 < t.size(); ++i)
      if (t[i] == ',') out.push_back(std::exchange(cur, std::string()));
      else cur += t[i];
    if (!cur.empty()) out.push_back(cur);
    return out;
  };
  // A 1-D A of length K with B of K rows (transB's default): ORT multiplies it as one row.
  if (op == "Gemm" && b.input_types.size() >= 2 &&
      b.error.find("First input does not have rank 2") != std::string::npos) {
    const auto a = dims(b.input_types[0]), w = dims(b.input_types[1]);
    if (a.size() == 1 && w.size() == 2 && a[0] == w[0] && a[0] != "?")
      return "ONNX Runtime reads the 1-D first input of Gemm as one row and runs it";
  }
  return "";
}

void check(const Model& m, Reporter& r) {
  const std::vector<BranchBreak>* breaks = m.onnx    ? &m.onnx->branch_breaks
                                           : m.ir    ? &m.ir->branch_follow.breaks
                                           : m.nnapi ? &m.nnapi->branch_follow.breaks
                                                     : nullptr;
  if (!breaks) return;
  const DeadCode never_runs(m);
  const auto n_conditionals = static_cast<int>(m.conditionals.size());
  // One finding per consumer (one root cause): of the cases of branches that break it, the one some input's values
  // select (an error) before one only shapes select (a note), then the one fewest Ifs select; the others are counted.
  struct Verdict {
    const BranchBreak* shown = nullptr;
    bool by_values = false;
    bool unproven = false;
    std::string combination;  // why the combination is not proven to happen ("" when it is, or one If decides)
    int cases = 0;
  };
  // The cases of branches that break each consumer, for needed_picks.
  std::map<std::pair<int, int>, std::set<std::vector<std::pair<int, int>>>> breaking;
  for (const BranchBreak& b : *breaks) {
    std::vector<std::pair<int, int>> c;
    for (const auto& p : b.picks) c.emplace_back(p.conditional, p.branch);
    breaking[{b.graph, b.node}].insert(std::move(c));
  }
  std::map<std::pair<int, int>, Verdict> by_consumer;
  std::vector<std::pair<int, int>> order;
  for (const BranchBreak& b : *breaks) {
    if (b.picks.empty() || never_runs.contains(b.graph)) continue;
    bool runs = true, by_values = true, unproven = false;
    for (const auto& p : b.picks) {
      if (p.conditional < 0 || p.conditional >= n_conditionals) {
        runs = false;
        break;
      }
      const ConditionalView& c = m.conditionals[static_cast<size_t>(p.conditional)];
      const ConditionProvenance& pr = c.provenance;
      if (never_runs.contains(c.graph) || (pr.decided >= 0 && pr.decided != (p.branch == 0 ? 1 : 0))) runs = false;
      if (!pr.traced || !pr.on_values || p.dependent) by_values = false;
      if (pr.traced && pr.on_values && p.dependent) unproven = true;
    }
    if (!runs) continue;
    // A case that needs branches of several Ifs is an error only when inputs are proven to select them together.
    std::string combination;
    if (by_values && b.picks.size() > 1) {
      combination = unproven_combination(m, b, breaking[{b.graph, b.node}]);
      by_values = combination.empty();
    }
    auto [it, fresh] = by_consumer.try_emplace({b.graph, b.node});
    if (fresh) order.push_back({b.graph, b.node});
    Verdict& v = it->second;
    ++v.cases;
    if (!v.shown || (by_values && !v.by_values) ||
        (by_values == v.by_values && b.picks.size() < v.shown->picks.size())) {
      v.shown = &b;
      v.by_values = by_values;
      v.unproven = unproven;
      v.combination = std::move(combination);
    }
  }
  for (const auto& at : order) {
    const Verdict& v = by_consumer[at];
    const BranchBreak& b = *v.shown;
    std::string when, paths;
    for (const auto& p : b.picks) {
      const ConditionalView& c = m.conditionals[static_cast<size_t>(p.conditional)];
      const std::string text = c.provenance.traced ? c.provenance.text : "its condition";
      when += (when.empty() ? "when " : ", and ") + text + " is " + (p.branch == 0 ? "true" : "false");
      paths += (paths.empty() ? "" : "; ") + c.name + " output " + std::to_string(p.output) + " is " + p.type +
               (p.other.empty()
                    ? ""
                    : " (the " + std::string(p.branch == 0 ? "else" : "then") + " branch gives " + p.other + ")");
    }
    const Node& node = m.node(b.graph, b.node);
    const std::string after =
        b.steps > 1 ? ", " + std::to_string(b.steps - 1) + " node" + (b.steps > 2 ? "s" : "") + " further on," : "";
    std::string msg = when + ", " + paths + "; " + node_label(m, b.graph, b.node) + after + " cannot " +
                      (b.verb.empty() ? cannot(node.op.str(), b.input_types) : b.verb) + " (" + b.judged_by +
                      " fails: " + b.error + ")";
    const std::string others = v.cases > 1 ? " (" + std::to_string(v.cases - 1) + " other case" +
                                                 (v.cases > 2 ? "s" : "") + " of branches break it too)"
                                           : "";
    if (const std::string lenient = runtime_accepts(m, b); !lenient.empty()) {
      r.report_at(Level::Note, b.loc,
                  msg + ": " + lenient + " (measured by condlint's generated differential), so the model runs" +
                      others);
    } else if (v.by_values) {
      r.report_at(
          Level::Error, b.loc,
          msg + ": the model is invalid for the inputs that select that branch (" + fails_there(m, b) + ")" + others);
    } else if (!v.combination.empty()) {
      r.report_at(Level::Note, b.loc,
                  msg + ": " + v.combination +
                      ", so this combination of branches may never happen (condlint does not prove that inputs select "
                      "it; the model fails for inputs that do)" +
                      others);
    } else if (v.unproven) {
      r.report_at(Level::Note, b.loc,
                  msg +
                      ": whether inputs select that case is not proven (a condition reads values the earlier "
                      "branches compute)" +
                      others);
    } else {
      r.report_at(Level::Note, b.loc,
                  "a shape guard: " + msg +
                      ": the condition reads input shapes only, so the model fails for inputs of the shapes that "
                      "select that branch (it runs for the others)" +
                      others);
    }
  }
  if (const BranchFollowFacts* f = m.ir ? &m.ir->branch_follow : m.nnapi ? &m.nnapi->branch_follow : nullptr) {
    auto live = [&](int conditional) {
      return conditional >= 0 && conditional < n_conditionals &&
             !never_runs.contains(m.conditionals[static_cast<size_t>(conditional)].graph);
    };
    for (const BranchFollowFacts::Gap& gap : f->gaps) {
      if (!live(gap.conditional)) continue;
      const ConditionalView& c = m.conditionals[static_cast<size_t>(gap.conditional)];
      r.report_at(Level::Note, gap.loc,
                  c.name + "'s branches give different shapes, and " + node_label(m, gap.graph, gap.node) +
                      " reads one of them: condlint has no shape rule for " + gap.op + " in " +
                      (m.ir ? "OpenVINO IR" : "NNAPI") +
                      ", so from there on the consumers are judged on what both branches can give, not per branch");
    }
    for (const BranchFollowFacts::Limit& l : f->limits) {
      if (!live(l.conditional)) continue;
      const ConditionalView& c = m.conditionals[static_cast<size_t>(l.conditional)];
      const std::string at = node_label(m, l.loc.graph, l.loc.node_index);
      r.report_at(
          Level::Note, l.loc,
          c.name + "'s branches give different shapes, and " +
              (l.combinations
                   ? "more than " + std::to_string(l.limit) + " combinations of branches meet at " + at
                   : "its consumers were followed per branch for " + std::to_string(l.limit) + " nodes, up to " + at) +
              ": from there on its consumers are judged on what both branches can give, not per branch");
    }
    return;
  }
  for (const OnnxBranchFollowLimit& l : m.onnx->branch_follow_limits) {
    if (l.conditional < 0 || l.conditional >= n_conditionals) continue;
    const ConditionalView& c = m.conditionals[static_cast<size_t>(l.conditional)];
    if (never_runs.contains(c.graph)) continue;
    const std::string at =
        l.loc.node_index >= 0 ? onnx_node_label(m, l.loc.graph, l.loc.node_index) : std::string("a node");
    if (l.whole_model) {
      r.report_at(Level::Note, l.loc,
                  "the branches of this model's Ifs were followed into their consumers for " + std::to_string(l.limit) +
                      " cases of branches in all, up to " + at + " (after " + c.name +
                      "): from there on the consumers of every If are judged on what both branches can give, not per "
                      "branch");
      continue;
    }
    r.report_at(Level::Note, l.loc,
                c.name + "'s branches give different types or shapes, and " +
                    (l.combinations ? "more than " + std::to_string(l.limit) + " combinations of branches meet at " + at
                                    : "its consumers were followed per branch for " + std::to_string(l.limit) +
                                          " nodes, up to " + at) +
                    ": from there on its consumers are judged on what both branches can give, not per branch");
  }
}

}  // namespace condlint::rules::C014

CONDLINT_RULE(C014, "branch-breaks-consumer", Level::Error, kAllFormats,
              "A node after an If fails under one branch: its shape rules reject what that branch gives", check)
