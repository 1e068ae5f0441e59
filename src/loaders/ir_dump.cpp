#include "loaders/ir_dump.hpp"

#include <sstream>

namespace condlint {

namespace {

void put(std::ostringstream& os, const SourceLocation& l) {
  os << " @" << l.line << ':' << l.column << '+' << l.offset << " g" << l.graph << " n" << l.node_index;
}
void put(std::ostringstream& os, const Port& p, const Node& n) {
  os << "    port id=" << p.id << " type=" << p.type().str() << " shape=" << p.shape().str()
     << (p.attrs_no_dims ? " nodims" : "");
  put(os, p.loc(n));
  os << '\n';
}
void put(std::ostringstream& os, const ValueDesc& v) {
  os << "      value " << v.present << ' ' << v.type.str() << ' ' << v.shape.str() << ' ' << v.label << ' '
     << v.scalar_or_dynamic_rank;
  put(os, v.loc);
  os << '\n';
}

}  // namespace

std::string dump_ir_model(const Model& m) {
  std::ostringstream os;
  for (size_t g = 0; g < m.graphs.size(); ++g) {
    const Graph& gr = m.graphs[g];
    os << "graph " << g << ' ' << gr.role << " parent " << gr.parent_graph << '/' << gr.parent_node << " depth "
       << gr.depth;
    put(os, gr.loc);
    os << '\n';
    for (const Node& n : gr.nodes) {
      os << "  node id=" << n.id << " name=" << n.name << " op=" << n.op << " version=" << n.version.str();
      put(os, n.loc);
      os << '\n';
      for (const auto& [k, v] : n.attrs) os << "    attr " << k << '=' << v << '\n';
      for (const Port& p : n.inputs) put(os, p, n);
      os << "    --\n";
      for (const Port& p : n.outputs) put(os, p, n);
      for (const ValueRef& s : n.sources) os << "    source " << s.graph << '/' << s.node << '/' << s.output << '\n';
      for (const auto& [role, b] : n.bodies) os << "    body " << role << ' ' << b << '\n';
    }
  }
  if (m.ir) {
    const IrData& ir = *m.ir;
    os << "net " << ir.net_version << " weights " << ir.weights_path << ' '
       << (ir.weights_size ? std::to_string(*ir.weights_size) : "-") << '\n';
    for (const IrProblem& p : ir.problems) {
      os << "problem " << static_cast<int>(p.kind) << ' ' << p.message;
      put(os, p.loc);
      os << '\n';
    }
    for (const IrIf& f : ir.ifs) {
      os << "if " << f.graph << '/' << f.node;
      for (int b = 0; b < 2; ++b) {
        os << " [" << f.has_body[b] << f.has_port_map[b] << ' ' << f.body_graph[b] << "]";
        for (const auto& e : f.port_map[b]) {
          os << " (" << e.is_input << e.has_external << e.has_internal << ' ' << e.external_port_id << ' '
             << e.internal_layer_id;
          put(os, e.loc);
          os << ')';
        }
      }
      os << '\n';
    }
    for (size_t g = 0; g < ir.graph_extra.size(); ++g)
      for (const IrEdge& e : ir.graph_extra[g].edges) {
        os << "edge " << g << ' ' << e.from_layer << ':' << e.from_port << "->" << e.to_layer << ':' << e.to_port << ' '
           << e.parsed << ' ' << static_cast<int>(e.status);
        put(os, e.loc);
        os << '\n';
      }
    for (const IrConst& c : ir.consts)
      os << "const " << c.graph << '/' << c.node << ' ' << (c.offset ? std::to_string(*c.offset) : "-") << ' '
         << (c.size ? std::to_string(*c.size) : "-") << ' ' << to_string(c.elem) << ' '
         << (c.shape ? c.shape->str() : "-") << '\n';
    for (const IrSuppression& s : ir.suppressions) {
      os << "suppress " << s.graph << '/' << s.node;
      for (const auto& r : s.rules) os << ' ' << r;
      put(os, s.loc);
      os << '\n';
    }
  }
  for (const ConditionalView& v : m.conditionals) {
    os << "view " << v.graph << '/' << v.node << ' ' << v.name << ' ' << v.has_condition;
    put(os, v.loc);
    os << '\n';
    if (v.has_condition) put(os, v.condition);
    for (const ValueDesc& d : v.outputs) put(os, d);
    for (const BranchView& b : v.branch) {
      os << "    branch " << b.name << ' ' << b.graph << '\n';
      for (const InputBinding& ib : b.inputs) {
        os << "     in " << ib.outer_index;
        put(os, ib.loc);
        os << '\n';
        put(os, ib.outer);
        put(os, ib.inner);
      }
      for (const OutputBinding& ob : b.outputs) {
        os << "     out " << ob.output_index;
        put(os, ob.loc);
        os << '\n';
        put(os, ob.value);
      }
    }
  }
  return os.str();
}

}  // namespace condlint
