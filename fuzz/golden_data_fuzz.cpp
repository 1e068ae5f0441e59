// libFuzzer target: any bytes as a golden-data file (.npy, or .pb read as the tensor, sequence or optional
// message a declared type calls for), then the value written back out. Malformed data must end as an
// ExecError (the run reports it as a failed data set), never as a crash, a hang or a huge allocation.
// The first byte picks the reader, so one corpus covers all of them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "exec/onnx_io.hpp"

namespace {

onnx::TypeProto declared(uint8_t which) {
  onnx::TypeProto t;
  switch (which % 4) {
    case 0: t.mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT); break;
    case 1: t.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
                onnx::TensorProto::INT64);
            break;
    case 2: t.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
                onnx::TensorProto::BOOL);
            break;
    default:
      t.mutable_optional_type()->mutable_elem_type()->mutable_sequence_type()->mutable_elem_type()
          ->mutable_tensor_type()->set_elem_type(onnx::TensorProto::STRING);
  }
  return t;
}

void write_back(const condlint::exec::Value& v) {
  (void)condlint::exec::write_pb_value(v, "x");
  if (v.kind == condlint::exec::Value::Kind::Tensor && v.t) (void)condlint::exec::write_npy(*v.t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (mode < 0x40) {
      write_back(condlint::exec::read_npy(bytes));
    } else if (mode < 0x80) {
      write_back(condlint::exec::read_pb_value(bytes, nullptr));
    } else {
      const onnx::TypeProto t = declared(mode);
      write_back(condlint::exec::read_pb_value(bytes, &t));
    }
  } catch (const condlint::exec::ExecError&) {
    // The documented way a reader rejects a file.
  }
  return 0;
}
