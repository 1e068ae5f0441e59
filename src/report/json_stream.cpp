#include "report/json_stream.hpp"

#include <cstring>

namespace condlint {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (a lead byte from 0x80), 0 when it is not one (Unicode's
// table of well-formed byte sequences: no overlong forms, no surrogates, nothing past U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() - i < n || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

// True when one of the 8 bytes of `w` needs a look: a control character, '"', '\\' or a byte from 0x80.
bool block_needs_look(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  const auto has_zero = [&](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  return ((w | ((w - kOnes * 0x20) & ~w)) & kHigh) || has_zero(w ^ (kOnes * '"')) || has_zero(w ^ (kOnes * '\\'));
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  // Printable ASCII, well-formed UTF-8 and the escapes JSON names are written here, 8 bytes at a time where none
  // needs a look. A string with invalid UTF-8 goes through nlohmann's own serializer, which replaces what is invalid
  // with U+FFFD, so the bytes stay its bytes.
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t start = out.size();
  out.reserve(start + s.size() + 2);
  out += '"';
  size_t run = 0;  // start of the bytes not yet written that need no escape
  size_t i = 0;
  while (i < s.size()) {
    if (s.size() - i >= 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (!block_needs_look(w)) {
        i += 8;
        continue;
      }
    }
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      const size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out.resize(start);
        out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
      }
      i += n;
      continue;
    }
    if (c != '"' && c != '\\' && u >= 0x20) {
      ++i;
      continue;
    }
    out.append(s.data() + run, i - run);
    run = ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        const char e[] = {'\\', 'u', '0', '0', kHex[(u >> 4) & 0xf], kHex[u & 0xf]};
        out.append(e, sizeof e);
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
