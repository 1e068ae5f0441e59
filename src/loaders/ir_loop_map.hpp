// A Loop layer's <port_map> and <back_edges>, which the lint model does not keep, for the two readers that need
// them: the IR executor (src/exec/ir_exec.cpp) and the ONNX export (src/export/export_ir.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace condlint {

struct LoopMap {
  struct In {
    int64_t ext = 0, internal = 0;
    bool sliced = false;
  };
  struct Out {
    int64_t ext = 0, internal = 0;
    std::optional<int64_t> axis;
  };
  std::vector<In> ins;
  std::vector<Out> outs;
  std::vector<std::pair<int64_t, int64_t>> back;  // from Result layer id -> to Parameter layer id
  int64_t iter_layer = -1, cond_layer = -1;       // port_map purpose current_iteration / execution_condition
};

// Every Loop of the XML, keyed by the byte offset of its <layer> element's '<' (as SourceLocation::offset of
// the lint model's node). Unreadable XML or numbers give an empty map or -1 fields (the lint reports them).
std::map<int64_t, LoopMap> read_loop_maps(std::string bytes);

}  // namespace condlint
