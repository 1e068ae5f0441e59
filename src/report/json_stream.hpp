// Writes a JSON document as it is produced, byte for byte as nlohmann's `dump(indent, ' ', false, replace)` of the
// same document would, without building the tree first. Reports of a model zoo hold thousands of results; building
// them as a tree and dumping it cost half of an unchanged cached run (bench/README.md).
//
// Members are written in the order they are given: a writer that mirrors an `nlohmann::json` (sorted keys) gives
// them sorted. Strings from a model are escaped as nlohmann escapes them; invalid UTF-8 becomes U+FFFD.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace condlint {

class JsonStream {
 public:
  // `indent` < 0: compact, as dump(-1).
  explicit JsonStream(std::ostream& os, int indent = 2) : os_(os), indent_(indent) {}
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;
  ~JsonStream() { flush(); }

  JsonStream& begin_object() { return open('{'); }
  JsonStream& end_object() { return close('}'); }
  JsonStream& begin_array() { return open('['); }
  JsonStream& end_array() { return close(']'); }
  // The next member's name; its value follows.
  JsonStream& key(std::string_view k);
  JsonStream& value(std::string_view s);
  JsonStream& value(const std::string& s) { return value(std::string_view(s)); }
  JsonStream& value(const char* s) { return value(std::string_view(s)); }
  JsonStream& value(bool b);
  JsonStream& value(int64_t v);
  JsonStream& value(uint64_t v);
  JsonStream& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonStream& value(unsigned v) { return value(static_cast<uint64_t>(v)); }
  JsonStream& value(long long v) { return value(static_cast<int64_t>(v)); }
  JsonStream& value(unsigned long long v) { return value(static_cast<uint64_t>(v)); }
  // A subtree built as a tree (small, rarely written parts), placed at the current depth.
  JsonStream& value(const nlohmann::ordered_json& j);
  JsonStream& value(const nlohmann::json& j);
  // key(k).value(v)
  template <typename T>
  JsonStream& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  // Ends the document with a newline and writes what is buffered.
  void finish();
  void flush();

 private:
  JsonStream& open(char c);
  JsonStream& close(char c);
  void element();  // what precedes a value or a member: a separator, a line break and the indentation
  void newline_and_indent(size_t depth);
  template <typename J>
  JsonStream& subtree(const J& j);
  void maybe_flush() {
    if (buf_.size() >= (1u << 16)) flush();
  }

  std::ostream& os_;
  int indent_;
  std::string buf_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included, as nlohmann dumps it (ensure_ascii off, invalid UTF-8 replaced).
void append_json_string(std::string& out, std::string_view s);

}  // namespace condlint
