// libFuzzer target: any bytes as an OpenVINO IR file -> load + every rule. Must never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "loaders/loader.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto model = condlint::load_ir("fuzz.xml", std::string(reinterpret_cast<const char*>(data), size));
  if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  return 0;
}
