#include "report/report.hpp"

namespace condlint {

Summary summarize(const RunResult& r) {
  Summary s;
  s.files = r.files.size();
  for (const auto& f : r.files) {
    if (!f.io_error.empty()) ++s.io_errors;
    s.suppressed += f.suppressed.size();
    for (const auto& x : f.findings) {
      if (x.level == Level::Error) ++s.errors;
      else if (x.level == Level::Warning) ++s.warnings;
      else if (x.level == Level::Note) ++s.notes;
    }
  }
  return s;
}

}  // namespace condlint
