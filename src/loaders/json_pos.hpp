// A small JSON parser (RFC 8259) that records the byte offset of every value and member name, so
// that NNAPI findings can carry line, column and JSON pointer. Iterative: nesting depth is bounded
// by `max_depth` and reported, never a stack overflow.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace condlint::json {

// One JSON value. 24 bytes: a document holds one per value, and a hostile file can hold millions of tiny values
// ("1,"), so what only strings, arrays and objects need lives in `Extra`, allocated for those alone.
struct Node {
  enum Kind : uint8_t { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  bool integral = false;  // a number with no fractional part that fits in int64

  struct Extra {
    std::string text;                                   // String value
    std::vector<int> children;                          // array elements / member values (node ids)
    std::vector<std::pair<std::string, int64_t>> keys;  // member names and their offsets, parallel to children
  };

  // Byte offset of the value's first character (40 bits: files up to 1 TiB).
  int64_t offset() const { return static_cast<int64_t>(offset_hi_) << 32 | offset_lo_; }
  void set_offset(int64_t o) {
    offset_lo_ = static_cast<uint32_t>(o);
    offset_hi_ = static_cast<uint8_t>(o >> 32);
  }
  // A Number's value: exact as int64 when integral, else as double.
  int64_t integer() const { return integral ? value_.i : static_cast<int64_t>(value_.d); }
  // (An integral -0.0 keeps its sign: `boolean`, unused by numbers, marks it.)
  double number() const {
    return integral ? (boolean && value_.i == 0 ? -0.0 : static_cast<double>(value_.i)) : value_.d;
  }
  void set_integer(int64_t v, bool negative_zero = false) {
    integral = true;
    boolean = negative_zero;
    value_.i = v;
  }
  void set_number(double v) {
    integral = false;
    value_.d = v;
  }

  const std::string& text() const { return extra_ ? extra_->text : empty().text; }
  const std::vector<int>& children() const { return extra_ ? extra_->children : empty().children; }
  const std::vector<std::pair<std::string, int64_t>>& keys() const { return extra_ ? extra_->keys : empty().keys; }
  Extra& extra() {
    if (!extra_) extra_ = std::make_unique<Extra>();
    return *extra_;
  }

 private:
  static const Extra& empty() {
    static const Extra e;
    return e;
  }
  uint8_t offset_hi_ = 0;
  uint32_t offset_lo_ = 0;
  union {
    int64_t i;
    double d;
  } value_{0};
  std::unique_ptr<Extra> extra_;
};

struct Document {
  // nodes[0] is the root after a successful parse. A deque: it grows without copying (a vector would hold the old
  // and the new array at once while growing), and references to nodes stay valid.
  std::deque<Node> nodes;
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
