// The TFLite loader and the TFL rules on models built here with the flatbuffer object API (the same reader code as
// the loader's, so the bytes are what any flatbuffer writer gives), and the hostile cases: bytes that are no
// flatbuffer, offsets past the end, a version the interpreter refuses. The models the real converter wrote are
// corpus-tflite/'s (tflite_corpus_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "io/mapped_file.hpp"
#include "loaders/loader.hpp"
#include "model/tflite_data.hpp"
#include "exec/runner.hpp"
#include "rules/engine.hpp"
#include "test_support.hpp"
#include "tflite_schema_generated.h"

using namespace condlint;
namespace fbt = condlint::tflfb;

namespace {

// A TFLite model under construction.
struct TflModel {
  fbt::ModelT m;
  TflModel() {
    m.version = tfl::kSchemaVersion;
    m.buffers.push_back(std::make_unique<fbt::BufferT>());  // buffer 0: the empty sentinel
  }
  uint32_t opcode(int32_t code) {
    for (size_t i = 0; i < m.operator_codes.size(); ++i)
      if (m.operator_codes[i]->builtin_code == code) return static_cast<uint32_t>(i);
    auto c = std::make_unique<fbt::OperatorCodeT>();
    c->builtin_code = code;
    c->deprecated_builtin_code = static_cast<int8_t>(code < tfl::kPlaceholderForGreaterOpCodes ? code : 127);
    m.operator_codes.push_back(std::move(c));
    return static_cast<uint32_t>(m.operator_codes.size() - 1);
  }
  int subgraph(const std::string& name) {
    auto s = std::make_unique<fbt::SubGraphT>();
    s->name = name;
    m.subgraphs.push_back(std::move(s));
    return static_cast<int>(m.subgraphs.size() - 1);
  }
  fbt::SubGraphT& sg(int g) { return *m.subgraphs[static_cast<size_t>(g)]; }
  int tensor(int g, const std::string& name, int8_t type, std::vector<int32_t> shape) {
    auto t = std::make_unique<fbt::TensorT>();
    t->name = name;
    t->type = type;
    t->shape = std::move(shape);
    t->has_rank = true;
    sg(g).tensors.push_back(std::move(t));
    return static_cast<int>(sg(g).tensors.size() - 1);
  }
  fbt::OperatorT& op(int g, int32_t code, std::vector<int32_t> in, std::vector<int32_t> out) {
    auto o = std::make_unique<fbt::OperatorT>();
    o->opcode_index = opcode(code);
    o->inputs = std::move(in);
    o->outputs = std::move(out);
    sg(g).operators.push_back(std::move(o));
    return *sg(g).operators.back();
  }
  fbt::OperatorT& if_op(int g, std::vector<int32_t> in, std::vector<int32_t> out, int then_g, int else_g) {
    fbt::OperatorT& o = op(g, tfl::kIf, std::move(in), std::move(out));
    fbt::IfOptionsT io;
    io.then_subgraph_index = then_g;
    io.else_subgraph_index = else_g;
    o.builtin_options.Reset();
    o.builtin_options.type = fbt::BuiltinOptions::IfOptions;
    o.builtin_options.value = new fbt::IfOptionsT(io);
    return o;
  }
  fbt::OperatorT& while_op(int g, std::vector<int32_t> in, std::vector<int32_t> out, int cond_g, int body_g) {
    fbt::OperatorT& o = op(g, tfl::kWhile, std::move(in), std::move(out));
    fbt::WhileOptionsT wo;
    wo.cond_subgraph_index = cond_g;
    wo.body_subgraph_index = body_g;
    o.builtin_options.Reset();
    o.builtin_options.type = fbt::BuiltinOptions::WhileOptions;
    o.builtin_options.value = new fbt::WhileOptionsT(wo);
    return o;
  }
  std::string bytes() const {
    flatbuffers::FlatBufferBuilder b;
    b.Finish(fbt::Model::Pack(b, &m), fbt::ModelIdentifier());
    return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  }
};

// A branch subgraph x -> op(x, x) -> out, of type f32 [1,4] unless told.
int branch(TflModel& t, const std::string& name, int32_t code, int8_t out_type = tfl::FLOAT32,
           std::vector<int32_t> out_shape = {1, 4}) {
  const int g = t.subgraph(name);
  const int x = t.tensor(g, "x", tfl::FLOAT32, {1, 4});
  const int y = t.tensor(g, "y", out_type, std::move(out_shape));
  t.op(g, code, {x, x}, {y});
  t.sg(g).inputs = {x};
  t.sg(g).outputs = {y};
  return g;
}

constexpr int32_t kAdd = 0, kMul = 18, kLess = 58;

// main: IF(cond, x) -> y with then = x + x, else = x * x.
TflModel if_model() {
  TflModel t;
  const int main = t.subgraph("main");
  const int cond = t.tensor(main, "cond", tfl::BOOL, {1});
  const int x = t.tensor(main, "x", tfl::FLOAT32, {1, 4});
  const int y = t.tensor(main, "y", tfl::FLOAT32, {1, 4});
  t.sg(main).inputs = {cond, x};
  t.sg(main).outputs = {y};
  t.if_op(main, {cond, x}, {y}, 1, 2);
  branch(t, "then_add", kAdd);
  branch(t, "else_mul", kMul);
  return t;
}

// main: WHILE(i, n) -> (i', n') with cond = i < n, body = (i + i, n).
TflModel while_model() {
  TflModel t;
  const int main = t.subgraph("main");
  const int i = t.tensor(main, "i", tfl::INT32, {1});
  const int n = t.tensor(main, "n", tfl::INT32, {1});
  const int i2 = t.tensor(main, "i_out", tfl::INT32, {1});
  const int n2 = t.tensor(main, "n_out", tfl::INT32, {1});
  t.sg(main).inputs = {i, n};
  t.sg(main).outputs = {i2, n2};
  t.while_op(main, {i, n}, {i2, n2}, 1, 2);
  const int c = t.subgraph("cond");
  const int ci = t.tensor(c, "i", tfl::INT32, {1}), cn = t.tensor(c, "n", tfl::INT32, {1});
  const int go = t.tensor(c, "go", tfl::BOOL, {1});
  t.op(c, kLess, {ci, cn}, {go});
  t.sg(c).inputs = {ci, cn};
  t.sg(c).outputs = {go};
  const int b = t.subgraph("body");
  const int bi = t.tensor(b, "i", tfl::INT32, {1}), bn = t.tensor(b, "n", tfl::INT32, {1});
  const int bo = t.tensor(b, "i_next", tfl::INT32, {1});
  t.op(b, kAdd, {bi, bi}, {bo});
  t.sg(b).inputs = {bi, bn};
  t.sg(b).outputs = {bo, bn};
  return t;
}

std::unique_ptr<Model> load(const std::string& bytes) {
  return load_tflite("m.tflite", io::MappedFile::from_bytes(bytes));
}

std::vector<Finding> lint_bytes(const std::string& bytes) { return run_rules(*load(bytes), RuleSelection{}); }

// "RULE@node" for every finding at warning or above, and notes too when asked.
std::vector<std::string> ids(const std::vector<Finding>& fs, bool notes = false) {
  std::vector<std::string> out;
  for (const Finding& f : fs)
    if (notes || f.level >= Level::Warning) out.push_back(f.rule + "@" + f.loc.node);
  return out;
}

std::string all_messages(const std::vector<Finding>& fs) {
  std::string s;
  for (const Finding& f : fs) s += f.rule + ": " + f.message + "\n";
  return s;
}

}  // namespace

TEST(TfliteLoader, AnIfBecomesAConditionalWithItsBranchesHungUnderIt) {
  auto m = load(if_model().bytes());
  ASSERT_EQ(m->format, Format::TFLITE);
  ASSERT_TRUE(m->tflite && m->tflite->valid());
  ASSERT_EQ(m->graphs.size(), 3u);
  EXPECT_EQ(m->graphs[1].role, "then");
  EXPECT_EQ(m->graphs[2].role, "else");
  EXPECT_EQ(m->path_of(0, 0), "main/IF#0");
  EXPECT_EQ(m->path_of(1, 0), "main/IF#0/then/ADD#0");
  ASSERT_EQ(m->conditionals.size(), 1u);
  const ConditionalView& c = m->conditionals[0];
  EXPECT_TRUE(c.has_condition);
  EXPECT_EQ(c.condition.type.elem, ElemType::Boolean);
  EXPECT_EQ(c.branch[0].graph, 1);
  EXPECT_EQ(c.branch[1].graph, 2);
  ASSERT_EQ(c.branch[0].inputs.size(), 1u);
  EXPECT_EQ(c.branch[0].inputs[0].outer.shape.str(), Shape::of({Dim::fixed(1), Dim::fixed(4)}).str());
  ASSERT_EQ(c.branch[1].outputs.size(), 1u);
  EXPECT_EQ(m->node(0, 0).sources.size(), 2u);
  EXPECT_TRUE(ids(run_rules(*m, RuleSelection{}), true).empty()) << all_messages(run_rules(*m, RuleSelection{}));
}

TEST(TfliteLoader, TheFormatIsDecidedByTheIdentifierWhateverTheName) {
  const auto dir = test::temp_dir("tflite_sniff");
  const auto p = dir / "model.bin";
  test::write_file(p, if_model().bytes());
  const LoadResult r = load_file(p.string());
  ASSERT_TRUE(r.model) << r.io_error;
  EXPECT_EQ(r.model->format, Format::TFLITE);
  EXPECT_EQ(format_from_name("a/b.tflite"), Format::TFLITE);
}

TEST(TfliteLoader, AValidWhileIsSilent) {
  const auto fs = lint_bytes(while_model().bytes());
  EXPECT_TRUE(ids(fs, true).empty()) << all_messages(fs);
  auto m = load(while_model().bytes());
  EXPECT_EQ(m->graphs[1].role, "cond");
  EXPECT_EQ(m->graphs[2].role, "body");
  EXPECT_EQ(m->path_of(2, 0), "main/WHILE#0/body/ADD#0");
}

TEST(TfliteRules, SubgraphIndexOutOfRangeOrMainIsTfl002) {
  TflModel t = if_model();
  t.sg(0).operators[0]->builtin_options.AsIfOptions()->then_subgraph_index = 7;
  t.sg(0).operators[0]->builtin_options.AsIfOptions()->else_subgraph_index = 0;
  const auto fs = lint_bytes(t.bytes());
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"TFL002@main/IF#0"})) << all_messages(fs);  // one per operator
  EXPECT_NE(all_messages(fs).find("the model has 3 subgraphs (0 … 2)"), std::string::npos) << all_messages(fs);
  EXPECT_NE(all_messages(fs).find("the main subgraph (0)"), std::string::npos);
}

TEST(TfliteRules, AnIfWithoutIfOptionsIsTfl002) {
  TflModel t = if_model();
  t.sg(0).operators[0]->builtin_options.Reset();
  EXPECT_EQ(ids(lint_bytes(t.bytes())), (std::vector<std::string>{"TFL002@main/IF#0"}));
}

TEST(TfliteRules, ASubgraphThatRunsItselfIsTfl003) {
  // The then branch holds an IF whose else is the then branch itself.
  TflModel t = if_model();
  fbt::SubGraphT& then_g = t.sg(1);
  const int c = t.tensor(1, "c", tfl::BOOL, {});
  const int z = t.tensor(1, "z", tfl::FLOAT32, {1, 4});
  then_g.inputs = {0};
  t.if_op(1, {c, 1}, {z}, 2, 1);
  const auto fs = lint_bytes(t.bytes());
  const auto got = ids(fs);
  ASSERT_EQ(std::count(got.begin(), got.end(), "TFL003@main/IF#0/then/IF#1"), 1) << all_messages(fs);
  EXPECT_NE(all_messages(fs).find("the subgraphs 1 → 1 call each other"), std::string::npos) << all_messages(fs);
}

TEST(TfliteRules, AnIfPassingAValueTooFewIsTfl004) {
  TflModel t = if_model();
  t.sg(0).operators[0]->inputs = {0};  // the condition only
  const auto fs = lint_bytes(t.bytes());
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"TFL004@main/IF#0"})) << all_messages(fs);  // one per operator
  EXPECT_NE(all_messages(fs).find("its then subgraph 1 'then_add' takes 1 and its else subgraph 2 'else_mul' takes 1"),
            std::string::npos)
      << all_messages(fs);
}

TEST(TfliteRules, TheViewsRulesJudgeTheConditionAndTheBranchTypes) {
  {
    TflModel t = if_model();
    t.sg(0).tensors[0]->type = tfl::FLOAT32;  // the condition
    EXPECT_EQ(ids(lint_bytes(t.bytes())), (std::vector<std::string>{"C002@main/IF#0"})) << all_messages(lint_bytes(t.bytes()));
  }
  {
    TflModel t = if_model();
    t.sg(0).tensors[0]->shape = {2};
    EXPECT_EQ(ids(lint_bytes(t.bytes())), (std::vector<std::string>{"C003@main/IF#0"})) << all_messages(lint_bytes(t.bytes()));
  }
  {
    TflModel t = if_model();
    t.sg(2).tensors[1]->type = tfl::INT32;  // the else branch's output
    const auto fs = lint_bytes(t.bytes());
    ASSERT_FALSE(ids(fs).empty());
    for (const auto& id : ids(fs)) EXPECT_TRUE(id.rfind("C00", 0) == 0) << all_messages(fs);
  }
}

TEST(TfliteRules, WhileCondAndBodyMismatchesAreTfl005AndTfl006) {
  {
    TflModel t = while_model();
    t.sg(1).tensors[2]->type = tfl::FLOAT32;  // cond's output
    EXPECT_EQ(ids(lint_bytes(t.bytes())), (std::vector<std::string>{"TFL005@main/WHILE#0/cond"}));
  }
  {
    TflModel t = while_model();
    t.sg(1).outputs = {2, 2};
    EXPECT_EQ(ids(lint_bytes(t.bytes())), (std::vector<std::string>{"TFL005@main/WHILE#0/cond"}));
  }
  {
    TflModel t = while_model();
    t.sg(2).tensors[2]->type = tfl::FLOAT32;  // body's next i
    const auto fs = lint_bytes(t.bytes());
    EXPECT_EQ(ids(fs), (std::vector<std::string>{"TFL006@main/WHILE#0/body"})) << all_messages(fs);
    EXPECT_NE(all_messages(fs).find("keeps its element type"), std::string::npos);
  }
  {
    TflModel t = while_model();
    t.sg(2).outputs = {2};
    const auto fs = lint_bytes(t.bytes());
    EXPECT_EQ(ids(fs), (std::vector<std::string>{"TFL006@main/WHILE#0/body"})) << all_messages(fs);
  }
}

TEST(TfliteRules, AnUnusedSubgraphIsANoteAndASignatureEntryIsUsed) {
  TflModel t = if_model();
  branch(t, "leftover", kAdd);
  auto fs = lint_bytes(t.bytes());
  EXPECT_TRUE(ids(fs).empty()) << all_messages(fs);
  ASSERT_EQ(ids(fs, true), (std::vector<std::string>{"TFL007@subgraph3"})) << all_messages(fs);
  auto sig = std::make_unique<fbt::SignatureDefT>();
  sig->signature_key = "other";
  sig->subgraph_index = 3;
  t.m.signature_defs.push_back(std::move(sig));
  EXPECT_TRUE(ids(lint_bytes(t.bytes()), true).empty());
}

TEST(TfliteRules, IndexesPastTheirTablesAreTfl008) {
  TflModel t = if_model();
  t.sg(1).operators[0]->outputs = {9};
  t.sg(2).operators[0]->opcode_index = 40;
  t.sg(0).tensors[1]->buffer = 5;
  const auto fs = lint_bytes(t.bytes());
  const auto got = ids(fs);
  EXPECT_EQ(std::count(got.begin(), got.end(), "TFL008@main/IF#0/then/ADD#0"), 1) << all_messages(fs);
  EXPECT_EQ(std::count(got.begin(), got.end(), "TFL008@main/IF#0/else/UNKNOWN#0"), 1) << all_messages(fs);
  EXPECT_EQ(std::count(got.begin(), got.end(), "TFL008@main"), 1) << all_messages(fs);
}

TEST(TfliteHostile, BytesThatAreNoModelAreOneTfl001AndNothingElse) {
  const std::string good = if_model().bytes();
  std::vector<std::string> cases = {
      std::string("\x10\x00\x00\x00TFL3", 8),                      // a root offset past the end
      good.substr(0, good.size() / 2),                              // truncated
      std::string(4, '\xff') + "TFL3" + std::string(64, '\x7f'),    // offsets everywhere past the end
  };
  std::string flipped = good;
  for (size_t i = 8; i < flipped.size(); i += 7) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  cases.push_back(flipped);
  for (const std::string& bytes : cases) {
    const auto fs = lint_bytes(bytes);
    for (const Finding& f : fs) EXPECT_EQ(f.rule.substr(0, 3), "TFL") << f.rule << ": " << f.message;
    bool malformed = false;
    for (const Finding& f : fs) malformed |= f.rule == "TFL001";
    // A flipped byte may still verify (it changed a value, not an offset): then some rule may speak, none crashes.
    if (&bytes != &cases.back()) EXPECT_TRUE(malformed) << all_messages(fs);
  }
}

TEST(TfliteHostile, ASchemaVersionOtherThanThreeIsTfl001) {
  TflModel t = if_model();
  t.m.version = 2;
  const auto fs = lint_bytes(t.bytes());
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"TFL001@main"})) << all_messages(fs);
  EXPECT_NE(all_messages(fs).find("schema version 2"), std::string::npos);
}

// A tensor whose buffer index is past the model's buffers (TFL008) is no constant: the run fails at the operator that
// reads it, saying the tensor has no value, and reads nothing past the table.
TEST(TfliteHostile, RunOfAConstantPastTheBuffersFailsWithAMessage) {
  TflModel t = if_model();
  const int k = t.tensor(1, "k", tfl::FLOAT32, {1, 4});
  t.sg(1).tensors[static_cast<size_t>(k)]->buffer = 9;
  t.sg(1).operators[0]->inputs = {0, k};
  const auto p = test::temp_dir("tflite_buffer") / "m.tflite";
  test::write_file(p, t.bytes());
  exec::RunConfig cfg;
  cfg.random.count = 1;
  const exec::ModelResult r = test::run_file(p, cfg);
  ASSERT_TRUE(r.error.empty()) << r.error;
  bool named = false;
  for (const auto& c : r.cases) {
    named |= c.message.find("tensor 2 'k' has no value when it is read") != std::string::npos;
    EXPECT_EQ(c.message.find("internal error"), std::string::npos) << c.message;
  }
  EXPECT_TRUE(named);
  EXPECT_GT(r.failed, 0);
}

// The NNAPI delegate's facts (TFL009) come with --target nnapi and with --nnapi-target (runtime or hal): how an
// Android developer asks condlint about NNAPI; without either, nothing.
TEST(TfliteNnapi, TheNnapiOptionsGiveTheDelegatesFacts) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  using condlint::test::shell_quote;
  const std::string m =
      shell_quote((condlint::test::source_dir() / "corpus-tflite/cond_bool_input/cond_bool_input.tflite").string());
  EXPECT_EQ(run(condlint_cmd() + " lint --show all " + m + " 2>&1").out.find("[TFL009]"), std::string::npos);
  for (const char* opt : {"--target nnapi", "--nnapi-target runtime", "--nnapi-target hal"}) {
    const auto r = run(condlint_cmd() + " lint --show all " + opt + " " + m + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << opt << "\n" << r.out;
    EXPECT_NE(r.out.find("[TFL009]"), std::string::npos) << opt << "\n" << r.out;
    EXPECT_NE(r.out.find("nnapi_delegate.cc:3650-3655"), std::string::npos) << opt << "\n" << r.out;
  }
}
