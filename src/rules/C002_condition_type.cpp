// C002 condition-type: the condition is not boolean. For an OpenVINO IR whose condition is a number, an unsafe fix:
// a Convert to boolean before the If (what the condition means in ONNX's and condlint's reading: non-zero is true).
// Unsafe because OpenVINO computes something else today: OpenVINO 2026.4.1 compiles an If with an f32 condition and
// takes the else branch for every value (1.0 and -2.0 included; measured, rules/C002.md), so after the fix it takes
// the then branch where the value is non-zero.
#include <string>

#include "rules/engine.hpp"
#include "rules/fix.hpp"

namespace condlint::rules::C002 {
using namespace condlint;

namespace {

bool numeric(ElemType e) { return is_concrete(e) && e != ElemType::Boolean; }

}  // namespace

void check(const Model& m, Reporter& r) {
  for (size_t i = 0; i < m.conditionals.size(); ++i) {
    const auto& c = m.conditionals[i];
    if (!c.has_condition) continue;
    const TypeDesc& t = c.condition.type;
    if (t.kind == TypeDesc::Kind::Unknown) continue;
    const bool is_bool_tensor = t.kind == TypeDesc::Kind::Tensor && t.elem == ElemType::Boolean;
    const bool unknown_elem = t.kind == TypeDesc::Kind::Tensor && !is_concrete(t.elem);
    if (is_bool_tensor || unknown_elem) continue;
    const SourceLocation& at = c.condition.loc.line ? c.condition.loc : c.loc;
    std::string msg = c.name + ": the condition is " + t.str() + " (" + c.condition.label + "); it must be a boolean tensor";
    if (m.format == Format::IR && t.kind == TypeDesc::Kind::Tensor && numeric(t.elem))
      r.report_fixable(Fixable::Unsafe, at, std::move(msg), std::to_string(i));
    else
      r.report(at, std::move(msg));
  }
}

// The IR's If reads its condition through a new Convert layer (destination_type boolean): the edge into the If's
// first input goes into the Convert, and a new edge takes the Convert's output to the If.
std::optional<Fix> make_fix(const Model& m, const Finding& f, std::string_view text, std::string& why) {
  const size_t i = fix_key_index(f).value_or(m.conditionals.size());
  if (i >= m.conditionals.size() || !m.ir) {
    why = "the If is not in the model";
    return std::nullopt;
  }
  const auto& c = m.conditionals[i];
  const Node& node = m.node(c.graph, c.node);
  const auto layer = xml_element_range(text, node.loc.offset);
  if (node.op != "If" || !layer) {
    why = "the If layer is not where the finding says";
    return std::nullopt;
  }
  // The If's condition port: the first <port> of its <input>, which comes before its bodies.
  const std::string_view lt = text.substr(layer->first, layer->second - layer->first);
  const size_t input = lt.find("<input");
  const size_t port = input == std::string_view::npos ? input : lt.find("<port", input);
  const auto port_range = port == std::string_view::npos ? std::nullopt
                                                           : xml_element_range(text, layer->first + port);
  const auto port_id = port_range ? xml_attribute(text, layer->first + port, "id") : std::nullopt;
  if (!port_range || !port_id) {
    why = "the If's condition port cannot be read";
    return std::nullopt;
  }
  const std::string cond_port(text.substr(port_id->first, port_id->second - port_id->first));
  const IrEdge* edge = nullptr;
  for (const IrEdge& e : m.ir->graph_extra[c.graph].edges)
    if (e.to_layer == node.id.str() && e.to_port == cond_port) edge = &e;
  const auto edge_range = edge ? xml_element_range(text, edge->loc.offset) : std::nullopt;
  if (!edge_range) {
    why = "no edge into the If's condition port";
    return std::nullopt;
  }
  long long next_id = 0;
  for (const Node& n : m.graphs[c.graph].nodes) {
    try {
      next_id = std::max(next_id, std::stoll(n.id.str()) + 1);
    } catch (const std::exception&) {
    }
  }
  const std::string id = std::to_string(next_id);
  // The condition port's element (one or more lines, with its <dim>s) is what the Convert's ports copy.
  std::string port_text(text.substr(port_range->first, port_range->second - port_range->first));
  while (!port_text.empty() && (port_text.back() == '\n' || port_text.back() == '\r')) port_text.pop_back();
  const size_t indent_end = port_text.find_first_not_of(" \t");
  port_text = port_text.substr(indent_end == std::string::npos ? 0 : indent_end);
  auto with = [&](const std::string& pid, const std::string& precision) {
    std::string p = port_text;
    const size_t id_at = p.find("id=\"");
    if (id_at != std::string::npos) p.replace(id_at + 4, p.find('"', id_at + 4) - (id_at + 4), pid);
    const size_t pr = p.find("precision=\"");
    if (pr != std::string::npos) p.replace(pr + 11, p.find('"', pr + 11) - (pr + 11), precision);
    else if (id_at != std::string::npos) p.insert(p.find('"', id_at + 4) + 1, " precision=\"" + precision + "\"");
    return p;
  };
  // Indentation: the If layer's own line.
  size_t line_start = layer->first;
  while (line_start > 0 && text[line_start - 1] != '\n') --line_start;
  std::string indent;
  for (size_t k = line_start; k < text.size() && (text[k] == ' ' || text[k] == '\t'); ++k) indent += text[k];
  const std::string in2 = indent + "    ", in3 = in2 + "    ";
  const std::string name = node.display() + "/condition_as_boolean";
  std::string convert = indent + "<layer id=\"" + id + "\" name=\"" + name +
                        "\" type=\"Convert\" version=\"opset1\">\n" + in2 + "<data destination_type=\"boolean\"/>\n" +
                        in2 + "<input>\n" + in3 + with("0", std::string(to_string(c.condition.type.elem))) + "\n" + in2 + "</input>\n" + in2 + "<output>\n" + in3 +
                        with("1", "boolean") + "\n" + in2 + "</output>\n" + indent + "</layer>\n";
  // The layer goes after the If's element (its end is a line end when the element stands on its own lines).
  const bool at_line_start = layer->second > 0 && text[layer->second - 1] == '\n';
  Fix fix;
  fix.safety = Fixable::Unsafe;
  fix.text.push_back({layer->second, layer->second, at_line_start ? convert : "\n" + convert});
  // The edge: source -> Convert, then Convert -> the If's condition port.
  std::string edge_text(text.substr(edge_range->first, edge_range->second - edge_range->first));
  size_t e_indent = edge_text.find_first_not_of(" \t");
  const std::string eind = edge_text.substr(0, e_indent == std::string::npos ? 0 : e_indent);
  const std::string tail = edge_text.size() && edge_text.back() == '\n' ? "\n" : "";
  fix.text.push_back({edge_range->first, edge_range->second,
                      eind + "<edge from-layer=\"" + edge->from_layer + "\" from-port=\"" + edge->from_port +
                          "\" to-layer=\"" + id + "\" to-port=\"0\"/>\n" + eind + "<edge from-layer=\"" + id +
                          "\" from-port=\"1\" to-layer=\"" + node.id.str() + "\" to-port=\"" + cond_port + "\"/>" +
                          tail});
  fix.description = "the condition of If '" + node.display() + "' (" + c.condition.type.str() +
                    ") converted to boolean by a new Convert layer '" + name + "' (layer " + id +
                    "): non-zero is true, where OpenVINO takes the else branch for every value today";
  return fix;
}

}  // namespace condlint::rules::C002

CONDLINT_RULE(C002, "condition-type", Level::Error, kAllFormats, "The condition's element type is not boolean", check)
CONDLINT_FIX(C002, make_fix)
