// ONNX models of any size read through a mapping of the file, their weights never copied (docs/hardening.md).
//
// slim_model is a pass over the serialized ModelProto at the wire level, before protobuf parses anything: it copies
// the message but for the large tensor payloads (raw_data, or a packed float_data or double_data run: the same
// little-endian bytes; of at least a threshold's bytes), and marks each such tensor the way ONNX marks external data,
// with a location only this process can write (a random token) and the payload's offset and length in the file.
// protobuf then parses the slim copy. The loader leaves those marks to themselves (they are not the model's external
// data: ONNX014 and ONNX015 never see them), and the executor reads a marked tensor's bytes from the mapping the Model
// keeps (mapped_payload).
//
// A payload is left in place, and so judged as before, unless the pass can prove that what is stripped is
// exactly what the tensor declares: a fixed-width element type the linked onnx knows, dims whose product times the
// width is the payload's length, no other data field, no external data, no segment. One-dimensional integer tensors
// (what onnx's inference reads as values: shapes, axes, pads) stay in place too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/mapped_file.hpp"
#include "loaders/loader.hpp"

namespace onnx {
class AttributeProto;
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace condlint {

// The deepest nesting of graphs (through node attributes) the pass strips within; deeper graphs are copied as they
// are (protobuf's own depth limit judges them).
constexpr int kSlimMaxGraphDepth = 64;

struct SlimModel {
  std::string bytes;            // the ModelProto with the large payloads replaced by marks
  size_t stripped = 0;          // how many payloads were replaced
  uint64_t stripped_bytes = 0;  // their bytes
};

// The slim copy of `file`, whose marks name `mark` (from new_mark). False when the top level or a message the pass
// enters does not scan as protobuf (a length past the end, a varint over 10 bytes, a group): the caller then parses
// the bytes whole, so that protobuf's own verdict and its offsets are what is reported.
bool slim_model(std::string_view file, const std::string& mark, size_t threshold, SlimModel& out);

// A mark for a mapping, valid while the mapping lives: payloads marked with it resolve to that file's bytes.
std::string new_mark(const std::shared_ptr<const io::MappedFile>& file);

// True when `t` is marked by slim_model in this process (a file cannot forge a mark: it holds a random token).
bool is_mapped_payload(const onnx::TensorProto& t);
// The bytes of a marked tensor, read from its mapping (`keep` holds the mapping while they are used). False when `t`
// is not marked, or its mapping is gone, or the offsets fall outside it.
bool mapped_payload(const onnx::TensorProto& t, std::string_view& bytes, std::shared_ptr<const io::MappedFile>& keep);

// What onnx's checker is shown of an attribute: `a` itself, or, when its tensor is marked, a copy in `scratch` whose
// tensor is one element of the same type and name. The checker would look for a marked tensor's data at its location
// as a path; the tensor it stands for holds exactly its dims' data of a type the checker knows, which it accepts.
const onnx::AttributeProto& checker_view(const onnx::AttributeProto& a, onnx::AttributeProto& scratch);

// Every marked tensor of the main graph and its subgraphs given its bytes back as raw_data, read from its mapping:
// the model as the file holds it, for what writes a parsed model out for another runtime (`export`, `diff`).
// False, with `err`, when a mark's mapping is gone or its offsets fall outside it.
bool restore_mapped_payloads(onnx::ModelProto& m, std::string& err);

}  // namespace condlint
