// OpenVINO IR (v10, v11) loader: <net> XML read by FlatXml (or pugixml when FlatXml declines), nested bodies
// walked iteratively.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <pugixml.hpp>
#include <stdexcept>
#include <unordered_map>

#include "io/mapped_file.hpp"
#include "loaders/loader.hpp"
#include "loaders/xml_flat.hpp"
#include "loaders/branch_follow.hpp"
#include "loaders/ir_shapes.hpp"
#include "model/condition_trace.hpp"
#include "model/memory_hint.hpp"
#include "model/name_table.hpp"
#include "model/parallel.hpp"

namespace condlint {

namespace {

namespace fs = std::filesystem;

void record(IrData& ir, IrProblem::Kind k, std::string msg, SourceLocation loc) {
  ir.problems.push_back({k, std::move(msg), std::move(loc)});
}

// What reading one graph adds to the model's shared lists. Graphs are read independently (on two cores when the
// model is large); their additions are joined in the order one thread would have read them.
struct GraphAdditions {
  std::vector<IrProblem> problems;
  std::vector<IrIf> ifs;
  std::vector<IrConst> consts;
  std::vector<IrSuppression> suppressions;
  std::vector<IrLoop> loops;
};

// A graph to read: its container and the graph numbers of its layers' bodies, in layer order (plan_graphs).
template <class X>
struct PlannedGraph {
  X container;  // <net>, <then_body>, <else_body> or <body>
  int graph;
  std::vector<int> bodies;
};

// The bodies a layer holds, in the order they are numbered: an If's <then_body> and <else_body> (the first of
// each), another layer's first <body> (Loop, TensorIterator).
template <class X>
struct LayerBodies {
  X body[2];
  const char* role[2] = {nullptr, nullptr};
  int count = 0;
  void add(const X& b, const char* r) {
    if (!b) return;
    body[count] = b;
    role[count++] = r;
  }
};

// What does not depend on the XML reader: the parse, the edges, the Conditional views.
class IrBuilder {
 public:
  IrBuilder(const std::string& path, std::string& bytes, IrXmlReader reader)
      : path_(path), bytes_(bytes), reader_(reader), lines_(bytes) {}

  std::unique_ptr<Model> build();

 private:
  void problem(IrProblem::Kind k, std::string msg, SourceLocation loc) {
    record(*ir_, k, std::move(msg), std::move(loc));
  }
  template <class X>
  void read_net(const X& root);
  template <class X>
  size_t plan_graphs(const X& root, std::vector<PlannedGraph<X>>& plans, std::vector<int>& order);
  void index_ids(int g);  // fills graph_extra[g].index_of_id when the ids allow
  void resolve_edges(int g);
  ConditionalView build_view(const IrIf& info) const;
  IrConstIndex ir_consts_;  // for the conditions' Consts (filled before the views are built)
  IrShapes shapes_;         // the shapes conditions test (loaders/ir_shapes), likewise
  ProvenShapes proven_shapes_;
  ValueDesc value_of(int g, const ValueRef& src) const;

  const std::string& path_;
  std::string& bytes_;
  IrXmlReader reader_;
  LineIndex lines_;
  std::unique_ptr<Model> model_;
  IrData* ir_ = nullptr;
};

// Reads the graphs of either XML reader (xml_flat.hpp: FlatNodeRef or PugiNodeRef) into the model. One reader
// per graph: what it adds to shared lists goes to its GraphAdditions, and it keeps its own line-lookup hint.
template <class X>
class IrReader {
 public:
  using A = typename X::Attribute;
  IrReader(Model& m, IrData& ir, const LineIndex& lines, GraphAdditions* out)
      : model_(&m), ir_(&ir), lines_(lines), out_(out) {}

  void read_graph(const PlannedGraph<X>& job);

  // A location for an XML element that belongs to graph g (and node n of it, when n >= 0).
  Position loc_of(const X& x, int g, int n = -1) const {
    Position l;  // the file name is filled in when a finding is reported
    // offset_debug() points at the element's name; report the '<' before it, where editors put it.
    l.offset = x.offset_debug();
    if (l.offset > 0 && x.is_element()) --l.offset;
    lines_.locate(l.offset, l.line, l.column, line_hint_);
    l.graph = g;
    l.node_index = n;
    return l;
  }

 private:
  struct Where {
    int g, n;
  };
  void problem(IrProblem::Kind k, std::string msg, SourceLocation loc) {
    out_->problems.push_back({k, std::move(msg), std::move(loc)});
  }
  void bad_attr(const X& x, Where w, const std::string& what) {
    problem(IrProblem::Kind::BadAttribute, what, loc_of(x, w.g, w.n));
  }
  // A shape of more than kMaxRank dims at `x`: recorded (rule C013) instead of built; the caller leaves it unknown.
  void over_limit(const X& x, Where w, std::string what, int64_t declared) {
    model_->over_limits.push_back({std::move(what), declared, kMaxRank, loc_of(x, w.g, w.n)});
  }
  // Reads an integer attribute; records a problem when present but unparsable.
  std::optional<int64_t> int_attr(const X& n, const char* name, Where w, bool required) {
    return int_value(n, n.attribute(name), name, w, required);
  }
  // The same for an attribute already found (`a` may be empty).
  std::optional<int64_t> int_value(const X& n, const A& a, const char* name, Where w, bool required);
  Port read_port(const X& p, Where w, bool output);
  void read_ports(const X& list, std::vector<Port>& ports, Where w, bool output);
  void read_suppression(const X& comment, Where w);
  static IrLoop read_loop(const X& port_map, const X& back_edges, int graph, int node);
  void read_layer(const PlannedGraph<X>& job, const X& l, size_t& planned);
  void read_value_data(Node& node, const X& data, Where npath, bool is_const);
  void read_if(Where npath, const X& then_map, const X& else_map, const int branch_graph[2]);
  void read_edges(const PlannedGraph<X>& job);

  Model* model_;
  IrData* ir_;
  const LineIndex& lines_;
  GraphAdditions* out_;
  mutable size_t line_hint_ = 0;
  ValueTypeTable types_;  // the ports' types, one copy per distinct type and shape
  TextTable texts_;       // the layers' opsets, one copy each
};

// A name against a literal, inline: the loader compares a few names per element and attribute, and a libc
// memcmp call for each cost a sixth of reading a large model.
template <size_t N>
inline bool eq(std::string_view s, const char (&lit)[N]) {
  if (s.size() != N - 1) return false;
  for (size_t i = 0; i + 1 < N; ++i)
    if (s[i] != lit[i]) return false;
  return true;
}
template <class X, size_t N>
inline bool named(const X& x, const char (&lit)[N]) {
  return x.is_element() && eq(x.name(), lit);
}
// The first child element with that name, and the next sibling element with that name.
template <class X, size_t N>
inline X first_named(const X& parent, const char (&lit)[N]) {
  for (auto c = parent.first_child(); c; c = c.next_sibling())
    if (named(c, lit)) return c;
  return X();
}
template <class X, size_t N>
inline X next_named(const X& x, const char (&lit)[N]) {
  for (auto c = x.next_sibling(); c; c = c.next_sibling())
    if (named(c, lit)) return c;
  return X();
}
inline std::string str(std::string_view v) { return std::string(v); }

// The bodies of a layer by the rule read_graph numbers them with: the first "type" attribute says whether it is
// an If; the first child element of each name is the one read.
template <class X>
LayerBodies<X> bodies_of(const X& layer) {
  std::string_view type;
  for (auto a = layer.first_attribute(); a; a = a.next_attribute())
    if (eq(a.name(), "type")) {
      type = a.value();
      break;
    }
  X then_body, else_body, body;
  for (auto c = layer.first_child(); c; c = c.next_sibling()) {
    if (!c.is_element()) continue;
    const std::string_view n = c.name();
    if (!then_body && eq(n, "then_body")) then_body = c;
    else if (!else_body && eq(n, "else_body")) else_body = c;
    else if (!body && eq(n, "body")) body = c;
  }
  LayerBodies<X> lb;
  if (eq(type, "If")) {
    lb.add(then_body, "then");
    lb.add(else_body, "else");
  } else {
    lb.add(body, "body");
  }
  return lb;
}

// A Loop's port map and back edges, as the executor and the export run it. A number that does not parse is -1, and
// nothing is reported here: the IR rules check the layer.
template <class X>
IrLoop IrReader<X>::read_loop(const X& port_map, const X& back_edges, int graph, int node) {
  IrLoop m;
  m.graph = graph;
  m.node = node;
  auto num = [](const A& a, int64_t def) {
    int64_t v = 0;
    return a && parse_int64(a.value(), v) ? v : def;
  };
  for (auto e = port_map.first_child(); e; e = e.next_sibling()) {
    if (!e.is_element()) continue;
    const std::string_view tag = e.name();
    const std::string_view purpose = e.attribute("purpose").value();
    if (eq(tag, "input") && eq(purpose, "current_iteration")) {
      m.iter_layer = num(e.attribute("internal_layer_id"), -1);
    } else if (eq(tag, "output") && eq(purpose, "execution_condition")) {
      m.cond_layer = num(e.attribute("internal_layer_id"), -1);
    } else if (eq(tag, "input")) {
      m.ins.push_back({num(e.attribute("external_port_id"), -1), num(e.attribute("internal_layer_id"), -1),
                       static_cast<bool>(e.attribute("axis"))});
    } else if (eq(tag, "output")) {
      IrLoop::Out o{num(e.attribute("external_port_id"), -1), num(e.attribute("internal_layer_id"), -1), std::nullopt};
      if (e.attribute("axis")) o.axis = num(e.attribute("axis"), 0);
      m.outs.push_back(o);
    }
  }
  for (auto e = first_named(back_edges, "edge"); e; e = next_named(e, "edge"))
    m.back.emplace_back(num(e.attribute("from-layer"), -1), num(e.attribute("to-layer"), -1));
  return m;
}

template <class X>
std::optional<int64_t> IrReader<X>::int_value(const X& n, const A& a, const char* name, Where node_path,
                                              bool required) {
  if (!a) {
    if (required) bad_attr(n, node_path, "<" + str(n.name()) + "> has no '" + name + "' attribute");
    return std::nullopt;
  }
  int64_t v = 0;
  if (!parse_int64(a.value(), v)) {
    bad_attr(n, node_path,
             "<" + str(n.name()) + "> attribute " + name + "=\"" + str(a.value()) + "\" is not an integer");
    return std::nullopt;
  }
  return v;
}

template <class X>
Port IrReader<X>::read_port(const X& p, Where node_path, bool output) {
  Port port;
  port.set_loc(loc_of(p, node_path.g, node_path.n));
  // One pass over the attributes (the first of each name counts, as pugixml's lookup would find it).
  A id_a, prec;
  for (auto a = p.first_attribute(); a; a = a.next_attribute()) {
    const std::string_view n = a.name();
    if (!id_a && eq(n, "id")) id_a = a;
    else if (!prec && eq(n, "precision")) prec = a;
  }
  port.id = id_a.value();
  if (!id_a) bad_attr(p, node_path, "<port> has no 'id' attribute");
  else int_value(p, id_a, "id", node_path, true);
  TypeDesc type;
  type.kind = TypeDesc::Kind::Tensor;
  if (prec) {
    if (auto t = parse_ov_elem_type(prec.value())) type.elem = *t;
    else bad_attr(p, node_path, "port precision \"" + str(prec.value()) + "\" is not an OpenVINO element type");
  } else if (!output) {
    type.kind = TypeDesc::Kind::Unknown;  // input ports usually state no precision
  }
  size_t dims = 0;
  for (auto d = first_named(p, "dim"); d; d = next_named(d, "dim")) ++dims;
  if (dims > static_cast<size_t>(kMaxRank)) {  // not built: the port's rank stays unknown
    over_limit(p, node_path, "the <dim> list of this port", static_cast<int64_t>(dims));
    port.set_type(types_.get(std::move(type), Shape::unknown()));
    return port;
  }
  Shape shape = Shape::scalar();
  shape.dims.reserve(dims);
  for (auto d = first_named(p, "dim"); d; d = next_named(d, "dim")) {
    if (auto dim = parse_ov_dim(d.child_value())) {
      shape.dims.push_back(*dim);
    } else {
      bad_attr(d, node_path, "<dim>" + str(d.child_value()) + "</dim> is not a dimension");
      shape.dims.push_back(Dim::dynamic());
    }
  }
  if (dims == 0) port.attrs_no_dims = true;
  port.set_type(types_.get(std::move(type), std::move(shape)));
  return port;
}

template <class X>
void IrReader<X>::read_ports(const X& list, std::vector<Port>& ports, Where w, bool output) {
  size_t count = 0;
  for (auto p = first_named(list, "port"); p; p = next_named(p, "port")) ++count;
  ports.reserve(count);
  for (auto p = first_named(list, "port"); p; p = next_named(p, "port")) ports.push_back(read_port(p, w, output));
}

// A `<!-- condlint-disable ID ... -->` comment directly before a layer or among its children.
template <class X>
void IrReader<X>::read_suppression(const X& c, Where w) {
  std::string_view t = c.value();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  constexpr std::string_view kTag = "condlint-disable";
  if (t.substr(0, kTag.size()) != kTag) return;
  t.remove_prefix(kTag.size());
  if (!t.empty() && !std::isspace(static_cast<unsigned char>(t.front())) && t.front() != ',') return;
  IrSuppression s;
  s.graph = w.g;
  s.node = w.n;
  s.loc = loc_of(c, w.g, w.n);
  std::string cur;
  for (char ch : t) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == ',') {
      if (!cur.empty()) s.rules.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) s.rules.push_back(std::move(cur));
  out_->suppressions.push_back(std::move(s));
}

template <class X>
void IrReader<X>::read_graph(const PlannedGraph<X>& job) {
  size_t planned = 0;  // the next of job.bodies
  const auto layers = first_named(job.container, "layers");
  if (!layers)
    problem(IrProblem::Kind::NotIr, "<" + str(job.container.name()) + "> has no <layers> element",
            loc_of(job.container, job.graph));
  {
    size_t count = 0;
    for (auto l = first_named(layers, "layer"); l; l = next_named(l, "layer")) ++count;
    model_->graphs[job.graph].nodes.reserve(count);  // no Node moves while the graph grows
  }
  for (auto l = first_named(layers, "layer"); l; l = next_named(l, "layer")) read_layer(job, l, planned);
  if (planned != job.bodies.size()) throw std::logic_error("IR reader: a body the plan numbered was not read");
  read_edges(job);
}

template <class X>
void IrReader<X>::read_layer(const PlannedGraph<X>& job, const X& l, size_t& planned) {
  // Built in place: the graph's node list was reserved (read_graph), and adding body graphs moves the Graph
  // objects but not their node arrays, so the reference stays good.
  const int node_index = static_cast<int>(model_->graphs[job.graph].nodes.size());
  Node& node = model_->graphs[job.graph].nodes.emplace_back();
  A id_a, name_a, type_a, version_a;
  for (auto a = l.first_attribute(); a; a = a.next_attribute()) {
    const std::string_view n = a.name();
    if (!id_a && eq(n, "id")) id_a = a;
    else if (!name_a && eq(n, "name")) name_a = a;
    else if (!type_a && eq(n, "type")) type_a = a;
    else if (!version_a && eq(n, "version")) version_a = a;
  }
  node.id = id_a.value();
  node.name = name_a.value();
  node.op = type_a.value();
  node.version = texts_.get(version_a.value());
  const Where npath{job.graph, node_index};
  node.loc = loc_of(l, job.graph, node_index);
  int_value(l, id_a, "id", npath, true);
  if (!type_a) bad_attr(l, npath, "<layer> has no 'type' attribute");
  // Suppression comments: those directly before the layer (nearest first), then those among its children.
  for (auto c = l.previous_sibling(); c && c.is_comment(); c = c.previous_sibling()) read_suppression(c, npath);
  // The first of each, as child() finds it; an If's port maps too (its bodies are graphs of their own).
  X data, input, output, then_map, else_map, loop_map, back_edges;
  for (auto c = l.first_child(); c; c = c.next_sibling()) {
    if (!c.is_element()) {
      if (c.is_comment()) read_suppression(c, npath);
      continue;
    }
    const std::string_view n = c.name();
    if (!data && eq(n, "data")) data = c;
    else if (!input && eq(n, "input")) input = c;
    else if (!output && eq(n, "output")) output = c;
    else if (!then_map && eq(n, "then_port_map")) then_map = c;
    else if (!else_map && eq(n, "else_port_map")) else_map = c;
    else if (!loop_map && eq(n, "port_map")) loop_map = c;
    else if (!back_edges && eq(n, "back_edges")) back_edges = c;
  }
  for (auto a = data.first_attribute(); a; a = a.next_attribute()) node.attrs.set(str(a.name()), str(a.value()));
  read_ports(input, node.inputs, npath, false);
  read_ports(output, node.outputs, npath, true);
  node.sources.assign(node.inputs.size(), ValueRef{});
  const bool is_param = eq(node.op, "Parameter"), is_const = eq(node.op, "Const") || eq(node.op, "Constant");
  if (is_param || is_const) read_value_data(node, data, npath, is_const);

  // The layer's bodies: the graphs plan_graphs made for it (bodies_of), which are read on their own.
  int branch_graph[2] = {-1, -1};  // an If's then and else
  for (; planned < job.bodies.size(); ++planned) {
    const int gi = job.bodies[planned];
    // Only what the plan set (parent, role) is read here; the body's nodes are another reader's to fill.
    const Graph& b = model_->graphs[static_cast<size_t>(gi)];
    if (b.parent_node != node_index) break;
    node.bodies.emplace_back(b.role, gi);
    if (b.role == "then") branch_graph[0] = gi;
    else if (b.role == "else") branch_graph[1] = gi;
  }
  if (eq(node.op, "Loop")) out_->loops.push_back(read_loop(loop_map, back_edges, job.graph, node_index));
  if (eq(node.op, "If")) read_if(npath, then_map, else_map, branch_graph);
}

// A Parameter's or Const's <data>: its element type and shape are authoritative for the value it produces; a Const's
// place in the weights file is recorded for the rules that check it.
template <class X>
void IrReader<X>::read_value_data(Node& node, const X& data, Where npath, bool is_const) {
  std::optional<ElemType> et;
  if (const auto a = data.attribute("element_type")) {
    et = parse_ov_elem_type(a.value());
    if (!et) bad_attr(data, npath, "element_type=\"" + str(a.value()) + "\" is not an OpenVINO element type");
  }
  std::optional<Shape> shape;
  if (const auto a = data.attribute("shape")) {
    const std::string_view text(a.value());
    const auto commas = static_cast<int64_t>(std::count(text.begin(), text.end(), ','));
    if (commas + 1 > kMaxRank) {  // not built: the value's shape stays as the ports give it, or unknown
      over_limit(data, npath, "the shape attribute of this layer", commas + 1);
    } else {
      std::string why;
      shape = parse_ov_shape(a.value(), &why);
      if (!shape) bad_attr(data, npath, "shape=\"" + str(a.value()) + "\": " + why);
    }
  }
  if (!node.outputs.empty() && (et || shape)) {
    Port& out = node.outputs[0];
    out.set_type(types_.get(et ? TypeDesc::tensor(*et) : out.type(), shape ? *shape : out.shape()));
    if (shape) out.attrs_no_dims = false;
  }
  if (is_const) {
    IrConst c;
    c.graph = npath.g;
    c.node = npath.n;
    c.offset = int_attr(data, "offset", npath, false);
    c.size = int_attr(data, "size", npath, false);
    c.elem = et.value_or(ElemType::Unknown);
    c.shape = shape;
    out_->consts.push_back(c);
  }
}

// An If's bodies and port maps, as the IR rules check them.
template <class X>
void IrReader<X>::read_if(Where npath, const X& then_map, const X& else_map, const int branch_graph[2]) {
  IrIf info;
  info.graph = npath.g;
  info.node = npath.n;
  const X maps[2] = {then_map, else_map};
  for (int b = 0; b < 2; ++b) {
    info.body_graph[b] = branch_graph[b];
    info.has_body[b] = info.body_graph[b] >= 0;
    const auto pm = maps[b];
    info.has_port_map[b] = static_cast<bool>(pm);
    for (auto e = pm.first_child(); e; e = e.next_sibling()) {
      const bool is_input = named(e, "input");
      if (!is_input && !named(e, "output")) continue;
      IrPortMapEntry entry;
      entry.is_input = is_input;
      entry.loc = loc_of(e, npath.g, npath.n);
      auto ext = int_attr(e, "external_port_id", npath, true);
      auto in = int_attr(e, "internal_layer_id", npath, true);
      entry.has_external = ext.has_value();
      entry.has_internal = in.has_value();
      entry.external_port_id = ext.value_or(0);
      entry.internal_layer_id = in.value_or(0);
      info.port_map[b].push_back(entry);
    }
  }
  out_->ifs.push_back(std::move(info));
}

// The graph's <edges>, as written (resolved against the layers later).
template <class X>
void IrReader<X>::read_edges(const PlannedGraph<X>& job) {
  const Where gpath{job.graph, -1};
  const auto edge_list = first_named(job.container, "edges");
  auto& edges = ir_->graph_extra[job.graph].edges;
  {
    size_t count = 0;
    for (auto e = first_named(edge_list, "edge"); e; e = next_named(e, "edge")) ++count;
    edges.reserve(count);
  }
  for (auto e = first_named(edge_list, "edge"); e; e = next_named(e, "edge")) {
    IrEdge& edge = edges.emplace_back();
    edge.loc = loc_of(e, job.graph);
    const char* names[4] = {"from-layer", "from-port", "to-layer", "to-port"};
    std::string* fields[4] = {&edge.from_layer, &edge.from_port, &edge.to_layer, &edge.to_port};
    A found[4];  // one pass over the attributes; the first of each name counts
    for (auto a = e.first_attribute(); a; a = a.next_attribute()) {
      const std::string_view n = a.name();
      if (!found[0] && eq(n, "from-layer")) found[0] = a;
      else if (!found[1] && eq(n, "from-port")) found[1] = a;
      else if (!found[2] && eq(n, "to-layer")) found[2] = a;
      else if (!found[3] && eq(n, "to-port")) found[3] = a;
    }
    for (int i = 0; i < 4; ++i) {
      *fields[i] = found[i].value();
      if (!int_value(e, found[i], names[i], gpath, true)) edge.parsed = false;
    }
  }
}

// A canonical non-negative integer ("0", "17"), the form OpenVINO writes layer ids in; -1 otherwise.
int64_t canonical_id(std::string_view s) {
  if (s.empty() || s.size() > 18 || (s.size() > 1 && s[0] == '0')) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

void IrBuilder::index_ids(int g) {
  const auto& nodes = model_->graphs[g].nodes;
  auto& table = ir_->graph_extra[g].index_of_id;
  const int64_t limit = 4 * (static_cast<int64_t>(nodes.size()) + 4);
  for (const Node& n : nodes) {
    const int64_t v = canonical_id(n.id);
    if (v < 0 || v >= limit) {
      table.clear();
      return;
    }
    if (v >= static_cast<int64_t>(table.size())) table.resize(static_cast<size_t>(v) + 1, -1);
  }
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    int& slot = table[static_cast<size_t>(canonical_id(nodes[i].id))];
    if (slot < 0) slot = i;  // the first layer with that id
  }
}

// Layer id -> layer of one graph, for the edges and the views: the graph's id table when it has one, else a
// hash of the id strings (whose keys view the nodes' ids: the graph's nodes no longer move).
class LayerLookup {
 public:
  LayerLookup(const Graph& graph, const IrGraphExtra& extra) : extra_(extra) {
    if (!extra.index_of_id.empty() || graph.nodes.empty()) return;
    hash_.emplace(graph.nodes.size());
    for (int i = 0; i < static_cast<int>(graph.nodes.size()); ++i) hash_->emplace(graph.nodes[i].id, i);
  }
  // The first layer whose id is `id`, or -1.
  int find(std::string_view id) const {
    if (hash_) return hash_->find(id);
    // By the table: a non-canonical id names no layer (every layer's id is canonical).
    const int64_t v = canonical_id(id);
    return v < 0 ? -1 : extra_.layer_with_id(v);
  }
  // The first layer whose id is the decimal form of `id` (a port map's internal_layer_id), or -1.
  int find(int64_t id) const { return hash_ ? hash_->find(std::to_string(id)) : extra_.layer_with_id(id); }

 private:
  const IrGraphExtra& extra_;
  std::optional<NameTable> hash_;
};

void IrBuilder::resolve_edges(int g) {
  Graph& graph = model_->graphs[g];
  index_ids(g);
  const LayerLookup layers(graph, ir_->graph_extra[g]);
  // The first port with that id. Layers with many ports get a hash index (built on first use), so
  // that a hostile layer with 100,000 ports and as many edges is not quadratic.
  std::unordered_map<const std::vector<Port>*, std::unordered_map<std::string_view, int>> big;
  auto port_index = [&big](const std::vector<Port>& ports, const std::string& id) {
    if (ports.size() <= 16) {
      for (size_t i = 0; i < ports.size(); ++i)
        if (ports[i].id == id) return static_cast<int>(i);
      return -1;
    }
    auto& index = big[&ports];
    if (index.empty())
      for (size_t i = 0; i < ports.size(); ++i) index.emplace(ports[i].id, static_cast<int>(i));
    const auto it = index.find(id);
    return it == index.end() ? -1 : it->second;
  };
  for (auto& e : ir_->graph_extra[g].edges) {
    if (!e.parsed) {
      e.status = IrEdge::Status::Unparsed;
      continue;
    }
    const int from = layers.find(e.from_layer);
    const int to = layers.find(e.to_layer);
    if (from < 0) {
      e.status = IrEdge::Status::MissingFromLayer;
      continue;
    }
    if (to < 0) {
      e.status = IrEdge::Status::MissingToLayer;
      continue;
    }
    const int out = port_index(graph.nodes[from].outputs, e.from_port);
    const int in = port_index(graph.nodes[to].inputs, e.to_port);
    if (out < 0) {
      e.status = IrEdge::Status::MissingFromPort;
      continue;
    }
    if (in < 0) {
      e.status = IrEdge::Status::MissingToPort;
      continue;
    }
    ValueRef& src = graph.nodes[to].sources[in];
    if (src.valid()) {
      e.status = IrEdge::Status::DuplicateTarget;
      continue;
    }
    src = ValueRef{g, from, out};
  }
}

ValueDesc IrBuilder::value_of(int g, const ValueRef& src) const {
  ValueDesc v;
  if (!src.valid()) return v;
  const Node& n = model_->graphs[g].nodes[src.node];
  const Port& p = n.outputs[src.output];
  v.present = true;
  v.type = p.type();
  // A Convert's type is its destination_type, whatever its port states (OpenVINO infers it so, and its serializer
  // leaves FP16 on the ports of the decompression Converts compress_to_fp16 inserts; IR020 notes such a port).
  if (n.op == "Convert" && v.type.kind == TypeDesc::Kind::Tensor)
    if (const std::string* to = n.attrs.find("destination_type"))
      if (const auto e = parse_ov_elem_type(*to); e && is_concrete(*e)) v.type.elem = *e;
  v.shape = p.shape();
  v.scalar_or_dynamic_rank = p.attrs_no_dims;
  // A port without <dim> is a scalar or of dynamic rank; where condlint's OpenVINO shape rules prove which (a
  // decompression Convert of a scalar Const), the proven shape is the value's.
  if (v.scalar_or_dynamic_rank)
    if (const Shape* proven = shapes_.of(src)) {
      v.shape = *proven;
      v.scalar_or_dynamic_rank = false;
    }
  v.label = n.op + " '" + (n.name.empty() ? n.id : n.name) + "'";
  v.loc = p.loc(n);
  return v;
}

ConditionalView IrBuilder::build_view(const IrIf& info) const {
  const Graph& parent = model_->graphs[info.graph];
  const Node& node = parent.nodes[info.node];
  ConditionalView view;
  view.graph = info.graph;
  view.node = info.node;
  view.name = "If '" + node.display() + "'";
  view.loc = node.loc;
  // Outer inputs: what feeds each If input port (the producer's port; the If port when unconnected).
  std::vector<ValueDesc> outer(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    outer[i] = value_of(info.graph, node.sources[i]);
    if (!outer[i].present) {
      outer[i].type = node.inputs[i].type();
      outer[i].shape = node.inputs[i].shape();
      outer[i].scalar_or_dynamic_rank = node.inputs[i].attrs_no_dims;
      outer[i].label = "If input " + std::to_string(i);
    } else {
      // The If's own port states the shape it expects; prefer it when the producer left dims out.
      if (outer[i].scalar_or_dynamic_rank && !node.inputs[i].attrs_no_dims) {
        outer[i].shape = node.inputs[i].shape();
        outer[i].scalar_or_dynamic_rank = false;
      }
    }
    outer[i].loc = node.inputs[i].loc(node);
  }
  if (!node.inputs.empty() && node.sources[0].valid()) {
    view.has_condition = true;
    view.condition = outer[0];
    view.condition.label = "condition from " + outer[0].label;
    view.provenance = trace_model_condition(*model_, node.sources[0], &ir_consts_, &proven_shapes_);
  }
  view.outputs.reserve(node.outputs.size());
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    ValueDesc d;
    d.present = true;
    d.type = node.outputs[j].type();
    d.shape = node.outputs[j].shape();
    d.scalar_or_dynamic_rank = node.outputs[j].attrs_no_dims;
    d.label = "If output " + std::to_string(j);
    d.loc = node.outputs[j].loc(node);
    view.outputs.push_back(d);
  }
  for (int b = 0; b < 2; ++b) {
    BranchView& br = view.branch[b];
    br.name = b == 0 ? "then" : "else";
    br.graph = info.body_graph[b];
    if (br.graph < 0) continue;
    const Graph& body = model_->graphs[br.graph];
    const LayerLookup layers(body, ir_->graph_extra[br.graph]);
    // Entries as OpenVINO reads them: keyed by external_port_id, the first entry of a duplicate wins. Sorted
    // flat lists of (external_port_id, entry): a map would allocate per entry.
    std::vector<std::pair<int64_t, const IrPortMapEntry*>> ins, outs;
    for (const auto& e : info.port_map[b]) {
      if (!e.has_external || !e.has_internal) continue;
      (e.is_input ? ins : outs).emplace_back(e.external_port_id, &e);
    }
    for (auto* list : {&ins, &outs}) {
      const auto by_port = [](const auto& x, const auto& y) { return x.first < y.first; };
      if (!std::is_sorted(list->begin(), list->end(), by_port)) std::stable_sort(list->begin(), list->end(), by_port);
      list->erase(
          std::unique(list->begin(), list->end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
          list->end());
    }
    br.inputs.reserve(ins.size());
    br.outputs.reserve(outs.size());
    for (const auto& [ext, e] : ins) {
      if (ext < 0 || ext >= static_cast<int64_t>(node.inputs.size())) continue;
      const int at = layers.find(e->internal_layer_id);
      if (at < 0 || body.nodes[at].op != "Parameter") continue;
      const Node& param = body.nodes[at];
      InputBinding ib;
      ib.outer_index = static_cast<int>(ext);
      ib.outer = outer[static_cast<size_t>(ext)];
      ib.inner.present = true;
      if (!param.outputs.empty()) {
        ib.inner.type = param.outputs[0].type();
        ib.inner.shape = param.outputs[0].shape();
        ib.inner.scalar_or_dynamic_rank = param.outputs[0].attrs_no_dims;
      }
      ib.inner.label = "Parameter '" + (param.name.empty() ? param.id : param.name) + "'";
      ib.inner.loc = param.loc;
      ib.loc = e->loc;
      br.inputs.push_back(std::move(ib));
    }
    int number = 0;
    for (const auto& [ext, e] : outs) {
      if (ext < 0) continue;
      OutputBinding ob;
      ob.output_index = number++;
      ob.loc = e->loc;
      const int at = layers.find(e->internal_layer_id);
      if (at >= 0 && body.nodes[at].op == "Result") {
        const Node& res = body.nodes[at];
        if (!res.sources.empty()) ob.value = value_of(br.graph, res.sources[0]);
        if (!ob.value.present && !res.inputs.empty()) {
          ob.value.present = true;
          ob.value.type = res.inputs[0].type();
          ob.value.shape = res.inputs[0].shape();
          ob.value.scalar_or_dynamic_rank = res.inputs[0].attrs_no_dims;
        }
        ob.value.label = "Result '" + (res.name.empty() ? res.id : res.name) + "'";
        ob.value.loc = res.loc;
      }
      br.outputs.push_back(std::move(ob));
    }
  }
  return view;
}

std::unique_ptr<Model> IrBuilder::build() {
  model_ = std::make_unique<Model>();
  model_->format = Format::IR;
  model_->path = path_;
  model_->ir = std::make_unique<IrData>();
  ir_ = model_->ir.get();

  fs::path weights = fs::path(path_).replace_extension(".bin");
  ir_->weights_path = weights.string();
  model_->sources.insert(weights.string());
  std::error_code ec;
  if (fs::is_regular_file(weights, ec)) {
    const auto sz = fs::file_size(weights, ec);
    if (!ec) ir_->weights_size = sz;
    // Mapped, not read: a Const's bytes are read where they lie when a reader asks for them.
    std::string err;
    ir_->weights = io::MappedFile::open(weights.string(), err);
    if (ir_->weights) ir_->weights_size = ir_->weights->size();
  }

  Graph main;
  main.role = "main";
  model_->graphs.push_back(main);
  ir_->graph_extra.emplace_back();

  // The fast reader first; whatever it does not take (entities, CDATA, DOCTYPE, CR line ends, malformed XML)
  // goes to pugixml, which reads it or says where it is broken. Both give the same tree (xml_flat.hpp).
  if (reader_ != IrXmlReader::Pugixml) {
    FlatXml flat;
    if (flat.parse(bytes_)) {
      read_net(FlatNodeRef(&flat, flat.root()));
      return std::move(model_);
    }
    if (reader_ == IrXmlReader::Flat) return nullptr;
  }
  pugi::xml_document doc;
  // In place, so that offset_debug() is an offset into the file's own bytes. Entities other than the
  // five predefined ones are never expanded, and DOCTYPE is skipped, so no entity expansion attack applies.
  const auto res = doc.load_buffer_inplace(bytes_.data(), bytes_.size(), pugi::parse_default | pugi::parse_comments,
                                           pugi::encoding_utf8);
  if (!res) {
    SourceLocation l;
    l.offset = res.offset;
    lines_.locate(l.offset, l.line, l.column);
    l.graph = 0;
    problem(IrProblem::Kind::MalformedXml, res.description(), l);
    return std::move(model_);
  }
  read_net(PugiNodeRef(doc.document_element()));
  return std::move(model_);
}

// Numbers the graphs in the order reading them one by one from a stack would (the main graph, then its last body
// first), and makes them: parent, role, depth, location. `order` is that reading order; returns the layer count.
template <class X>
size_t IrBuilder::plan_graphs(const X& root, std::vector<PlannedGraph<X>>& plans, std::vector<int>& order) {
  IrReader<X> locator(*model_, *ir_, lines_, nullptr);
  plans.push_back({root, 0, {}});
  std::vector<int> work{0};
  size_t layers = 0;
  while (!work.empty()) {
    const int g = work.back();
    work.pop_back();
    order.push_back(g);
    int node_index = 0;
    const X container = plans[static_cast<size_t>(g)].container;
    for (auto l = first_named(first_named(container, "layers"), "layer"); l; l = next_named(l, "layer"), ++node_index) {
      ++layers;
      const LayerBodies<X> lb = bodies_of(l);
      for (int k = 0; k < lb.count; ++k) {
        Graph body;
        body.parent_graph = g;
        body.parent_node = node_index;
        body.role = lb.role[k];
        body.depth = model_->graphs[static_cast<size_t>(g)].depth + 1;
        const int gi = static_cast<int>(model_->graphs.size());
        body.loc = locator.loc_of(lb.body[k], gi);
        model_->graphs.push_back(std::move(body));
        ir_->graph_extra.emplace_back();
        plans[static_cast<size_t>(g)].bodies.push_back(gi);
        plans.push_back({lb.body[k], gi, {}});
        work.push_back(gi);
      }
    }
  }
  return layers;
}

template <class X>
void IrBuilder::read_net(const X& root) {
  IrReader<X> reader(*model_, *ir_, lines_, nullptr);
  if (root.name() != "net") {
    problem(IrProblem::Kind::NotIr,
            "the root element is <" + str(root.name()) + ">, not <net>: this is not an OpenVINO IR file",
            reader.loc_of(root, 0));
    return;
  }
  model_->graphs[0].loc = reader.loc_of(root, 0);
  const auto version = root.attribute("version");
  ir_->net_version = version.value();
  if (ir_->net_version != "10" && ir_->net_version != "11") {
    problem(IrProblem::Kind::NotIr,
            version ? "IR version \"" + ir_->net_version + "\" is not supported (10 and 11 are)"
                    : std::string("<net> has no version attribute (IR 10 and 11 have one)"),
            reader.loc_of(root, 0));
  }
  // First every graph is numbered and made (plan_graphs), then each is read on its own (on two cores when the
  // model is large, model/parallel.hpp), and what the readings add to shared lists is joined in reading order.
  std::vector<PlannedGraph<X>> plans;
  std::vector<int> order;
  const size_t layers = plan_graphs(root, plans, order);
  std::vector<GraphAdditions> added(plans.size());
  parallel_for(order.size(), layers, [&](size_t k) {
    const int g = order[k];
    IrReader<X> r(*model_, *ir_, lines_, &added[static_cast<size_t>(g)]);
    r.read_graph(plans[static_cast<size_t>(g)]);
  });
  for (const int g : order) {
    auto& a = added[static_cast<size_t>(g)];
    for (auto& p : a.problems) ir_->problems.push_back(std::move(p));
    for (auto& i : a.ifs) ir_->ifs.push_back(std::move(i));
    for (auto& c : a.consts) ir_->consts.push_back(std::move(c));
    for (auto& l : a.loops) ir_->loops.push_back(std::move(l));
    for (auto& s : a.suppressions) ir_->suppressions.push_back(std::move(s));
  }
  // Each graph's edges, then each If's view, independently: a step reads the model and writes only its own
  // graph's sources and edge statuses, or its own view.
  parallel_for(model_->graphs.size(), layers, [this](size_t g) { resolve_edges(static_cast<int>(g)); });
  model_->conditionals.resize(ir_->ifs.size());
  ir_consts_ = index_ir_consts(*model_);
  // The shapes the conditions test, as OpenVINO infers them (one pass over the model, read by every view).
  shapes_ = IrShapes(*model_);
  proven_shapes_ = [this](const ValueRef& r) { return shapes_.of(r); };
  parallel_for(ir_->ifs.size(), layers, [this](size_t i) { model_->conditionals[i] = build_view(ir_->ifs[i]); });
  // The consumers each branch of an If breaks (C014), by OpenVINO's shape rules.
  follow_ir_branches(*model_);
}

}  // namespace

std::unique_ptr<Model> load_ir(const std::string& path, std::string bytes, IrXmlReader reader) {
  try {
    // FlatXml's arrays and the model take about five times the XML (bench/README.md; a hint above the use costs
    // the pre-fault helper huge pages nobody touches); IR keeps its weights in the .bin.
    const MemoryHint hint(bytes.size() * 6);
    IrBuilder b(path, bytes, reader);
    return b.build();
  } catch (const std::bad_alloc&) {
    auto m = std::make_unique<Model>();
    m->format = Format::IR;
    m->path = path;
    m->ir = std::make_unique<IrData>();
    Graph g;
    g.role = "main";
    m->graphs.push_back(g);
    SourceLocation l;
    l.graph = 0;
    m->ir->problems.push_back({IrProblem::Kind::MalformedXml, "out of memory while reading the file", l});
    return m;
  }
}

}  // namespace condlint
