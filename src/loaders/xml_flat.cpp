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

namespace {

// One pass over the text for FlatXml::parse, each construct read by a step of its own. Every step returns false when
// the text leaves the subset (pugixml then reads the file). t[n] is the string's terminating NUL: the scanning loops
// stop there (no class holds NUL), so they need no bounds test of their own.
class Scan {
 public:
  using Node = FlatXml::Node;
  using Attr = FlatXml::Attr;
  using Type = FlatXml::Type;

  Scan(const unsigned char* t, size_t n, std::vector<Node>& nodes, std::vector<Attr>& attrs, int& root)
      : t_(t), n_(n), nodes_(nodes), attrs_(attrs), root_(root) {}

  bool run() {
    size_t i = 0;
    while (true) {
      size_t lt = i;
      if (!text(i, lt)) return false;
      if (lt >= n_) break;
      i = lt + 1;  // after '<'
      if (i >= n_) return false;
      const unsigned char c = t_[i];
      const bool ok = c == '!' ? comment(i) : c == '?' ? declaration(i) : c == '/' ? close_tag(i) : open_tag(i);
      if (!ok) return false;
      if (i >= n_) break;
    }
    return open_.empty() && root_ >= 0;
  }

 private:
  struct Open {
    int node;
    int last_child;
  };

  // A node; its attributes (an element's) are the ones pushed from here until the next node is made.
  Node make(Type type, size_t start, size_t len) const {
    Node nd;
    nd.start = static_cast<uint32_t>(start);
    nd.len_type = static_cast<uint32_t>(len) | (static_cast<uint32_t>(type) << 30);
    nd.first_attr = static_cast<uint32_t>(attrs_.size());
    return nd;
  }
  int add(Node nd) {
    const int idx = static_cast<int>(nodes_.size());
    Open& parent = open_.back();
    if (parent.last_child < 0) {
      nodes_[static_cast<size_t>(parent.node)].first_child = idx;
    } else {
      nodes_[static_cast<size_t>(parent.last_child)].next = idx;
      nd.prev = parent.last_child;
    }
    parent.last_child = idx;
    nodes_.push_back(nd);
    return idx;
  }

  // Text from i up to the next '<' (at lt, or n). Between tags it is usually a line break or nothing: whitespace is
  // skipped first, and only text with something else in it needs the search and a node.
  bool text(size_t i, size_t& lt) {
    while (kC.space[t_[lt]]) ++lt;
    if (lt < n_ && t_[lt] != '<') {  // not only whitespace: a text node (with its leading whitespace, as pugixml)
      const void* p = std::memchr(t_ + lt, '<', n_ - lt);
      lt = p ? static_cast<size_t>(static_cast<const unsigned char*>(p) - t_) : n_;
      if (open_.empty()) return false;  // text outside the root
      if (special(t_ + i, t_ + lt, true)) return false;
      add(make(Type::PcData, i, lt - i));
    }
    return true;
  }

  // <!-- ... -->, at i (after '<'); CDATA and DOCTYPE are pugixml's.
  bool comment(size_t& i) {
    if (!(is(t_, n_, i + 1, '-') && is(t_, n_, i + 2, '-'))) return false;
    const size_t v = i + 3;
    size_t e = v;
    while (true) {
      const void* p = std::memchr(t_ + e, '-', n_ - e);
      if (!p) return false;
      e = static_cast<size_t>(static_cast<const unsigned char*>(p) - t_);
      if (is(t_, n_, e + 1, '-') && is(t_, n_, e + 2, '>')) break;
      ++e;
    }
    if (special(t_ + v, t_ + e, false)) return false;
    if (!open_.empty()) add(make(Type::Comment, v, e - v));
    i = e + 3;
    return true;
  }

  // The XML declaration (or another processing instruction) before the root: skipped, as pugixml does.
  bool declaration(size_t& i) {
    if (!open_.empty() || root_ >= 0) return false;
    if (!is(t_, n_, i + 1, 'x') || !is(t_, n_, i + 2, 'm') || !is(t_, n_, i + 3, 'l') ||
        !(is(t_, n_, i + 4, ' ') || is(t_, n_, i + 4, '?')))
      return false;
    size_t e = i + 4;
    while (true) {
      const void* p = std::memchr(t_ + e, '?', n_ - e);
      if (!p) return false;
      e = static_cast<size_t>(static_cast<const unsigned char*>(p) - t_);
      if (is(t_, n_, e + 1, '>')) break;
      ++e;
    }
    if (std::memchr(t_ + i, '\0', e - i)) return false;  // pugixml's scan would end at it
    i = e + 2;
    return true;
  }

  // </name>: closes the innermost open element, which must have that name.
  bool close_tag(size_t& i) {
    if (open_.empty()) return false;
    const Node& el = nodes_[static_cast<size_t>(open_.back().node)];
    size_t k = i + 1;
    if (n_ - k < el.len() || std::memcmp(t_ + k, t_ + el.start, el.len()) != 0) return false;
    k += el.len();
    if (k < n_ && kC.name_char[t_[k]]) return false;  // a longer name
    while (kC.space[t_[k]]) ++k;
    if (!is(t_, n_, k, '>')) return false;
    open_.pop_back();
    if (open_.empty()) root_closed_ = true;
    i = k + 1;
    return true;
  }

  // <name attr="value" ...> or <name .../>.
  bool open_tag(size_t& i) {
    if (!kC.name_start[t_[i]]) return false;
    if (root_closed_) return false;  // a second root
    size_t k = i;
    while (kC.name_char[t_[k]]) ++k;
    if (k >= n_) return false;
    Node el = make(Type::Element, i, k - i);
    bool self_closing = false;
    if (!attributes(k, self_closing)) return false;
    int idx;
    if (open_.empty()) {
      if (root_ >= 0) return false;
      idx = static_cast<int>(nodes_.size());
      nodes_.push_back(el);
      root_ = idx;
      if (self_closing) root_closed_ = true;
    } else {
      idx = add(el);
    }
    if (!self_closing) open_.push_back({idx, -1});
    i = k;
    return true;
  }

  // The attributes of a start tag, from k to just after its '>' or '/>'.
  bool attributes(size_t& k, bool& self_closing) {
    while (true) {
      const size_t before_ws = k;
      while (kC.space[t_[k]]) ++k;
      if (k >= n_) return false;
      if (t_[k] == '>') {
        ++k;
        return true;
      }
      if (t_[k] == '/') {
        if (!is(t_, n_, k + 1, '>')) return false;
        k += 2;
        self_closing = true;
        return true;
      }
      if (k == before_ws || !kC.name_start[t_[k]]) return false;  // attributes are separated by whitespace
      Attr a;
      a.name = static_cast<uint32_t>(k);
      while (kC.name_char[t_[k]]) ++k;
      a.name_len = static_cast<uint32_t>(k - a.name);
      while (kC.space[t_[k]]) ++k;
      if (!is(t_, n_, k, '=')) return false;
      ++k;
      while (kC.space[t_[k]]) ++k;
      if (k >= n_ || (t_[k] != '"' && t_[k] != '\'')) return false;
      const unsigned char q = t_[k++];
      a.value = static_cast<uint32_t>(k);
      while (!kC.attr_stop[t_[k]]) ++k;
      if (k >= n_ || t_[k] != q) return false;  // the other quote, '&', '<', a tab or newline, or the end
      a.value_len = static_cast<uint32_t>(k - a.value);
      ++k;
      attrs_.push_back(a);
      // pugixml accepts '/' or '>' right after a value; another name needs whitespace first.
      if (k < n_ && kC.name_start[t_[k]]) return false;
    }
  }

  const unsigned char* t_;
  size_t n_;
  std::vector<Node>& nodes_;
  std::vector<Attr>& attrs_;
  int& root_;
  std::vector<Open> open_;  // the elements not yet closed; explicit, so depth costs no stack
  bool root_closed_ = false;
};

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
  const auto* t = reinterpret_cast<const unsigned char*>(text.c_str());
  if (t[0] >= 0x80) return false;
  // A rough size for the arrays, so that they rarely move: OpenVINO's XML has a node (element or text) about
  // every 20 bytes and an attribute about every 25. Reserved pages that stay unused are never touched.
  nodes_.reserve(n / 16 + 16);
  attrs_.reserve(n / 20 + 16);
  return Scan(t, n, nodes_, attrs_, root_).run();
}

}  // namespace condlint
