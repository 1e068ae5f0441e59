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
    for (const auto& x : f.findings) {
      json loc{{"path", x.loc.file.empty() ? f.path : x.loc.file}, {"node", x.loc.node}};
      if (x.loc.line > 0) {
        loc["line"] = x.loc.line;
        loc["column"] = x.loc.column;
      }
      if (!x.loc.pointer.empty()) loc["pointer"] = x.loc.pointer;
      jf["findings"].push_back(json{{"rule", x.rule},
                                    {"name", x.name},
                                    {"level", std::string(to_string(x.level))},
                                    {"message", x.message},
                                    {"location", loc}});
    }
    files.push_back(std::move(jf));
  }
  const Summary s = summarize(r);
  json doc{{"tool", {{"name", "condlint"}, {"version", CONDLINT_VERSION}}},
           {"files", files},
           {"summary", {{"files", s.files}, {"errors", s.errors}, {"warnings", s.warnings}, {"notes", s.notes}}}};
  // Invalid UTF-8 from a hostile file must not abort the report: replace it.
  os << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace condlint
