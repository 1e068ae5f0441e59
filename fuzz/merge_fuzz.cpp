// libFuzzer target: `condlint merge` on hostile shares. The input is split at NUL bytes into up to eight reports
// (shares) given to merge_reports. Aborts when a merge that reports no error gives no complete JSON document, or
// one that reports an error still gives text; the sanitizers catch the rest.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "report/merge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<condlint::ShardReport> shares;
  while (shares.size() < 8) {
    const size_t z = in.find('\0');
    shares.push_back({"share" + std::to_string(shares.size() + 1), std::string(in.substr(0, z))});
    if (z == std::string_view::npos) break;
    in.remove_prefix(z + 1);
  }
  const condlint::MergeResult m = condlint::merge_reports(shares, std::nullopt);
  if (!m.error.empty()) {
    if (!m.text.empty()) std::abort();
    return 0;
  }
  if (nlohmann::json::parse(m.text, nullptr, false).is_discarded()) std::abort();
  return 0;
}
