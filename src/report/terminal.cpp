#include "report/terminal.hpp"

#include <cstdint>
#include <cstdio>

namespace condlint {
namespace {

// Length of the valid UTF-8 sequence at s[i] and its code point, or 0 when the bytes there are not valid UTF-8
// (overlong forms, surrogates, values past U+10FFFF and truncated sequences are all invalid).
size_t utf8_at(std::string_view s, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n;
  uint32_t min;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
    min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
    min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
    min = 0x10000;
  } else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool is_direction_mark(uint32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// Whether the character at s[i] (of length n, code point cp; n == 0 for an invalid byte) is shown escaped.
bool escaped(uint32_t cp, size_t n) {
  if (n == 0) return true;
  if (n == 1) return (cp < 0x20 && cp != '\t') || cp == 0x7F;
  return (cp >= 0x80 && cp <= 0x9F) || is_direction_mark(cp);
}

}  // namespace

bool needs_term_escape(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_at(s, i, cp);
    if (escaped(cp, n)) return true;
    i += n;
  }
  return false;
}

std::string term_safe(std::string_view s) {
  if (!needs_term_escape(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  char buf[12];
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_at(s, i, cp);
    if (!escaped(cp, n)) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      i += 1;
    } else if (cp == '\n' || cp == '\r') {
      std::snprintf(buf, sizeof buf, "\\%c", cp == '\n' ? 'n' : 'r');
      i += n;
    } else if (n == 1) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      i += n;
    } else {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      i += n;
    }
    out += buf;
  }
  return out;
}

}  // namespace condlint
