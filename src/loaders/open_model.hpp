// The front door: the one place that decides a model file's format, reads its bytes (through a mapping of the file:
// an ONNX model's large weights are never copied, an IR or NNAPI file is copied within the file size limit) and
// loads it. Every command opens each model here once; the executor, the exporters, `diff` and
// the writers take the Model it returns and never open a model file themselves.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "loaders/loader.hpp"

namespace condlint {

// The format the bytes are, judged by content alone: an XML document whose root element is <net> is an OpenVINO
// IR, a JSON object an NNAPI model, bytes that start as a ModelProto field (a known field number with its wire
// type, a varint that ends or a length that fits) an ONNX model; nullopt when they are none of these (text,
// zeros, an XML or JSON document cut before its root).
std::optional<Format> format_from_content(std::string_view bytes);
// Whether an XML document's root element is <net> (its prolog of declarations, comments and DOCTYPE skipped).
bool xml_root_is_net(std::string_view bytes);

// The format open_model reads `path` as: its content when that says one, else its name (format_from_name). So a
// file whose bytes are no model (text saved as .onnx) is read as its name says and reported by that format's rules.
std::optional<Format> decide_format(const std::string& path, std::string_view bytes);

// The format open_model would read `path` as, without loading it (the file mapped, its first bytes judged; the name
// when it cannot be mapped): what a command that does not load the file this time (a result the cache holds) or not
// yet (which runtime checks a file needs) labels it by.
std::optional<Format> sniff_format(const std::string& path);

struct OpenOptions {
  // Keep what the executor needs of the original besides the Model: an ONNX model's parsed ModelProto
  // (OnnxData::proto; when the loader could not keep it, the file parsed again as the executor parses it, or why
  // that fails: OnnxData::proto_error).
  bool keep_for_exec = false;
  // Receives the hash (io/content_hash) of the exact bytes read, taken before they are parsed.
  std::string* content_hash = nullptr;
  // The readability verdict (rules/readability's unreadable_reason; the loaders sit above the rules, so the
  // command hands it in). When set, it is applied once and recorded in Model::unreadable.
  std::string (*verdict)(const Model&) = nullptr;
};

// Reads and loads one model file. An I/O error (no such file, too large — an IR or NNAPI file over
// CONDLINT_MAX_FILE_MB, an ONNX file over protobuf's 2 GiB —, not a regular file, a name and content that say no
// format) leaves the model null with io_error set; a file that is no valid model of its format is a
// Model whose rules report it.
LoadResult open_model(const std::string& path, const OpenOptions& options = {});

}  // namespace condlint
