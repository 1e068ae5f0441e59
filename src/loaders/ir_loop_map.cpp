#include "loaders/ir_loop_map.hpp"

#include <pugixml.hpp>

#include "model/types.hpp"

namespace condlint {

std::map<int64_t, LoopMap> read_loop_maps(std::string bytes) {
  std::map<int64_t, LoopMap> out;
  pugi::xml_document doc;
  if (!doc.load_buffer_inplace(bytes.data(), bytes.size(), pugi::parse_default | pugi::parse_comments,
                               pugi::encoding_utf8))
    return out;
  auto num = [](const pugi::xml_attribute& a, int64_t def) {
    int64_t v = 0;
    return a && parse_int64(a.value(), v) ? v : def;
  };
  std::vector<pugi::xml_node> work{doc.document_element()};  // iterative walk
  while (!work.empty()) {
    pugi::xml_node n = work.back();
    work.pop_back();
    for (auto c = n.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) work.push_back(c);
    if (std::string(n.name()) != "layer" || std::string(n.attribute("type").value()) != "Loop") continue;
    LoopMap m;
    for (auto e = n.child("port_map").first_child(); e; e = e.next_sibling()) {
      const std::string tag = e.name();
      const std::string purpose = e.attribute("purpose").value();
      if (tag == "input" && purpose == "current_iteration") m.iter_layer = num(e.attribute("internal_layer_id"), -1);
      else if (tag == "output" && purpose == "execution_condition")
        m.cond_layer = num(e.attribute("internal_layer_id"), -1);
      else if (tag == "input")
        m.ins.push_back({num(e.attribute("external_port_id"), -1), num(e.attribute("internal_layer_id"), -1),
                         static_cast<bool>(e.attribute("axis"))});
      else if (tag == "output") {
        LoopMap::Out o{num(e.attribute("external_port_id"), -1), num(e.attribute("internal_layer_id"), -1),
                       std::nullopt};
        if (e.attribute("axis")) o.axis = num(e.attribute("axis"), 0);
        m.outs.push_back(o);
      }
    }
    for (auto e = n.child("back_edges").child("edge"); e; e = e.next_sibling("edge"))
      m.back.emplace_back(num(e.attribute("from-layer"), -1), num(e.attribute("to-layer"), -1));
    int64_t off = n.offset_debug();
    if (off > 0) --off;
    out[off] = std::move(m);
  }
  return out;
}

}  // namespace condlint
