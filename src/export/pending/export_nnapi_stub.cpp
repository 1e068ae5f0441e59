// Stand-in for src/export/export_nnapi.cpp until the NNAPI export lands on this branch: CMakeLists.txt compiles
// this file only while export_nnapi.cpp does not exist, so the merge needs no edit here (delete it then).
#include "export/export.hpp"

namespace condlint::xport {

ExportResult export_nnapi(const fs::path& json, const ExportOptions&) {
  ExportResult r;
  r.problems.push_back(json.string() + ": NNAPI export is not built into this condlint (src/export/export_nnapi.cpp is absent)");
  return r;
}

}  // namespace condlint::xport
