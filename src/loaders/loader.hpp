// Loaders turn a file into a Model. They never throw past this boundary: a file that cannot be
// parsed becomes a Model that records the problem (format rules report it with a location).
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace condlint::io {
class MappedFile;
}  // namespace condlint::io

namespace condlint {

struct LoadResult {
  std::unique_ptr<Model> model;  // null on an I/O error
  std::string io_error;          // set when the file could not be read at all
  // The format the file was read as (decide_format); when it could not be read, the one its name says.
  std::optional<Format> format;
};

// The format a file's name says: .xml -> IR, .onnx -> ONNX, .nnapi.json -> NNAPI. What a directory walk collects
// by; open_model reads a file by its content first (decide_format).
std::optional<Format> format_from_name(const std::filesystem::path& p);

// open_model (loaders/open_model.hpp) without a readability verdict: keep_onnx_proto is its keep_for_exec,
// content_hash its content_hash (what a cache entry may vouch for, since the file on disk may change while the model
// is judged).
LoadResult load_file(const std::string& path, bool keep_onnx_proto = false, std::string* content_hash = nullptr);

// Format loaders over bytes already read (so tests and fuzzers can feed buffers).
// Which XML reader the IR loader uses: FlatXml with pugixml for what it declines (the default); pugixml only;
// FlatXml only (nullptr when it declines). The last two exist for the tests that compare the readers.
enum class IrXmlReader { Auto, Pugixml, Flat };
std::unique_ptr<Model> load_ir(const std::string& path, std::string bytes, IrXmlReader reader = IrXmlReader::Auto);
// ONNX: given the bytes to keep (an rvalue), the loader frees them once they are parsed (the parsed messages hold
// their own copy of raw_data weights); given a reference, they stay the caller's.
std::unique_ptr<Model> load_onnx(const std::string& path, const std::string& bytes,
                                 bool keep_proto = false);  // onnx_loader.cpp
std::unique_ptr<Model> load_onnx(const std::string& path, std::string&& bytes, bool keep_proto = false);
// The same over bytes the caller keeps alive while the load runs.
std::unique_ptr<Model> load_onnx_view(const std::string& path, std::string_view bytes, bool keep_proto = false);
// An ONNX Model with nothing built but its empty main graph: what a loader returns when it records why it could not
// read the file (a parse problem, a limit) and builds nothing else.
std::unique_ptr<Model> onnx_model_shell(const std::string& path);
// An ONNX file read through its mapping (what open_model does): its tensor payloads of `threshold` bytes or more are
// stripped at the wire level before protobuf parses (loaders/onnx_wire) and stay in the file, which the Model then
// keeps (OnnxData::payload_file) for the executor to read them from. Bytes that do not scan, or that protobuf rejects
// once slimmed, are parsed whole (the same findings, the same offsets). onnx_parse.cpp. `threshold`: tests strip
// every payload the pass can prove, to compare with a whole parse. The default: smaller constants stay inline (the
// loader reads them for shapes and the condition tracer).
inline constexpr size_t kSlimPayloadThreshold = size_t{64} << 10;
std::unique_ptr<Model> load_onnx_mapped(const std::string& path, const std::shared_ptr<const io::MappedFile>& file,
                                        bool keep_proto = false, size_t threshold = kSlimPayloadThreshold);
std::unique_ptr<Model> load_nnapi(const std::string& path, const std::string& bytes);  // nnapi_loader.cpp
// A .tflite flatbuffer read in place from its mapping, which the Model keeps (TfliteData::file). tflite_loader.cpp
std::unique_ptr<Model> load_tflite(const std::string& path, const std::shared_ptr<const io::MappedFile>& file);

// Collects the model files under the given paths: files as given, directories walked recursively
// (IR: .xml files whose root element is <net>), in a deterministic order. A path that does not exist, a file whose
// name is no model format (a.tflite, a.json) and a directory without a model are errors.
struct Collected {
  std::vector<std::string> files;
  std::vector<std::string> keys;    // parallel to files: the path relative to the directory given (a file given
                                    // as itself: its path as given), with '/' separators; what shards hash
  std::vector<std::string> errors;  // paths that do not exist or cannot be read
  std::vector<size_t> positions;    // parallel to files: the file's place in the unsharded list (keep_shard sets it)
};
Collected collect_inputs(const std::vector<std::string>& paths);

// Keeps share `k` (1-based) of `n` disjoint shares of the files: those whose key's FNV-1a 64 hash is k-1 modulo n.
// The same on every machine and OS, and the n shares together are exactly the unsharded files. A model travels
// whole: its .bin, external data and Blobs are read through the model file and never listed on their own.
void keep_shard(Collected& c, int k, int n);

// Model paths listed one per line (`git diff --name-only`): blank lines, names that are not models (by extension,
// or an .xml whose root is not <net>), paths that do not exist (deleted files) and a path listed again are left out;
// the rest keep their first place. The list is read from a stream (a pipe is the usual case), so it is bounded as it
// is read: a line of more than kMaxPathListLine bytes, more than kMaxPathListLines lines, more than
// kMaxPathListBytes in all, or a line holding a NUL is an error ("line N: ...", false) and nothing is listed.
// The filter of such a list, one path: true when `p` is a regular file named as a model (.onnx, .nnapi.json, .xml)
// and, for .xml, its root element is <net>. `lint --models-only` passes the files it is given through it.
bool listed_model_file(const std::filesystem::path& p);
constexpr size_t kMaxPathListLine = 4096;  // PATH_MAX
constexpr size_t kMaxPathListLines = 1000000;
constexpr uint64_t kMaxPathListBytes = uint64_t{256} << 20;
bool read_path_list(std::istream& in, std::vector<std::string>& out, std::string& err);
// The paths of a NUL-separated list (`lint --paths0-from`, `find -print0`, what the Python API writes): each taken
// as if it were named on the command line — no filter, no path left out, any byte but NUL in a name (a line break
// too). Bounded as read_path_list is (kMaxPathListLine bytes a path, kMaxPathListLines paths, kMaxPathListBytes);
// empty entries are skipped.
bool read_path_list0(std::istream& in, std::vector<std::string>& out, std::string& err);

// Reads a whole file. Returns false with a message on failure.
bool read_file(const std::string& path, std::string& out, std::string& err);
// The same for a file that may hold at most `max_bytes`: a larger one is refused before it is read.
bool read_file(const std::string& path, std::string& out, std::string& err, uint64_t max_bytes);

// The largest model file (and NNAPI Blob file) the loaders read into memory, in bytes: the
// environment variable CONDLINT_MAX_FILE_MB (MiB, a positive integer) when set, else 768 MiB
// (kDefaultMaxFileMB). A larger file is never read: load_file gives an I/O error naming the size
// and the limit; an NNAPI Blob file that large is an NN003 finding.
constexpr uint64_t kDefaultMaxFileMB = 768;
uint64_t max_model_file_bytes();
// "" when a file of `size` bytes may be read, else the message saying it is too large.
std::string file_too_large(uint64_t size);

// A process that lints one model and exits (the CLI with a single file) may leave the loaders' scratch
// memory (parsed messages, name tables) to the exit instead of freeing it. Off by default; never under
// LeakSanitizer, which would rightly report it.
void skip_loader_teardown(bool skip);
bool loader_teardown_skipped();

// Maps byte offsets to 1-based line and column. Not thread-safe (one per load).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  void locate(int64_t offset, int& line, int& column) const { locate(offset, line, column, hint_); }
  // With the caller's own hint (the line of its last lookup): readers on several threads keep one each.
  void locate(int64_t offset, int& line, int& column, size_t& hint) const;

 private:
  std::vector<size_t> starts_;
  size_t size_ = 0;
  mutable size_t hint_ = 0;  // the line of the last lookup: loaders ask in document order, so mostly a hit
};

}  // namespace condlint
