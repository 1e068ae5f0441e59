// Node paths: how condlint names a graph or a node everywhere — findings, `--pin`, coverage, pins.json, baselines,
// suppressions. Built here and nowhere else.
//
// A path is segments joined by '/': the root ("main", or "function:DOMAIN.NAME" for the body of an ONNX model-local
// function), then for every level the node that holds the subgraph and the subgraph's role ("then", "else", "body",
// or the attribute's name), then the node. A node is named by its name, or "OpType#index" when it has none.
// A '/' or '~' inside a name is written as JSON Pointer (RFC 6901) writes it: '~' as "~0", '/' as "~1". PyTorch's
// node "/model/decoder/If_1" in the main graph is therefore "main/~1model~1decoder~1If_1": every '/' of a path
// separates two segments, and a path can be split back into the names it was made of.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace condlint::node_path {

// A name as one segment ('~' -> "~0", '/' -> "~1"); a name with neither is returned as it is.
std::string escape(std::string_view name);
// The name a segment stands for (the inverse of escape; a '~' followed by neither '0' nor '1' stays as it is).
std::string unescape(std::string_view segment);
// The segment of a node: its escaped name, or "OpType#index" when the name is empty.
std::string node_segment(std::string_view name, std::string_view op, size_t index);
// parent + "/" + segment (the segment already escaped).
std::string child(std::string_view parent, std::string_view segment);
// The path of an If's branch: if_path + "/then" or "/else".
std::string branch(std::string_view if_path, bool then_branch);
// The path of a Loop's, Scan's or NNAPI WHILE's body: loop_path + "/body".
std::string body(std::string_view loop_path);
// The segments of a path, unescaped.
std::vector<std::string> split(std::string_view path);
// The path in the spelling of condlint 0.2, where names were written as they are: every "~1" back to '/', "~0"
// to '~'. Two paths may have the same legacy spelling; `--pin`, baselines and suppressions accept it where it
// names one If.
std::string legacy(std::string_view path);
// True when the path holds an escaped name (its legacy spelling differs).
bool has_escapes(std::string_view path);

}  // namespace condlint::node_path
