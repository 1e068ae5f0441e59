#include "loaders/json_pos.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace condlint::json {

int Document::member(int obj, std::string_view name) const {
  const Node& n = nodes[static_cast<size_t>(obj)];
  for (size_t i = 0; i < n.keys().size(); ++i)
    if (n.keys()[i].first == name) return n.children()[i];
  return -1;
}

std::string_view kind_name(Node::Kind k) {
  switch (k) {
    case Node::Null: return "null";
    case Node::Bool: return "a boolean";
    case Node::Number: return "a number";
    case Node::String: return "a string";
    case Node::Array: return "an array";
    case Node::Object: return "an object";
  }
  return "?";
}

namespace {

class Parser {
 public:
  Parser(std::string_view t, Document& d, Error& e, size_t max_depth)
      : s_(t), doc_(d), err_(e), max_depth_(max_depth) {}

  bool run() {
    doc_.nodes.clear();
    if (s_.size() >= 3 && std::memcmp(s_.data(), "\xEF\xBB\xBF", 3) == 0) p_ = 3;
    ws();
    if (p_ >= s_.size()) return fail("the file is empty; expected a JSON object");
    std::vector<int> stack;
    std::string pending_key;
    int64_t pending_key_off = 0;
    for (;;) {
      // Parse one value at p_.
      ws();
      if (p_ >= s_.size()) return fail("unexpected end of the file; a value was expected");
      const char c = s_[p_];
      const int id = static_cast<int>(doc_.nodes.size());
      doc_.nodes.emplace_back();
      doc_.nodes.back().set_offset(static_cast<int64_t>(p_));
      if (!stack.empty()) {
        Node& parent = doc_.nodes[static_cast<size_t>(stack.back())];
        parent.extra().children.push_back(id);
        // key() below sets pending_key again before the next member reads it.
        if (parent.kind == Node::Object)
          parent.extra().keys.emplace_back(std::move(pending_key), pending_key_off);  // NOLINT(bugprone-use-after-move)
      }
      bool opened = false;
      if (c == '{' || c == '[') {
        if (stack.size() >= max_depth_)
          return fail("nesting deeper than " + std::to_string(max_depth_) + " levels; condlint stops here");
        doc_.nodes[id].kind = c == '{' ? Node::Object : Node::Array;
        ++p_;
        stack.push_back(id);
        ws();
        if (p_ < s_.size() && s_[p_] == (c == '{' ? '}' : ']')) {
          ++p_;
          stack.pop_back();
        } else {
          opened = true;
          if (c == '{' && !key(pending_key, pending_key_off)) return false;
        }
      } else if (!scalar(doc_.nodes[id])) {
        return false;
      }
      if (opened) continue;
      // After a complete value: close containers or move to the next element.
      for (;;) {
        ws();
        if (stack.empty()) {
          if (p_ < s_.size()) return fail("unexpected text after the end of the JSON document");
          return true;
        }
        if (p_ >= s_.size()) return fail("unexpected end of the file inside an object or array");
        const Node& top = doc_.nodes[static_cast<size_t>(stack.back())];
        const char close = top.kind == Node::Object ? '}' : ']';
        if (s_[p_] == ',') {
          ++p_;
          if (top.kind == Node::Object && !key(pending_key, pending_key_off)) return false;
          break;
        }
        if (s_[p_] == close) {
          ++p_;
          stack.pop_back();
          continue;
        }
        return fail(std::string("expected ',' or '") + close + "'");
      }
    }
  }

 private:
  bool fail(std::string m) {
    err_.message = std::move(m);
    err_.offset = static_cast<int64_t>(p_);
    return false;
  }
  void ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
  }
  // Reads `"name" :` for the next object member; duplicate names are an error.
  bool key(std::string& out, int64_t& off) {
    ws();
    if (p_ >= s_.size() || s_[p_] != '"') return fail("expected a member name in double quotes");
    off = static_cast<int64_t>(p_);
    if (!string(out)) return false;
    ws();
    if (p_ >= s_.size() || s_[p_] != ':') return fail("expected ':' after the member name");
    ++p_;
    return true;
  }
  bool literal(std::string_view word) {
    if (s_.substr(p_, word.size()) != word) return fail("invalid literal; expected a value");
    p_ += word.size();
    return true;
  }
  bool scalar(Node& n) {
    const char c = s_[p_];
    if (c == '"') {
      n.kind = Node::String;
      return string(n.extra().text);
    }
    if (c == 't') {
      n.kind = Node::Bool;
      n.boolean = true;
      return literal("true");
    }
    if (c == 'f') {
      n.kind = Node::Bool;
      return literal("false");
    }
    if (c == 'n') {
      n.kind = Node::Null;
      return literal("null");
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(n);
    if (c == '}' || c == ']') return fail(std::string("unexpected '") + c + "'; a value was expected");
    return fail(std::string("unexpected character '") + (c >= 32 && c < 127 ? std::string(1, c) : "?") + "'");
  }
  bool number(Node& n) {
    const size_t start = p_;
    auto digits = [&] {
      const size_t b = p_;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
      return p_ - b;
    };
    if (s_[p_] == '-') ++p_;
    if (p_ < s_.size() && s_[p_] == '0') ++p_;
    else if (digits() == 0) return fail("invalid number");
    bool plain = true;
    if (p_ < s_.size() && s_[p_] == '.') {
      ++p_;
      plain = false;
      if (digits() == 0) return fail("invalid number: digits expected after '.'");
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      ++p_;
      plain = false;
      if (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
      if (digits() == 0) return fail("invalid number: digits expected in the exponent");
    }
    const std::string lex(s_.substr(start, p_ - start));
    n.kind = Node::Number;
    const double d = std::strtod(lex.c_str(), nullptr);
    n.set_number(d);
    if (plain) {
      errno = 0;
      const long long v = std::strtoll(lex.c_str(), nullptr, 10);
      if (errno != ERANGE) n.set_integer(v);
    } else if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18) {
      n.set_integer(static_cast<int64_t>(d), d == 0 && std::signbit(d));
    }
    return true;
  }
  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(uint32_t& v) {
    if (p_ + 4 > s_.size()) return fail("truncated \\u escape");
    v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[p_++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<uint32_t>(h - 'A' + 10);
      else return fail("invalid hex digit in a \\u escape");
    }
    return true;
  }
  // A UTF-8 sequence starting at p_ (first byte >= 0x80); appends it.
  bool utf8(std::string& out) {
    const auto b0 = static_cast<unsigned char>(s_[p_]);
    size_t len = 0;
    uint32_t min = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
      min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      min = 0x10000;
    } else return fail("invalid UTF-8 byte in a string");
    if (p_ + len > s_.size()) return fail("truncated UTF-8 sequence in a string");
    uint32_t cp = b0 & (0x7F >> len);
    for (size_t i = 1; i < len; ++i) {
      const auto b = static_cast<unsigned char>(s_[p_ + i]);
      if ((b & 0xC0) != 0x80) return fail("invalid UTF-8 sequence in a string");
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return fail("invalid UTF-8 sequence in a string");
    out.append(s_.substr(p_, len));
    p_ += len;
    return true;
  }
  bool string(std::string& out) {
    out.clear();
    ++p_;  // opening quote
    for (;;) {
      if (p_ >= s_.size()) return fail("unterminated string");
      const char c = s_[p_];
      if (c == '"') {
        ++p_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character inside a string (escape it)");
      if (static_cast<unsigned char>(c) >= 0x80) {
        if (!utf8(out)) return false;
        continue;
      }
      if (c != '\\') {
        out += c;
        ++p_;
        continue;
      }
      ++p_;
      if (p_ >= s_.size()) return fail("unterminated string");
      const char e = s_[p_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (s_.substr(p_, 2) != "\\u") return fail("unpaired surrogate in a \\u escape");
            p_ += 2;
            if (!hex4(lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) return fail("unpaired surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("unpaired surrogate in a \\u escape");
          }
          put_utf8(out, cp);
          break;
        }
        default: --p_; return fail("invalid escape sequence in a string");
      }
    }
  }

  std::string_view s_;
  Document& doc_;
  Error& err_;
  size_t max_depth_;
  size_t p_ = 0;
};

}  // namespace

bool parse(std::string_view text, Document& doc, Error& err, size_t max_depth) {
  Parser p(text, doc, err, max_depth);
  if (!p.run()) return false;
  // Duplicate member names: a second pass, so that the parser itself stays simple.
  for (const Node& n : doc.nodes) {
    if (n.kind != Node::Object || n.keys().size() < 2) continue;
    std::unordered_set<std::string_view> seen;
    for (const auto& [k, off] : n.keys())
      if (!seen.insert(k).second) {
        err.message = "member \"" + k + "\" appears twice in one object";
        err.offset = off;
        return false;
      }
  }
  return true;
}

}  // namespace condlint::json
