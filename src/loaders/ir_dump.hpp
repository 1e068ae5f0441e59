// A complete text dump of what the IR loader built (graphs, nodes, ports, locations, edges, port maps, Consts,
// suppressions, problems, views). The tests and the IR fuzz target compare the dumps of the two XML readers
// (loaders/xml_flat.hpp) byte for byte.
#pragma once

#include <string>

#include "model/model.hpp"

namespace condlint {

std::string dump_ir_model(const Model& m);

}  // namespace condlint
