#include "model/node_path.hpp"

namespace condlint::node_path {

std::string escape(std::string_view name) {
  if (name.find_first_of("/~") == std::string_view::npos) return std::string(name);
  std::string out;
  out.reserve(name.size() + 8);
  for (char c : name) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string unescape(std::string_view segment) {
  if (segment.find('~') == std::string_view::npos) return std::string(segment);
  std::string out;
  out.reserve(segment.size());
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] == '~' && i + 1 < segment.size() && (segment[i + 1] == '0' || segment[i + 1] == '1')) {
      out += segment[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += segment[i];
    }
  }
  return out;
}

std::string node_segment(std::string_view name, std::string_view op, size_t index) {
  if (!name.empty()) return escape(name);
  std::string out(op);
  out += '#';
  out += std::to_string(index);
  return out;
}

std::string child(std::string_view parent, std::string_view segment) {
  std::string out;
  out.reserve(parent.size() + 1 + segment.size());
  out += parent;
  out += '/';
  out += segment;
  return out;
}

std::string branch(std::string_view if_path, bool then_branch) { return child(if_path, then_branch ? "then" : "else"); }

std::string body(std::string_view loop_path) { return child(loop_path, "body"); }

std::vector<std::string> split(std::string_view path) {
  std::vector<std::string> out;
  size_t from = 0;
  while (true) {
    const size_t slash = path.find('/', from);
    out.push_back(unescape(path.substr(from, slash == std::string_view::npos ? std::string_view::npos : slash - from)));
    if (slash == std::string_view::npos) return out;
    from = slash + 1;
  }
}

bool has_escapes(std::string_view path) {
  for (size_t i = path.find('~'); i != std::string_view::npos; i = path.find('~', i + 1))
    if (i + 1 < path.size() && (path[i + 1] == '0' || path[i + 1] == '1')) return true;
  return false;
}

std::string legacy(std::string_view path) { return unescape(path); }

}  // namespace condlint::node_path
