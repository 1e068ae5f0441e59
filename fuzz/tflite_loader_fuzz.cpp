// libFuzzer target: any bytes as a TFLite flatbuffer -> load (the verifier, then the Model) + every rule. Must never
// crash or hang: the verifier bounds what the loader follows, the rules walk what it built.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/mapped_file.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = condlint::io::MappedFile::from_bytes(std::string(reinterpret_cast<const char*>(data), size));
  auto model = condlint::load_tflite("fuzz.tflite", file);
  if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  return 0;
}
