// C012 branch-dead: the condition is the same for every input the model's declared types allow (it is computed
// from constants and from shapes condlint's sound inference proves, or it is an NNAPI constant), so one branch can
// never run. An NNAPI IF whose two branches name one subgraph has no dead code: silent there.
#include <map>
#include <string>
#include <vector>

#include "rules/engine.hpp"
#include "rules/fix.hpp"
#include "rules/support/dead_code.hpp"

namespace condlint::rules::C012 {
using namespace condlint;

// The inlining of a decided IR If (the fix): the If layer replaced by the live branch's layers, renumbered into the
// enclosing graph, and its edges rewired (a body Parameter's consumers read what fed the If's input; the If output's
// consumers read what fed the body Result). Built without the text to say whether the finding is fixable, with it
// for the edits.
struct Inline {
  std::string why;  // why it cannot be inlined ("" : it can)
  Fix fix;
};

struct PortRef {
  std::string layer, port;
};

Inline plan_inline(const Model& m, const ConditionalView& c, std::string_view text) {
  Inline out;
  auto fail = [&](std::string w) {
    out.why = std::move(w);
    return out;
  };
  if (m.format != Format::IR || !m.ir) return fail("only an IR's Ifs are inlined");
  const IrIf* ir = nullptr;
  for (const auto& f : m.ir->ifs)
    if (f.graph == c.graph && f.node == c.node) ir = &f;
  const int live = c.provenance.decided == 1 ? 0 : 1;
  if (!ir || ir->body_graph[live] < 0) return fail("the live branch has no body");
  const Graph& g = m.graphs[c.graph];
  const Node& k = g.nodes[c.node];
  const int body = ir->body_graph[live];
  // New ids after the graph's largest, and after those of the decided Ifs before this one in the graph.
  int64_t base = -1;
  for (const Node& n : g.nodes) {
    int64_t id = 0;
    if (!parse_int64(n.id, id)) return fail("a layer id of the graph is not a number");
    base = std::max(base, id);
  }
  ++base;
  for (const auto& other : m.conditionals)
    if (other.graph == c.graph && other.node < c.node && other.provenance.decided >= 0)
      for (const auto& f : m.ir->ifs)
        if (f.graph == other.graph && f.node == other.node) {
          const int b = f.body_graph[other.provenance.decided == 1 ? 0 : 1];
          if (b >= 0) base += static_cast<int64_t>(m.graphs[b].nodes.size());
        }
  std::map<std::string, std::string> param_port, result_port;  // body layer id -> If port id
  for (const auto& e : ir->port_map[live]) {
    if (!e.has_external || !e.has_internal) return fail("a port-map entry lacks a port or a layer");
    (e.is_input ? param_port : result_port)[std::to_string(e.internal_layer_id)] = std::to_string(e.external_port_id);
  }
  std::map<std::string, PortRef> source;                  // If input port -> what feeds it
  std::map<std::string, std::vector<PortRef>> consumers;  // If output port -> what reads it
  const IrGraphExtra& ge = m.ir->graph_extra[c.graph];
  for (const IrEdge& e : ge.edges) {
    if (e.to_layer == k.id.str()) source[e.to_port] = {e.from_layer, e.from_port};
    if (e.from_layer == k.id.str()) consumers[e.from_port].push_back({e.to_layer, e.to_port});
  }
  for (const auto& [port, readers] : consumers) {
    bool mapped = false;
    for (const auto& [r, p] : result_port) mapped = mapped || p == port;
    if (!mapped) return fail("If output port " + port + " has readers but no Result of the live branch");
  }
  // The body's layers: Parameters become what feeds the If, Results what reads it, the rest is copied.
  const Graph& bg = m.graphs[body];
  std::map<std::string, std::string> new_id;
  std::map<std::string, const Node*> by_id;
  int64_t next = base;
  for (const Node& n : bg.nodes) {
    by_id[n.id.str()] = &n;
    if (n.op == "Parameter") {
      auto it = param_port.find(n.id.str());
      if (it == param_port.end() || !source.count(it->second)) return fail("body Parameter '" + n.display() + "' is fed by nothing");
    } else if (n.op != "Result") {
      new_id[n.id.str()] = std::to_string(next++);
    }
  }
  const IrGraphExtra& be = m.ir->graph_extra[body];
  std::map<std::string, PortRef> into_result;  // body Result id -> what feeds it
  for (const IrEdge& e : be.edges) {
    auto to = by_id.find(e.to_layer);
    if (to != by_id.end() && to->second->op == "Result") into_result[e.to_layer] = {e.from_layer, e.from_port};
  }
  if (text.empty()) return out;

  // The If's output tensor names move to the body port that now gives the value (names kept where they are outputs).
  std::map<std::pair<std::string, std::string>, std::string> names_of;  // body (layer, port) -> names to add
  for (const Port& p : k.outputs) {
    const auto names = xml_attribute(text, p.loc(k).offset, "names");
    if (!names || names->first == names->second) continue;
    for (const auto& [r, port] : result_port) {
      if (port != p.id.str() || !into_result.count(r)) continue;
      const PortRef& from = into_result[r];
      if (!new_id.count(from.layer)) return fail("If output '" + p.id.str() + "' has names and passes an input through");
      std::string& add = names_of[{from.layer, from.port}];
      add += (add.empty() ? "" : ",") + std::string(text.substr(names->first, names->second - names->first));
    }
  }
  std::string layers;
  for (const Node& n : bg.nodes) {
    if (!new_id.count(n.id.str())) continue;
    const auto range = xml_element_range(text, n.loc.offset);
    const auto id = xml_attribute(text, n.loc.offset, "id");
    if (!range || !id) return fail("layer '" + n.display() + "' of the live branch cannot be read");
    // Edits inside the copy, from the end backwards: the names of its output ports, then its id.
    std::vector<std::pair<std::pair<size_t, size_t>, std::string>> edits{{*id, new_id[n.id.str()]}};
    for (const Port& p : n.outputs) {
      auto it = names_of.find({n.id.str(), p.id.str()});
      if (it == names_of.end()) continue;
      const int64_t at = p.loc(n).offset;
      if (const auto has = xml_attribute(text, at, "names"); has) {
        edits.push_back({{has->second, has->second}, "," + it->second});
      } else {
        size_t end = xml_start_tag_end(text, at);
        if (end == std::string_view::npos) return fail("an output port of '" + n.display() + "' cannot be read");
        end -= text[end - 2] == '/' ? 2 : 1;
        edits.push_back({{end, end}, " names=\"" + it->second + "\""});
      }
    }
    std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) { return a.first.first > b.first.first; });
    std::string copy(text.substr(static_cast<size_t>(range->first), static_cast<size_t>(range->second - range->first)));
    for (const auto& [span, with] : edits)
      copy.replace(span.first - static_cast<size_t>(range->first), span.second - span.first, with);
    layers += copy;
  }
  // The edges: the body's, rewired, in the enclosing graph's <edges>; the If's own removed.
  std::string indent = "\t\t";
  int64_t insert_at = -1;
  for (const IrEdge& e : ge.edges) {
    const auto range = xml_element_range(text, e.loc.offset);
    if (!range) return fail("an edge of the graph cannot be read");
    insert_at = std::max(insert_at, range->second);
    const size_t line = text.rfind('\n', static_cast<size_t>(e.loc.offset));
    indent = std::string(text.substr(line + 1, static_cast<size_t>(e.loc.offset) - line - 1));
    if (e.to_layer == k.id.str() || e.from_layer == k.id.str()) out.fix.text.push_back({range->first, range->second, ""});
  }
  if (insert_at < 0) return fail("the enclosing graph has no edges");
  std::string edges;
  auto edge = [&](const PortRef& a, const PortRef& b) {
    edges += indent + "<edge from-layer=\"" + a.layer + "\" from-port=\"" + a.port + "\" to-layer=\"" + b.layer +
             "\" to-port=\"" + b.port + "\" />\n";
  };
  for (const IrEdge& e : be.edges) {
    const Node* from = by_id.count(e.from_layer) ? by_id[e.from_layer] : nullptr;
    const Node* to = by_id.count(e.to_layer) ? by_id[e.to_layer] : nullptr;
    if (!from || !to) return fail("an edge of the live branch names no layer");
    const PortRef src = from->op == "Parameter" ? source[param_port[from->id.str()]]
                                                : PortRef{new_id[from->id.str()], e.from_port};
    if (from->op == "Result") return fail("an edge leaves a Result");
    if (to->op == "Result") {
      auto mapped = result_port.find(to->id.str());
      if (mapped == result_port.end()) continue;  // a Result no port map names: its value was dropped
      for (const PortRef& c2 : consumers[mapped->second]) edge(src, c2);
    } else if (to->op == "Parameter") {
      return fail("an edge enters a Parameter");
    } else {
      edge(src, {new_id[to->id.str()], e.to_port});
    }
  }
  const auto self = xml_element_range(text, k.loc.offset);
  if (!self) return fail("the If layer cannot be read");
  out.fix.text.push_back({self->first, self->second, layers});
  out.fix.text.push_back({insert_at, insert_at, edges});
  out.fix.description = "replaced If '" + k.display() + "' by its " + (live == 0 ? "then" : "else") + " branch (" +
                        std::to_string(new_id.size()) + (new_id.size() == 1 ? " layer" : " layers") +
                        " inlined; the other branch never runs)";
  return out;
}

void check(const Model& m, Reporter& r) {
  const DeadCode never_runs(m);
  for (const auto& c : m.conditionals) {
    const ConditionProvenance& p = c.provenance;
    if (!p.traced || p.decided < 0 || c.branch[0].graph < 0 || c.branch[1].graph < 0) continue;
    // Inside a branch that never runs, the outer finding already says all of it is code to remove.
    if (never_runs.contains(c.graph)) continue;
    if (c.branch[0].graph == c.branch[1].graph) continue;  // one subgraph for both: no branch of it is dead code
    const char* dead = p.decided == 1 ? "else" : "then";
    // A decision that rests on shapes holds for every input the declared types allow; one on constants for all.
    const Fixable fix = plan_inline(m, c, {}).why.empty() ? Fixable::Safe : Fixable::No;
    r.report_fixable(fix, c.loc, "the " + std::string(dead) + " branch of " + c.name + " never runs: the condition " + p.text +
                        " is always " + (p.decided == 1 ? "true" : "false") + " (" + p.decided_why +
                        (p.on_shapes ? " for every input the declared types allow); an exporter's guard for shapes "
                                       "this model never has, or a branch to remove"
                                     : "); a branch to remove"));
  }
}

std::optional<Fix> make_fix(const Model& m, const Finding& f, std::string_view text, std::string& why) {
  for (const auto& c : m.conditionals)
    if (c.graph == f.loc.graph && c.node == f.loc.node_index && c.provenance.decided >= 0) {
      Inline in = plan_inline(m, c, text);
      if (!in.why.empty()) {
        why = in.why;
        return std::nullopt;
      }
      return in.fix;
    }
  why = "the If is not where the finding says";
  return std::nullopt;
}
}  // namespace condlint::rules::C012

CONDLINT_RULE(C012, "branch-dead", Level::Note, kAllFormats,
              "One branch can never run: the condition is decided by constants and proven shapes", check)
CONDLINT_FIX(C012, make_fix)
