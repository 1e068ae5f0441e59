// SARIF 2.1.0 report, as GitHub code scanning and other SARIF viewers read it.
// Everything comes from RunResult; nothing here depends on a model format.
#include <nlohmann/json.hpp>

#include <map>

#include "report/embedded.hpp"
#include "report/html_data.hpp"
#include "report/json_stream.hpp"
#include "report/report.hpp"

#ifndef CONDLINT_INFORMATION_URI
#define CONDLINT_INFORMATION_URI "https://github.com/condlint/condlint"
#endif

namespace condlint {

namespace {

using json = nlohmann::ordered_json;

std::string sarif_level(Level l) {
  switch (l) {
    case Level::Error: return "error";
    case Level::Warning: return "warning";
    case Level::Note: return "note";
    case Level::Off: return "none";
  }
  return "error";
}

// The text of a "## <title>" section of a rule page, paragraphs joined, without markup lines.
std::string page_section(std::string_view page, std::string_view title) {
  const std::string head = "## " + std::string(title);
  size_t p = page.find(head);
  if (p == std::string_view::npos) return {};
  p = page.find('\n', p);
  if (p == std::string_view::npos) return {};
  size_t end = page.find("\n## ", p);
  std::string_view body = page.substr(p + 1, end == std::string_view::npos ? std::string_view::npos : end - p - 1);
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    size_t nl = body.find('\n', i);
    std::string_view line = body.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    i = nl == std::string_view::npos ? body.size() : nl + 1;
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) {
      if (!out.empty() && out.back() != '\n') out += "\n\n";
      continue;
    }
    if (!out.empty() && out.back() != '\n') out += ' ';
    out += line;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

json formats_tags(unsigned formats) {
  json tags = json::array({"condlint", "correctness"});
  if (formats & kIR) tags.push_back("openvino-ir");
  if (formats & kONNX) tags.push_back("onnx");
  if (formats & kNNAPI) tags.push_back("nnapi");
  if (formats & kTFLITE) tags.push_back("tflite");
  return tags;
}

// The media type of a file of the format the front door decided; a file whose format is not known (it could not be
// read) is bytes, whatever its name says.
std::string mime_of(const std::string& format) {
  if (format == "ir") return "application/xml";
  if (format == "nnapi") return "application/json";
  return "application/octet-stream";
}

// A rule's place in the driver's rules array, by id.
class RuleIndex {
 public:
  RuleIndex() {
    const auto& rules = all_rules();
    for (size_t i = 0; i < rules.size(); ++i) index_.emplace(rules[i]->id, static_cast<int>(i));
  }
  int operator()(const std::string& id) const {
    const auto it = index_.find(id);
    return it == index_.end() ? -1 : it->second;
  }

 private:
  std::map<std::string_view, int, std::less<>> index_;
};

void write_location(JsonStream& out, const Finding& x, const std::string& uri, int artifact_index, int64_t file_size) {
  out.begin_object().key("physicalLocation").begin_object();
  out.key("artifactLocation").begin_object().member("uri", uri);
  if (artifact_index >= 0) out.member("index", artifact_index);
  out.end_object().key("region").begin_object();
  if (x.loc.line > 0) {
    out.member("startLine", x.loc.line);
    // run.columnKind counts code points: the column compute_code_point_columns took from the file where the model
    // was judged, else the loader's (a byte column, the same on an ASCII line).
    const int column = x.loc.code_point_column > 0 ? x.loc.code_point_column : x.loc.column;
    if (column > 0) out.member("startColumn", column);
  } else {
    // No lines (binary ONNX): the whole file as a binary region; the node path is in logicalLocations.
    out.member("byteOffset", 0);
    if (file_size >= 0) out.member("byteLength", file_size);
  }
  out.end_object().end_object();
  if (!x.loc.node.empty()) {
    const auto slash = x.loc.node.rfind('/');
    out.key("logicalLocations").begin_array().begin_object().member("fullyQualifiedName", x.loc.node);
    out.member("name", slash == std::string::npos ? std::string_view(x.loc.node)
                                                  : std::string_view(x.loc.node).substr(slash + 1));
    out.end_object().end_array();
  }
  if (!x.loc.pointer.empty()) out.key("properties").begin_object().member("jsonPointer", x.loc.pointer).end_object();
  out.end_object();
}

// One result; `suppression` adds its suppressions array.
void write_result(JsonStream& out, const RuleIndex& rule_index, const Finding& x, const std::string& uri,
                  int artifact_index, int64_t size, const ResultInfo& info,
                  const SuppressedFinding* suppression = nullptr) {
  out.begin_object().member("ruleId", x.rule).member("level", sarif_level(x.level));
  const std::string_view m = x.message;  // most messages are sentences already: written without a copy
  if (!m.empty() && (m.back() == '.' || m.back() == '!' || m.back() == '?'))
    out.key("message").begin_object().member("text", m).end_object();
  else out.key("message").begin_object().member("text", sentence(x.message)).end_object();
  if (const int idx = rule_index(x.rule); idx >= 0) out.member("ruleIndex", idx);
  out.key("locations").begin_array();
  write_location(out, x, uri, artifact_index, size);
  out.end_array();
  if (!info.fingerprint.empty())
    out.key("partialFingerprints").begin_object().member("primaryLocationLineHash", info.fingerprint).end_object();
  if (!info.baseline.empty()) out.member("baselineState", info.baseline);
  // condlint fix repairs it (rules/<ID>.md, "Fixable"): a property on every such result, and for a text file (an
  // IR's XML) the fix itself, as byte ranges replaced (SARIF 2.1.0 §3.55, §3.57).
  if (x.fixable != Fixable::No)
    out.key("properties").begin_object().member("condlint.fixable", to_string(x.fixable)).end_object();
  if (!x.fix_edits.empty()) {
    out.key("fixes").begin_array().begin_object();
    out.key("description").begin_object().member("text", sentence(x.fix_description)).end_object();
    out.key("artifactChanges").begin_array().begin_object();
    // By URI only: `condlint merge` renumbers the artifacts of the results' locations, not of their fixes.
    out.key("artifactLocation").begin_object().member("uri", uri);
    out.end_object().key("replacements").begin_array();
    for (const FixEdit& e : x.fix_edits) {
      out.begin_object().key("deletedRegion").begin_object().member("byteOffset", e.begin);
      out.member("byteLength", e.end - e.begin).end_object();
      if (!e.text.empty()) out.key("insertedContent").begin_object().member("text", e.text).end_object();
      out.end_object();
    }
    out.end_array().end_object().end_array().end_object().end_array();
  }
  if (suppression) {
    out.key("suppressions").begin_array().begin_object();
    out.member("kind", suppression->kind).member("status", "accepted");
    if (!suppression->justification.empty()) out.member("justification", suppression->justification);
    out.end_object().end_array();
  }
  out.end_object();
}

void write_rules(JsonStream& out) {
  out.begin_array();
  for (const RuleDef* d : all_rules()) {
    const std::string_view page = embedded::rule_page(d->id);
    std::string full = page_section(page, "What it checks");
    if (full.empty()) full = std::string(d->summary);
    out.begin_object().member("id", d->id).member("name", d->name);
    out.member("helpUri", std::string(CONDLINT_HELP_URI_BASE) + "/" + std::string(d->id) + ".md");
    out.key("shortDescription").begin_object().member("text", sentence(std::string(d->summary))).end_object();
    out.key("fullDescription").begin_object().member("text", sentence(full)).end_object();
    out.key("defaultConfiguration").begin_object().member("level", sarif_level(d->level)).end_object();
    out.key("properties").begin_object().key("tags").value(formats_tags(d->formats));
    out.member("precision", "very-high");
    out.member("problem.severity", d->level == Level::Error     ? "error"
                                   : d->level == Level::Warning ? "warning"
                                                                : "recommendation");
    out.end_object().key("help").begin_object();
    if (!page.empty()) out.member("text", page).member("markdown", page);
    else out.member("text", sentence(std::string(d->summary)));
    out.end_object().end_object();
  }
  out.end_array();
}

void write_invocation(JsonStream& out, const RunResult& r, const RuleIndex& rule_index) {
  out.begin_object().member("executionSuccessful", r.run.execution_successful).member("exitCode", r.run.exit_code);
  if (!r.run.overrides.empty()) {
    out.key("ruleConfigurationOverrides").begin_array();
    for (const auto& o : r.run.overrides) {
      out.begin_object().key("descriptor").begin_object().member("id", o.rule);
      if (const int idx = rule_index(o.rule); idx >= 0) out.member("index", idx);
      out.end_object().key("configuration").begin_object();
      if (o.level == Level::Off) out.member("enabled", false);
      else out.member("level", sarif_level(o.level));
      out.end_object().end_object();
    }
    out.end_array();
  }
  if (!r.run.notifications.empty()) {
    out.key("toolExecutionNotifications").begin_array();
    for (const auto& n : r.run.notifications) {
      out.begin_object().member("level", "error");
      out.key("message").begin_object().member("text", sentence(n)).end_object().end_object();
    }
    out.end_array();
  }
  out.end_object();
}

void write_artifacts(JsonStream& out, const RunResult& r, const std::vector<std::string>& uris) {
  out.begin_array();
  for (size_t i = 0; i < r.files.size(); ++i) {
    const FileResult& f = r.files[i];
    out.begin_object().key("location").begin_object().member("uri", uris[i]).end_object();
    out.member("mimeType", mime_of(f.format));
    out.key("roles").begin_array().value("analysisTarget").end_array();
    if (f.size >= 0) out.member("length", f.size);
    out.end_object();
  }
  out.end_array();
}

void write_results(JsonStream& out, const RunResult& r, const std::vector<std::string>& uris,
                   const RuleIndex& rule_index) {
  static const ResultInfo kNoInfo;
  // A finding in this file refers to its artifact; one in another file (a .bin, external data) by its URI alone.
  auto one = [&](const FileResult& f, size_t index, const Finding& x, const ResultInfo& info,
                 const SuppressedFinding* suppression) {
    if (!x.loc.file.empty() && x.loc.file != f.path)
      write_result(out, rule_index, x, artifact_uri(x.loc.file), -1, -1, info, suppression);
    else write_result(out, rule_index, x, uris[index], static_cast<int>(index), f.size, info, suppression);
  };
  out.begin_array();
  for (size_t index = 0; index < r.files.size(); ++index) {
    const FileResult& f = r.files[index];
    for (size_t i = 0; i < f.findings.size(); ++i)
      one(f, index, f.findings[i], i < f.info.size() ? f.info[i] : kNoInfo, nullptr);
    for (const auto& s : f.suppressed) one(f, index, s.finding, s.info, &s);
  }
  for (const auto& a : r.run.absent) write_result(out, rule_index, a.finding, a.uri, -1, -1, {a.fingerprint, "absent"});
  out.end_array();
}

// The share's bookkeeping for `condlint merge` (ShardInfo): per file its place in the unsharded run, how many
// results follow its artifact, whether it has a notification and its page data; the baseline index of each absent
// result.
json shard_block(const RunResult& r) {
  const ShardInfo& s = *r.run.shard;
  json files = json::array();
  for (size_t i = 0; i < r.files.size(); ++i) {
    const FileResult& f = r.files[i];
    json jf{{"position", i < s.positions.size() ? s.positions[i] : i},
            {"results", f.findings.size() + f.suppressed.size()}};
    if (!f.io_error.empty()) jf["notified"] = true;
    jf["page"] = html_file_data<json>(f, s.conditionals);  // what `merge --html` draws the file's part of the page from
    files.push_back(std::move(jf));
  }
  json absent = json::array();
  for (const auto& a : r.run.absent) absent.push_back(a.baseline_index);
  return json{{"shard", std::to_string(s.index) + "/" + std::to_string(s.count)},
              {"run", s.run},
              {"totalFiles", s.total_files},
              {"files", files},
              {"inputErrors", s.input_errors},
              {"baseline", r.run.has_baseline},
              {"matchedBaseline", s.matched},
              {"absentBaseline", absent},
              {"failOn", s.fail_on},
              {"maxWarnings", s.max_warnings},
              {"conditionals", s.conditionals}};
}

}  // namespace

void write_sarif(std::ostream& os, const RunResult& r) {
  const RuleIndex rule_index;
  std::vector<std::string> uris;  // each file's artifact URI, computed once
  uris.reserve(r.files.size());
  for (const auto& f : r.files) uris.push_back(artifact_uri(f.path));

  JsonStream out(os);
  out.begin_object().member("$schema", "https://json.schemastore.org/sarif-2.1.0.json").member("version", "2.1.0");
  out.key("runs").begin_array().begin_object();
  out.key("tool").begin_object().key("driver").begin_object();
  out.member("name", "condlint").member("version", CONDLINT_VERSION).member("semanticVersion", CONDLINT_VERSION);
  out.member("informationUri", CONDLINT_INFORMATION_URI).key("rules");
  write_rules(out);
  out.end_object().end_object();
  out.key("automationDetails").begin_object().member("id", r.run.automation_id).end_object();
  out.key("invocations").begin_array();
  write_invocation(out, r, rule_index);
  out.end_array().key("artifacts");
  write_artifacts(out, r, uris);
  out.member("columnKind", "unicodeCodePoints").key("results");
  write_results(out, r, uris, rule_index);
  if (r.run.shard) out.key("properties").begin_object().key("condlint.shard").value(shard_block(r)).end_object();
  out.end_object().end_array().end_object();
  out.finish();
}

}  // namespace condlint
