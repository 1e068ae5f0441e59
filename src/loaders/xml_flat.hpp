// A fast reader for the XML that OpenVINO writes, and a common face for it and pugixml.
//
// FlatXml reads a strict subset of XML 1.0 into flat arrays (a node is 24 bytes, an attribute 16; children and
// siblings are indices), without changing or copying the text: elements, attributes in single or double
// quotes, text, comments, and an `<?xml ...?>` declaration before the root. Anything else — an entity or
// character reference, a carriage return in text, a comment or an attribute value (between tags it is plain
// whitespace to both readers), a tab or newline inside an attribute value, CDATA, DOCTYPE, a processing
// instruction elsewhere, a non-ASCII name, text outside the root, a second root, a NUL byte, any malformation — makes
// parse() return false, and the IR loader reads the file with pugixml instead, which either accepts it or says
// where it is broken. So on what FlatXml accepts, both readers give the same tree: the same nodes, names,
// values and offsets (tests/ir_loader_test.cpp and the IR fuzz target compare the two on every input).
//
// Why: walking pugixml's DOM through its out-of-line accessors cost the IR lint of a large model several
// times the parse itself; here the accessors are inline and the nodes of one element are adjacent in memory.
#pragma once

#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace condlint {

class FlatXml {
 public:
  enum class Type : uint8_t { Element, PcData, Comment };
  struct Node {
    uint32_t start = 0;       // the element's name, or the text / comment's value
    uint32_t len_type = 0;    // its length (30 bits) and the Type (the top 2 bits)
    uint32_t first_attr = 0;  // the node's attributes run up to the next node's first_attr
    int32_t first_child = -1, next = -1, prev = -1;
    uint32_t len() const { return len_type & kLenMask; }
    Type type() const { return static_cast<Type>(len_type >> 30); }
  };
  static constexpr uint32_t kLenMask = (uint32_t(1) << 30) - 1;
  struct Attr {
    uint32_t name = 0, name_len = 0, value = 0, value_len = 0;
  };

  // Reads `text` (which must outlive this object and stay unchanged). False when the text is outside the subset.
  bool parse(const std::string& text);
  int root() const { return root_; }

  std::string_view text() const { return text_; }
  const Node& node(int i) const { return nodes_[static_cast<size_t>(i)]; }
  const Attr& attr(uint32_t i) const { return attrs_[i]; }
  // One past node i's last attribute.
  uint32_t attrs_end(int i) const {
    const size_t next = static_cast<size_t>(i) + 1;
    return next < nodes_.size() ? nodes_[next].first_attr : static_cast<uint32_t>(attrs_.size());
  }
  // Unchecked: parse() recorded only spans inside the text.
  std::string_view span(uint32_t start, uint32_t len) const { return std::string_view(text_.data() + start, len); }

 private:
  std::string_view text_;
  std::vector<Node> nodes_;
  std::vector<Attr> attrs_;
  int root_ = -1;
};

// ----- One face for both readers: what the IR loader needs of an element, with strings as views. -----

class FlatAttrRef {
 public:
  FlatAttrRef() = default;
  FlatAttrRef(const FlatXml* d, uint32_t i, uint32_t end) : d_(d), i_(i), end_(end) {}
  explicit operator bool() const { return d_ != nullptr; }
  bool operator!() const { return d_ == nullptr; }
  std::string_view name() const {
    if (!d_) return {};
    const auto& a = d_->attr(i_);
    return d_->span(a.name, a.name_len);
  }
  std::string_view value() const {
    if (!d_) return {};
    const auto& a = d_->attr(i_);
    return d_->span(a.value, a.value_len);
  }
  FlatAttrRef next_attribute() const { return d_ && i_ + 1 < end_ ? FlatAttrRef(d_, i_ + 1, end_) : FlatAttrRef(); }

 private:
  const FlatXml* d_ = nullptr;
  uint32_t i_ = 0, end_ = 0;
};

class FlatNodeRef {
 public:
  using Attribute = FlatAttrRef;
  FlatNodeRef() = default;
  FlatNodeRef(const FlatXml* d, int i) : d_(i >= 0 ? d : nullptr), i_(i) {}
  explicit operator bool() const { return d_ != nullptr; }
  bool operator!() const { return d_ == nullptr; }
  bool is_element() const { return d_ && n().type() == FlatXml::Type::Element; }
  bool is_comment() const { return d_ && n().type() == FlatXml::Type::Comment; }
  std::string_view name() const { return is_element() ? d_->span(n().start, n().len()) : std::string_view(); }
  std::string_view value() const { return d_ && !is_element() ? d_->span(n().start, n().len()) : std::string_view(); }
  // The first text child's value (pugixml's child_value()).
  std::string_view child_value() const {
    for (auto c = first_child(); c; c = c.next_sibling())
      if (c.n().type() == FlatXml::Type::PcData) return c.value();
    return {};
  }
  FlatNodeRef first_child() const { return d_ ? FlatNodeRef(d_, n().first_child) : FlatNodeRef(); }
  FlatNodeRef next_sibling() const { return d_ ? FlatNodeRef(d_, n().next) : FlatNodeRef(); }
  FlatNodeRef previous_sibling() const { return d_ ? FlatNodeRef(d_, n().prev) : FlatNodeRef(); }
  FlatAttrRef first_attribute() const {
    if (!d_) return {};
    const uint32_t begin = n().first_attr, end = d_->attrs_end(i_);
    return begin < end ? FlatAttrRef(d_, begin, end) : FlatAttrRef();
  }
  FlatAttrRef attribute(std::string_view name) const {
    for (auto a = first_attribute(); a; a = a.next_attribute())
      if (a.name() == name) return a;
    return {};
  }
  // As pugixml's offset_debug(): an element's name, a text's or comment's value.
  int64_t offset_debug() const { return d_ ? static_cast<int64_t>(n().start) : -1; }

 private:
  const FlatXml::Node& n() const { return d_->node(i_); }
  const FlatXml* d_ = nullptr;
  int i_ = -1;
};

class PugiAttrRef {
 public:
  PugiAttrRef() = default;
  explicit PugiAttrRef(pugi::xml_attribute a) : a_(a) {}
  explicit operator bool() const { return static_cast<bool>(a_); }
  bool operator!() const { return !a_; }
  std::string_view name() const { return a_.name(); }
  std::string_view value() const { return a_.value(); }
  PugiAttrRef next_attribute() const { return PugiAttrRef(a_.next_attribute()); }

 private:
  pugi::xml_attribute a_;
};

class PugiNodeRef {
 public:
  using Attribute = PugiAttrRef;
  PugiNodeRef() = default;
  explicit PugiNodeRef(pugi::xml_node x) : x_(x) {}
  explicit operator bool() const { return static_cast<bool>(x_); }
  bool operator!() const { return !x_; }
  bool is_element() const { return x_.type() == pugi::node_element; }
  bool is_comment() const { return x_.type() == pugi::node_comment; }
  std::string_view name() const { return x_.name(); }
  std::string_view value() const { return x_.value(); }
  std::string_view child_value() const { return x_.child_value(); }
  PugiNodeRef first_child() const { return PugiNodeRef(x_.first_child()); }
  PugiNodeRef next_sibling() const { return PugiNodeRef(x_.next_sibling()); }
  PugiNodeRef previous_sibling() const { return PugiNodeRef(x_.previous_sibling()); }
  PugiAttrRef first_attribute() const { return PugiAttrRef(x_.first_attribute()); }
  PugiAttrRef attribute(std::string_view name) const {
    for (auto a = x_.first_attribute(); a; a = a.next_attribute())
      if (name == a.name()) return PugiAttrRef(a);
    return {};
  }
  int64_t offset_debug() const { return x_.offset_debug(); }

 private:
  pugi::xml_node x_;
};

}  // namespace condlint
