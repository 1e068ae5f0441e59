// The If nodes of an ONNX model as the executor and the runtimes name them (main/If#0/then/inner), and the model
// with chosen Ifs pinned to a constant condition: what `diff` runs per branch and `export --pin` writes. Used by
// diff and export, so it has a folder of its own below both.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace condlint::onnx_graph {

struct IfSite {
  std::string path;                   // as the executor names it: main/If#0/then/inner
  std::map<std::string, bool> along;  // pins of enclosing Ifs needed to reach it
};
// Every If of the main graph, of model-local functions (paths function:DOMAIN.NAME/...) and of their subgraphs,
// iteratively, depth-bounded.
std::vector<IfSite> find_ifs(const onnx::ModelProto& m);
// The pin sets of --branches both: for each If, both values with the enclosing Ifs pinned along the path.
std::vector<std::map<std::string, bool>> branch_variants(const std::vector<IfSite>& ifs, int max_variants);
// A copy of `m` whose pinned Ifs read a Constant condition. Returns "" or the reason it cannot.
std::string pin_model(const onnx::ModelProto& m, const std::map<std::string, bool>& pins, onnx::ModelProto& out);

// "main/If#0=then, main/If#0/then/x=else"
std::string pins_label(const std::map<std::string, bool>& pins);

}  // namespace condlint::onnx_graph
