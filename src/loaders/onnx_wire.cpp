#include "loaders/onnx_wire.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "loaders/onnx_util.hpp"

namespace condlint {

namespace {

// Field numbers of onnx.proto that the pass enters or judges.
constexpr uint64_t kModelGraph = 7;
constexpr uint64_t kGraphNode = 1, kGraphInitializer = 5;
constexpr uint64_t kNodeAttribute = 5;
constexpr uint64_t kAttrT = 5, kAttrG = 6, kAttrGraphs = 11;
constexpr uint64_t kTensorDims = 1, kTensorDataType = 2, kTensorFloatData = 4, kTensorDoubleData = 10,
                   kTensorRawData = 9, kTensorName = 8, kTensorDocString = 12, kTensorMetadata = 16,
                   kTensorExternalData = 13, kTensorDataLocation = 14;

// The element types whose raw_data the pass may strip, by their width in bytes (onnx.proto's TensorProto.DataType,
// those the linked onnx knows; STRING never lives in raw_data).
int fixed_width(uint64_t data_type) {
  switch (data_type) {
    case 1: return 4;    // FLOAT
    case 2: return 1;    // UINT8
    case 3: return 1;    // INT8
    case 4: return 2;    // UINT16
    case 5: return 2;    // INT16
    case 6: return 4;    // INT32
    case 7: return 8;    // INT64
    case 9: return 1;    // BOOL
    case 10: return 2;   // FLOAT16
    case 11: return 8;   // DOUBLE
    case 12: return 4;   // UINT32
    case 13: return 8;   // UINT64
    case 14: return 8;   // COMPLEX64
    case 15: return 16;  // COMPLEX128
    case 16: return 2;   // BFLOAT16
    default: return 0;
  }
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_bytes_field(std::string& out, uint64_t field, std::string_view payload) {
  put_varint(out, field << 3 | 2);
  put_varint(out, payload.size());
  out.append(payload);
}

// A tensor's external_data entry (StringStringEntryProto: key 1, value 2).
void put_entry(std::string& out, std::string_view key, std::string_view value) {
  std::string e;
  put_bytes_field(e, 1, key);
  put_bytes_field(e, 2, value);
  put_bytes_field(out, kTensorExternalData, e);
}

class Slimmer {
 public:
  // dry: counts what would be stripped and writes nothing (most models have nothing to strip).
  Slimmer(std::string_view file, const std::string& mark, size_t threshold, bool dry)
      : file_(file), mark_(mark), threshold_(threshold), dry_(dry) {}

  bool model(std::string_view b, std::string& out) {
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.number == kModelGraph && f.wire == 2)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return graph(p, c, 1); });
      return false;
    });
  }

  size_t stripped = 0;
  uint64_t stripped_bytes = 0;

 private:
  std::string_view file_;
  const std::string& mark_;
  size_t threshold_;
  bool dry_;

  void emit(std::string& out, std::string_view s) const {
    if (!dry_) out.append(s);
  }

  // Copies the fields of `b` to `out`, each as it is but those `sub` rewrites (it returns true when it wrote the
  // field). False when `b` does not scan or a message entered does not.
  template <class Sub>
  bool copy_entering(std::string_view b, std::string& out, Sub&& sub) {
    bool ok = true;
    const bool scanned = for_each_wire_field(b, [&](const WireField& f) {
      if (!ok) return;
      if (!sub(f, out, ok)) emit(out, b.substr(f.begin, f.end - f.begin));
    });
    return scanned && ok;
  }

  // Writes field `f` with the payload `inner` makes of it: the field's own bytes when nothing inside changed.
  template <class Inner>
  bool enter(const WireField& f, std::string& out, bool& ok, Inner&& inner) {
    std::string child;
    const size_t before = stripped;
    if (!inner(f.payload, child)) {
      ok = false;
      return true;
    }
    if (stripped == before) return false;  // unchanged: copied verbatim by the caller
    if (!dry_) put_bytes_field(out, f.number, child);
    return true;
  }

  bool graph(std::string_view b, std::string& out, int depth) {
    if (depth > kSlimMaxGraphDepth) {
      emit(out, b);
      return true;
    }
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.wire != 2) return false;
      if (f.number == kGraphInitializer)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return tensor(p, c); });
      if (f.number == kGraphNode)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return node(p, c, depth); });
      return false;
    });
  }

  bool node(std::string_view b, std::string& out, int depth) {
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.number != kNodeAttribute || f.wire != 2) return false;
      return enter(f, o, ok, [&](std::string_view p, std::string& c) { return attribute(p, c, depth); });
    });
  }

  bool attribute(std::string_view b, std::string& out, int depth) {
    // A singular message given twice is merged by protobuf: a tensor merged from two pieces is left whole.
    int tensors = 0;
    if (!for_each_wire_field(b, [&](const WireField& f) { tensors += f.number == kAttrT; })) return false;
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.wire != 2) return false;
      if (f.number == kAttrT && tensors == 1)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return tensor(p, c); });
      if (f.number == kAttrG || f.number == kAttrGraphs)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return graph(p, c, depth + 1); });
      return false;
    });
  }

  // A tensor: its raw_data replaced by a mark when it is large and provably what the tensor declares.
  bool tensor(std::string_view b, std::string& out) {
    uint64_t data_type = 0;
    int raws = 0, others = 0, packed = 0;
    uint64_t packed_field = 0;
    std::string_view raw;  // the payload: raw_data, or a packed float_data / double_data run
    size_t raw_at = 0;     // where its field starts in `b`
    bool dims_ok = true;
    uint64_t count = 1;
    int rank = 0;
    auto dim = [&](uint64_t d) {
      ++rank;
      const auto v = static_cast<int64_t>(d);
      if (v < 0) dims_ok = false;
      else if (v != 0 && count > UINT64_MAX / static_cast<uint64_t>(v)) dims_ok = false;
      else count *= static_cast<uint64_t>(v);
    };
    const bool scanned = for_each_wire_field(b, [&](const WireField& f) {
      switch (f.number) {
        case kTensorDims:
          if (f.wire == 0) {
            size_t pos = 0;
            uint64_t v = 0;
            std::string_view s = b.substr(f.begin, f.end - f.begin);
            (void)read_wire_varint(s, pos, v);  // the tag
            if (read_wire_varint(s, pos, v)) dim(v);
            else dims_ok = false;
          } else if (f.wire == 2) {
            size_t pos = 0;
            uint64_t v = 0;
            while (pos < f.payload.size())
              if (read_wire_varint(f.payload, pos, v)) dim(v);
              else {
                dims_ok = false;
                break;
              }
          } else {
            dims_ok = false;
          }
          break;
        case kTensorDataType: {
          if (f.wire != 0) {
            ++others;
            break;
          }
          size_t pos = 0;
          std::string_view s = b.substr(f.begin, f.end - f.begin);
          (void)read_wire_varint(s, pos, data_type);
          if (!read_wire_varint(s, pos, data_type)) ++others;
          break;
        }
        case kTensorRawData:
          ++raws;
          raw = f.payload;
          raw_at = f.begin;
          if (f.wire != 2) ++others;
          break;
        case kTensorFloatData:
        case kTensorDoubleData:
          // Packed (one length-delimited run): the little-endian values, the bytes raw_data would hold. Unpacked
          // values are left as they are.
          if (f.wire != 2) ++others;
          ++packed;
          packed_field = f.number;
          raw = f.payload;
          raw_at = f.begin;
          break;
        case kTensorName:
        case kTensorDocString:
        case kTensorMetadata: break;
        default: ++others;  // typed data, a segment, external data, a location: left as they are
      }
    });
    if (!scanned) return false;
    const int width = fixed_width(data_type);
    const bool integer_list = (data_type == 6 || data_type == 7) && rank <= 1;
    // float_data holds FLOAT and COMPLEX64 values, double_data DOUBLE and COMPLEX128 ones.
    const bool packed_ok =
        packed_field == kTensorFloatData ? data_type == 1 || data_type == 14 : data_type == 11 || data_type == 15;
    if (raws + packed != 1 || (packed == 1 && !packed_ok) || others != 0 || !dims_ok || width == 0 || integer_list ||
        raw.size() < threshold_ || count > UINT64_MAX / static_cast<uint64_t>(width) ||
        count * static_cast<uint64_t>(width) != raw.size()) {
      emit(out, b);
      return true;
    }
    ++stripped;
    stripped_bytes += raw.size();
    if (dry_) return true;
    const auto offset = static_cast<uint64_t>(raw.data() - file_.data());
    for_each_wire_field(b, [&](const WireField& f) {
      if (f.begin != raw_at) out.append(b.substr(f.begin, f.end - f.begin));
    });
    put_varint(out, kTensorDataLocation << 3 | 0);
    put_varint(out, 1);  // EXTERNAL
    put_entry(out, "location", mark_);
    put_entry(out, "offset", std::to_string(offset));
    put_entry(out, "length", std::to_string(raw.size()));
    return true;
  }
};

// A decimal number of at most 18 digits (what the marks write); false for anything else.
bool parse_count(std::string_view s, int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// The marks of this process: a random token, then the number of the mapping they resolve to.
constexpr std::string_view kMarkPrefix = "condlint-mapped:";

struct Registry {
  std::mutex mu;
  std::string token;
  uint64_t next = 1;
  std::map<uint64_t, std::weak_ptr<const io::MappedFile>> files;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    std::random_device rd;
    static const char* hex = "0123456789abcdef";
    for (int i = 0; i < 32; ++i) reg->token.push_back(hex[rd() & 15]);
    return reg;
  }();
  return *r;
}

// The mapping number of a mark of this process; 0 when `location` is not one.
uint64_t mark_number(std::string_view location) {
  Registry& r = registry();
  if (location.substr(0, kMarkPrefix.size()) != kMarkPrefix) return 0;
  location.remove_prefix(kMarkPrefix.size());
  if (location.substr(0, r.token.size()) != r.token) return 0;
  location.remove_prefix(r.token.size());
  if (location.empty() || location.front() != ':') return 0;
  location.remove_prefix(1);
  int64_t v = 0;
  if (!parse_count(location, v) || v <= 0) return 0;
  return static_cast<uint64_t>(v);
}

struct Mark {
  uint64_t number = 0;
  int64_t offset = -1, length = -1;
};

Mark mark_of(const onnx::TensorProto& t) {
  Mark m;
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return m;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") m.number = mark_number(kv.value());
    else if (kv.key() == "offset") (void)parse_count(kv.value(), m.offset);
    else if (kv.key() == "length") (void)parse_count(kv.value(), m.length);
  }
  return m;
}

}  // namespace

bool slim_model(std::string_view file, const std::string& mark, size_t threshold, SlimModel& out) {
  out = SlimModel{};
  // A dry pass first: a model with nothing to strip (or bytes that do not scan) is never copied.
  Slimmer dry(file, mark, threshold, /*dry=*/true);
  if (!dry.model(file, out.bytes)) return false;
  if (dry.stripped == 0) return true;
  Slimmer s(file, mark, threshold, /*dry=*/false);
  if (!s.model(file, out.bytes)) return false;
  out.stripped = s.stripped;
  out.stripped_bytes = s.stripped_bytes;
  return true;
}

std::string new_mark(const std::shared_ptr<const io::MappedFile>& file) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto it = r.files.begin(); it != r.files.end();) it = it->second.expired() ? r.files.erase(it) : std::next(it);
  const uint64_t n = r.next++;
  r.files.emplace(n, file);
  return std::string(kMarkPrefix) + r.token + ":" + std::to_string(n);
}

bool is_mapped_payload(const onnx::TensorProto& t) { return mark_of(t).number != 0; }

const onnx::AttributeProto& checker_view(const onnx::AttributeProto& a, onnx::AttributeProto& scratch) {
  if (!a.has_t() || !is_mapped_payload(a.t())) return a;
  scratch = a;
  onnx::TensorProto& t = *scratch.mutable_t();
  t.clear_dims();
  t.clear_external_data();
  t.clear_data_location();
  t.set_raw_data(std::string(static_cast<size_t>(fixed_width(static_cast<uint64_t>(t.data_type()))), '\0'));
  return scratch;
}

bool mapped_payload(const onnx::TensorProto& t, std::string_view& bytes, std::shared_ptr<const io::MappedFile>& keep) {
  const Mark m = mark_of(t);
  if (m.number == 0 || m.offset < 0 || m.length < 0) return false;
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    const auto it = r.files.find(m.number);
    if (it == r.files.end()) return false;
    keep = it->second.lock();
  }
  if (!keep) return false;
  const auto size = static_cast<uint64_t>(keep->size());
  if (static_cast<uint64_t>(m.offset) > size ||
      static_cast<uint64_t>(m.length) > size - static_cast<uint64_t>(m.offset))
    return false;
  bytes = keep->bytes().substr(static_cast<size_t>(m.offset), static_cast<size_t>(m.length));
  return true;
}

bool restore_mapped_payloads(onnx::ModelProto& m, std::string& err) {
  bool ok = true;
  auto restore = [&](onnx::TensorProto& t) {
    if (!is_mapped_payload(t)) return;
    std::string_view bytes;
    std::shared_ptr<const io::MappedFile> keep;
    if (!mapped_payload(t, bytes, keep)) {
      if (ok) err = "the weights of tensor '" + t.name() + "' are no longer in the mapped file";
      ok = false;
      return;
    }
    t.clear_external_data();
    t.clear_data_location();
    t.set_raw_data(bytes.data(), bytes.size());
  };
  // The graphs still to visit (a list, not recursion: a kept model may nest deeply).
  std::vector<onnx::GraphProto*> todo;
  if (m.has_graph()) todo.push_back(m.mutable_graph());
  while (!todo.empty()) {
    onnx::GraphProto* g = todo.back();
    todo.pop_back();
    for (auto& t : *g->mutable_initializer()) restore(t);
    for (auto& n : *g->mutable_node())
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_t()) restore(*a.mutable_t());
        if (a.has_g()) todo.push_back(a.mutable_g());
        for (auto& sub : *a.mutable_graphs()) todo.push_back(&sub);
      }
  }
  return ok;
}

}  // namespace condlint
