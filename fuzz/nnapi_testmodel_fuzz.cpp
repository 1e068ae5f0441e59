// libFuzzer target: any bytes as an AOSP NNAPI TestModel .example.cpp -> import, then every model the
// importer wrote -> NNAPI loader + every rule. Must never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "importers/nnapi_testmodel.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<condlint::ImportedModel> out;
  std::string error;
  (void)condlint::convert_nnapi_testmodels(std::string_view(reinterpret_cast<const char*>(data), size), out, error);
  for (const auto& m : out) {
    auto model = condlint::load_nnapi(m.name + ".nnapi.json", m.json);
    if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  }
  return 0;
}
