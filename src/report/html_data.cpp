// The page data of one file (report/html_data.hpp): written into a share's bookkeeping, read back by the merge.
#include "report/html_data.hpp"

#include "report/json_read.hpp"

namespace condlint {

namespace {

template <class Json>
Json finding_data(const Finding& x, const std::string& baseline) {
  Json j{{"rule", x.rule}, {"name", x.name}, {"level", std::string(to_string(x.level))}, {"message", x.message}};
  if (!x.loc.file.empty()) j["file"] = x.loc.file;
  if (x.loc.line > 0) j["line"] = x.loc.line;
  if (!x.loc.node.empty()) j["node"] = x.loc.node;
  if (!x.loc.pointer.empty()) j["pointer"] = x.loc.pointer;
  if (!baseline.empty()) j["baseline"] = baseline;
  if (x.fixable != Fixable::No) j["fixable"] = std::string(to_string(x.fixable));
  return j;
}

template <class Json>
Json cell_data(const CondCell& c) {
  if (!c.present) return Json();
  Json j{{"type", c.type}, {"shape", c.shape}};
  if (!c.label.empty()) j["label"] = c.label;
  if (c.offending) j["offending"] = true;
  return j;
}

template <class Json>
Json conditional_data(const ConditionalSummary& c) {
  Json rows = Json::array();
  for (const auto& r : c.rows) {
    Json row{{"kind", r.kind},
             {"index", r.index},
             {"outer", cell_data<Json>(r.outer)},
             {"then", cell_data<Json>(r.branch[0])},
             {"else", cell_data<Json>(r.branch[1])}};
    if (r.type_differs) row["typeDiffers"] = true;
    if (r.shape_differs) row["shapeDiffers"] = true;
    rows.push_back(std::move(row));
  }
  Json j{{"name", c.name},
         {"path", c.path},
         {"execPath", c.exec_path},
         {"line", c.line},
         {"findings", c.findings},
         {"hasBranch", Json::array({c.has_branch[0], c.has_branch[1]})},
         {"branchStatus", Json::array({c.branch_status[0], c.branch_status[1]})},
         {"rows", std::move(rows)}};
  if (c.has_condition) j["condition"] = cell_data<Json>(c.condition);
  if (!c.provenance.empty()) j["provenance"] = c.provenance;
  return j;
}

template <class Json>
bool flag(const Json& j, const char* key) {
  const Json* v = json_find(j, key);
  return v && v->is_boolean() && v->template get<bool>();
}

template <class Json>
size_t count_of(const Json& j, const char* key) {
  const Json* v = json_find(j, key);
  return v && v->is_number_unsigned() ? v->template get<size_t>() : 0;
}

template <class Json>
bool read_finding(const Json& j, Finding& x, std::string& baseline) {
  if (!j.is_object() || !parse_level(json_text(j, "level"), x.level) || x.level == Level::Off) return false;
  x.rule = json_text(j, "rule");
  x.name = json_text(j, "name");
  x.message = json_text(j, "message");
  x.loc.file = json_text(j, "file");
  x.loc.line = json_int(j, "line");
  x.loc.node = json_text(j, "node");
  x.loc.pointer = json_text(j, "pointer");
  baseline = json_text(j, "baseline");
  const std::string fixable = json_text(j, "fixable");
  x.fixable = fixable == "safe" ? Fixable::Safe : fixable == "unsafe" ? Fixable::Unsafe : Fixable::No;
  return !x.rule.empty();
}

template <class Json>
CondCell read_cell(const Json& j) {
  CondCell c;
  if (!j.is_object()) return c;
  c.present = true;
  c.type = json_text(j, "type");
  c.shape = json_text(j, "shape");
  c.label = json_text(j, "label");
  c.offending = flag(j, "offending");
  return c;
}

template <class Json>
bool read_conditional(const Json& j, ConditionalSummary& c) {
  if (!j.is_object()) return false;
  c.name = json_text(j, "name");
  c.path = json_text(j, "path");
  c.exec_path = json_text(j, "execPath");
  c.line = json_int(j, "line");
  c.findings = count_of(j, "findings");
  const Json& has = json_at(j, "hasBranch");
  const Json& status = json_at(j, "branchStatus");
  for (size_t b = 0; b < 2; ++b) {
    c.has_branch[b] = has.is_array() && has.size() == 2 && has[b].is_boolean() && has[b].template get<bool>();
    if (status.is_array() && status.size() == 2 && status[b].is_string())
      c.branch_status[b] = status[b].template get<std::string>();
  }
  if (const Json* cond = json_find(j, "condition")) {
    c.has_condition = true;
    c.condition = read_cell(*cond);
  }
  c.provenance = json_text(j, "provenance");
  const Json& rows = json_at(j, "rows");
  if (!rows.is_array()) return false;
  for (const Json& r : rows) {
    if (!r.is_object()) return false;
    CondRow row;
    row.kind = json_text(r, "kind");
    if (row.kind != "input" && row.kind != "output") return false;
    row.index = json_int(r, "index");
    row.outer = read_cell(json_at(r, "outer"));
    row.branch[0] = read_cell(json_at(r, "then"));
    row.branch[1] = read_cell(json_at(r, "else"));
    row.type_differs = flag(r, "typeDiffers");
    row.shape_differs = flag(r, "shapeDiffers");
    c.rows.push_back(std::move(row));
  }
  return !c.path.empty();
}

}  // namespace

template <class Json>
Json html_file_data(const FileResult& f, bool has_conditionals) {
  Json findings = Json::array(), suppressed = Json::array();
  for (size_t i = 0; i < f.findings.size(); ++i)
    findings.push_back(finding_data<Json>(f.findings[i], i < f.info.size() ? f.info[i].baseline : std::string()));
  for (const auto& s : f.suppressed) {
    Json j = finding_data<Json>(s.finding, s.info.baseline);
    j["suppression"] = s.kind;
    j["justification"] = s.justification;
    suppressed.push_back(std::move(j));
  }
  Json j{{"path", f.path}, {"format", f.format}, {"findings", std::move(findings)}};
  if (!f.suppressed.empty()) j["suppressed"] = std::move(suppressed);
  if (!f.io_error.empty()) j["error"] = f.io_error;
  if (has_conditionals) {
    Json conds = Json::array();
    for (const auto& c : f.conditionals) conds.push_back(conditional_data<Json>(c));
    j["conditionals"] = std::move(conds);
  }
  return j;
}

template <class Json>
bool html_file_from_data(const Json& j, FileResult& f, bool& has_conditionals, std::string& err) {
  f = FileResult{};
  const Json* findings = json_find(j, "findings");
  if (!j.is_object() || !json_find(j, "path") || !findings || !findings->is_array()) {
    err = "no path or findings";
    return false;
  }
  f.path = json_text(j, "path");
  f.format = json_text(j, "format");
  f.io_error = json_text(j, "error");
  for (const Json& x : *findings) {
    Finding finding;
    ResultInfo info;
    if (!read_finding(x, finding, info.baseline)) {
      err = "a finding without rule or level";
      return false;
    }
    f.findings.push_back(std::move(finding));
    f.info.push_back(std::move(info));
  }
  if (const Json* sup = json_find(j, "suppressed"); sup && sup->is_array())
    for (const Json& x : *sup) {
      SuppressedFinding s;
      if (!read_finding(x, s.finding, s.info.baseline)) {
        err = "a suppressed finding without rule or level";
        return false;
      }
      s.kind = json_text(x, "suppression");
      s.justification = json_text(x, "justification");
      f.suppressed.push_back(std::move(s));
    }
  const Json* conds = json_find(j, "conditionals");
  has_conditionals = conds && conds->is_array();
  if (has_conditionals)
    for (const Json& c : *conds) {
      ConditionalSummary s;
      if (!read_conditional(c, s)) {
        err = "a conditional without path or rows";
        return false;
      }
      f.conditionals.push_back(std::move(s));
    }
  return true;
}

template nlohmann::json html_file_data<nlohmann::json>(const FileResult&, bool);
template nlohmann::ordered_json html_file_data<nlohmann::ordered_json>(const FileResult&, bool);
template bool html_file_from_data<nlohmann::json>(const nlohmann::json&, FileResult&, bool&, std::string&);
template bool html_file_from_data<nlohmann::ordered_json>(const nlohmann::ordered_json&, FileResult&, bool&,
                                                          std::string&);

}  // namespace condlint
