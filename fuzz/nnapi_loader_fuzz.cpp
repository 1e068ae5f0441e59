// libFuzzer target: any bytes as an NNAPI model JSON -> load + every rule. Must never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "loaders/loader.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto model = condlint::load_nnapi("fuzz.nnapi.json", bytes);
  if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  return 0;
}
