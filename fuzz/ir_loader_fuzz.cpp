// libFuzzer target: any bytes as an OpenVINO IR file -> load + every rule. Must never crash or hang.
// Differential too: when the fast XML reader (loaders/xml_flat.hpp) takes the input, the model it builds must
// be the one pugixml's reading builds, to the byte of the dump; any difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "loaders/ir_dump.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto model = condlint::load_ir("fuzz.xml", bytes);
  if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  if (auto flat = condlint::load_ir("fuzz.xml", bytes, condlint::IrXmlReader::Flat)) {
    const auto pugi = condlint::load_ir("fuzz.xml", bytes, condlint::IrXmlReader::Pugixml);
    const std::string a = condlint::dump_ir_model(*flat), b = condlint::dump_ir_model(*pugi);
    if (a != b) {
      std::fprintf(stderr, "the XML readers disagree\n--- flat\n%s\n--- pugixml\n%s\n", a.c_str(), b.c_str());
      std::abort();
    }
  }
  return 0;
}
