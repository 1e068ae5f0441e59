// `condlint lint --dump-types`: the type condlint holds for every value a node produces, as JSON. The differential
// soundness test (tests/realworld/soundness.py) compares it with onnx's inference and ONNX Runtime's run shapes.
#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace condlint {

std::vector<ValueTypeEntry> collect_value_types(const Model& m) {
  std::vector<ValueTypeEntry> out;
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g) {
    const auto& nodes = m.graphs[g].nodes;
    for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
      std::string path;  // computed once per node, only when it has outputs
      for (const Port& p : nodes[n].outputs) {
        if (p.id.empty()) continue;
        if (path.empty()) path = m.path_of(g, n);
        ValueTypeEntry e;
        e.node = path;
        e.name = p.id;
        e.type = p.type().kind == TypeDesc::Kind::Tensor ? "tensor(" + p.type().str() + ")" : p.type().str();
        if (p.type().kind == TypeDesc::Kind::Tensor && is_concrete(p.type().elem))
          e.elem = std::string(to_string(p.type().elem));
        e.rank_known = p.shape().rank_known;
        for (const Dim& d : p.shape().dims) e.dims.push_back(d.is_static() ? d.lo : -1);
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

void write_types_json(std::ostream& os, const RunResult& r) {
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const FileResult& f : r.files) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const ValueTypeEntry& e : f.value_types) {
      nlohmann::ordered_json shape = nullptr;
      if (e.rank_known) {
        shape = nlohmann::ordered_json::array();
        for (int64_t d : e.dims) shape.push_back(d >= 0 ? nlohmann::ordered_json(d) : nlohmann::ordered_json(nullptr));
      }
      values.push_back({{"node", e.node},
                        {"name", e.name},
                        {"type", e.type},
                        {"elem", e.elem.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.elem)},
                        {"shape", shape}});
    }
    files.push_back({{"path", f.path}, {"format", f.format}, {"values", values}});
  }
  nlohmann::ordered_json doc = {{"tool", "condlint"}, {"files", files}};
  os << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace condlint
