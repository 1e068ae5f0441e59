// A small JSON parser (RFC 8259) that records the byte offset of every value and member name, so
// that NNAPI findings can carry line, column and JSON pointer. Iterative: nesting depth is bounded
// by `max_depth` and reported, never a stack overflow.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace condlint::json {

struct Node {
  enum Kind : uint8_t { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  bool integral = false;  // a number with no fractional part that fits in int64
  int64_t integer = 0;
  double number = 0;
  int64_t offset = 0;     // byte offset of the value's first character
  std::string text;       // String value
  std::vector<int> children;                          // array elements / member values (node ids)
  std::vector<std::pair<std::string, int64_t>> keys;  // member names and their offsets, parallel to children
};

struct Document {
  std::vector<Node> nodes;  // nodes[0] is the root after a successful parse
  const Node& operator[](int i) const { return nodes[static_cast<size_t>(i)]; }
  // Member `name` of object `obj`, or -1.
  int member(int obj, std::string_view name) const;
};

struct Error {
  std::string message;
  int64_t offset = 0;
};

// Returns false with an error (message and byte offset) when the text is not one JSON value.
// Duplicate member names are an error too (the format gives them no meaning).
bool parse(std::string_view text, Document& doc, Error& err, size_t max_depth = 200);

std::string_view kind_name(Node::Kind k);

}  // namespace condlint::json
