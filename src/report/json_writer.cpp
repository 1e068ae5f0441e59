// JSON report: the contract in schemas/report.schema.json.
#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace condlint {

void write_json(std::ostream& os, const RunResult& r) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& f : r.files) {
    json jf{{"path", f.path}, {"format", f.format}, {"findings", json::array()}};
    if (!f.io_error.empty()) jf["error"] = f.io_error;
    for (size_t i = 0; i < f.findings.size(); ++i) {
      const Finding& x = f.findings[i];
      json loc{{"path", x.loc.file.empty() ? f.path : x.loc.file}, {"node", x.loc.node}};
      if (x.loc.line > 0) {
        loc["line"] = x.loc.line;
        loc["column"] = x.loc.column;
      }
      if (!x.loc.pointer.empty()) loc["pointer"] = x.loc.pointer;
      json jx{{"rule", x.rule},
              {"name", x.name},
              {"level", std::string(to_string(x.level))},
              {"message", x.message},
              {"location", loc}};
      if (i < f.info.size() && !f.info[i].baseline.empty()) jx["baselineState"] = f.info[i].baseline;
      jf["findings"].push_back(std::move(jx));
    }
    files.push_back(std::move(jf));
  }
  const Summary s = summarize(r);
  json doc{{"tool", {{"name", "condlint"}, {"version", CONDLINT_VERSION}}},
           {"files", files},
           {"summary", {{"files", s.files}, {"errors", s.errors}, {"warnings", s.warnings}, {"notes", s.notes}}}};
  if (r.run.shard) {
    const ShardInfo& sh = *r.run.shard;
    json positions = json::array();
    for (size_t i = 0; i < r.files.size(); ++i) positions.push_back(i < sh.positions.size() ? sh.positions[i] : i);
    doc["shard"] = json{{"shard", std::to_string(sh.index) + "/" + std::to_string(sh.count)},
                        {"run", sh.run},
                        {"totalFiles", sh.total_files},
                        {"positions", positions},
                        {"inputErrors", sh.input_errors},
                        {"baseline", r.run.has_baseline},
                        {"failOn", sh.fail_on},
                        {"maxWarnings", sh.max_warnings}};
  }
  // Invalid UTF-8 from a hostile file must not abort the report: replace it.
  os << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace condlint
