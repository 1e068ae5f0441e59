// ONNX models of any size read through a mapping of the file, their weights never copied (docs/hardening.md).
//
// slim_model is a pass over the serialized ModelProto at the wire level, before protobuf parses anything: it copies
// the message but for the large tensor payloads (of at least a threshold's bytes: raw_data; a packed float_data or
// double_data run, the same little-endian bytes; a packed int32_data, int64_data or uint64_data run of varints), and
// marks each such tensor the way ONNX marks external data, with a location only this process can write (a random
// token), the payload's offset and length in the file and the field it came from. It strips initializers, node
// attributes' tensors, the values and indices of sparse tensors (sparse initializers, sparse_tensor attributes), in
// the main graph, its subgraphs and the bodies of model-local functions. protobuf then parses the slim copy. The
// loader leaves those marks to themselves (they are not the model's external data: ONNX014 and ONNX015 never see
// them), and the executor reads a marked tensor's values from the mapping the Model keeps (mapped_payload).
//
// A payload is left in place, and so judged as before, unless the pass can prove that what is stripped is exactly
// what the tensor declares: an element type the linked onnx knows, stored in that field, dims whose product is the
// number of values (raw_data and fixed-width runs: times the width is the payload's length; a varint run: each varint
// of at most 10 bytes and in range for the element type, so protobuf would read the same values), no other data
// field, no external data, no segment. One-dimensional INT32 and INT64 tensors outside sparse tensors (what onnx's
// inference reads as values: shapes, axes, pads) stay in place too.
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
class FunctionProto;
class ModelProto;
class SparseTensorProto;
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
  // Nodes, initializers (dense and sparse) and inputs, outputs and value_info entries of every graph (to depth
  // kSlimMaxGraphDepth) and function body: what protobuf and the loader spend memory on per entry, whatever its bytes
  // (an empty initializer is 2 bytes of the file and some 400 bytes of memory).
  uint64_t entries = 0;
};

// Past this many entries (SlimModel::entries) a model is not parsed: C013 (docs/hardening.md, "Many small entries").
// Real models hold up to some 10^5; 2^20 keeps peak memory within 16 x the file + 64 MiB + 512 bytes an entry.
constexpr uint64_t kMaxOnnxEntries = uint64_t{1} << 20;

// The slim copy of `file`, whose marks name `mark` (from new_mark). False when the top level or a message the pass
// enters does not scan as protobuf (a length past the end, a varint over 10 bytes, a group): the caller then parses
// the bytes whole, so that protobuf's own verdict and its offsets are what is reported.
// `pages`: the mapping `file` lies in, whose pages the pass gives back behind it where it reads a payload (a varint
// run is read whole to prove it), so that its resident size stays a window.
bool slim_model(std::string_view file, const std::string& mark, size_t threshold, SlimModel& out,
                const io::MappedFile* pages = nullptr);

// A mark for a mapping, valid while the mapping lives: payloads marked with it resolve to that file's bytes.
std::string new_mark(const std::shared_ptr<const io::MappedFile>& file);

// True when `t` is marked by slim_model in this process (a file cannot forge a mark: it holds a random token).
bool is_mapped_payload(const onnx::TensorProto& t);
// The field of a TensorProto a marked payload was stripped from: its bytes are raw_data's, a fixed-width packed run's
// (float_data, double_data: little-endian values, as raw_data holds them) or a packed run of varints.
enum class PayloadField { Raw, Float, Double, Int32, Int64, Uint64 };

// The bytes of a marked tensor, read from its mapping (`keep` holds the mapping while they are used), and the field
// they came from. False when `t` is not marked, or its mapping is gone, or the offsets fall outside it.
bool mapped_payload(const onnx::TensorProto& t, std::string_view& bytes, std::shared_ptr<const io::MappedFile>& keep,
                    PayloadField* field = nullptr);

// Calls f(uint64_t) for each varint of a packed run, in order, and returns how many there were; -1 when the run
// does not read as varints that protobuf reads as the same values (one runs past the end, is over 10 bytes, or has
// bits past 64), stopping there.
template <class F>
int64_t for_each_packed_varint(std::string_view run, F&& f) {
  int64_t n = 0;
  size_t pos = 0;
  const size_t size = run.size();
  const auto* p = reinterpret_cast<const unsigned char*>(run.data());
  while (pos < size) {
    if (p[pos] < 0x80) {  // one byte: most values of most runs
      f(static_cast<uint64_t>(p[pos++]));
      ++n;
      continue;
    }
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
      if (pos >= size || shift > 63) return -1;
      const unsigned char byte = p[pos++];
      if (shift == 63 && byte > 1) return -1;  // bits past 64
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
      shift += 7;
    }
    f(v);
    ++n;
  }
  return n;
}

// The values a packed varint run of `field` may hold for element type `data_type`, as protobuf reads them (int32_data
// and int64_data: the two's complement of a signed value; uint64_data: unsigned): a value outside it would not read
// back as protobuf's parse gives it (an int32_data entry keeps the low 32 bits of its varint), or is no value of the
// type. `ok` false: the field does not hold that type.
struct PackedRange {
  bool ok = false;
  bool is_signed = true;
  int64_t lo = 0, hi = 0;  // signed
  uint64_t umax = 0;       // unsigned
  bool holds(uint64_t v) const {
    return is_signed ? static_cast<int64_t>(v) >= lo && static_cast<int64_t>(v) <= hi : v <= umax;
  }
};
PackedRange packed_range(int data_type, PayloadField field);
inline bool packed_value_fits(int data_type, PayloadField field, uint64_t v) {
  const PackedRange r = packed_range(data_type, field);
  return r.ok && r.holds(v);
}

// What onnx's checker is shown of an attribute: `a` itself, or, when its tensor is marked, a copy in `scratch` whose
// tensor is one element of the same type and name. The checker would look for a marked tensor's data at its location
// as a path; the tensor it stands for holds exactly its dims' data in the field its type is stored in, of a type the
// checker knows, which it accepts. A sparse tensor: see below.
const onnx::AttributeProto& checker_view(const onnx::AttributeProto& a, onnx::AttributeProto& scratch);
// A sparse tensor as the checker is shown it: marked values stand in as their dims (the checker reads their count
// from them) with one element of data, which the checker's look at the values (one data field of the right kind)
// accepts as it accepts the real ones; marked indices are read back from the mapping (the checker reads every index
// value: their range and order), a copy that lives while the checker looks. `st` itself when nothing is marked.
const onnx::SparseTensorProto& checker_view(const onnx::SparseTensorProto& st, onnx::SparseTensorProto& scratch);
// A model-local function as the checker is shown it (onnx's check_function walks its nodes and subgraphs itself):
// `f`, or a copy in `scratch` with every marked tensor in it shown as above.
const onnx::FunctionProto& checker_view(const onnx::FunctionProto& f, onnx::FunctionProto& scratch);

// Every marked tensor of the model (the main graph, its subgraphs, sparse tensors, the bodies of model-local
// functions) given its values back in the field they came from, read from its mapping: the model as the file holds
// it, for what writes a parsed model out for another runtime (`export`, `diff`). False, with `err`, when a mark's
// mapping is gone or its offsets fall outside it, or its values no longer read as they did.
bool restore_mapped_payloads(onnx::ModelProto& m, std::string& err);

}  // namespace condlint
