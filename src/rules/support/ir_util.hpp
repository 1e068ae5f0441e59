// Small lookups the IR rules share.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "model/model.hpp"

namespace condlint {

// Layer id -> node index in one graph (the first layer with that id; unparsable ids left out).
std::unordered_map<int64_t, int> layers_by_id(const Graph& g);

inline const char* branch_tag(int b, const char* what) {
  static const char* names[2][2] = {{"then_body", "then_port_map"}, {"else_body", "else_port_map"}};
  return names[b][std::string(what) == "body" ? 0 : 1];
}

}  // namespace condlint
