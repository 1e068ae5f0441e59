// Helpers the SARIF and HTML writers share: artifact URIs, stable fingerprints, conditional summaries.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>

#include "report/report.hpp"

namespace condlint {

namespace fs = std::filesystem;

static std::string percent_encode_path(std::string_view p) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(p.size());
  for (unsigned char c : p) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// True when `p` is already what lexically_normal makes of it: no empty, "." or ".." segment, no trailing slash.
static bool plainly_normal(std::string_view p) {
  if (p.empty() || p.back() == '/') return false;
  for (size_t i = p.front() == '/' ? 1 : 0; i <= p.size();) {
    const size_t end = std::min(p.find('/', i), p.size());
    const std::string_view segment = p.substr(i, end - i);
    if (segment.empty() || segment == "." || segment == "..") return false;
    i = end + 1;
  }
  return true;
}

std::string artifact_uri(const std::string& path) {
  std::error_code ec;
  static const fs::path cwd = fs::current_path(ec);  // condlint never changes its working directory
  static const std::string cwd_text = cwd.generic_string();
  // Paths as a directory walk gives them are already normal: the URI without building paths (a zoo has thousands).
  if (plainly_normal(path) && plainly_normal(cwd_text) && cwd_text.front() == '/') {
    if (path.front() != '/') return percent_encode_path(path);
    if (path.size() > cwd_text.size() + 1 && path.compare(0, cwd_text.size(), cwd_text) == 0 &&
        path[cwd_text.size()] == '/')
      return percent_encode_path(path.substr(cwd_text.size() + 1));
    return "file://" + percent_encode_path(path);
  }
  fs::path abs = fs::absolute(fs::path(path), ec).lexically_normal();
  if (!ec && !cwd.empty()) {
    const fs::path rel = abs.lexically_relative(cwd);
    const std::string r = rel.generic_string();
    if (!rel.empty() && r != ".." && r.rfind("../", 0) != 0) return percent_encode_path(r);
  }
  return "file://" + percent_encode_path(abs.generic_string());
}

std::optional<std::string> relative_uri_path(const std::string& uri) {
  if (uri.empty() || uri.front() == '/' || uri.find(':') != std::string::npos) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      out += uri[i];
      continue;
    }
    if (i + 2 >= uri.size() || !std::isxdigit(static_cast<unsigned char>(uri[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(uri[i + 2])))
      return std::nullopt;
    const char c = static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
    if (c == '\0') return std::nullopt;
    out += c;
    i += 2;
  }
  return out;
}

static uint64_t fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= 0xff;  // field separator
  h *= 1099511628211ull;
  return h;
}

std::string fingerprint_hash(const std::string& rule, const std::string& uri, const std::string& node,
                             const std::string& pointer) {
  uint64_t h = 14695981039346656037ull;
  h = fnv1a(h, rule);
  h = fnv1a(h, uri);
  h = fnv1a(h, node);
  h = fnv1a(h, pointer);
  std::string out(16, '0');  // 16 lower-case hex digits (findings are many: no printf)
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = "0123456789abcdef"[h & 0xf];
  return out;
}

void compute_fingerprints(FileResult& f) {
  std::map<std::string, int> seen;
  const std::string file_uri = artifact_uri(f.path);  // most findings are in the model's own file
  auto one = [&](const Finding& x) {
    const bool own = x.loc.file.empty() || x.loc.file == f.path;
    const std::string h =
        fingerprint_hash(x.rule, own ? file_uri : artifact_uri(x.loc.file), x.loc.node, x.loc.pointer);
    return h + ":" + std::to_string(++seen[h]);
  };
  f.info.resize(f.findings.size());
  for (size_t i = 0; i < f.findings.size(); ++i) f.info[i].fingerprint = one(f.findings[i]);
  for (auto& s : f.suppressed) s.info.fingerprint = one(s.finding);
}

void compute_code_point_columns(FileResult& f) {
  CodePointColumns columns;
  auto one = [&](Finding& x) {
    if (x.loc.line <= 0 || x.loc.column <= 1) return;
    x.loc.code_point_column = columns.column(x.loc.file.empty() ? f.path : x.loc.file, x.loc.line, x.loc.column);
  };
  for (auto& x : f.findings) one(x);
  for (auto& s : f.suppressed) one(s.finding);
}

int CodePointColumns::column_in(std::string_view text, size_t line_start, int byte_column) {
  if (byte_column <= 1 || line_start > text.size()) return byte_column;
  size_t end = std::min(text.size(), line_start + static_cast<size_t>(byte_column - 1));
  const size_t nl = text.find('\n', line_start);
  if (nl != std::string_view::npos && nl < end) end = nl;  // never count past the line
  int cps = 0;
  for (size_t i = line_start; i < end; ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++cps;
  // A column past the line's end (should not happen) keeps its distance from the end.
  return cps + 1 + static_cast<int>(line_start + static_cast<size_t>(byte_column - 1) - end);
}

int CodePointColumns::column(const std::string& path, int line, int byte_column) {
  if (line <= 0 || byte_column <= 1) return byte_column;
  auto it = files_.find(path);
  if (it == files_.end()) {
    files_.clear();  // findings arrive file by file: one file's bytes in memory at a time
    File f;
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      f.text = ss.str();
      f.ok = static_cast<bool>(in) || in.eof();
      f.starts.push_back(0);
      for (size_t i = 0; i < f.text.size(); ++i)
        if (f.text[i] == '\n') f.starts.push_back(i + 1);
    }
    it = files_.emplace(path, std::move(f)).first;
  }
  const File& f = it->second;
  if (!f.ok || static_cast<size_t>(line) > f.starts.size()) return byte_column;
  return column_in(f.text, f.starts[static_cast<size_t>(line - 1)], byte_column);
}

std::string sentence(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  if (s.empty()) return "(no message).";
  const char c = s.back();
  if (c != '.' && c != '!' && c != '?') s += '.';
  return s;
}

// ---- Conditional summaries ----

static bool same_place(const SourceLocation& finding, const SourceLocation& cell) {
  if (finding.line > 0 && cell.line > 0) return finding.line == cell.line;
  if (!finding.pointer.empty() && !cell.pointer.empty()) return finding.pointer == cell.pointer;
  if (finding.offset >= 0 && cell.offset >= 0) return finding.offset == cell.offset;
  return false;
}

static CondCell cell_of(const ValueDesc& v, const std::vector<Finding>& fs, const SourceLocation* binding) {
  CondCell c;
  c.present = v.present;
  if (!v.present) return c;
  c.label = v.label;
  c.type = v.type.str();
  c.shape = v.scalar_or_dynamic_rank ? "[] or ?" : v.shape.str();
  for (const auto& f : fs)
    if (same_place(f.loc, v.loc) || (binding && same_place(f.loc, *binding))) c.offending = true;
  return c;
}

std::vector<ConditionalSummary> summarize_conditionals(const Model& m, const std::vector<Finding>& fs) {
  std::vector<ConditionalSummary> out;
  for (const auto& cv : m.conditionals) {
    ConditionalSummary s;
    s.name = cv.name;
    s.path = m.path_of(cv.graph, cv.node);
    s.exec_path = m.full_path_of(cv.graph, cv.node);
    s.line = cv.loc.line;
    s.has_condition = cv.has_condition;
    if (cv.has_condition) s.condition = cell_of(cv.condition, fs, nullptr);
    if (cv.provenance.traced) {
      s.provenance = cv.provenance.text;
      if (cv.provenance.decided >= 0)
        s.branch_status[cv.provenance.decided == 1 ? 1 : 0] =
            "dead: the condition is always " + std::string(cv.provenance.decided == 1 ? "true" : "false") + " (" +
            cv.provenance.decided_why + ")";
    }
    for (const auto& f : fs)
      if (f.loc.graph == cv.graph && f.loc.node_index == cv.node) ++s.findings;
    // Inputs, keyed by the outer index; outputs, keyed by the output index.
    std::map<int, CondRow> ins, outs;
    for (int b = 0; b < 2; ++b) {
      const BranchView& br = cv.branch[b];
      s.has_branch[b] = br.graph >= 0;
      for (const auto& ib : br.inputs) {
        CondRow& r = ins[ib.outer_index];
        r.kind = "input";
        r.index = ib.outer_index;
        if (!r.outer.present) r.outer = cell_of(ib.outer, fs, nullptr);
        r.branch[b] = cell_of(ib.inner, fs, &ib.loc);
      }
      for (const auto& ob : br.outputs) {
        CondRow& r = outs[ob.output_index];
        r.kind = "output";
        r.index = ob.output_index;
        r.branch[b] = cell_of(ob.value, fs, &ob.loc);
      }
    }
    for (size_t i = 0; i < cv.outputs.size(); ++i) {
      CondRow& r = outs[static_cast<int>(i)];
      r.kind = "output";
      r.index = static_cast<int>(i);
      r.outer = cell_of(cv.outputs[i], fs, nullptr);
    }
    for (auto* rows : {&ins, &outs})
      for (auto& [k, r] : *rows) {
        if (r.branch[0].present && r.branch[1].present) {
          r.type_differs = r.branch[0].type != r.branch[1].type;
          r.shape_differs = r.branch[0].shape != r.branch[1].shape;
          // The finding is reported at the conditional; the disagreeing cells are the offending ones.
          if (s.findings > 0 && (r.type_differs || r.shape_differs))
            r.branch[0].offending = r.branch[1].offending = true;
        }
        s.rows.push_back(std::move(r));
      }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace condlint
