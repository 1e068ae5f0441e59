// libFuzzer target: any bytes as an ONNX model -> load + every rule. Must never crash or hang.
// The bytes are loaded twice: parsed whole, and as a mapped file is (loaders/onnx_wire: every payload of 16 bytes or
// more that the wire pass can prove stripped and marked), whose kept model's marked tensors the executor then reads
// from the mapping and export's restore writes back.
// The path has no directory, so external data is looked up in the fuzzer's working directory
// (and never outside it).
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "exec/onnx_io.hpp"
#include "io/mapped_file.hpp"
#include "loaders/loader.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto model = condlint::load_onnx("fuzz.onnx", bytes);
  if (model) (void)condlint::run_rules(*model, condlint::RuleSelection{});
  const auto file = condlint::io::MappedFile::from_bytes(bytes);
  auto mapped = condlint::load_onnx_mapped("fuzz.onnx", file, /*keep_proto=*/true, /*threshold=*/16);
  if (!mapped) return 0;
  (void)condlint::run_rules(*mapped, condlint::RuleSelection{});
  if (!mapped->onnx || !mapped->onnx->proto) return 0;
  onnx::ModelProto restored = *mapped->onnx->proto;
  for (const auto& t : restored.graph().initializer()) {
    if (!condlint::is_mapped_payload(t)) continue;
    try {
      (void)condlint::exec::tensor_from_proto(t);
    } catch (const std::exception&) {  // a failure of the executor's, reported as such
    }
  }
  std::string err;
  (void)condlint::restore_mapped_payloads(restored, err);
  return 0;
}
