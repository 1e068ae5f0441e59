// JSON report: the contract in schemas/report.schema.json.
#include "report/html_data.hpp"
#include "report/json_stream.hpp"
#include "report/report.hpp"

namespace condlint {

namespace {

// Members are written in the order nlohmann::json keeps them (sorted by name), which the report always had.
void write_finding(JsonStream& out, const Finding& x, const std::string& file, const ResultInfo* info) {
  out.begin_object();
  if (info && !info->baseline.empty()) out.member("baselineState", info->baseline);
  if (x.fixable != Fixable::No) out.member("fixable", to_string(x.fixable));
  out.member("level", to_string(x.level)).key("location").begin_object();
  if (x.loc.line > 0) out.member("column", x.loc.column).member("line", x.loc.line);
  out.member("node", x.loc.node).member("path", x.loc.file.empty() ? file : x.loc.file);
  if (!x.loc.pointer.empty()) out.member("pointer", x.loc.pointer);
  out.end_object().member("message", x.message).member("name", x.name).member("rule", x.rule);
  out.end_object();
}

nlohmann::json shard_block(const RunResult& r) {
  using nlohmann::json;
  const ShardInfo& sh = *r.run.shard;
  json positions = json::array();
  json absent = json::array();  // the baseline results this share did not match, by index: for the page's count
  for (const auto& a : r.run.absent) absent.push_back(a.baseline_index);
  json pages = json::array();  // what `merge --html` draws each file's part of the page from
  for (size_t i = 0; i < r.files.size(); ++i) {
    positions.push_back(i < sh.positions.size() ? sh.positions[i] : i);
    pages.push_back(html_file_data<json>(r.files[i], sh.conditionals));
  }
  return json{{"shard", std::to_string(sh.index) + "/" + std::to_string(sh.count)},
              {"run", sh.run},
              {"totalFiles", sh.total_files},
              {"positions", positions},
              {"pages", pages},
              {"matchedBaseline", sh.matched},
              {"absentBaseline", absent},
              {"inputErrors", sh.input_errors},
              {"baseline", r.run.has_baseline},
              {"failOn", sh.fail_on},
              {"maxWarnings", sh.max_warnings},
              {"conditionals", sh.conditionals}};
}

}  // namespace

void write_json(std::ostream& os, const RunResult& r) {
  JsonStream out(os);
  out.begin_object().key("files").begin_array();
  for (const auto& f : r.files) {
    out.begin_object();
    if (!f.io_error.empty()) out.member("error", f.io_error);
    out.key("findings").begin_array();
    for (size_t i = 0; i < f.findings.size(); ++i)
      write_finding(out, f.findings[i], f.path, i < f.info.size() ? &f.info[i] : nullptr);
    out.end_array().member("format", f.format).member("path", f.path).end_object();
  }
  out.end_array();
  if (r.run.shard) out.key("shard").value(shard_block(r));
  const Summary s = summarize(r);
  out.key("summary").begin_object().member("errors", s.errors).member("files", s.files);
  out.member("notes", s.notes).member("warnings", s.warnings).end_object();
  out.key("tool").begin_object().member("name", "condlint").member("version", CONDLINT_VERSION).end_object();
  out.end_object();
  out.finish();
}

}  // namespace condlint
