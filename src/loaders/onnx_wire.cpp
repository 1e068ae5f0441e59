#include "loaders/onnx_wire.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include "loaders/onnx_util.hpp"

namespace condlint {

namespace {

// Field numbers of onnx.proto that the pass enters or judges.
constexpr uint64_t kModelGraph = 7, kModelFunctions = 25;
constexpr uint64_t kFunctionNode = 7;
constexpr uint64_t kGraphNode = 1, kGraphInitializer = 5, kGraphSparseInitializer = 15;
constexpr uint64_t kGraphInput = 11, kGraphOutput = 12, kGraphValueInfo = 13;
constexpr uint64_t kNodeAttribute = 5;
constexpr uint64_t kAttrT = 5, kAttrG = 6, kAttrGraphs = 11, kAttrSparseTensor = 22;
constexpr uint64_t kSparseValues = 1, kSparseIndices = 2;
constexpr uint64_t kTensorDims = 1, kTensorDataType = 2, kTensorFloatData = 4, kTensorInt32Data = 5,
                   kTensorInt64Data = 7, kTensorDoubleData = 10, kTensorUint64Data = 11, kTensorRawData = 9,
                   kTensorName = 8, kTensorDocString = 12, kTensorMetadata = 16, kTensorExternalData = 13,
                   kTensorDataLocation = 14;

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

// The field a payload came from, by its TensorProto field number; Raw for raw_data (and anything else).
PayloadField field_of(uint64_t number) {
  switch (number) {
    case kTensorFloatData: return PayloadField::Float;
    case kTensorDoubleData: return PayloadField::Double;
    case kTensorInt32Data: return PayloadField::Int32;
    case kTensorInt64Data: return PayloadField::Int64;
    case kTensorUint64Data: return PayloadField::Uint64;
    default: return PayloadField::Raw;
  }
}

// How a mark names the field (its "field" entry).
constexpr std::string_view kFieldNames[] = {"raw_data",   "float_data", "double_data",
                                            "int32_data", "int64_data", "uint64_data"};

bool is_varint_run(PayloadField f) {
  return f == PayloadField::Int32 || f == PayloadField::Int64 || f == PayloadField::Uint64;
}

// Whether a packed run of `field` is where onnx.proto stores values of `data_type` (float_data holds FLOAT and
// COMPLEX64, double_data DOUBLE and COMPLEX128; the varint fields: packed_value_fits).
bool field_holds(PayloadField field, uint64_t data_type) {
  switch (field) {
    case PayloadField::Float: return data_type == 1 || data_type == 14;
    case PayloadField::Double: return data_type == 11 || data_type == 15;
    case PayloadField::Raw: return fixed_width(data_type) != 0;
    default: return packed_range(static_cast<int>(data_type), field).ok;
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

// Verdicts on varint runs by where they lie, shared by the dry pass and the copying one: each run is decoded once.
using RunVerdicts = std::unordered_map<const char*, bool>;

class Slimmer {
 public:
  // dry: counts what would be stripped and writes nothing (most models have nothing to strip).
  Slimmer(std::string_view file, const std::string& mark, size_t threshold, bool dry, RunVerdicts& verdicts,
          const io::MappedFile* pages)
      : file_(file), mark_(mark), threshold_(threshold), dry_(dry), verdicts_(verdicts), pages_(pages) {}

  bool model(std::string_view b, std::string& out) {
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.number == kModelGraph && f.wire == 2)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return graph(p, c, 1); });
      if (f.number == kModelFunctions && f.wire == 2)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return function(p, c); });
      return false;
    });
  }

  size_t stripped = 0;
  uint64_t stripped_bytes = 0;
  uint64_t entries = 0;  // nodes, tensors and value declarations of every graph and function body scanned

 private:
  std::string_view file_;
  const std::string& mark_;
  size_t threshold_;
  bool dry_;
  RunVerdicts& verdicts_;
  const io::MappedFile* pages_;

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

  // A model-local function: its nodes as a graph's (their attributes' tensors and subgraphs).
  bool function(std::string_view b, std::string& out) {
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.number != kFunctionNode || f.wire != 2) return false;
      ++entries;
      return enter(f, o, ok, [&](std::string_view p, std::string& c) { return node(p, c, 1); });
    });
  }

  bool graph(std::string_view b, std::string& out, int depth) {
    if (depth > kSlimMaxGraphDepth) {
      emit(out, b);
      return true;
    }
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.wire != 2) return false;
      entries += f.number == kGraphNode || f.number == kGraphInitializer || f.number == kGraphSparseInitializer ||
                 f.number == kGraphInput || f.number == kGraphOutput || f.number == kGraphValueInfo;
      if (f.number == kGraphInitializer)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return tensor(p, c, false); });
      if (f.number == kGraphSparseInitializer)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return sparse(p, c); });
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
    int tensors = 0, sparses = 0;
    if (!for_each_wire_field(b, [&](const WireField& f) {
          tensors += f.number == kAttrT;
          sparses += f.number == kAttrSparseTensor;
        }))
      return false;
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.wire != 2) return false;
      if (f.number == kAttrT && tensors == 1)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return tensor(p, c, false); });
      if (f.number == kAttrSparseTensor && sparses == 1)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return sparse(p, c); });
      if (f.number == kAttrG || f.number == kAttrGraphs)
        return enter(f, o, ok, [&](std::string_view p, std::string& c) { return graph(p, c, depth + 1); });
      return false;
    });
  }

  // A sparse tensor: its values and its indices, each a tensor (given twice, protobuf merges them: left whole).
  bool sparse(std::string_view b, std::string& out) {
    int values = 0, indices = 0;
    if (!for_each_wire_field(b, [&](const WireField& f) {
          values += f.number == kSparseValues;
          indices += f.number == kSparseIndices;
        }))
      return false;
    if (values > 1 || indices > 1) {
      emit(out, b);
      return true;
    }
    return copy_entering(b, out, [&](const WireField& f, std::string& o, bool& ok) {
      if (f.wire != 2 || (f.number != kSparseValues && f.number != kSparseIndices)) return false;
      return enter(f, o, ok, [&](std::string_view p, std::string& c) { return tensor(p, c, true); });
    });
  }

  // Whether a packed varint run holds exactly `count` values of `data_type` as `field` stores them.
  // Read in chunks that end after a varint's last byte (a byte whose high bit is clear), so that each reads as the
  // run does, each chunk's pages given back behind the pass.
  bool varint_run_holds(std::string_view run, PayloadField field, uint64_t data_type, uint64_t count) {
    const auto [it, fresh] = verdicts_.try_emplace(run.data(), false);
    if (!fresh) return it->second;
    const PackedRange range = packed_range(static_cast<int>(data_type), field);
    constexpr size_t kChunk = size_t{8} << 20;
    bool fits = range.ok;
    uint64_t n = 0;
    for (size_t at = 0; fits && at < run.size();) {
      size_t end = std::min(run.size(), at + kChunk);
      for (int extra = 0; end < run.size() && static_cast<unsigned char>(run[end - 1]) >= 0x80 && extra < 10; ++extra)
        ++end;  // a varint has at most 10 bytes: a chunk that still ends inside one holds one longer, which fails
      const int64_t k = for_each_packed_varint(run.substr(at, end - at), [&](uint64_t v) { fits &= range.holds(v); });
      if (k < 0) fits = false;
      else n += static_cast<uint64_t>(k);
      if (pages_) pages_->release(static_cast<size_t>(run.data() + at - file_.data()), end - at);
      at = end;
    }
    it->second = fits && n == count;
    return it->second;
  }

  // A tensor: its payload replaced by a mark when it is large and provably what the tensor declares. In a sparse
  // tensor (`in_sparse`) one-dimensional integer tensors are stripped too: onnx's inference never reads them there.
  bool tensor(std::string_view b, std::string& out, bool in_sparse) {
    uint64_t data_type = 0;
    int payloads = 0, others = 0;
    PayloadField field = PayloadField::Raw;
    std::string_view raw;  // the payload: raw_data or a packed run
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
        case kTensorFloatData:
        case kTensorDoubleData:
        case kTensorInt32Data:
        case kTensorInt64Data:
        case kTensorUint64Data:
          // raw_data, or a packed run (one length-delimited field). Unpacked values are left as they are.
          if (f.wire != 2) ++others;
          ++payloads;
          field = field_of(f.number);
          raw = f.payload;
          raw_at = f.begin;
          break;
        case kTensorName:
        case kTensorDocString:
        case kTensorMetadata: break;
        default: ++others;  // string data, a segment, external data, a location: left as they are
      }
    });
    if (!scanned) return false;
    const int width = fixed_width(data_type);
    const bool integer_list = !in_sparse && (data_type == 6 || data_type == 7) && rank <= 1;
    bool holds = payloads == 1 && others == 0 && dims_ok && width != 0 && !integer_list && raw.size() >= threshold_ &&
                 field_holds(field, data_type);
    if (holds && is_varint_run(field)) holds = varint_run_holds(raw, field, data_type, count);
    else if (holds)
      holds = count <= UINT64_MAX / static_cast<uint64_t>(width) && count * static_cast<uint64_t>(width) == raw.size();
    if (!holds) {
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
    if (field != PayloadField::Raw) put_entry(out, "field", kFieldNames[static_cast<int>(field)]);
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
  PayloadField field = PayloadField::Raw;
  bool field_ok = true;  // false: a "field" entry no mark of this process writes
};

Mark mark_of(const onnx::TensorProto& t) {
  Mark m;
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return m;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") m.number = mark_number(kv.value());
    else if (kv.key() == "offset") (void)parse_count(kv.value(), m.offset);
    else if (kv.key() == "length") (void)parse_count(kv.value(), m.length);
    else if (kv.key() == "field") {
      const auto* at = std::find(std::begin(kFieldNames), std::end(kFieldNames), kv.value());
      m.field_ok = at != std::end(kFieldNames);
      if (m.field_ok) m.field = static_cast<PayloadField>(at - std::begin(kFieldNames));
    }
  }
  if (!m.field_ok) m.number = 0;
  return m;
}

// Calls on_tensor(const TensorProto&) and on_sparse(const SparseTensorProto&) for every tensor slim_model may mark
// among `nodes` and in `graphs`, and in the graphs under them: initializers, sparse initializers, attributes' tensors
// and sparse tensors. Iterative: a kept model may nest deeply. Callers that change what they are handed own the
// messages (they are not const objects).
template <class OnTensor, class OnSparse>
void for_each_markable(const google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes,
                       std::vector<const onnx::GraphProto*> graphs, OnTensor&& on_tensor, OnSparse&& on_sparse) {
  std::vector<const google::protobuf::RepeatedPtrField<onnx::NodeProto>*> lists;
  if (nodes) lists.push_back(nodes);
  auto graph = [&](const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) on_tensor(t);
    for (const auto& st : g.sparse_initializer()) on_sparse(st);
    lists.push_back(&g.node());
  };
  for (const auto* g : graphs) graph(*g);
  while (!lists.empty()) {
    const auto* list = lists.back();
    lists.pop_back();
    for (const auto& n : *list)
      for (const auto& a : n.attribute()) {
        if (a.has_t()) on_tensor(a.t());
        if (a.has_sparse_tensor()) on_sparse(a.sparse_tensor());
        if (a.has_g()) graph(a.g());
        for (const auto& sub : a.graphs()) graph(sub);
      }
  }
}

// A marked tensor given its values back in the field they came from. False, with `err`, when they cannot be read.
bool restore_tensor(onnx::TensorProto& t, std::string& err) {
  std::string_view bytes;
  std::shared_ptr<const io::MappedFile> keep;
  PayloadField field = PayloadField::Raw;
  if (!mapped_payload(t, bytes, keep, &field)) {
    err = "the weights of tensor '" + t.name() + "' are no longer in the mapped file";
    return false;
  }
  onnx::TensorProto back;  // the values first, so that `t` is changed only when they all read
  const int dt = t.data_type();
  bool fits = true;
  int64_t n = 0;
  switch (field) {
    case PayloadField::Raw: back.set_raw_data(bytes.data(), bytes.size()); break;
    case PayloadField::Float:
      back.mutable_float_data()->Resize(static_cast<int>(bytes.size() / 4), 0.0f);
      std::memcpy(back.mutable_float_data()->mutable_data(), bytes.data(), bytes.size() / 4 * 4);
      fits = bytes.size() % 4 == 0;
      break;
    case PayloadField::Double:
      back.mutable_double_data()->Resize(static_cast<int>(bytes.size() / 8), 0.0);
      std::memcpy(back.mutable_double_data()->mutable_data(), bytes.data(), bytes.size() / 8 * 8);
      fits = bytes.size() % 8 == 0;
      break;
    case PayloadField::Int32:
      n = for_each_packed_varint(bytes, [&](uint64_t v) {
        fits = fits && packed_value_fits(dt, field, v);
        back.add_int32_data(static_cast<int32_t>(static_cast<int64_t>(v)));
      });
      break;
    case PayloadField::Int64:
      n = for_each_packed_varint(bytes, [&](uint64_t v) {
        fits = fits && packed_value_fits(dt, field, v);
        back.add_int64_data(static_cast<int64_t>(v));
      });
      break;
    case PayloadField::Uint64:
      n = for_each_packed_varint(bytes, [&](uint64_t v) {
        fits = fits && packed_value_fits(dt, field, v);
        back.add_uint64_data(v);
      });
      break;
  }
  if (!fits || n < 0) {
    err = "the weights of tensor '" + t.name() + "' no longer read as the values they were";
    return false;
  }
  t.clear_external_data();
  t.clear_data_location();
  t.MergeFrom(back);
  return true;
}

// A marked tensor as onnx's checker is shown it: `keep_dims` (a sparse tensor's values, whose count the checker
// reads from their dims) or not, with one element of data in raw_data (the checker accepts raw_data of any length
// for a type that is not STRING; the tensor it stands for holds its values in the field its type is stored in).
void stand_in(onnx::TensorProto& t, bool keep_dims) {
  if (!keep_dims) t.clear_dims();
  t.clear_external_data();
  t.clear_data_location();
  t.set_raw_data(std::string(static_cast<size_t>(fixed_width(static_cast<uint64_t>(t.data_type()))), '\0'));
}

bool has_marks(const onnx::SparseTensorProto& st) {
  return (st.has_values() && is_mapped_payload(st.values())) || (st.has_indices() && is_mapped_payload(st.indices()));
}

void sparse_stand_in(onnx::SparseTensorProto& st) {
  if (st.has_values() && is_mapped_payload(st.values())) stand_in(*st.mutable_values(), /*keep_dims=*/true);
  std::string err;  // the mapping lives while the loader checks: a mark that does not read stays, and the checker says
  if (st.has_indices() && is_mapped_payload(st.indices())) (void)restore_tensor(*st.mutable_indices(), err);
}

}  // namespace

PackedRange packed_range(int data_type, PayloadField field) {
  auto sig = [](int64_t lo, int64_t hi) { return PackedRange{true, true, lo, hi, 0}; };
  auto uns = [](uint64_t umax) { return PackedRange{true, false, 0, 0, umax}; };
  switch (field) {
    case PayloadField::Int32:
      switch (data_type) {
        case 6: return sig(INT32_MIN, INT32_MAX);  // INT32
        case 5: return sig(INT16_MIN, INT16_MAX);  // INT16
        case 3: return sig(INT8_MIN, INT8_MAX);    // INT8
        case 4:                                    // UINT16
        case 10:                                   // FLOAT16 (its bits)
        case 16: return uns(UINT16_MAX);           // BFLOAT16 (its bits)
        case 2: return uns(UINT8_MAX);             // UINT8
        case 9: return uns(1);                     // BOOL
        default: return {};
      }
    case PayloadField::Int64: return data_type == 7 ? sig(INT64_MIN, INT64_MAX) : PackedRange{};  // INT64
    case PayloadField::Uint64:
      return data_type == 13 ? uns(UINT64_MAX) : data_type == 12 ? uns(UINT32_MAX) : PackedRange{};  // UINT64, UINT32
    default: return {};
  }
}

bool slim_model(std::string_view file, const std::string& mark, size_t threshold, SlimModel& out,
                const io::MappedFile* pages) {
  out = SlimModel{};
  RunVerdicts verdicts;
  // A dry pass first: a model with nothing to strip (or bytes that do not scan) is never copied.
  Slimmer dry(file, mark, threshold, /*dry=*/true, verdicts, pages);
  if (!dry.model(file, out.bytes)) return false;
  out.entries = dry.entries;
  if (dry.stripped == 0 || dry.entries > kMaxOnnxEntries) return true;
  Slimmer s(file, mark, threshold, /*dry=*/false, verdicts, pages);
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
  const bool tensor = a.has_t() && is_mapped_payload(a.t());
  const bool sparse = a.has_sparse_tensor() && has_marks(a.sparse_tensor());
  if (!tensor && !sparse) return a;
  scratch = a;
  if (tensor) stand_in(*scratch.mutable_t(), /*keep_dims=*/false);
  if (sparse) sparse_stand_in(*scratch.mutable_sparse_tensor());
  return scratch;
}

const onnx::SparseTensorProto& checker_view(const onnx::SparseTensorProto& st, onnx::SparseTensorProto& scratch) {
  if (!has_marks(st)) return st;
  scratch = st;
  sparse_stand_in(scratch);
  return scratch;
}

const onnx::FunctionProto& checker_view(const onnx::FunctionProto& f, onnx::FunctionProto& scratch) {
  bool marked = false;
  for_each_markable(
      &f.node(), {}, [&](const onnx::TensorProto& t) { marked = marked || is_mapped_payload(t); },
      [&](const onnx::SparseTensorProto& st) { marked = marked || has_marks(st); });
  if (!marked) return f;
  scratch = f;
  for_each_markable(
      &scratch.node(), {},
      [](const onnx::TensorProto& t) {
        if (is_mapped_payload(t)) stand_in(const_cast<onnx::TensorProto&>(t), /*keep_dims=*/false);
      },
      [](const onnx::SparseTensorProto& st) { sparse_stand_in(const_cast<onnx::SparseTensorProto&>(st)); });
  return scratch;
}

bool mapped_payload(const onnx::TensorProto& t, std::string_view& bytes, std::shared_ptr<const io::MappedFile>& keep,
                    PayloadField* field) {
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
  if (field) *field = m.field;
  return true;
}

bool restore_mapped_payloads(onnx::ModelProto& m, std::string& err) {
  bool ok = true;
  // The messages are the caller's, not const: the walk hands them on as const only to share one walker.
  auto restore = [&](const onnx::TensorProto& t) {
    if (!is_mapped_payload(t)) return;
    std::string why;
    if (!restore_tensor(const_cast<onnx::TensorProto&>(t), why) && ok) {
      err = why;
      ok = false;
    }
  };
  auto restore_sparse = [&](const onnx::SparseTensorProto& st) {
    if (st.has_values()) restore(st.values());
    if (st.has_indices()) restore(st.indices());
  };
  if (m.has_graph()) for_each_markable(nullptr, {&m.graph()}, restore, restore_sparse);
  for (const auto& f : m.functions()) for_each_markable(&f.node(), {}, restore, restore_sparse);
  return ok;
}

}  // namespace condlint
