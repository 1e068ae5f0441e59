// The wire-level pass that lets an ONNX model of any size be read through a mapping of its file, its large tensor
// payloads left where they lie (loaders/onnx_wire): what it strips, what it must leave, hostile bytes, and that
// lint and the executor see the same model as from a whole parse.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/onnx_gen.hpp"
#include "exec/onnx_io.hpp"
#include "io/content_hash.hpp"
#include "io/mapped_file.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/onnx_data.hpp"
#include "test_support.hpp"

namespace {

using namespace condlint;
namespace fs = std::filesystem;

// A float tensor of `n` values i * 0.5 in raw_data.
onnx::TensorProto wire_float_tensor(const std::string& name, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  std::string raw(static_cast<size_t>(n) * 4, '\0');
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i) * 0.5f;
    std::memcpy(raw.data() + i * 4, &v, 4);
  }
  t.set_raw_data(raw);
  return t;
}

// The If model of the generators with a 128 KiB initializer W, a 128 KiB Constant in the then branch (its output
// unused) and a small initializer: two payloads to strip, one to keep.
onnx::ModelProto wire_model(int64_t rows = 128) {
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  *g->add_initializer() = wire_float_tensor("W", {rows, 256});
  *g->add_initializer() = wire_float_tensor("small", {4});
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    gen::onnx_branch(a->mutable_g(), b == 0 ? "then" : "else", "x", b == 0 ? "t_out" : "e_out", 1, b == 0);
    if (b == 0) {
      auto* k = gen::onnx_node(a->mutable_g(), "Constant", "K", {}, {"k"});
      auto* v = k->add_attribute();
      v->set_name("value");
      v->set_type(onnx::AttributeProto::TENSOR);
      *v->mutable_t() = wire_float_tensor("", {rows / 2, 512});
    }
  }
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  return m;
}

// One length-delimited field (number < 16, payload < 2 MiB), as protobuf writes it.
std::string wire_field(int number, const std::string& payload) {
  std::string out(1, static_cast<char>(number << 3 | 2));
  for (uint64_t v = payload.size();; v >>= 7) {
    if (v < 0x80) {
      out.push_back(static_cast<char>(v));
      break;
    }
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  }
  return out + payload;
}

size_t wire_stripped(const std::string& bytes) {
  SlimModel s;
  EXPECT_TRUE(slim_model(bytes, "mark", kSlimPayloadThreshold, s));
  return s.stripped;
}

std::vector<std::pair<std::string, std::string>> wire_findings(const Model& m) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : run_rules(m, RuleSelection{})) out.emplace_back(f.rule, f.message);
  return out;
}

TEST(OnnxWire, StripsLargePayloadsAndMarksWhereTheyLie) {
  const std::string bytes = wire_model().SerializeAsString();
  const auto file = io::MappedFile::from_bytes(bytes);
  const std::string mark = new_mark(file);
  SlimModel s;
  ASSERT_TRUE(slim_model(file->bytes(), mark, kSlimPayloadThreshold, s));
  EXPECT_EQ(s.stripped, 2u);
  EXPECT_EQ(s.stripped_bytes, 2u * 128 * 1024);
  EXPECT_LT(s.bytes.size(), 4096u);
  onnx::ModelProto slim;
  ASSERT_TRUE(slim.ParseFromString(s.bytes));
  const auto& w = slim.graph().initializer(1);
  ASSERT_EQ(w.name(), "W");
  EXPECT_TRUE(is_mapped_payload(w));
  EXPECT_FALSE(w.has_raw_data());
  std::string_view payload;
  std::shared_ptr<const io::MappedFile> keep;
  ASSERT_TRUE(mapped_payload(w, payload, keep));
  EXPECT_EQ(payload, wire_model().graph().initializer(1).raw_data());
  EXPECT_FALSE(is_mapped_payload(slim.graph().initializer(2)));  // 16 bytes stay inline
  EXPECT_EQ(slim.graph().initializer(2).raw_data().size(), 16u);
  const auto& k = slim.graph().node(0).attribute(0).g().node(1).attribute(0).t();
  EXPECT_TRUE(is_mapped_payload(k));
  // The executor reads the values from the mapping.
  const exec::Tensor t = exec::tensor_from_proto(w);
  ASSERT_EQ(t.numel(), 128 * 256);
  EXPECT_EQ(t.f[3], 1.5);
}

TEST(OnnxWire, LeavesInPlaceWhatItCannotProve) {
  auto with = [](auto edit) {
    onnx::ModelProto m = wire_model();
    edit(*m.mutable_graph()->mutable_initializer(1));
    m.mutable_graph()->mutable_node(0)->clear_attribute();  // the Constant of the branch out of the count
    return m.SerializeAsString();
  };
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto&) {})), 1u);
  // A packed float_data run holds the bytes raw_data would: stripped too, read back as those values.
  auto to_float_data = [](onnx::TensorProto& t) {
    const std::string raw = t.raw_data();
    t.clear_raw_data();
    for (size_t i = 0; i < raw.size(); i += 4) {
      float v;
      std::memcpy(&v, raw.data() + i, 4);
      t.add_float_data(v);
    }
  };
  const std::string packed = with(to_float_data);
  EXPECT_EQ(wire_stripped(packed), 1u);
  {
    const auto file = io::MappedFile::from_bytes(packed);
    SlimModel s;
    ASSERT_TRUE(slim_model(file->bytes(), new_mark(file), kSlimPayloadThreshold, s));
    onnx::ModelProto slim;
    ASSERT_TRUE(slim.ParseFromString(s.bytes));
    const exec::Tensor t = exec::tensor_from_proto(slim.graph().initializer(1));
    EXPECT_EQ(t.f[5], 2.5);
  }
  // float_data of a DOUBLE tensor is not its bytes.
  EXPECT_EQ(wire_stripped(with([&](onnx::TensorProto& t) {
              to_float_data(t);
              t.set_data_type(onnx::TensorProto::DOUBLE);
              t.set_dims(0, 64);
            })),
            0u);
  // Payload length not matching the dims (ONNX018 judges it from the bytes).
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.set_dims(0, 129); })), 0u);
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.mutable_raw_data()->push_back('x'); })), 0u);
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.set_dims(0, -128); })), 0u);
  // Dims whose product overflows.
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) {
              for (int i = 0; i < 8; ++i) t.add_dims(int64_t{1} << 40);
            })),
            0u);
  // Another data field, external data, a type without a fixed width or one the linked onnx does not know.
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.add_float_data(1); })), 0u);
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.set_data_location(onnx::TensorProto::EXTERNAL); })), 0u);
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::STRING); })), 0u);
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) { t.set_data_type(17); })), 0u);
  // A one-dimensional integer tensor: what onnx's inference reads as values.
  EXPECT_EQ(wire_stripped(with([](onnx::TensorProto& t) {
              t.set_data_type(onnx::TensorProto::INT64);
              t.clear_dims();
              t.add_dims(128 * 256 / 2);
            })),
            0u);
  // An attribute's tensor given twice is merged by protobuf (dims 64, 512, 1): left whole. The Constant sits in the
  // main graph, its attribute written by hand with a second `t`.
  onnx::ModelProto m = wire_model();
  onnx::AttributeProto value = m.graph().node(0).attribute(0).g().node(1).attribute(0);
  onnx::AttributeProto extra;
  extra.mutable_t()->add_dims(1);
  onnx::NodeProto k = m.graph().node(0).attribute(0).g().node(1);
  k.clear_attribute();
  const std::string node = k.SerializeAsString() + wire_field(5, value.SerializeAsString() + extra.SerializeAsString());
  m.mutable_graph()->clear_initializer();
  const std::string graph = m.graph().SerializeAsString() + wire_field(1, node);
  m.clear_graph();
  const std::string twice = m.SerializeAsString() + wire_field(7, graph);
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(twice));
  ASSERT_EQ(parsed.graph().node(1).attribute(0).t().dims_size(), 3);
  EXPECT_EQ(wire_stripped(twice), 1u);  // the If's Constant only
}

TEST(OnnxWire, HostileBytesAreRefusedOrCopiedNeverReadPastTheEnd) {
  const std::string bytes = wire_model().SerializeAsString();
  SlimModel s;
  // A length past the end: the file cut inside W's payload.
  EXPECT_FALSE(slim_model(bytes.substr(0, bytes.size() / 2), "m", kSlimPayloadThreshold, s));
  // A varint over 10 bytes at the top level.
  EXPECT_FALSE(slim_model(bytes + "\x08" + std::string(11, '\xff'), "m", kSlimPayloadThreshold, s));
  // Inside a message the pass enters: a tensor whose raw_data length runs past the tensor.
  onnx::ModelProto m = wire_model();
  std::string t = m.graph().initializer(1).SerializeAsString();
  std::string bad_graph;
  bad_graph.push_back(static_cast<char>(5 << 3 | 2));
  bad_graph.push_back(static_cast<char>(8));
  bad_graph += "\x4a\x7f" + std::string(6, 'a');  // raw_data of 127 bytes in a tensor of 8
  std::string bad = "\x3a" + std::string(1, static_cast<char>(bad_graph.size())) + bad_graph;
  EXPECT_FALSE(slim_model(bad, "m", kSlimPayloadThreshold, s));
  // A group (wire type 3) is not read.
  EXPECT_FALSE(slim_model(std::string("\x0b\x0c"), "m", kSlimPayloadThreshold, s));
  // Nested deeper than the pass enters: copied as it is, and the big initializer at the top still stripped.
  // (Written at the wire level: protobuf's own parser stops at 100 levels of messages.)
  const std::string w = wire_float_tensor("W", {128, 256}).SerializeAsString();
  std::string inner = wire_field(5, w);  // a graph holding W
  for (int i = 0; i < kSlimMaxGraphDepth + 20; ++i)
    inner = wire_field(1, wire_field(5, wire_field(1, "g") + wire_field(6, inner)));  // graph { node { attribute g } }
  ASSERT_TRUE(slim_model(wire_field(7, inner + wire_field(5, w)), "m", kSlimPayloadThreshold, s));
  EXPECT_EQ(s.stripped, 1u);
  // Empty bytes: nothing to strip, nothing refused.
  ASSERT_TRUE(slim_model("", "m", kSlimPayloadThreshold, s));
  EXPECT_EQ(s.stripped, 0u);
}

TEST(OnnxWire, MutatedBytesAreSlimmedOrRefusedAndParseAlike) {
  // A small model (two payloads of 2 KiB, stripped from 512 bytes) with bytes flipped, inserted and cut: the
  // pass never reads past the end, and what it writes parses exactly when the bytes it was given parse.
  const std::string bytes = wire_model(2).SerializeAsString();
  std::mt19937 rng(7);
  size_t slimmed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string m = bytes;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % m.size();
      switch (rng() % 3) {
        case 0: m[at] = static_cast<char>(rng()); break;
        case 1: m.insert(at, 1, static_cast<char>(rng())); break;
        default: m.resize(at + 1); break;
      }
    }
    SlimModel s;
    if (!slim_model(m, "mark", 512, s) || s.stripped == 0) continue;
    ++slimmed;
    onnx::ModelProto a, b;
    EXPECT_EQ(a.ParseFromString(m), b.ParseFromString(s.bytes)) << "mutation " << i;
  }
  EXPECT_GT(slimmed, 100u);
}

TEST(OnnxWire, AMarkInTheFileIsTheModelsOwnExternalData) {
  // A file cannot write a mark of this process: one that looks like it is external data ONNX015 judges.
  onnx::ModelProto m = wire_model();
  auto* w = m.mutable_graph()->mutable_initializer(1);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<const char*, const char*>{"location", "condlint-mapped:00000000:1"},
                      {"offset", "0"},
                      {"length", "16"}}) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  EXPECT_FALSE(is_mapped_payload(*w));
  const fs::path d = test::temp_dir("wire") / "forged";
  fs::create_directories(d);
  test::write_file(d / "m.onnx", m.SerializeAsString());
  const LoadResult lr = load_file((d / "m.onnx").string());
  ASSERT_TRUE(lr.model) << lr.io_error;
  ASSERT_EQ(lr.model->onnx->external_data.size(), 1u);
  EXPECT_EQ(lr.model->onnx->external_data[0].location, "condlint-mapped:00000000:1");
}

TEST(OnnxWire, MappedLoadLintsAsTheWholeParseAndRunsFromTheMapping) {
  const fs::path d = test::temp_dir("wire") / "same";
  fs::create_directories(d);
  const std::string bytes = wire_model().SerializeAsString();
  test::write_file(d / "m.onnx", bytes);
  std::string hash;
  const LoadResult mapped = load_file((d / "m.onnx").string(), /*keep_onnx_proto=*/true, &hash);
  ASSERT_TRUE(mapped.model) << mapped.io_error;
  EXPECT_TRUE(mapped.model->onnx->payload_file);  // two payloads were left in the file
  EXPECT_EQ(hash, io::hash_bytes(bytes));
  const auto whole = load_onnx((d / "m.onnx").string(), bytes);
  EXPECT_EQ(wire_findings(*mapped.model), wire_findings(*whole));
  // The kept model's W comes from the mapping, with its values.
  const auto& proto = *mapped.model->onnx->proto;
  ASSERT_TRUE(is_mapped_payload(proto.graph().initializer(1)));
  const exec::Tensor t = exec::tensor_from_proto(proto.graph().initializer(1));
  EXPECT_EQ(t.f[128 * 256 - 1], (128 * 256 - 1) * 0.5);
  // What export and diff write out: the kept model with its payloads read back in, the file's model again.
  onnx::ModelProto restored = proto;
  std::string err;
  ASSERT_TRUE(restore_mapped_payloads(restored, err)) << err;
  EXPECT_FALSE(is_mapped_payload(restored.graph().initializer(1)));
  onnx::ModelProto original;
  ASSERT_TRUE(original.ParseFromString(bytes));
  EXPECT_EQ(restored.SerializeAsString(), original.SerializeAsString());
  // A payload that does not hold its dims is judged from the bytes, as before: ONNX018 in both.
  onnx::ModelProto bad = wire_model();
  bad.mutable_graph()->mutable_initializer(1)->set_dims(0, 127);
  const std::string bad_bytes = bad.SerializeAsString();
  test::write_file(d / "bad.onnx", bad_bytes);
  const LoadResult bad_mapped = load_file((d / "bad.onnx").string());
  ASSERT_TRUE(bad_mapped.model);
  const auto bad_f = wire_findings(*bad_mapped.model);
  EXPECT_EQ(bad_f, wire_findings(*load_onnx("bad.onnx", bad_bytes)));
  EXPECT_TRUE(test::rules_of(run_rules(*bad_mapped.model, RuleSelection{})).count("ONNX018"));
}

// Every ONNX model of the corpora and the real-world models, with every payload of 4 KiB or more the pass can prove
// stripped (not only those of 64 KiB; the loader reads values of at most 16 elements, and onnx's inference those of
// one-dimensional integer tensors, which stay): the same findings, at the same places, as the whole parse.
TEST(OnnxWire, EveryCorpusModelLintsAsFromItsWholeBytes) {
  std::vector<std::string> dirs;
  for (const char* d : {"corpus", "corpus-modern", "tools/models"})
    if (fs::is_directory(test::source_dir() / d)) dirs.push_back((test::source_dir() / d).string());
  const Collected c = collect_inputs(dirs);
  size_t models = 0, stripped = 0;
  auto lines = [](const Model& m) {
    std::vector<std::string> out;
    for (const auto& f : run_rules(m, RuleSelection{}))
      out.push_back(f.rule + " " + f.loc.node + " " + std::to_string(f.loc.graph) + ":" +
                    std::to_string(f.loc.node_index) + " " + f.message);
    return out;
  };
  for (const auto& path : c.files) {
    if (format_from_name(path) != Format::ONNX) continue;
    ++models;
    std::string err;
    const auto file = io::MappedFile::open(path, err);
    ASSERT_TRUE(file) << path << ": " << err;
    const auto slim = load_onnx_mapped(path, file, /*keep_proto=*/false, /*threshold=*/4096);
    ASSERT_TRUE(slim) << path;
    stripped += slim->onnx->payload_file != nullptr;
    const auto whole = load_onnx(path, test::slurp(path));
    EXPECT_EQ(lines(*slim), lines(*whole)) << path;
  }
  EXPECT_GT(models, 100u);
  EXPECT_GT(stripped, 20u);
  std::printf("[ figures  ] %zu ONNX models, %zu with payloads left in the file\n", models, stripped);
}

// ---------------------------------------------------------------- integer runs, sparse tensors, function bodies

// A tensor of `n` values of `data_type` in its typed field (int32_data, int64_data or uint64_data: packed varint
// runs), spread over the type's range; dims {n / 256, 256}. INT64 values stay within +-2^40 (sums do not overflow).
onnx::TensorProto wire_typed_tensor(const std::string& name, int data_type, int64_t n = 256 * 256) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(data_type);
  t.add_dims(n / 256);
  t.add_dims(256);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    switch (data_type) {
      case onnx::TensorProto::INT64:
        t.add_int64_data(static_cast<int64_t>(h % (uint64_t{1} << 41)) - (int64_t{1} << 40));
        break;
      case onnx::TensorProto::UINT64: t.add_uint64_data(h); break;
      case onnx::TensorProto::UINT32: t.add_uint64_data(h >> 32); break;
      case onnx::TensorProto::INT32: t.add_int32_data(static_cast<int32_t>(h >> 32)); break;
      case onnx::TensorProto::INT16: t.add_int32_data(static_cast<int16_t>(h >> 48)); break;
      case onnx::TensorProto::INT8: t.add_int32_data(static_cast<int8_t>(h >> 56)); break;
      case onnx::TensorProto::UINT16: t.add_int32_data(static_cast<uint16_t>(h >> 48)); break;
      case onnx::TensorProto::UINT8: t.add_int32_data(static_cast<uint8_t>(h >> 56)); break;
      case onnx::TensorProto::BOOL: t.add_int32_data(static_cast<int32_t>(h >> 63)); break;
      case onnx::TensorProto::FLOAT16:
      case onnx::TensorProto::BFLOAT16: t.add_int32_data(static_cast<int32_t>((h >> 48) % 0x7b00)); break;  // finite
      default: ADD_FAILURE() << "type " << data_type;
    }
  }
  return t;
}

// Every kind of integer run, as initializers of the generators' If model.
onnx::ModelProto wire_int_kinds_model() {
  onnx::ModelProto m = gen::onnx_model_base(13);
  for (int dt :
       {onnx::TensorProto::INT64, onnx::TensorProto::UINT64, onnx::TensorProto::UINT32, onnx::TensorProto::INT32,
        onnx::TensorProto::INT16, onnx::TensorProto::INT8, onnx::TensorProto::UINT16, onnx::TensorProto::UINT8,
        onnx::TensorProto::BOOL, onnx::TensorProto::FLOAT16, onnx::TensorProto::BFLOAT16})
    *m.mutable_graph()->add_initializer() = wire_typed_tensor("T" + std::to_string(dt), dt);
  auto* n = gen::onnx_node(m.mutable_graph(), "If", "If_0", {"c"}, {"y"});
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    gen::onnx_branch(a->mutable_g(), b == 0 ? "then" : "else", "x", b == 0 ? "t_out" : "e_out", 1, b == 0);
  }
  gen::onnx_value(m.mutable_graph()->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  return m;
}

// The values of a tensor as the executor reads them, as text (equal texts: equal values).
std::string wire_values(const onnx::TensorProto& t) {
  const exec::Tensor x = exec::tensor_from_proto(t);
  std::string out = exec::dims_str(x.shape);
  for (int64_t k = 0; k < x.numel(); ++k)
    out += " " + (exec::is_float(x.dt) ? std::to_string(x.f[k]) : std::to_string(x.i[k]));
  return out;
}

TEST(OnnxWire, StripsEveryIntegerRunAndReadsItBackAsProtobufDoes) {
  const onnx::ModelProto m = wire_int_kinds_model();
  const std::string bytes = m.SerializeAsString();
  const auto file = io::MappedFile::from_bytes(bytes);
  SlimModel s;
  ASSERT_TRUE(slim_model(file->bytes(), new_mark(file), kSlimPayloadThreshold, s));
  EXPECT_EQ(s.stripped, 11u);
  EXPECT_LT(s.bytes.size(), 8192u);
  onnx::ModelProto slim;
  ASSERT_TRUE(slim.ParseFromString(s.bytes));
  for (int i = 1; i < m.graph().initializer_size(); ++i) {
    const auto& t = slim.graph().initializer(i);
    EXPECT_TRUE(is_mapped_payload(t)) << t.name();
    EXPECT_EQ(t.int32_data_size() + t.int64_data_size() + t.uint64_data_size(), 0) << t.name();
    EXPECT_EQ(wire_values(t), wire_values(m.graph().initializer(i))) << t.name();
  }
  // What export and diff write: every run back in its own field, the bytes protobuf writes of the file's model.
  std::string err;
  ASSERT_TRUE(restore_mapped_payloads(slim, err)) << err;
  EXPECT_EQ(slim.SerializeAsString(), bytes);
}

// `t` (a tensor the generators write) with its typed run replaced by `run` written by hand, in a model of its own:
// the bytes a hostile writer can make that protobuf's own writer never does.
std::string wire_with_run(onnx::TensorProto t, int field, const std::string& run) {
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_uint64_data();
  onnx::ModelProto m = gen::onnx_model_base(13);
  gen::onnx_node(m.mutable_graph(), "Identity", "Id", {"x"}, {"y"});
  gen::onnx_value(m.mutable_graph()->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  const std::string tensor = t.SerializeAsString() + wire_field(field, run);
  const std::string graph = m.graph().SerializeAsString() + wire_field(5, tensor);
  m.clear_graph();
  return m.SerializeAsString() + wire_field(7, graph);
}

std::string wire_varints(const std::vector<uint64_t>& values) {
  std::string out;
  for (uint64_t v : values) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    out.push_back(static_cast<char>(v));
  }
  return out;
}

TEST(OnnxWire, ForgedIntegerRunsAreLeftInPlaceAndJudgedAsBefore) {
  const onnx::TensorProto t = wire_typed_tensor("T", onnx::TensorProto::INT64, 256 * 64);
  std::vector<uint64_t> values(t.int64_data().begin(), t.int64_data().end());
  auto lint_both = [](const std::string& bytes) {
    const auto file = io::MappedFile::from_bytes(bytes);
    const auto mapped = load_onnx_mapped("m.onnx", file, false, kSlimPayloadThreshold);
    const auto whole = load_onnx("m.onnx", bytes);
    EXPECT_TRUE(mapped && whole);
    if (!mapped || !whole) return std::vector<std::pair<std::string, std::string>>{};
    EXPECT_EQ(wire_findings(*mapped), wire_findings(*whole));
    return wire_findings(*mapped);
  };
  // As protobuf writes it: stripped, lints clean.
  const std::string good = wire_with_run(t, 7, wire_varints(values));
  EXPECT_EQ(wire_stripped(good), 1u);
  EXPECT_TRUE(lint_both(good).empty());
  // One value more, one value less than the dims: left, ONNX018 from the run as protobuf reads it.
  std::vector<uint64_t> more = values;
  more.push_back(7);
  const std::string longer = wire_with_run(t, 7, wire_varints(more));
  EXPECT_EQ(wire_stripped(longer), 0u);
  EXPECT_TRUE(test::rules_of(run_rules(*load_onnx("m.onnx", longer), RuleSelection{})).count("ONNX018"));
  EXPECT_EQ(lint_both(longer).size(), 1u);
  const std::string shorter = wire_with_run(t, 7, wire_varints({values.begin(), values.end() - 1}));
  EXPECT_EQ(wire_stripped(shorter), 0u);
  EXPECT_EQ(lint_both(shorter).size(), 1u);
  // An overlong varint (11 bytes) in the run: left, and protobuf rejects the file (ONNX001), as from the whole bytes.
  const std::string overlong = wire_with_run(t, 7, wire_varints(values) + std::string(10, '\x80') + "\x01");
  EXPECT_EQ(wire_stripped(overlong), 0u);
  const auto over = lint_both(overlong);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].first, "ONNX001");
  // A 10-byte varint with bits past 64; a run that ends inside a varint: left.
  EXPECT_EQ(wire_stripped(wire_with_run(
                t, 7, wire_varints({values.begin(), values.end() - 1}) + std::string(9, '\xff') + "\x7f")),
            0u);
  EXPECT_EQ(wire_stripped(wire_with_run(t, 7, wire_varints(values) + "\x80")), 0u);
  // A value out of range for the element type (protobuf would keep the low 32 bits of an int32_data entry; UINT8
  // holds 0..255): left, read as before.
  onnx::TensorProto u8 = wire_typed_tensor("U", onnx::TensorProto::UINT8);
  std::vector<uint64_t> bytes_values(u8.int32_data().begin(), u8.int32_data().end());
  EXPECT_EQ(wire_stripped(wire_with_run(u8, 5, wire_varints(bytes_values))), 1u);
  bytes_values[100] = 300;
  EXPECT_EQ(wire_stripped(wire_with_run(u8, 5, wire_varints(bytes_values))), 0u);
  bytes_values[100] = uint64_t{1} << 32;  // int32_data 0 as protobuf reads it
  EXPECT_EQ(wire_stripped(wire_with_run(u8, 5, wire_varints(bytes_values))), 0u);
  // The run in a field its type is not stored in (INT64 in int32_data, UINT8 in int64_data): left.
  EXPECT_EQ(wire_stripped(wire_with_run(t, 5, wire_varints(values))), 0u);
  bytes_values[100] = 7;
  EXPECT_EQ(wire_stripped(wire_with_run(u8, 7, wire_varints(bytes_values))), 0u);
  // A mark whose field entry no mark of this process writes is no mark.
  const auto file = io::MappedFile::from_bytes(good);
  SlimModel s;
  ASSERT_TRUE(slim_model(file->bytes(), new_mark(file), kSlimPayloadThreshold, s));
  onnx::ModelProto slim;
  ASSERT_TRUE(slim.ParseFromString(s.bytes));
  onnx::TensorProto marked = slim.graph().initializer(1);
  ASSERT_TRUE(is_mapped_payload(marked));
  for (auto& e : *marked.mutable_external_data())
    if (e.key() == "field") e.set_value("string_data");
  EXPECT_FALSE(is_mapped_payload(marked));
}

TEST(OnnxWire, MutatedIntegerRunsAreReadAsProtobufReadsThem) {
  // The integer kinds at 256 values each (payloads from 256 bytes), stripped from 64 bytes, with bytes flipped,
  // inserted and cut: what the pass strips reads back, in the executor and in export's restore, exactly as protobuf
  // reads the mutated bytes.
  onnx::ModelProto m = wire_int_kinds_model();
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() != "one") t = wire_typed_tensor(t.name(), t.data_type(), 256);
  const std::string bytes = m.SerializeAsString();
  auto values = [](const onnx::TensorProto& t) {
    try {
      return wire_values(t);
    } catch (const std::exception& e) {
      return std::string("error");
    }
  };
  std::mt19937 rng(11);
  size_t compared = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string mutated = bytes;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % mutated.size();
      switch (rng() % 3) {
        case 0: mutated[at] = static_cast<char>(rng()); break;
        case 1: mutated.insert(at, 1, static_cast<char>(rng())); break;
        default: mutated.resize(at + 1); break;
      }
    }
    const auto file = io::MappedFile::from_bytes(mutated);
    SlimModel s;
    if (!slim_model(file->bytes(), new_mark(file), 64, s) || s.stripped == 0) continue;
    onnx::ModelProto a, b;
    const bool parses = a.ParseFromString(mutated);
    ASSERT_EQ(parses, b.ParseFromString(s.bytes)) << "mutation " << i;
    if (!parses || a.graph().initializer_size() != b.graph().initializer_size()) continue;
    for (int k = 0; k < a.graph().initializer_size(); ++k) {
      if (!is_mapped_payload(b.graph().initializer(k))) continue;
      ++compared;
      const std::string got = values(b.graph().initializer(k));
      EXPECT_NE(got, "error") << "mutation " << i << ", initializer " << k;
      EXPECT_EQ(got, values(a.graph().initializer(k))) << "mutation " << i << ", initializer " << k;
    }
    std::string err;
    ASSERT_TRUE(restore_mapped_payloads(b, err)) << err;
    EXPECT_EQ(b.SerializeAsString(), a.SerializeAsString()) << "mutation " << i;
  }
  EXPECT_GT(compared, 1000u);
}

TEST(OnnxWire, TheExecutorReadsAVarintRunAgainAndRefusesOneThatChanged) {
  // Marks of this process over bytes that are not what the loader proved (as if the file changed under the
  // mapping): the executor decodes the run again, and a count off by one, an overlong varint or a value out of
  // range fails the tensor, never reads past the run or a wrong value.
  auto read = [](const std::string& run, int data_type, const char* field, int64_t count) {
    const auto file = io::MappedFile::from_bytes("head" + run + "tail");
    onnx::TensorProto t;
    t.set_name("t");
    t.set_data_type(data_type);
    t.add_dims(count);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair<std::string, std::string>{"location", new_mark(file)},
                        {"offset", "4"},
                        {"length", std::to_string(run.size())},
                        {"field", field}}) {
      auto* e = t.add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    EXPECT_TRUE(is_mapped_payload(t));
    try {
      return wire_values(t);
    } catch (const exec::ExecError& e) {
      return std::string("error: ") + e.what();
    }
  };
  const uint64_t minus_two = static_cast<uint64_t>(int64_t{-2});
  EXPECT_EQ(read(wire_varints({1, 300, minus_two}), onnx::TensorProto::INT64, "int64_data", 3), "[3] 1 300 -2");
  EXPECT_EQ(read(wire_varints({1, 200, 0}), onnx::TensorProto::UINT8, "int32_data", 3), "[3] 1 200 0");
  EXPECT_EQ(read(wire_varints({1, uint64_t{1} << 40}), onnx::TensorProto::UINT64, "uint64_data", 2),
            "[2] 1 1099511627776");
  for (const auto& bad :
       {read(wire_varints({1, 2}), onnx::TensorProto::INT64, "int64_data", 3),        // a value short
        read(wire_varints({1, 2, 3, 4}), onnx::TensorProto::INT64, "int64_data", 3),  // a value more
        read(wire_varints({1, 2}) + std::string(10, '\x80') + "\x01", onnx::TensorProto::INT64, "int64_data", 3),
        read(wire_varints({1, 2}) + "\x80", onnx::TensorProto::INT64, "int64_data", 3),  // ends inside a varint
        read(wire_varints({1, 300, 0}), onnx::TensorProto::UINT8, "int32_data", 3),      // 300 is no UINT8
        read(wire_varints({1, 2, 3}), onnx::TensorProto::INT64, "int32_data", 3),        // INT64 in int32_data
        read(wire_varints({1, uint64_t{1} << 33, 3}), onnx::TensorProto::UINT32, "uint64_data", 3)})
    EXPECT_EQ(bad.rfind("error: ", 0), 0u) << bad;
}

// A sparse initializer of `nnz` float values at every third place of a [3 * nnz] tensor, its indices an INT64 list
// in int64_data; and a Constant whose sparse_value is the same, in the then branch.
onnx::ModelProto wire_sparse_model(int64_t nnz, int64_t last_index = -1) {
  onnx::ModelProto m = wire_model();
  onnx::SparseTensorProto st;
  st.add_dims(3 * nnz);
  *st.mutable_values() = wire_float_tensor("S", {nnz});
  auto* ix = st.mutable_indices();
  ix->set_name("S_indices");
  ix->set_data_type(onnx::TensorProto::INT64);
  ix->add_dims(nnz);
  for (int64_t i = 0; i < nnz; ++i) ix->add_int64_data(i + 1 == nnz && last_index >= 0 ? last_index : 3 * i);
  *m.mutable_graph()->add_sparse_initializer() = st;
  auto* then = m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  auto* k = gen::onnx_node(then, "Constant", "KS", {}, {"ks"});
  auto* v = k->add_attribute();
  v->set_name("sparse_value");
  v->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  *v->mutable_sparse_tensor() = st;
  v->mutable_sparse_tensor()->mutable_values()->clear_name();
  return m;
}

TEST(OnnxWire, SparseTensorsAreStrippedCheckedAndRefusedAsBefore) {
  const fs::path d = test::fresh_dir("wire_sparse");
  const std::string bytes = wire_sparse_model(30000).SerializeAsString();
  test::write_file(d / "m.onnx", bytes);
  // W, K, and the values and indices of both sparse tensors.
  EXPECT_EQ(wire_stripped(bytes), 6u);
  const auto file = io::MappedFile::from_bytes(bytes);
  const auto mapped = load_onnx_mapped("m.onnx", file, /*keep_proto=*/true, kSlimPayloadThreshold);
  ASSERT_TRUE(mapped);
  const auto whole = load_onnx("m.onnx", bytes, /*keep_proto=*/true);
  EXPECT_EQ(wire_findings(*mapped), wire_findings(*whole));
  EXPECT_TRUE(is_mapped_payload(mapped->onnx->proto->graph().sparse_initializer(0).indices()));
  // An index out of range: onnx's checker reads the indices from the mapping and says so, as from the whole bytes.
  const std::string bad = wire_sparse_model(30000, 3 * 30000).SerializeAsString();
  EXPECT_EQ(wire_stripped(bad), 6u);
  const auto bad_file = io::MappedFile::from_bytes(bad);
  const auto bad_mapped = load_onnx_mapped("m.onnx", bad_file, false, kSlimPayloadThreshold);
  ASSERT_TRUE(bad_mapped);
  const auto bad_f = wire_findings(*bad_mapped);
  EXPECT_EQ(bad_f, wire_findings(*load_onnx("m.onnx", bad)));
  bool out_of_range = false;
  for (const auto& [rule, message] : bad_f)
    out_of_range = out_of_range || message.find("out of range") != std::string::npos;
  EXPECT_TRUE(out_of_range) << test::dump_findings(run_rules(*bad_mapped, RuleSelection{}));
  // The executor refuses sparse initializers, stripped or not, with the same words.
  exec::RunConfig cfg;
  cfg.random.count = 1;
  const exec::ModelResult r = test::run_file(d / "m.onnx", cfg);
  std::string all = r.error;
  for (const auto& c : r.cases) all += c.message;
  EXPECT_NE(all.find("sparse initializers"), std::string::npos) << all;
  // export and diff write the file's model back.
  onnx::ModelProto restored = *mapped->onnx->proto;
  std::string err;
  ASSERT_TRUE(restore_mapped_payloads(restored, err)) << err;
  EXPECT_EQ(restored.SerializeAsString(), whole->onnx->proto->SerializeAsString());
}

// A model whose If reads big integer weights: then y = local.f(x) + W64, where f's body is K (a Constant, INT64)
// + its input; else y = Cast(W32) + x. x is int64 [1]; the weights [256, 256].
onnx::ModelProto wire_function_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  for (auto [domain, version] : {std::pair<const char*, int>{"", 13}, {"local", 1}}) {
    auto* os = m.add_opset_import();
    os->set_domain(domain);
    os->set_version(version);
  }
  auto* f = m.add_functions();
  f->set_name("f");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  f->add_opset_import()->set_version(13);
  onnx::GraphProto body;  // the generators build nodes in a graph: moved into the function
  auto* k = gen::onnx_node(&body, "Constant", "K", {}, {"k"});
  auto* v = k->add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  *v->mutable_t() = wire_typed_tensor("", onnx::TensorProto::INT64);
  gen::onnx_node(&body, "Add", "AddK", {"a", "k"}, {"b"});
  for (auto& n : *body.mutable_node()) *f->add_node() = n;
  auto* g = m.mutable_graph();
  g->set_name("main");
  gen::onnx_value(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  gen::onnx_value(g->add_input(), "x", onnx::TensorProto::INT64, {1});
  *g->add_initializer() = wire_typed_tensor("W64", onnx::TensorProto::INT64);
  *g->add_initializer() = wire_typed_tensor("W32", onnx::TensorProto::INT32);
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* br = a->mutable_g();
    br->set_name(b == 0 ? "then" : "else");
    if (b == 0) {
      gen::onnx_node(br, "f", "Call_f", {"x"}, {"fx"})->set_domain("local");
      gen::onnx_node(br, "Add", "AddW", {"fx", "W64"}, {"t_out"});
    } else {
      auto* cast = gen::onnx_node(br, "Cast", "CastW", {"W32"}, {"w"});
      auto* to = cast->add_attribute();
      to->set_name("to");
      to->set_type(onnx::AttributeProto::INT);
      to->set_i(onnx::TensorProto::INT64);
      gen::onnx_node(br, "Add", "AddX", {"w", "x"}, {"e_out"});
    }
    gen::onnx_value(br->add_output(), b == 0 ? "t_out" : "e_out", onnx::TensorProto::INT64, {256, 256});
  }
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::INT64, {256, 256});
  return m;
}

TEST(OnnxWire, AnIfReadingBigIntegerAndFunctionWeightsRunsAsFromTheWholeFile) {
  const fs::path d = test::fresh_dir("wire_function");
  const onnx::ModelProto m = wire_function_model();
  const std::string bytes = m.SerializeAsString();
  test::write_file(d / "m.onnx", bytes);
  EXPECT_EQ(wire_stripped(bytes), 3u);  // W64, W32 and the function's Constant
  // Golden data for each branch, computed here: x = 5.
  const auto& kvals = m.functions(0).node(0).attribute(0).t().int64_data();
  const auto& w64 = m.graph().initializer(0).int64_data();
  const auto& w32 = m.graph().initializer(1).int32_data();
  for (int c = 0; c < 2; ++c) {
    const fs::path set = d / ("test_data_set_" + std::to_string(c));
    fs::create_directories(set);
    onnx::TensorProto cond, x, y;
    cond.set_data_type(onnx::TensorProto::BOOL);
    cond.add_int32_data(c == 0);
    x.set_data_type(onnx::TensorProto::INT64);
    x.add_dims(1);
    x.add_int64_data(5);
    y.set_data_type(onnx::TensorProto::INT64);
    y.add_dims(256);
    y.add_dims(256);
    for (int i = 0; i < 256 * 256; ++i) y.add_int64_data(c == 0 ? kvals[i] + 5 + w64[i] : int64_t{w32[i]} + 5);
    test::write_file(set / "input_0.pb", cond.SerializeAsString());
    test::write_file(set / "input_1.pb", x.SerializeAsString());
    test::write_file(set / "output_0.pb", y.SerializeAsString());
  }
  std::string err;
  const auto file = io::MappedFile::open((d / "m.onnx").string(), err);
  ASSERT_TRUE(file) << err;
  for (size_t threshold : {kSlimPayloadThreshold, std::numeric_limits<size_t>::max()}) {
    const auto model = load_onnx_mapped((d / "m.onnx").string(), file, /*keep_proto=*/true, threshold);
    ASSERT_TRUE(model);
    EXPECT_EQ(model->onnx->payload_file != nullptr, threshold == kSlimPayloadThreshold);
    EXPECT_TRUE(wire_findings(*model).empty());
    const exec::ModelResult r = exec::run_loaded(*model, d / "m.onnx", exec::RunConfig{});
    EXPECT_EQ(r.error, "");
    int golden = 0;
    for (const auto& c : r.cases) {
      EXPECT_EQ(c.status, exec::CaseStatus::Passed) << c.data_set << ": " << c.message;
      golden += c.golden && c.status == exec::CaseStatus::Passed;
    }
    EXPECT_EQ(golden, 2) << "threshold " << threshold;
    // export and diff write the file's model back, the function's Constant too.
    onnx::ModelProto restored = *model->onnx->proto;
    ASSERT_TRUE(restore_mapped_payloads(restored, err)) << err;
    EXPECT_EQ(restored.SerializeAsString(), bytes);
  }
}

TEST(OnnxWire, AFifoIsRefusedUnread) {
  const fs::path d = test::temp_dir("wire") / "fifo";
  fs::create_directories(d);
  const fs::path p = d / "f.onnx";
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  const LoadResult lr = load_file(p.string());
  EXPECT_FALSE(lr.model);
  EXPECT_NE(lr.io_error.find("not a regular file"), std::string::npos) << lr.io_error;
}

}  // namespace
