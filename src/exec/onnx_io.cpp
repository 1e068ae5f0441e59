#include "exec/onnx_io.hpp"

#include "io/mapped_file.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/onnx_data.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

namespace condlint::exec {

namespace fs = std::filesystem;

std::string parse_proto(const std::string& bytes, google::protobuf::MessageLite& msg, int recursion_limit) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) return "file larger than 2 GiB";
  google::protobuf::io::ArrayInputStream ais(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream cis(&ais);
  cis.SetRecursionLimit(recursion_limit);
  cis.SetTotalBytesLimit(INT32_MAX);
  if (!msg.ParseFromCodedStream(&cis) || !cis.ConsumedEntireMessage())
    return "not a valid " + msg.GetTypeName() + " (protobuf parse failed, or nesting deeper than " +
           std::to_string(recursion_limit) + ")";
  return "";
}

std::string read_file_bytes(const fs::path& p, std::string& out, int64_t max_bytes) {
  // Opened without waiting and judged on the descriptor: a FIFO or a device is refused, never read.
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return "cannot read " + p.string() + ": " + std::strerror(errno);
  struct CloseFd {
    int fd;
    ~CloseFd() { ::close(fd); }
  } close_fd{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "cannot read " + p.string() + ": " + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "cannot read " + p.string() + ": not a regular file";
  if (static_cast<int64_t>(st.st_size) > max_bytes)
    return p.string() + " is larger than " + std::to_string(max_bytes) + " bytes";
  const size_t size = static_cast<size_t>(st.st_size);
  out.resize(size);
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, out.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "cannot read " + p.string() + ": " + std::strerror(errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got != size) return "short read on " + p.string();
  return "";
}

std::string golden_file_problem(const fs::path& p) {
  const std::string name = p.filename().string();
  struct stat ls {};
  if (::lstat(p.c_str(), &ls) != 0) return name + " cannot be read: " + std::strerror(errno);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    const int err = errno;
    if (S_ISLNK(ls.st_mode) && err == ENOENT) {
      std::error_code ec;
      std::string target = fs::read_symlink(p, ec).string();
      const bool annex = target.find("/annex/objects/") != std::string::npos;
      if (target.size() > 200) target = target.substr(0, 200) + "... (" + std::to_string(target.size()) + " bytes)";
      return name + " is a dangling symbolic link" + (target.empty() ? "" : " (to " + target + ")") +
             (annex ? ", a git-annex file whose content is not here: is the data checked out (git annex get)?"
                    : ": is the data checked out?");
    }
    if (S_ISLNK(ls.st_mode)) return name + " is a symbolic link that cannot be followed: " + std::strerror(err);
    return name + " cannot be read: " + std::strerror(err);
  }
  const auto kind = [&](mode_t m) -> std::string {
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
  };
  if (!S_ISREG(st.st_mode)) {
    const std::string k = kind(st.st_mode);
    return name + (S_ISLNK(ls.st_mode) ? " is a symbolic link to " : " is ") +
           (k == "not a regular file" ? "something other than a regular file" : k + ", not a regular file");
  }
  // A pointer file that git-LFS or git-annex leaves where the data is not checked out is a short text; neither
  // prefix can begin a TensorProto (its first byte would be an invalid wire type) or a .npy file.
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return name + " cannot be read: " + std::strerror(errno);
  struct CloseFd {
    int fd;
    ~CloseFd() { ::close(fd); }
  } close_fd{fd};
  struct stat fst {};
  if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) return name + " is not a regular file";
  if (fst.st_size > 1024) return "";
  char head[64];
  ssize_t n;
  do n = ::read(fd, head, sizeof head);
  while (n < 0 && errno == EINTR);
  if (n < 0) return name + " cannot be read: " + std::strerror(errno);
  const std::string_view h(head, static_cast<size_t>(n));
  if (h.rfind("version https://git-lfs.github.com/spec/", 0) == 0)
    return name + " is a git-LFS pointer, not the data: is the data checked out (git lfs pull)?";
  if (h.rfind("/annex/objects/", 0) == 0)
    return name + " is a git-annex pointer, not the data: is the data checked out (git annex get)?";
  return "";
}

std::string DataSet::problem(bool outputs_too) const {
  if (!error.empty()) return error;
  if (!input_problems.empty()) return input_problems.front();
  if (outputs_too && !output_problems.empty()) return output_problems.front();
  return "";
}

namespace {

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void set_from_raw(Tensor& t, std::string_view raw, int64_t n) {
  const unsigned w = dt_bytes(t.dt);
  if (static_cast<int64_t>(raw.size()) != n * static_cast<int64_t>(w))
    fail("raw_data holds " + std::to_string(raw.size()) + " bytes, shape " + dims_str(t.shape) + " of " +
         dt_name(t.dt) + " needs " + std::to_string(n * w));
  const char* p = raw.data();
  for (int64_t k = 0; k < n; ++k, p += w) {
    switch (t.dt) {
      case DT::F32: t.f[k] = load_le<float>(p); break;
      case DT::F64: t.f[k] = load_le<double>(p); break;
      case DT::F16: t.f[k] = f16_bits_to_f32(load_le<uint16_t>(p)); break;
      case DT::BF16: t.f[k] = bf16_bits_to_f32(load_le<uint16_t>(p)); break;
      case DT::I8: t.i[k] = load_le<int8_t>(p); break;
      case DT::U8: t.i[k] = load_le<uint8_t>(p); break;
      case DT::Bool: t.i[k] = load_le<uint8_t>(p) != 0; break;
      case DT::I16: t.i[k] = load_le<int16_t>(p); break;
      case DT::U16: t.i[k] = load_le<uint16_t>(p); break;
      case DT::I32: t.i[k] = load_le<int32_t>(p); break;
      case DT::U32: t.i[k] = load_le<uint32_t>(p); break;
      case DT::I64:
      case DT::U64: t.i[k] = load_le<int64_t>(p); break;
      default: fail("raw_data for an unsupported type");
    }
  }
}

// The values of a packed varint run of `field` read from the mapping into `t`, each as the typed field would give it
// (the loader proved each in range for the element type, so the typed path's wrap is the value itself; UINT32 and
// UINT64 wrap as there). A run whose count is not t's numel, or a value the field cannot hold for the element type
// (the file changed since the loader proved the run), fails.
void set_from_varints(Tensor& t, const onnx::TensorProto& tp, std::string_view run, PayloadField field) {
  const PackedRange range = packed_range(tp.data_type(), field);
  const int64_t numel = t.numel();
  bool fits = range.ok;
  int64_t k = 0;
  auto decode = [&](auto&& store) {
    return for_each_packed_varint(run, [&](uint64_t v) {
      fits &= range.holds(v);
      if (k < numel) store(k, v);
      ++k;
    });
  };
  int64_t n = 0;
  switch (t.dt) {
    case DT::F16: n = decode([&](int64_t i, uint64_t v) { t.f[i] = f16_bits_to_f32(static_cast<uint16_t>(v)); }); break;
    case DT::BF16:
      n = decode([&](int64_t i, uint64_t v) { t.f[i] = bf16_bits_to_f32(static_cast<uint16_t>(v)); });
      break;
    case DT::U32:
    case DT::U64: n = decode([&](int64_t i, uint64_t v) { t.i[i] = wrap_to(t.dt, static_cast<int64_t>(v)); }); break;
    default: n = decode([&](int64_t i, uint64_t v) { t.i[i] = static_cast<int64_t>(v); }); break;
  }
  if (!fits || n != numel)
    fail("tensor '" + tp.name() + "': its values in the model file no longer read as the " + dims_str(t.shape) +
         " of " + dt_name(t.dt) + " its dims declare");
}

template <typename Field>
void need(const Field& f, int64_t n, const char* name, const Tensor& t) {
  if (static_cast<int64_t>(f.size()) != n)
    fail(std::string(name) + " holds " + std::to_string(f.size()) + " values, shape " + dims_str(t.shape) + " needs " +
         std::to_string(n));
}

}  // namespace

namespace {

// What an ExternalDataScope gives tensor_from_proto on its thread.
struct ExternalFiles {
  const ExternalDataList* allowed = nullptr;
  std::filesystem::path dir;
  std::map<std::string, std::shared_ptr<const io::MappedFile>> mapped;
};
thread_local ExternalFiles* external_files = nullptr;

// The bytes of an external tensor, from its file's mapping; throws when lint's checks did not let it through.
std::string_view external_bytes(const onnx::TensorProto& tp, std::shared_ptr<const io::MappedFile>& keep) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& e : tp.external_data()) {
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset" || e.key() == "length") {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(e.value().data(), e.value().data() + e.value().size(), v);
      if (ec != std::errc() || end != e.value().data() + e.value().size() || v < 0)
        throw ExecError(ErrKind::Unsupported, "tensor '" + tp.name() + "': external data " + e.key() + " '" +
                                                  e.value() + "' is not a non-negative integer (ONNX015)");
      (e.key() == "offset" ? offset : length) = v;
    }
  }
  ExternalFiles* x = external_files;
  const auto ok = x && x->allowed ? x->allowed->files.find(location) : std::map<std::string, int64_t>::const_iterator{};
  if (!x || !x->allowed || ok == x->allowed->files.end())
    throw ExecError(ErrKind::Unsupported,
                    "tensor '" + tp.name() + "' keeps its data in external file '" + location +
                        "', which lint's checks did not let through (ONNX014: outside the model's folder; ONNX015: "
                        "missing or too short)");
  const int64_t size = ok->second;
  if (offset > size || (length >= 0 && length > size - offset))
    throw ExecError(ErrKind::Unsupported, "tensor '" + tp.name() + "': external data '" + location +
                                              "' is shorter than offset + length (ONNX015)");
  auto& m = x->mapped[location];
  if (!m) {
    std::string err;
    m = io::MappedFile::open((x->dir / location).string(), err);
    if (!m) throw ExecError(ErrKind::Unsupported, "tensor '" + tp.name() + "': external data '" + location + "': " + err);
  }
  // The file as lint measured it: one that changed size since is refused rather than read past what was checked.
  if (static_cast<int64_t>(m->bytes().size()) != size)
    throw ExecError(ErrKind::Unsupported, "external data '" + location + "' changed size since it was checked");
  keep = m;
  return m->bytes().substr(static_cast<size_t>(offset),
                           length < 0 ? std::string_view::npos : static_cast<size_t>(length));
}

}  // namespace

ExternalDataList external_data_list(const Model& m) {
  ExternalDataList out;
  if (m.onnx)
    for (const auto& e : m.onnx->external_data) {
      const bool within =
          e.file_size >= 0 && e.offset <= e.file_size && (e.length < 0 || e.length <= e.file_size - e.offset);
      if (e.place == OnnxExternalData::Place::Present && !e.bad_number && within)
        out.files.emplace(e.location, e.file_size);
    }
  return out;
}

namespace {

void inline_tensor(onnx::TensorProto& t) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
  std::shared_ptr<const io::MappedFile> keep;
  const std::string_view bytes = external_bytes(t, keep);
  t.set_raw_data(std::string(bytes));
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
}

void inline_graph(onnx::GraphProto& g);

void inline_nodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  for (auto& n : nodes)
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t()) inline_tensor(*a.mutable_t());
      for (auto& t : *a.mutable_tensors()) inline_tensor(t);
      if (a.has_g()) inline_graph(*a.mutable_g());
      for (auto& sub : *a.mutable_graphs()) inline_graph(sub);
    }
}

void inline_graph(onnx::GraphProto& g) {
  for (auto& t : *g.mutable_initializer()) inline_tensor(t);
  inline_nodes(*g.mutable_node());
}

}  // namespace

std::string inline_external_data(onnx::ModelProto& m, const ExternalDataList& allowed,
                                 const std::filesystem::path& model_path) {
  const ExternalDataScope scope(allowed, model_path);
  try {
    inline_graph(*m.mutable_graph());
    for (auto& f : *m.mutable_functions()) inline_nodes(*f.mutable_node());
  } catch (const ExecError& e) {
    return e.what();
  }
  return "";
}

ExternalDataScope::ExternalDataScope(const ExternalDataList& allowed, const std::filesystem::path& model_path)
    : previous_(external_files) {
  auto* x = new ExternalFiles;
  x->allowed = &allowed;
  x->dir = model_path.parent_path().empty() ? std::filesystem::path(".") : model_path.parent_path();
  external_files = x;
}

ExternalDataScope::~ExternalDataScope() {
  delete external_files;
  external_files = static_cast<ExternalFiles*>(const_cast<void*>(previous_));
}

Tensor tensor_from_proto(const onnx::TensorProto& tp) {
  if (!dt_known(tp.data_type()))
    throw ExecError(ErrKind::Unsupported, "tensor '" + tp.name() + "' has element type " +
                                              std::to_string(tp.data_type()) + ", which the executor does not support");
  // A payload the loader left in the mapped file (loaders/onnx_wire) is read there; the model's own external data is
  // not read.
  std::string_view mapped;
  std::shared_ptr<const io::MappedFile> mapping;
  PayloadField field = PayloadField::Raw;
  bool in_mapping = mapped_payload(tp, mapped, mapping, &field);
  // The model's own external data: raw little-endian bytes in a file beside it, read from its mapping.
  if (!in_mapping && tp.data_location() == onnx::TensorProto::EXTERNAL) {
    mapped = external_bytes(tp, mapping);
    field = PayloadField::Raw;
    in_mapping = true;
  }
  // A packed varint run (int32_data, int64_data, uint64_data) left in the file is decoded from it; raw_data and the
  // fixed-width runs (float_data, double_data) are the little-endian values.
  const bool varints =
      in_mapping && field != PayloadField::Raw && field != PayloadField::Float && field != PayloadField::Double;
  const bool has_raw = (in_mapping && !varints) || tp.has_raw_data();
  const std::string_view raw = in_mapping ? mapped : std::string_view(tp.raw_data());
  const DT dt = static_cast<DT>(tp.data_type());
  Dims d(tp.dims().begin(), tp.dims().end());
  // Validate the declared size against the data before allocating anything.
  int64_t declared = 1;
  bool big = false;
  for (int64_t x : d) {
    if (x < 0) fail("tensor '" + tp.name() + "' has a negative dimension " + dims_str(d));
    if (x != 0 && declared > INT64_MAX / x) big = true;
    else declared *= x;
  }
  int64_t available = -1;
  if (dt == DT::Str) available = tp.string_data_size();  // strings never live in raw_data
  // A run the loader proved holds its dims' count: at least one byte each (counted, and judged after, when not).
  else if (varints)
    available = static_cast<int64_t>(mapped.size()) >= declared && !big
                    ? declared
                    : for_each_packed_varint(mapped, [](uint64_t) {});
  else if (has_raw) available = dt_bytes(dt) ? static_cast<int64_t>(raw.size() / dt_bytes(dt)) : -1;
  else {
    switch (dt) {
      case DT::F32: available = tp.float_data_size(); break;
      case DT::F64: available = tp.double_data_size(); break;
      case DT::I64: available = tp.int64_data_size(); break;
      case DT::U32:
      case DT::U64: available = tp.uint64_data_size(); break;
      case DT::Str: available = tp.string_data_size(); break;
      default: available = tp.int32_data_size(); break;
    }
  }
  if (available < 0) fail("tensor '" + tp.name() + "': cannot tell how many values it carries");
  if (big || (declared != available && std::find(d.begin(), d.end(), 0) == d.end()))
    fail("tensor '" + tp.name() + "' declares shape " + dims_str(d) + (big ? " (more than 2^63 elements)" : "") +
         " but carries " + std::to_string(available) + " values");
  Tensor t(dt, d);
  const int64_t n = t.numel();
  if (n == 0) return t;
  if (varints) {
    set_from_varints(t, tp, mapped, field);
    mapping->release(static_cast<size_t>(mapped.data() - mapping->bytes().data()), mapped.size());
    return t;
  }
  if (has_raw && dt != DT::Str) {
    set_from_raw(t, raw, n);
    // Read once into the tensor: the mapped pages go back (the page cache keeps them).
    if (in_mapping) mapping->release(static_cast<size_t>(raw.data() - mapping->bytes().data()), raw.size());
    return t;
  }
  switch (dt) {
    case DT::F32:
      need(tp.float_data(), n, "float_data", t);
      for (int64_t k = 0; k < n; ++k) t.f[k] = tp.float_data(k);
      break;
    case DT::F64:
      need(tp.double_data(), n, "double_data", t);
      for (int64_t k = 0; k < n; ++k) t.f[k] = tp.double_data(k);
      break;
    case DT::F16:
      need(tp.int32_data(), n, "int32_data", t);
      for (int64_t k = 0; k < n; ++k) t.f[k] = f16_bits_to_f32(static_cast<uint16_t>(tp.int32_data(k)));
      break;
    case DT::BF16:
      need(tp.int32_data(), n, "int32_data", t);
      for (int64_t k = 0; k < n; ++k) t.f[k] = bf16_bits_to_f32(static_cast<uint16_t>(tp.int32_data(k)));
      break;
    case DT::I64:
      need(tp.int64_data(), n, "int64_data", t);
      for (int64_t k = 0; k < n; ++k) t.i[k] = tp.int64_data(k);
      break;
    case DT::U32:
    case DT::U64:
      need(tp.uint64_data(), n, "uint64_data", t);
      for (int64_t k = 0; k < n; ++k) t.i[k] = wrap_to(dt, static_cast<int64_t>(tp.uint64_data(k)));
      break;
    case DT::Str:
      need(tp.string_data(), n, "string_data", t);
      for (int64_t k = 0; k < n; ++k) t.s[k] = tp.string_data(k);
      break;
    default:
      need(tp.int32_data(), n, "int32_data", t);
      for (int64_t k = 0; k < n; ++k) t.i[k] = wrap_to(dt, tp.int32_data(k));
      break;
  }
  return t;
}

void tensor_to_proto(const Tensor& t, onnx::TensorProto& tp) {
  tp.set_data_type(static_cast<int>(t.dt));
  tp.clear_dims();
  for (int64_t x : t.shape) tp.add_dims(x);
  const int64_t n = t.numel();
  if (is_string(t.dt)) {
    for (int64_t k = 0; k < n; ++k) tp.add_string_data(t.s[k]);
    return;
  }
  std::string raw;
  raw.resize(static_cast<size_t>(n) * dt_bytes(t.dt));
  char* p = raw.data();
  auto put = [&](auto v) {
    std::memcpy(p, &v, sizeof v);
    p += sizeof v;
  };
  for (int64_t k = 0; k < n; ++k) {
    switch (t.dt) {
      case DT::F32: put(static_cast<float>(t.f[k])); break;
      case DT::F64: put(t.f[k]); break;
      case DT::F16: put(f32_to_f16_bits(static_cast<float>(t.f[k]))); break;
      case DT::BF16: put(f32_to_bf16_bits(static_cast<float>(t.f[k]))); break;
      case DT::I8: put(static_cast<int8_t>(t.i[k])); break;
      case DT::U8:
      case DT::Bool: put(static_cast<uint8_t>(t.i[k])); break;
      case DT::I16: put(static_cast<int16_t>(t.i[k])); break;
      case DT::U16: put(static_cast<uint16_t>(t.i[k])); break;
      case DT::I32: put(static_cast<int32_t>(t.i[k])); break;
      case DT::U32: put(static_cast<uint32_t>(t.i[k])); break;
      default: put(t.i[k]); break;
    }
  }
  tp.set_raw_data(raw);
}

Value value_from_sequence(const onnx::SequenceProto& sp) {
  std::vector<Value> items;
  switch (sp.elem_type()) {
    case onnx::SequenceProto::TENSOR:
      for (const auto& t : sp.tensor_values()) items.push_back(Value::tensor(tensor_from_proto(t)));
      break;
    case onnx::SequenceProto::SEQUENCE:
      for (const auto& s : sp.sequence_values()) items.push_back(value_from_sequence(s));
      break;
    case onnx::SequenceProto::OPTIONAL:
      for (const auto& o : sp.optional_values()) items.push_back(value_from_optional(o));
      break;
    case onnx::SequenceProto::UNDEFINED:
      if (sp.tensor_values_size() || sp.sequence_values_size())
        fail("sequence with undefined element type holds values");
      break;
    default: throw ExecError(ErrKind::Unsupported, "sequence of maps");
  }
  return Value::sequence(std::move(items));
}

Value value_from_optional(const onnx::OptionalProto& op) {
  switch (op.elem_type()) {
    case onnx::OptionalProto::TENSOR:
      if (op.has_tensor_value())
        return Value::optional(std::make_shared<const Value>(Value::tensor(tensor_from_proto(op.tensor_value()))));
      return Value::optional(nullptr);
    case onnx::OptionalProto::SEQUENCE:
      if (op.has_sequence_value())
        return Value::optional(std::make_shared<const Value>(value_from_sequence(op.sequence_value())));
      return Value::optional(nullptr);
    case onnx::OptionalProto::UNDEFINED: return Value::optional(nullptr);
    default: throw ExecError(ErrKind::Unsupported, "optional of this element kind");
  }
}

Value read_pb_value(const std::string& bytes, const onnx::TypeProto* type) {
  if (type && type->has_sequence_type()) {
    onnx::SequenceProto sp;
    if (auto e = parse_proto(bytes, sp); !e.empty()) fail(e);
    return value_from_sequence(sp);
  }
  if (type && type->has_optional_type()) {
    onnx::OptionalProto op;
    if (auto e = parse_proto(bytes, op); !e.empty()) fail(e);
    return value_from_optional(op);
  }
  onnx::TensorProto tp;
  if (auto e = parse_proto(bytes, tp); !e.empty()) fail(e);
  // ONNX's own test data stores bfloat16 as uint16 bit patterns (numpy has no bfloat16).
  if (type && type->has_tensor_type() && type->tensor_type().elem_type() == onnx::TensorProto::BFLOAT16 &&
      tp.data_type() == onnx::TensorProto::UINT16) {
    Tensor bits = tensor_from_proto(tp);
    Tensor t(DT::BF16, bits.shape);
    for (int64_t k = 0; k < t.numel(); ++k) t.f[k] = bf16_bits_to_f32(static_cast<uint16_t>(bits.i[k]));
    return Value::tensor(std::move(t));
  }
  if (type && type->has_tensor_type() && type->tensor_type().elem_type() != 0 &&
      type->tensor_type().elem_type() != tp.data_type())
    fail("golden tensor has element type " + std::to_string(tp.data_type()) + ", the model declares " +
         std::to_string(type->tensor_type().elem_type()));
  return Value::tensor(tensor_from_proto(tp));
}

namespace {
void fill_sequence(const Value& v, onnx::SequenceProto& sp);
void fill_optional(const Value& v, onnx::OptionalProto& op) {
  if (!v.opt) return;
  if (v.opt->kind == Value::Kind::Tensor) {
    op.set_elem_type(onnx::OptionalProto::TENSOR);
    tensor_to_proto(*v.opt->t, *op.mutable_tensor_value());
  } else if (v.opt->kind == Value::Kind::Sequence) {
    op.set_elem_type(onnx::OptionalProto::SEQUENCE);
    fill_sequence(*v.opt, *op.mutable_sequence_value());
  }
}
void fill_sequence(const Value& v, onnx::SequenceProto& sp) {
  sp.set_elem_type(onnx::SequenceProto::TENSOR);
  if (!v.seq) return;
  for (const auto& x : *v.seq) {
    if (x.kind == Value::Kind::Tensor) {
      sp.set_elem_type(onnx::SequenceProto::TENSOR);
      tensor_to_proto(*x.t, *sp.add_tensor_values());
    } else if (x.kind == Value::Kind::Sequence) {
      sp.set_elem_type(onnx::SequenceProto::SEQUENCE);
      fill_sequence(x, *sp.add_sequence_values());
    } else if (x.kind == Value::Kind::Optional) {
      sp.set_elem_type(onnx::SequenceProto::OPTIONAL);
      fill_optional(x, *sp.add_optional_values());
    }
  }
}
}  // namespace

std::string write_pb_value(const Value& v, const std::string& name) {
  if (v.kind == Value::Kind::Sequence) {
    onnx::SequenceProto sp;
    sp.set_name(name);
    fill_sequence(v, sp);
    return sp.SerializeAsString();
  }
  if (v.kind == Value::Kind::Optional) {
    onnx::OptionalProto op;
    op.set_name(name);
    fill_optional(v, op);
    return op.SerializeAsString();
  }
  onnx::TensorProto tp;
  tp.set_name(name);
  if (v.t) tensor_to_proto(*v.t, tp);
  return tp.SerializeAsString();
}

// ---------------------------------------------------------------- .npy
Value read_npy(const std::string& b) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) fail("not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(b[6]);
  size_t hlen, off;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    off = 10;
  } else {
    if (b.size() < 12) fail(".npy header truncated");
    hlen = load_le<uint32_t>(b.data() + 8);
    off = 12;
  }
  if (off + hlen > b.size()) fail(".npy header runs past the end of the file");
  const std::string h = b.substr(off, hlen);
  auto field = [&](const std::string& key) -> std::string {
    const auto p = h.find("'" + key + "'");
    if (p == std::string::npos) fail(".npy header has no '" + key + "'");
    auto q = h.find(':', p);
    if (q == std::string::npos) fail(".npy header malformed");
    ++q;
    while (q < h.size() && h[q] == ' ') ++q;
    if (q < h.size() && h[q] == '\'') {
      const auto e = h.find('\'', q + 1);
      if (e == std::string::npos) fail(".npy header malformed");
      return h.substr(q + 1, e - q - 1);
    }
    if (q < h.size() && h[q] == '(') {
      const auto e = h.find(')', q);
      if (e == std::string::npos) fail(".npy header malformed");
      return h.substr(q + 1, e - q - 1);
    }
    const auto e = h.find_first_of(",}", q);
    return h.substr(q, e == std::string::npos ? std::string::npos : e - q);
  };
  const std::string descr = field("descr");
  if (field("fortran_order").find("True") != std::string::npos)
    throw ExecError(ErrKind::Unsupported, ".npy in Fortran order");
  Dims d;
  {
    const std::string shp = field("shape");
    size_t k = 0;
    while (k < shp.size()) {
      while (k < shp.size() && (shp[k] == ' ' || shp[k] == ',')) ++k;
      if (k >= shp.size()) break;
      size_t e = k;
      while (e < shp.size() && std::isdigit(static_cast<unsigned char>(shp[e]))) ++e;
      if (e == k) fail(".npy shape malformed: (" + shp + ")");
      if (e - k > 18) fail(".npy dimension too large");
      d.push_back(std::stoll(shp.substr(k, e - k)));
      k = e;
    }
  }
  if (descr.size() < 3) fail(".npy descr '" + descr + "' not understood");
  const char endian = descr[0];
  const char kind = descr[1];
  const int width = std::atoi(descr.c_str() + 2);
  DT dt = DT::Undefined;
  if (kind == 'f') dt = width == 2 ? DT::F16 : width == 4 ? DT::F32 : width == 8 ? DT::F64 : DT::Undefined;
  else if (kind == 'i')
    dt = width == 1 ? DT::I8 : width == 2 ? DT::I16 : width == 4 ? DT::I32 : width == 8 ? DT::I64 : DT::Undefined;
  else if (kind == 'u')
    dt = width == 1 ? DT::U8 : width == 2 ? DT::U16 : width == 4 ? DT::U32 : width == 8 ? DT::U64 : DT::Undefined;
  else if (kind == 'b' && width == 1) dt = DT::Bool;
  else if (kind == 'U') dt = DT::Str;
  if (dt == DT::Undefined) throw ExecError(ErrKind::Unsupported, ".npy element type '" + descr + "'");
  // The file's size bounds what is allocated: check the data is all there before making the tensor.
  const int64_t n = checked_numel(d);
  const size_t data = off + hlen;
  const size_t w = dt == DT::Str ? static_cast<size_t>(width) * 4 : dt_bytes(dt);
  if (w == 0 || (b.size() - data) / w < static_cast<size_t>(n))
    fail(".npy data holds fewer bytes than shape " + dims_str(d) + " needs");
  Tensor t(dt, d);
  const bool swap = endian == '>' && w > 1;
  for (int64_t k = 0; k < n; ++k) {
    std::string e = b.substr(data + k * w, w);
    if (dt == DT::Str) {
      std::string out;
      for (size_t c = 0; c + 4 <= e.size(); c += 4) {
        uint32_t cp = swap ? (static_cast<unsigned char>(e[c]) << 24 | static_cast<unsigned char>(e[c + 1]) << 16 |
                              static_cast<unsigned char>(e[c + 2]) << 8 | static_cast<unsigned char>(e[c + 3]))
                           : load_le<uint32_t>(e.data() + c);
        if (cp == 0) break;
        if (cp < 0x80) out += static_cast<char>(cp);
        else if (cp < 0x800) {
          out += static_cast<char>(0xc0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xe0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
          out += static_cast<char>(0xf0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        }
      }
      t.s[k] = out;
      continue;
    }
    if (swap) std::reverse(e.begin(), e.end());
    std::string one = e;
    switch (dt) {
      case DT::F32: t.f[k] = load_le<float>(one.data()); break;
      case DT::F64: t.f[k] = load_le<double>(one.data()); break;
      case DT::F16: t.f[k] = f16_bits_to_f32(load_le<uint16_t>(one.data())); break;
      case DT::I8: t.i[k] = load_le<int8_t>(one.data()); break;
      case DT::U8: t.i[k] = load_le<uint8_t>(one.data()); break;
      case DT::Bool: t.i[k] = load_le<uint8_t>(one.data()) != 0; break;
      case DT::I16: t.i[k] = load_le<int16_t>(one.data()); break;
      case DT::U16: t.i[k] = load_le<uint16_t>(one.data()); break;
      case DT::I32: t.i[k] = load_le<int32_t>(one.data()); break;
      case DT::U32: t.i[k] = load_le<uint32_t>(one.data()); break;
      default: t.i[k] = load_le<int64_t>(one.data()); break;
    }
  }
  return Value::tensor(std::move(t));
}

std::string write_npy(const Tensor& t) {
  std::string descr;
  switch (t.dt) {
    case DT::F32: descr = "<f4"; break;
    case DT::F64: descr = "<f8"; break;
    case DT::F16: descr = "<f2"; break;
    case DT::I8: descr = "|i1"; break;
    case DT::U8: descr = "|u1"; break;
    case DT::Bool: descr = "|b1"; break;
    case DT::I16: descr = "<i2"; break;
    case DT::U16: descr = "<u2"; break;
    case DT::I32: descr = "<i4"; break;
    case DT::U32: descr = "<u4"; break;
    case DT::I64: descr = "<i8"; break;
    case DT::U64: descr = "<u8"; break;
    default: throw ExecError(ErrKind::Unsupported, std::string("writing .npy of ") + dt_name(t.dt));
  }
  std::string shape = "(";
  for (size_t k = 0; k < t.shape.size(); ++k)
    shape += std::to_string(t.shape[k]) + (t.shape.size() == 1 ? "," : k + 1 < t.shape.size() ? ", " : "");
  shape += ")";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  out += h;
  onnx::TensorProto tp;
  tensor_to_proto(t, tp);
  out += tp.raw_data();
  return out;
}

// ---------------------------------------------------------------- data sets
namespace {
int trailing_number(const std::string& s) {
  size_t k = s.size();
  while (k > 0 && std::isdigit(static_cast<unsigned char>(s[k - 1]))) --k;
  if (k == s.size() || s.size() - k > 6) return -1;
  return std::stoi(s.substr(k));
}

DataSet scan_set(const fs::path& dir) {
  DataSet ds;
  ds.dir = dir;
  std::error_code ec;
  // Every entry named like golden data, whatever it is: one that is not a regular file holding data (a FIFO, a
  // directory, a dangling link, an LFS pointer) is a problem of the set, never a file silently left out.
  std::vector<fs::path> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) names.push_back(it->path());
  std::sort(names.begin(), names.end());
  for (const fs::path& path : names) {
    const std::string stem = path.stem().string();
    const std::string ext = path.extension().string();
    if (ext != ".pb" && ext != ".npy") continue;
    const bool in = stem.rfind("input_", 0) == 0, out = stem.rfind("output_", 0) == 0;
    if (!in && !out) continue;
    const int k = trailing_number(stem);
    if (k < 0 || k > 100000) continue;
    if (std::string why = golden_file_problem(path); !why.empty()) {
      (in ? ds.input_problems : ds.output_problems).push_back(std::move(why));
      continue;
    }
    auto& v = in ? ds.inputs : ds.outputs;
    if (v.size() <= static_cast<size_t>(k)) v.resize(k + 1);
    v[k] = path;
  }
  const fs::path pins = dir / "pins.json";
  if (fs::exists(pins, ec)) {
    std::string bytes;
    if (auto err = read_file_bytes(pins, bytes, 1 << 20); !err.empty()) ds.pins_error = err;
    else {
      try {
        auto j = nlohmann::json::parse(bytes);
        const auto& p = j.contains("pins") ? j["pins"] : j;
        if (!p.is_object()) ds.pins_error = "pins.json: \"pins\" must be an object of node path -> true|false";
        else
          for (auto it = p.begin(); it != p.end(); ++it) {
            if (!it.value().is_boolean()) {
              ds.pins_error = "pins.json: pin '" + it.key() + "' is not true or false";
              break;
            }
            ds.pins[it.key()] = it.value().get<bool>();
          }
      } catch (const std::exception& e) {
        ds.pins_error = std::string("pins.json: ") + e.what();
      }
    }
  }
  return ds;
}
}  // namespace

std::vector<DataSet> find_data_sets(const fs::path& dir) {
  std::vector<DataSet> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  if (dir.filename().string().rfind("test_data_set_", 0) == 0) {
    out.push_back(scan_set(dir));
    return out;
  }
  std::vector<std::pair<int, fs::path>> dirs, dangling;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("test_data_set_", 0) != 0) continue;
    if (e.is_directory(ec)) dirs.emplace_back(trailing_number(name), e.path());
    // test_data_set_N as a link that leads nowhere: a data set that is not checked out.
    else if (e.is_symlink(ec) && !fs::exists(e.path(), ec) && trailing_number(name) >= 0)
      dangling.emplace_back(trailing_number(name), e.path());
  }
  for (auto& d : dangling) dirs.push_back(d);
  std::sort(dirs.begin(), dirs.end());
  for (auto& [n, p] : dirs) {
    if (fs::is_directory(p, ec)) {
      out.push_back(scan_set(p));
      continue;
    }
    DataSet ds;
    ds.dir = p;
    ds.error = p.filename().string() + " is a dangling symbolic link: is the data checked out?";
    out.push_back(std::move(ds));
  }
  return out;
}

std::string pins_json(const std::map<std::string, bool>& pins) {
  nlohmann::json j;
  j["pins"] = nlohmann::json::object();
  for (auto& [k, v] : pins) j["pins"][k] = v;
  return j.dump(2) + "\n";
}

// A golden value file of the backend-test layout (IR and TFLite data sets): .npy, else a .pb tensor.
Value read_golden(const std::filesystem::path& p) {
  std::string bytes;
  if (auto e = read_file_bytes(p, bytes); !e.empty()) fail(e);
  try {
    if (p.extension() == ".npy") return read_npy(bytes);
    return read_pb_value(bytes, nullptr);
  } catch (const ExecError& e) {
    throw ExecError(e.kind, p.filename().string() + ": " + e.what());
  }
}

}  // namespace condlint::exec
