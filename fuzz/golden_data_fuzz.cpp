// libFuzzer target: any bytes as a golden-data file (.npy, or .pb read as the tensor, sequence or optional
// message a declared type calls for), then the value written back out. Malformed data must end as an
// ExecError (the run reports it as a failed data set), never as a crash, a hang or a huge allocation.
// The first byte picks the reader, so one corpus covers all of them (fuzz/golden_data_replay.hpp).
#include "golden_data_replay.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)condlint::fuzz::golden_data_replay(data, size);
  return 0;
}
