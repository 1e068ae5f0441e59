// libFuzzer target: any bytes as an ONNX model -> load + every rule. Must never crash or hang.
// The path has no directory, so external data is looked up in the fuzzer's working directory
// (and never outside it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "loaders/loader.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto model = condlint::load_onnx("fuzz.onnx", bytes);
  if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  return 0;
}
