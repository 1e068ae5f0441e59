#include "model/model.hpp"

#include "model/nnapi_data.hpp"
#include "model/onnx_data.hpp"

namespace condlint {

std::string_view to_string(Format f) {
  switch (f) {
    case Format::IR: return "ir";
    case Format::ONNX: return "onnx";
    case Format::NNAPI: return "nnapi";
  }
  return "ir";
}

}  // namespace condlint

namespace condlint {

Model::Model() = default;
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

std::string Model::path_of(int graph, int node) const {
  std::vector<std::string> owned;
  owned.reserve(64);
  if (graph < 0 || graph >= static_cast<int>(graphs.size())) return "main";
  if (node >= 0 && node < static_cast<int>(graphs[graph].nodes.size()))
    owned.push_back(graphs[graph].nodes[node].display());
  int g = graph;
  size_t guard = 0;
  while (g > 0 && guard++ < graphs.size()) {
    const Graph& gr = graphs[g];
    owned.push_back(gr.role);
    if (gr.parent_graph < 0) break;
    const auto& pn = graphs[gr.parent_graph].nodes;
    owned.push_back(gr.parent_node >= 0 && gr.parent_node < static_cast<int>(pn.size())
                        ? pn[gr.parent_node].display()
                        : std::string("?"));
    g = gr.parent_graph;
  }
  std::string out = graphs.empty() || graphs[0].role.empty() ? "main" : graphs[0].role;
  for (auto it = owned.rbegin(); it != owned.rend(); ++it) {
    out += '/';
    out += *it;
  }
  return out;
}

}  // namespace condlint
