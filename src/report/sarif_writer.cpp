// SARIF 2.1.0 report, as GitHub code scanning and other SARIF viewers read it.
// Everything comes from RunResult; nothing here depends on a model format.
#include <nlohmann/json.hpp>

#include "report/embedded.hpp"
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
  return tags;
}

std::string mime_of(const std::string& format, const std::string& path) {
  if (format == "ir") return "application/xml";
  if (format == "nnapi") return "application/json";
  if (format == "onnx") return "application/octet-stream";
  auto ends = [&](const char* e) {
    const size_t n = std::strlen(e);
    return path.size() >= n && path.compare(path.size() - n, n, e) == 0;
  };
  if (ends(".xml")) return "application/xml";
  if (ends(".json")) return "application/json";
  return "application/octet-stream";
}

int rule_index(const std::string& id) {
  const auto& rules = all_rules();
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i]->id == id) return static_cast<int>(i);
  return -1;
}

json location_of(const Finding& x, const std::string& uri, int artifact_index, int64_t file_size) {
  json art{{"uri", uri}};
  if (artifact_index >= 0) art["index"] = artifact_index;
  json phys{{"artifactLocation", art}};
  if (x.loc.line > 0) {
    json region{{"startLine", x.loc.line}};
    if (x.loc.column > 0) region["startColumn"] = x.loc.column;
    phys["region"] = region;
  } else {
    // No lines (binary ONNX): the whole file as a binary region; the node path is in logicalLocations.
    json region{{"byteOffset", 0}};
    if (file_size >= 0) region["byteLength"] = file_size;
    phys["region"] = region;
  }
  json loc{{"physicalLocation", phys}};
  if (!x.loc.node.empty()) {
    json logical{{"fullyQualifiedName", x.loc.node}};
    const auto slash = x.loc.node.rfind('/');
    logical["name"] = slash == std::string::npos ? x.loc.node : x.loc.node.substr(slash + 1);
    loc["logicalLocations"] = json::array({logical});
  }
  if (!x.loc.pointer.empty()) loc["properties"] = json{{"jsonPointer", x.loc.pointer}};
  return loc;
}

json result_of(const Finding& x, const std::string& uri, int artifact_index, int64_t size, const ResultInfo& info) {
  json r{{"ruleId", x.rule}, {"level", sarif_level(x.level)}, {"message", {{"text", sentence(x.message)}}}};
  if (const int idx = rule_index(x.rule); idx >= 0) r["ruleIndex"] = idx;
  r["locations"] = json::array({location_of(x, uri, artifact_index, size)});
  if (!info.fingerprint.empty()) r["partialFingerprints"] = json{{"primaryLocationLineHash", info.fingerprint}};
  if (!info.baseline.empty()) r["baselineState"] = info.baseline;
  return r;
}

// The share's bookkeeping for `condlint merge` (ShardInfo): per file its place in the unsharded run, how many
// results follow its artifact and whether it has a notification; the baseline index of each absent result.
json shard_block(const RunResult& r) {
  const ShardInfo& s = *r.run.shard;
  json files = json::array();
  for (size_t i = 0; i < r.files.size(); ++i) {
    const FileResult& f = r.files[i];
    json jf{{"position", i < s.positions.size() ? s.positions[i] : i},
            {"results", f.findings.size() + f.suppressed.size()}};
    if (!f.io_error.empty()) jf["notified"] = true;
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
              {"maxWarnings", s.max_warnings}};
}

}  // namespace

void write_sarif(std::ostream& os, const RunResult& r) {
  json rules = json::array();
  for (const RuleDef* d : all_rules()) {
    const std::string_view page = embedded::rule_page(d->id);
    std::string full = page_section(page, "What it checks");
    if (full.empty()) full = std::string(d->summary);
    json rule{{"id", std::string(d->id)},
              {"name", std::string(d->name)},
              {"shortDescription", {{"text", sentence(std::string(d->summary))}}},
              {"fullDescription", {{"text", sentence(full)}}},
              {"defaultConfiguration", {{"level", sarif_level(d->level)}}},
              {"properties",
               {{"tags", formats_tags(d->formats)},
                {"precision", "very-high"},
                {"problem.severity", d->level == Level::Error     ? "error"
                                     : d->level == Level::Warning ? "warning"
                                                                  : "recommendation"}}}};
    if (!page.empty()) rule["help"] = json{{"text", std::string(page)}, {"markdown", std::string(page)}};
    else rule["help"] = json{{"text", sentence(std::string(d->summary))}};
    rules.push_back(std::move(rule));
  }

  json artifacts = json::array();
  json results = json::array();
  CodePointColumns columns;  // byte columns (loaders) -> code points (run.columnKind)
  auto in_code_points = [&](Finding x, const std::string& file) {
    if (x.loc.line > 0 && x.loc.column > 1) x.loc.column = columns.column(file, x.loc.line, x.loc.column);
    return x;
  };
  for (const auto& f : r.files) {
    const std::string uri = artifact_uri(f.path);
    const int index = static_cast<int>(artifacts.size());
    json art{{"location", {{"uri", uri}}}, {"mimeType", mime_of(f.format, f.path)}, {"roles", {"analysisTarget"}}};
    if (f.size >= 0) art["length"] = f.size;
    artifacts.push_back(std::move(art));
    for (size_t i = 0; i < f.findings.size(); ++i) {
      const bool other_file = !f.findings[i].loc.file.empty() && f.findings[i].loc.file != f.path;
      const Finding x = in_code_points(f.findings[i], other_file ? f.findings[i].loc.file : f.path);
      results.push_back(result_of(x, other_file ? artifact_uri(x.loc.file) : uri, other_file ? -1 : index,
                                  other_file ? -1 : f.size, i < f.info.size() ? f.info[i] : ResultInfo{}));
    }
    for (const auto& s : f.suppressed) {
      const bool other_file = !s.finding.loc.file.empty() && s.finding.loc.file != f.path;
      const Finding x = in_code_points(s.finding, other_file ? s.finding.loc.file : f.path);
      json res = result_of(x, other_file ? artifact_uri(x.loc.file) : uri, other_file ? -1 : index,
                           other_file ? -1 : f.size, s.info);
      json sup{{"kind", s.kind}, {"status", "accepted"}};
      if (!s.justification.empty()) sup["justification"] = s.justification;
      res["suppressions"] = json::array({sup});
      results.push_back(std::move(res));
    }
  }
  for (const auto& a : r.run.absent) {
    ResultInfo info{a.fingerprint, "absent"};
    results.push_back(result_of(a.finding, a.uri, -1, -1, info));
  }

  json invocation{{"executionSuccessful", r.run.execution_successful}, {"exitCode", r.run.exit_code}};
  if (!r.run.overrides.empty()) {
    json ov = json::array();
    for (const auto& o : r.run.overrides) {
      json desc{{"id", o.rule}};
      if (const int idx = rule_index(o.rule); idx >= 0) desc["index"] = idx;
      json conf = o.level == Level::Off ? json{{"enabled", false}} : json{{"level", sarif_level(o.level)}};
      ov.push_back(json{{"descriptor", desc}, {"configuration", conf}});
    }
    invocation["ruleConfigurationOverrides"] = ov;
  }
  if (!r.run.notifications.empty()) {
    json notes = json::array();
    for (const auto& n : r.run.notifications)
      notes.push_back(json{{"level", "error"}, {"message", {{"text", sentence(n)}}}});
    invocation["toolExecutionNotifications"] = notes;
  }

  json run{{"tool",
            {{"driver",
              {{"name", "condlint"},
               {"version", CONDLINT_VERSION},
               {"semanticVersion", CONDLINT_VERSION},
               {"informationUri", CONDLINT_INFORMATION_URI},
               {"rules", rules}}}}},
           {"automationDetails", {{"id", r.run.automation_id}}},
           {"invocations", json::array({invocation})},
           {"artifacts", artifacts},
           {"columnKind", "unicodeCodePoints"},
           {"results", results}};
  if (r.run.shard) run["properties"] = json{{"condlint.shard", shard_block(r)}};
  json doc{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  os << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace condlint
