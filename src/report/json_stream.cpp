#include "report/json_stream.hpp"

namespace condlint {

void append_json_string(std::string& out, std::string_view s) {
  // Printable ASCII and the escapes JSON names: written here. Anything else (bytes from 0x80) goes through
  // nlohmann's own serializer, which validates UTF-8 and replaces what is invalid, so the bytes stay its bytes.
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) {
      out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;  // start of the bytes not yet written that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        const char u[] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
        out.append(u, sizeof u);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void JsonStream::newline_and_indent(size_t depth) {
  if (indent_ < 0) return;
  buf_ += '\n';
  buf_.append(depth * static_cast<size_t>(indent_), ' ');
}

void JsonStream::element() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the document's value
  if (!empty_.back()) buf_ += ',';
  empty_.back() = false;
  newline_and_indent(empty_.size());
}

JsonStream& JsonStream::open(char c) {
  element();
  buf_ += c;
  empty_.push_back(true);
  return *this;
}

JsonStream& JsonStream::close(char c) {
  const bool was_empty = empty_.back();
  empty_.pop_back();
  if (!was_empty) newline_and_indent(empty_.size());
  buf_ += c;
  maybe_flush();
  return *this;
}

JsonStream& JsonStream::key(std::string_view k) {
  element();
  append_json_string(buf_, k);
  buf_ += indent_ < 0 ? ":" : ": ";
  after_key_ = true;
  return *this;
}

JsonStream& JsonStream::value(std::string_view s) {
  element();
  append_json_string(buf_, s);
  return *this;
}

JsonStream& JsonStream::value(bool b) {
  element();
  buf_ += b ? "true" : "false";
  return *this;
}

JsonStream& JsonStream::value(int64_t v) {
  element();
  buf_ += std::to_string(v);
  return *this;
}

JsonStream& JsonStream::value(uint64_t v) {
  element();
  buf_ += std::to_string(v);
  return *this;
}

template <typename J>
JsonStream& JsonStream::subtree(const J& j) {
  element();
  const std::string text = j.dump(indent_, ' ', false, J::error_handler_t::replace);
  if (indent_ < 0 || empty_.empty()) {
    buf_ += text;
  } else {
    // A line break in the dump is always the dump's own (strings escape theirs): indent each to this depth.
    const std::string pad(empty_.size() * static_cast<size_t>(indent_), ' ');
    size_t start = 0;
    for (size_t nl = text.find('\n'); nl != std::string::npos; start = nl + 1, nl = text.find('\n', start)) {
      buf_.append(text, start, nl + 1 - start);
      buf_ += pad;
    }
    buf_.append(text, start, std::string::npos);
  }
  maybe_flush();
  return *this;
}

JsonStream& JsonStream::value(const nlohmann::ordered_json& j) { return subtree(j); }
JsonStream& JsonStream::value(const nlohmann::json& j) { return subtree(j); }

void JsonStream::finish() {
  buf_ += '\n';
  flush();
}

void JsonStream::flush() {
  if (buf_.empty()) return;
  os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

}  // namespace condlint
