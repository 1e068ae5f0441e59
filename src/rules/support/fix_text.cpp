// The text ranges fixers edit in an IR's XML (rules/fix.hpp).
#include <cstring>

#include "rules/fix.hpp"

namespace condlint {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The end of the tag that starts at `i` (its '<'): the index after its '>', quotes respected; npos when it does not
// end. `self_closing` says whether it ends in "/>".
size_t tag_end(std::string_view t, size_t i, bool& self_closing) {
  char quote = 0;
  for (size_t k = i + 1; k < t.size(); ++k) {
    const char c = t[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      self_closing = t[k - 1] == '/';
      return k + 1;
    }
  }
  return std::string_view::npos;
}

// Skips a comment, CDATA section, processing instruction or declaration at `i`; npos when it does not end.
size_t skip_markup(std::string_view t, size_t i) {
  auto past = [&](const char* close) {
    const size_t e = t.find(close, i);
    return e == std::string_view::npos ? e : e + std::strlen(close);
  };
  if (t.compare(i, 4, "<!--") == 0) return past("-->");
  if (t.compare(i, 9, "<![CDATA[") == 0) return past("]]>");
  if (t.compare(i, 2, "<?") == 0) return past("?>");
  return past(">");  // <!DOCTYPE ...>
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> xml_element_range(std::string_view t, int64_t offset) {
  if (offset < 0 || static_cast<size_t>(offset) >= t.size() || t[static_cast<size_t>(offset)] != '<') return std::nullopt;
  const size_t begin = static_cast<size_t>(offset);
  if (begin + 1 >= t.size() || t[begin + 1] == '/' || t[begin + 1] == '!' || t[begin + 1] == '?') return std::nullopt;
  size_t end = std::string_view::npos;
  int depth = 0;
  for (size_t i = begin; i < t.size();) {
    const size_t lt = t.find('<', i);
    if (lt == std::string_view::npos) return std::nullopt;
    if (lt + 1 < t.size() && (t[lt + 1] == '!' || t[lt + 1] == '?')) {
      i = skip_markup(t, lt);
      if (i == std::string_view::npos) return std::nullopt;
      continue;
    }
    bool self_closing = false;
    const size_t after = tag_end(t, lt, self_closing);
    if (after == std::string_view::npos) return std::nullopt;
    if (t[lt + 1] == '/') --depth;
    else if (!self_closing) ++depth;
    i = after;
    if (depth == 0) {
      end = after;
      break;
    }
  }
  if (end == std::string_view::npos) return std::nullopt;
  // Whole lines when the element stands alone on them.
  size_t b = begin, e = end;
  while (b > 0 && blank(t[b - 1])) --b;
  size_t f = e;
  while (f < t.size() && blank(t[f])) ++f;
  if ((b == 0 || t[b - 1] == '\n') && (f == t.size() || t[f] == '\n')) {
    e = f < t.size() ? f + 1 : f;
  } else {
    b = begin;
  }
  return std::make_pair(static_cast<int64_t>(b), static_cast<int64_t>(e));
}

size_t xml_start_tag_end(std::string_view t, int64_t offset) {
  if (offset < 0 || static_cast<size_t>(offset) >= t.size() || t[static_cast<size_t>(offset)] != '<')
    return std::string_view::npos;
  bool self_closing = false;
  return tag_end(t, static_cast<size_t>(offset), self_closing);
}

std::optional<size_t> fix_key_index(const Finding& f) {
  if (f.fix_key.empty() || f.fix_key.find_first_not_of("0123456789") != std::string::npos || f.fix_key.size() > 9)
    return std::nullopt;
  return static_cast<size_t>(std::stoul(f.fix_key));
}

std::optional<std::pair<size_t, size_t>> xml_attribute(std::string_view t, int64_t offset, std::string_view name) {
  const size_t end = xml_start_tag_end(t, offset);
  if (end == std::string_view::npos) return std::nullopt;
  char quote = 0;
  for (size_t k = static_cast<size_t>(offset) + 1; k < end; ++k) {
    const char c = t[k];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    // An attribute name starts after a blank: NAME="..."
    if ((c == ' ' || c == '\t' || c == '\n' || c == '\r') && t.compare(k + 1, name.size(), name) == 0 &&
        k + 1 + name.size() + 1 < end && t[k + 1 + name.size()] == '=') {
      const size_t q = k + 1 + name.size() + 1;
      if (t[q] != '"' && t[q] != '\'') return std::nullopt;
      const size_t close = t.find(t[q], q + 1);
      if (close == std::string_view::npos || close >= end) return std::nullopt;
      return std::make_pair(q + 1, close);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<XmlDim>> xml_port_dims(std::string_view t, int64_t offset) {
  if (offset < 0 || t.compare(static_cast<size_t>(offset), 5, "<port") != 0) return std::nullopt;
  bool self_closing = false;
  size_t i = tag_end(t, static_cast<size_t>(offset), self_closing);
  if (i == std::string_view::npos) return std::nullopt;
  std::vector<XmlDim> dims;
  if (self_closing) return dims;
  while (true) {
    const size_t lt = t.find('<', i);
    if (lt == std::string_view::npos) return std::nullopt;
    if (t.compare(lt, 2, "</") == 0) return dims;  // the port's end tag
    if (lt + 1 < t.size() && (t[lt + 1] == '!' || t[lt + 1] == '?')) {
      i = skip_markup(t, lt);
      if (i == std::string_view::npos) return std::nullopt;
      continue;
    }
    const bool is_dim = t.compare(lt, 4, "<dim") == 0 && lt + 4 < t.size() &&
                        (t[lt + 4] == '>' || t[lt + 4] == '/' || blank(t[lt + 4]) || t[lt + 4] == '\n');
    if (!is_dim) {  // another child (rt_info): stepped over whole
      const auto r = xml_element_range(t, static_cast<int64_t>(lt));
      if (!r) return std::nullopt;
      i = static_cast<size_t>(r->second);
      continue;
    }
    const size_t open_end = tag_end(t, lt, self_closing);
    if (open_end == std::string_view::npos) return std::nullopt;
    if (self_closing) {
      dims.push_back({lt, open_end, open_end, open_end});
      i = open_end;
      continue;
    }
    const size_t close = t.find("</dim>", open_end);
    if (close == std::string_view::npos) return std::nullopt;
    dims.push_back({lt, close + 6, open_end, close});
    i = close + 6;
  }
}

std::string ir_dim_text(const Dim& d) {
  if (d.is_static()) return std::to_string(d.lo);
  if (d.hi < 0) return d.lo == 0 ? "-1" : std::to_string(d.lo) + "..";
  return std::to_string(d.lo) + ".." + std::to_string(d.hi);
}

std::string ir_precision_text(ElemType t) {
  static constexpr const char* kWritten[] = {"BOOL", "FP16", "BF16", "FP32", "FP64", "I4",  "I8",  "I16",
                                             "I32",  "I64",  "U1",   "U4",   "U8",   "U16", "U32", "U64"};
  for (const char* w : kWritten)
    if (parse_ov_elem_type(w) == t) return w;
  return std::string(to_string(t));
}


}  // namespace condlint
