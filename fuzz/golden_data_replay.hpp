// The body of the golden-data fuzz target, shared with tests/fuzz_regressions_test.cpp: the first byte picks
// the reader (< 0x40 .npy; < 0x80 .pb as a tensor; else .pb as the declared tensor / sequence / optional type
// the byte selects), the rest is the file. A reader may reject the file only with ExecError; the value it
// returns is written back out. Anything else (a crash, another exception, a huge allocation) is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "exec/onnx_io.hpp"

namespace condlint::fuzz {

inline onnx::TypeProto golden_declared_type(uint8_t which) {
  onnx::TypeProto t;
  switch (which % 4) {
    case 0: t.mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT); break;
    case 1:
      t.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
      break;
    case 2:
      t.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
      break;
    default:
      t.mutable_optional_type()
          ->mutable_elem_type()
          ->mutable_sequence_type()
          ->mutable_elem_type()
          ->mutable_tensor_type()
          ->set_elem_type(onnx::TensorProto::STRING);
  }
  return t;
}

// Returns false when the reader rejected the bytes (ExecError), true when it read and wrote them back.
inline bool golden_data_replay(const uint8_t* data, size_t size) {
  if (size == 0) return false;
  const uint8_t mode = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    exec::Value v;
    if (mode < 0x40) {
      v = exec::read_npy(bytes);
    } else if (mode < 0x80) {
      v = exec::read_pb_value(bytes, nullptr);
    } else {
      const onnx::TypeProto t = golden_declared_type(mode);
      v = exec::read_pb_value(bytes, &t);
    }
    (void)exec::write_pb_value(v, "x");
    if (v.kind == exec::Value::Kind::Tensor && v.t) (void)exec::write_npy(*v.t);
    return true;
  } catch (const exec::ExecError&) {
    return false;  // the documented way a reader rejects a file
  }
}

}  // namespace condlint::fuzz
