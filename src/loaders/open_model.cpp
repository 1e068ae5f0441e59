#include "loaders/open_model.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <cstdint>
#include <utility>

#include "io/content_hash.hpp"
#include "io/mapped_file.hpp"
#include "model/onnx_data.hpp"

namespace condlint {

namespace {

// A varint at `i`: its value, and `i` past it; false when it runs past the end or past 10 bytes.
bool read_varint(std::string_view s, size_t& i, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && i < s.size(); shift += 7) {
    const auto b = static_cast<unsigned char>(s[i++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// The wire type each field of onnx.ModelProto has (0 varint, 2 length-delimited); -1 for a number it does not use.
int model_proto_wire_type(uint64_t field) {
  switch (field) {
    case 1:  // ir_version
    case 5:  // model_version
      return 0;
    case 2:
    case 3:
    case 4:
    case 6:
    case 7:
    case 8:  // producer_name, producer_version, domain, doc_string, graph,
    case 14:
    case 20:
    case 25:
    case 26:     // opset_import, metadata_props, training_info, functions,
      return 2;  // configuration
    default: return -1;
  }
}

// Whether the bytes are a protobuf message whose top level reads to the end, starting with a field of ModelProto
// with its wire type. Only the top level is scanned (length-delimited fields are stepped over), so it costs one
// step per top-level field, whatever the size of the graph.
bool looks_like_model_proto(std::string_view s) {
  size_t i = 0;
  bool first = true;
  while (i < s.size()) {
    uint64_t tag = 0, v = 0;
    if (!read_varint(s, i, tag)) return false;
    const uint64_t field = tag >> 3, wire = tag & 7;
    if (field == 0 || field > 536870911) return false;
    if (first && model_proto_wire_type(field) != static_cast<int>(wire)) return false;
    first = false;
    switch (wire) {
      case 0:
        if (!read_varint(s, i, v)) return false;
        break;
      case 1:
        if (s.size() - i < 8) return false;
        i += 8;
        break;
      case 2:
        if (!read_varint(s, i, v) || v > s.size() - i) return false;
        i += static_cast<size_t>(v);
        break;
      case 5:
        if (s.size() - i < 4) return false;
        i += 4;
        break;
      default: return false;  // groups (3, 4) and the unused 6, 7: no ONNX message has them
    }
  }
  return !first;
}

size_t skip_space(std::string_view s, size_t i) {
  if (i == 0 && s.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  return i;
}

// The executor's own parse of an ONNX model the loader could not hand on (it failed to parse, or nests too deep
// to be freed on any thread's stack): protobuf over the file's mapped bytes with a recursion limit of 256, the same
// words when it fails.
void parse_for_exec(std::string_view bytes, OnnxData& data) {
  constexpr int kRecursionLimit = 256;
  auto parsed = std::make_shared<onnx::ModelProto>();
  google::protobuf::io::ArrayInputStream ais(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream cis(&ais);
  cis.SetRecursionLimit(kRecursionLimit);
  cis.SetTotalBytesLimit(INT32_MAX);
  if (!parsed->ParseFromCodedStream(&cis) || !cis.ConsumedEntireMessage()) {
    data.proto_error = "not a valid " + parsed->GetTypeName() + " (protobuf parse failed, or nesting deeper than " +
                       std::to_string(kRecursionLimit) + ")";
    return;
  }
  data.proto = std::move(parsed);
}

// The hash of the mapped bytes, in pieces whose pages go back behind the hasher.
std::string hash_mapped(const io::MappedFile& file) {
  constexpr size_t kPiece = size_t{8} << 20;
  const std::string_view all = file.bytes();
  io::Hasher h;
  for (size_t at = 0; at < all.size(); at += kPiece) {
    h.update(all.substr(at, kPiece));
    file.release(at, kPiece);
  }
  return h.hex();
}

// The mapped bytes copied into memory (an IR or NNAPI file, which its loader reads from a string), in pieces whose
// mapped pages go back behind the copy.
std::string copy_mapped(const io::MappedFile& file) {
  constexpr size_t kPiece = size_t{8} << 20;
  const std::string_view all = file.bytes();
  std::string bytes;
  bytes.reserve(all.size());
  for (size_t at = 0; at < all.size(); at += kPiece) {
    bytes.append(all.substr(at, kPiece));
    file.release(at, kPiece);
  }
  return bytes;
}

}  // namespace

bool xml_root_is_net(std::string_view s) {
  // Skip the prolog: declarations, comments, processing instructions, DOCTYPE, whitespace.
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
      ++i;
      continue;
    }
    if (s.compare(i, 3, "\xEF\xBB\xBF") == 0) {
      i += 3;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const auto e = s.find("-->", i + 4);
      if (e == std::string_view::npos) return false;
      i = e + 3;
      continue;
    }
    if (s.compare(i, 2, "<?") == 0 || s.compare(i, 2, "<!") == 0) {
      const auto e = s.find('>', i);
      if (e == std::string_view::npos) return false;
      i = e + 1;
      continue;
    }
    break;
  }
  if (s.compare(i, 4, "<net") != 0) return false;
  return i + 4 >= s.size() || s[i + 4] == ' ' || s[i + 4] == '>' || s[i + 4] == '\t' || s[i + 4] == '\n' ||
         s[i + 4] == '\r' || s[i + 4] == '/';
}

// A flatbuffer names its schema in bytes 4-7 (its file_identifier); TFLite's is "TFL3".
bool has_tflite_identifier(std::string_view bytes) { return bytes.size() >= 8 && bytes.compare(4, 4, "TFL3") == 0; }

std::optional<Format> format_from_content(std::string_view bytes) {
  if (xml_root_is_net(bytes)) return Format::IR;
  if (has_tflite_identifier(bytes)) return Format::TFLITE;
  const size_t i = skip_space(bytes, 0);
  if (i < bytes.size() && bytes[i] == '{') return Format::NNAPI;
  if (looks_like_model_proto(bytes)) return Format::ONNX;
  return std::nullopt;
}

std::optional<Format> decide_format(const std::string& path, std::string_view bytes) {
  if (auto by_content = format_from_content(bytes)) return by_content;
  return format_from_name(path);
}

std::optional<Format> sniff_format(const std::string& path) {
  std::string err;
  const auto file = io::MappedFile::open(path, err);
  return file ? decide_format(path, file->bytes()) : format_from_name(path);
}

LoadResult open_model(const std::string& path, const OpenOptions& o) {
  LoadResult r;
  // The file mapped, not read: its format is judged from its first bytes, an ONNX model is parsed with its weights
  // left where they lie in the file (load_onnx_mapped), and only an IR or NNAPI file is copied into memory.
  std::string err;
  const auto file = io::MappedFile::open(path, err);
  if (!file) {
    r.format = format_from_name(path);
    r.io_error = err;
    return r;
  }
  const std::string_view all = file->bytes();
  const auto fmt = decide_format(path, all);
  r.format = fmt;
  if (!fmt) {
    r.io_error = "unknown model format (expected .xml, .onnx, .nnapi.json or .tflite)";
    return r;
  }
  if (*fmt == Format::ONNX && all.size() > static_cast<size_t>(INT32_MAX)) {
    // What protobuf can parse as one message; larger weights go in external data files.
    r.io_error = "the file has " + std::to_string(all.size()) +
                 " bytes, more than the 2 GiB protobuf parses as one ONNX model (larger weights belong in external "
                 "data files)";
    return r;
  }
  if (*fmt != Format::ONNX) {
    if (std::string big = file_too_large(all.size()); !big.empty()) {
      r.io_error = big;
      return r;
    }
  }
  if (o.content_hash) *o.content_hash = hash_mapped(*file);
  switch (*fmt) {
    case Format::IR: r.model = load_ir(path, copy_mapped(*file)); break;
    case Format::ONNX: r.model = load_onnx_mapped(path, file, o.keep_for_exec); break;
    case Format::NNAPI: r.model = load_nnapi(path, copy_mapped(*file)); break;
    case Format::TFLITE: r.model = load_tflite(path, file); break;
  }
  if (!r.model) {
    r.io_error = std::string(to_string(*fmt)) + " models are not supported by this build yet";
    return r;
  }
  if (o.keep_for_exec && r.model->onnx && !r.model->onnx->proto) {
    parse_for_exec(all, *r.model->onnx);
    file->release(0, all.size());
  }
  if (o.verdict) r.model->unreadable = o.verdict(*r.model);
  return r;
}

}  // namespace condlint
