// The refusals a deployment runtime gave when the lint session loaded the model into it (Model::live_refusals,
// `lint --target` where the runtime is installed), reported by ORT002 and OV002 at the node the runtime names.
#pragma once

#include <string>
#include <string_view>

#include "rules/engine.hpp"

namespace condlint::live {

// The node a runtime's message names, as the model's (graph, node), or {-1, -1} when it names none the model has.
// Runtimes name a node by its name (ONNX Runtime "Node (If_0)", OpenVINO "friendly_name 'x'", "Operation name: x")
// or by a value it produces (OpenVINO's ONNX reader "<Node(Conv): PREFIX/value>"); the innermost node named wins.
std::pair<int, int> node_named(const Model& m, std::string_view message);

// The runtime's words made stable and short: the model's own path replaced by its file name, the runtime's source
// locations ("Exception from src/...:84:", "/onnxruntime_src/...:187 void f(...)") dropped, white space collapsed,
// cut at 600 bytes.
std::string clean_message(const Model& m, std::string message);

// Reports each refusal of `runtime` once per target of that runtime (under its name `what`, "ONNX Runtime").
void report_refusals(const Model& m, Reporter& r, std::string_view runtime, std::string_view what);

}  // namespace condlint::live
