#include "loaders/xml_flat.hpp"

#include <cstring>

namespace condlint {

namespace {

// Character classes of the subset: ASCII only (a byte >= 0x80 in a name sends the file to pugixml).
struct Classes {
  bool space[256] = {}, name_start[256] = {}, name_char[256] = {}, attr_stop[256] = {};
  Classes() {
    for (unsigned char c : {' ', '\t', '\n', '\r'}) space[c] = true;
    for (int c = 0; c < 256; ++c) {
      const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      name_start[c] = alpha || c == '_' || c == ':';
      name_char[c] = name_start[c] || (c >= '0' && c <= '9') || c == '-' || c == '.';
    }
    // In an attribute value: the quotes end it; the rest would need decoding or normalising (pugixml does it).
    for (unsigned char c : {'"', '\'', '&', '<', '\t', '\n', '\r', '\0'}) attr_stop[c] = true;
  }
};
const Classes kC;

inline bool is(const unsigned char* t, size_t n, size_t i, char c) {
  return i < n && t[i] == static_cast<unsigned char>(c);
}

// True when [b, e) holds a byte pugixml would treat differently in text or a comment: '&' (a reference, when
// `amp`), a carriage return (line ends are normalised) or NUL (pugixml stops there).
inline bool special(const unsigned char* b, const unsigned char* e, bool amp) {
  for (; b < e; ++b)
    if (*b == '\r' || *b == '\0' || (amp && *b == '&')) return true;
  return false;
}

}  // namespace

bool FlatXml::parse(const std::string& text) {
  text_ = text;
  nodes_.clear();
  attrs_.clear();
  root_ = -1;
  const size_t n = text.size();
  // Offsets are 32-bit (lengths 30-bit); a byte-order mark needs pugixml. Carriage returns and NUL bytes are
  // looked for where they matter, in text, comments and attribute values: inside a tag a carriage return is
  // whitespace to both readers, and a NUL is no character any rule of the subset accepts.
  if (n >= (size_t(1) << 30) || n == 0) return false;
  // t[n] is the string's terminating NUL: the scanning loops below stop there (no class holds NUL), so they
  // need no bounds test of their own.
  const auto* t = reinterpret_cast<const unsigned char*>(text.c_str());
  if (t[0] >= 0x80) return false;
  // A rough size for the arrays, so that they rarely move: OpenVINO's XML has a node (element or text) about
  // every 20 bytes and an attribute about every 25. Reserved pages that stay unused are never touched.
  nodes_.reserve(n / 16 + 16);
  attrs_.reserve(n / 20 + 16);

  struct Open {
    int node;
    int last_child;
  };
  std::vector<Open> open;  // the elements not yet closed; explicit, so depth costs no stack
  // A node; its attributes (an element's) are the ones pushed from here until the next node is made.
  auto make = [&](Type type, size_t start, size_t len) {
    Node nd;
    nd.start = static_cast<uint32_t>(start);
    nd.len_type = static_cast<uint32_t>(len) | (static_cast<uint32_t>(type) << 30);
    nd.first_attr = static_cast<uint32_t>(attrs_.size());
    return nd;
  };
  auto add = [&](Node nd) -> int {
    const int idx = static_cast<int>(nodes_.size());
    Open& parent = open.back();
    if (parent.last_child < 0) {
      nodes_[static_cast<size_t>(parent.node)].first_child = idx;
    } else {
      nodes_[static_cast<size_t>(parent.last_child)].next = idx;
      nd.prev = parent.last_child;
    }
    parent.last_child = idx;
    nodes_.push_back(nd);
    return idx;
  };

  size_t i = 0;
  bool root_closed = false;
  while (true) {
    // Text up to the next '<'. Between tags it is usually a line break or nothing: skip whitespace first (the
    // NUL after the text stops the loop), and only text with something else in it needs the search and a node.
    size_t lt = i;
    while (kC.space[t[lt]]) ++lt;
    if (lt < n &&
        t[lt] != '<') {  // not only whitespace: a text node (with its leading whitespace, as pugixml keeps it)
      const void* p = std::memchr(t + lt, '<', n - lt);
      lt = p ? static_cast<size_t>(static_cast<const unsigned char*>(p) - t) : n;
      if (open.empty()) return false;  // text outside the root
      if (special(t + i, t + lt, true)) return false;
      add(make(Type::PcData, i, lt - i));
    }
    if (lt >= n) break;
    i = lt + 1;  // after '<'
    if (i >= n) return false;
    const unsigned char c = t[i];
    if (c == '!') {
      if (!(is(t, n, i + 1, '-') && is(t, n, i + 2, '-'))) return false;  // CDATA, DOCTYPE: pugixml's
      const size_t v = i + 3;
      size_t e = v;
      while (true) {
        const void* p = std::memchr(t + e, '-', n - e);
        if (!p) return false;
        e = static_cast<size_t>(static_cast<const unsigned char*>(p) - t);
        if (is(t, n, e + 1, '-') && is(t, n, e + 2, '>')) break;
        ++e;
      }
      if (special(t + v, t + e, false)) return false;
      if (!open.empty()) add(make(Type::Comment, v, e - v));
      i = e + 3;
    } else if (c == '?') {
      // The XML declaration (or another processing instruction) before the root: skipped, as pugixml does.
      if (!open.empty() || root_ >= 0) return false;
      if (!is(t, n, i + 1, 'x') || !is(t, n, i + 2, 'm') || !is(t, n, i + 3, 'l') ||
          !(is(t, n, i + 4, ' ') || is(t, n, i + 4, '?')))
        return false;
      size_t e = i + 4;
      while (true) {
        const void* p = std::memchr(t + e, '?', n - e);
        if (!p) return false;
        e = static_cast<size_t>(static_cast<const unsigned char*>(p) - t);
        if (is(t, n, e + 1, '>')) break;
        ++e;
      }
      if (std::memchr(t + i, '\0', e - i)) return false;  // pugixml's scan would end at it
      i = e + 2;
    } else if (c == '/') {
      if (open.empty()) return false;
      const Node& el = nodes_[static_cast<size_t>(open.back().node)];
      size_t k = i + 1;
      if (n - k < el.len() || std::memcmp(t + k, t + el.start, el.len()) != 0) return false;
      k += el.len();
      if (k < n && kC.name_char[t[k]]) return false;  // a longer name
      while (kC.space[t[k]]) ++k;
      if (!is(t, n, k, '>')) return false;
      open.pop_back();
      if (open.empty()) root_closed = true;
      i = k + 1;
    } else {
      if (!kC.name_start[c]) return false;
      if (root_closed) return false;  // a second root
      size_t k = i;
      while (kC.name_char[t[k]]) ++k;
      if (k >= n) return false;
      Node el = make(Type::Element, i, k - i);
      // Attributes.
      bool self_closing = false;
      while (true) {
        const size_t before_ws = k;
        while (kC.space[t[k]]) ++k;
        if (k >= n) return false;
        if (t[k] == '>') {
          ++k;
          break;
        }
        if (t[k] == '/') {
          if (!is(t, n, k + 1, '>')) return false;
          k += 2;
          self_closing = true;
          break;
        }
        if (k == before_ws || !kC.name_start[t[k]]) return false;  // attributes are separated by whitespace
        Attr a;
        a.name = static_cast<uint32_t>(k);
        while (kC.name_char[t[k]]) ++k;
        a.name_len = static_cast<uint32_t>(k - a.name);
        while (kC.space[t[k]]) ++k;
        if (!is(t, n, k, '=')) return false;
        ++k;
        while (kC.space[t[k]]) ++k;
        if (k >= n || (t[k] != '"' && t[k] != '\'')) return false;
        const unsigned char q = t[k++];
        a.value = static_cast<uint32_t>(k);
        while (!kC.attr_stop[t[k]]) ++k;
        if (k >= n || t[k] != q) return false;  // the other quote, '&', '<', a tab or newline, or the end
        a.value_len = static_cast<uint32_t>(k - a.value);
        ++k;
        attrs_.push_back(a);
        // pugixml accepts '/' or '>' right after a value; another name needs whitespace first.
        if (k < n && kC.name_start[t[k]]) return false;
      }
      int idx;
      if (open.empty()) {
        if (root_ >= 0) return false;
        idx = static_cast<int>(nodes_.size());
        nodes_.push_back(el);
        root_ = idx;
        if (self_closing) root_closed = true;
      } else {
        idx = add(el);
      }
      if (!self_closing) open.push_back({idx, -1});
      i = k;
    }
    if (i >= n) break;
  }
  return open.empty() && root_ >= 0;
}

}  // namespace condlint
