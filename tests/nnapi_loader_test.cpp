// NNAPI loader: positions and JSON pointers, enum spellings, defaults, the `value` shorthand's
// packing and alignment, Blob files that leave the document's directory, hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "exec/lint_exec.hpp"
#include "model/nnapi_data.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace {

std::vector<Finding> lint_text(const std::string& name, const std::string& text,
                               const std::string& target = "runtime") {
  const std::string p = write_temp(name, text);
  LoadResult lr = load_file(p);
  EXPECT_TRUE(lr.model) << lr.io_error;
  if (!lr.model) return {};
  RuleSelection sel;
  sel.options.nnapi_target = target;
  return run_rules(*lr.model, sel);
}

bool has(const std::vector<Finding>& fs, const std::string& rule) {
  return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) { return f.rule == rule; });
}

const std::string kValidJson = slurp(source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json");

TEST(NnapiLoader, BuildsGraphsNodesAndTheIfView) {
  auto m = load_nnapi("x.nnapi.json", kValidJson);
  ASSERT_TRUE(m && m->nnapi && m->nnapi->structurally_valid);
  ASSERT_EQ(m->graphs.size(), 3u);
  EXPECT_EQ(m->graphs[0].role, "main");
  EXPECT_EQ(m->graphs[1].role, "then");  // named by its first use, as the executor names it
  EXPECT_EQ(m->graphs[1].parent_graph, 0);
  EXPECT_EQ(m->graphs[1].parent_node, 0);
  EXPECT_EQ(m->path_of(1, 0), "main/IF#0/then/ADD#0");
  ASSERT_EQ(m->conditionals.size(), 1u);
  const ConditionalView& c = m->conditionals[0];
  EXPECT_EQ(c.name, "IF operation 0 in main");
  ASSERT_TRUE(c.has_condition);
  EXPECT_EQ(c.condition.type.elem, ElemType::Boolean);
  EXPECT_EQ(c.condition.shape, Shape::of({Dim::fixed(1)}));
  EXPECT_EQ(c.branch[0].graph, 1);
  EXPECT_EQ(c.branch[1].graph, 2);
  ASSERT_EQ(c.branch[1].inputs.size(), 1u);
  EXPECT_EQ(c.branch[1].inputs[0].outer_index, 3);
  EXPECT_EQ(c.branch[1].inputs[0].loc.pointer, "/main/operations/0/inputs/3");
  ASSERT_EQ(c.branch[0].outputs.size(), 1u);
  EXPECT_EQ(c.branch[0].outputs[0].value.type.elem, ElemType::F32);
  EXPECT_EQ(c.condition.loc.pointer, "/main/operands/0");
  EXPECT_EQ(c.condition.loc.line, 7);
  EXPECT_EQ(c.condition.loc.column, 7);
}

TEST(NnapiLoader, ValueShorthandIsPackedBehindOperandValues) {
  // The worked example of docs/nnapi-json.md: 8 bytes already there, then 10.0 and 0 at 8 and 12.
  auto m = load_nnapi("x.nnapi.json", kValidJson);
  ASSERT_TRUE(m && m->nnapi);
  const auto& d = *m->nnapi;
  ASSERT_EQ(d.operand_values.size(), 16u);
  const NnOperand& ten = d.subgraphs[1].operands[1];
  EXPECT_TRUE(ten.has_value);
  EXPECT_EQ(ten.offset, 8u);
  EXPECT_EQ(ten.length, 4u);
  float f;
  std::memcpy(&f, d.operand_values.data() + 8, 4);
  EXPECT_EQ(f, 10.0f);
  EXPECT_EQ(d.subgraphs[1].operands[2].offset, 12u);
  EXPECT_EQ(ten.location_loc.pointer, "/referenced/0/operands/1/value");
}

TEST(NnapiLoader, AlignmentFollowsTheByteLengthOfTheWholeValue) {
  // The table in docs/nnapi-json.md: 1 byte at 8, 2 at 10, 3 at 12, 6 at 16, 4 at 24; 28 bytes.
  const std::string doc = R"({"format": "nnapi-model", "version": 1,
    "main": {"operands": [
      {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [true]},
      {"type": "TENSOR_FLOAT16", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [1.5]},
      {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [3], "scale": 1, "lifetime": "CONSTANT_COPY", "value": [1, 2, 255]},
      {"type": "TENSOR_FLOAT16", "dimensions": [3], "lifetime": "CONSTANT_COPY", "value": [65504, -0.0, 5.960464477539063e-8]},
      {"type": "INT32", "lifetime": 3, "value": [-2]}],
     "operations": [], "inputIndexes": [], "outputIndexes": []},
    "operandValues": {"base64": "AAAAAAAAAAA="}})";
  auto m = load_nnapi("x.nnapi.json", doc);
  ASSERT_TRUE(m && m->nnapi && m->nnapi->structurally_valid);
  const auto& ops = m->nnapi->subgraphs[0].operands;
  const uint32_t want[] = {8, 10, 12, 16, 24};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(ops[i].offset, want[i]) << i;
  const std::string& b = m->nnapi->operand_values;
  ASSERT_EQ(b.size(), 28u);
  EXPECT_EQ(b[8], 1);
  EXPECT_EQ(static_cast<uint8_t>(b[10]), 0x00);  // 1.5 = 0x3E00, little-endian
  EXPECT_EQ(static_cast<uint8_t>(b[11]), 0x3E);
  EXPECT_EQ(static_cast<uint8_t>(b[14]), 255);
  EXPECT_EQ(static_cast<uint8_t>(b[16]), 0xFF);  // 65504 = 0x7BFF
  EXPECT_EQ(static_cast<uint8_t>(b[17]), 0x7B);
  EXPECT_EQ(static_cast<uint8_t>(b[19]), 0x80);  // -0.0
  EXPECT_EQ(static_cast<uint8_t>(b[20]), 0x01);  // smallest subnormal
  EXPECT_EQ(static_cast<uint8_t>(b[24]), 0xFE);  // -2
  EXPECT_EQ(static_cast<uint8_t>(b[27]), 0xFF);
}

TEST(NnapiLoader, Float16OverflowIsAFinding) {
  const std::string doc = R"({"format": "nnapi-model", "version": 1,
    "main": {"operands": [{"type": "FLOAT16", "lifetime": "CONSTANT_COPY", "value": [65520]}],
     "operations": [], "inputIndexes": [], "outputIndexes": []}})";
  const auto fs = lint_text("f16.nnapi.json", doc);
  ASSERT_TRUE(has(fs, "NN004"));
  for (const auto& f : fs)
    if (f.rule == "NN004") EXPECT_EQ(f.loc.pointer, "/main/operands/0/value/0");
}

TEST(NnapiLoader, EnumNumbersAndNamesMeanTheSame) {
  std::string numeric = kValidJson;
  // CONSTANT_POOL and CONSTANT_REFERENCE are both lifetime 4; names and numbers mix.
  auto m = load_nnapi("x.nnapi.json", numeric);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->nnapi->subgraphs[2].operands[1].lifetime, nn::CONSTANT_COPY);
  EXPECT_EQ(m->nnapi->subgraphs[2].operations[0].type, 36);
  EXPECT_EQ(nn::parse_lifetime("CONSTANT_POOL"), nn::parse_lifetime("CONSTANT_REFERENCE"));
  EXPECT_FALSE(nn::parse_lifetime("POINTER"));
  EXPECT_FALSE(nn::parse_operation("OEM_OPERATION"));
}

TEST(NnapiLoader, MalformedJsonHasLineAndColumn) {
  const auto fs =
      lint_text("bad.nnapi.json", "{\n  \"format\": \"nnapi-model\",\n  \"version\": 1,\n  \"main\": [1, 2,]\n}\n");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "NN001");
  EXPECT_EQ(fs[0].loc.line, 4);
  EXPECT_EQ(fs[0].loc.column, 17);
  EXPECT_EQ(fs[0].level, Level::Error);
}

TEST(NnapiLoader, DeepNestingIsReportedNotRecursedInto) {
  std::string deep(200000, '[');
  const auto fs = lint_text("deep.nnapi.json", deep);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "NN001");
  EXPECT_NE(fs[0].message.find("nesting"), std::string::npos);
}

TEST(NnapiLoader, HostileBytesNeverCrash) {
  // Truncations of a valid document and a few corruptions: every one loads into a model.
  for (size_t n = 0; n < kValidJson.size(); n += 7) {
    auto m = load_nnapi("t.nnapi.json", kValidJson.substr(0, n));
    ASSERT_TRUE(m);
  }
  for (const char* s :
       {"", "null", "[]", "\"x\"", "{\"main\": 5}", "{\"format\":\"nnapi-model\",\"version\":1,\"main\":{}}",
        "{\"a\":1,\"a\":2}", "\"\\ud800\"", "\xff\xfe", "{\"format\": \"\xc3\x28\"}"}) {
    const auto fs = lint_text("h.nnapi.json", s);
    EXPECT_TRUE(has(fs, "NN001") || has(fs, "NN002")) << s;
  }
}

TEST(NnapiLoader, SchemaViolationsHavePointers) {
  std::string doc = kValidJson;
  doc.replace(doc.find("\"lifetime\": \"SUBGRAPH_OUTPUT\"}\n    ]"), 10, "\"lifeTime\"");
  const auto fs = lint_text("typo.nnapi.json", doc);
  ASSERT_TRUE(has(fs, "NN002"));
  bool pointer = false;
  for (const auto& f : fs) pointer |= f.loc.pointer == "/main/operands/4/lifeTime";
  EXPECT_TRUE(pointer);
}

TEST(NnapiLoader, BlobFileOutsideTheDirectoryIsNeverOpened) {
  const fs::path dir = fs::temp_directory_path() / ("condlint-nnapi-blob-" + std::to_string(getpid()));
  fs::create_directories(dir / "models");
  std::ofstream(dir / "secret.bin", std::ios::binary) << "AAAAAAAA";
  std::ofstream(dir / "models" / "ok.bin", std::ios::binary) << std::string("\0\0\x20\x41\0\0\0\0", 8);
  std::error_code ec;
  fs::create_symlink(dir / "secret.bin", dir / "models" / "link.bin", ec);
  auto with_file = [&](const std::string& f) {
    std::string doc = kValidJson;
    doc.replace(doc.find("{\"base64\": \"AAAgQQAAAAA=\"}"), std::strlen("{\"base64\": \"AAAgQQAAAAA=\"}"),
                "{\"file\": \"" + f + "\"}");
    const fs::path p = dir / "models" / "m.nnapi.json";
    std::ofstream(p, std::ios::binary) << doc;
    LoadResult lr = load_file(p.string());
    return run_rules(*lr.model, RuleSelection{});
  };
  EXPECT_TRUE(with_file("ok.bin").empty());
  EXPECT_TRUE(has(with_file("../secret.bin"), "NN002"));  // schema: no ..
  EXPECT_TRUE(has(with_file("/etc/passwd"), "NN002"));    // schema: absolute
  if (!ec) {
    const auto fs = with_file("link.bin");  // resolves outside
    ASSERT_TRUE(has(fs, "NN003"));
    for (const auto& f : fs)
      if (f.rule == "NN003") EXPECT_NE(f.message.find("outside"), std::string::npos);
  }
  EXPECT_TRUE(has(with_file("nope.bin"), "NN003"));
  fs::remove_all(dir);
}

TEST(NnapiLoader, SharedAndSelfReferencedSubgraphsStayATree) {
  // Both IF branches name referenced/0, which also names itself: one Graph per subgraph, parents
  // never loop, and the cycle is NN016's.
  std::string doc = slurp(source_dir() / "corpus/nnapi/invalid/NN016_self_reference.nnapi.json");
  doc.replace(doc.find("\"location\": {\"offset\": 1}"), std::strlen("\"location\": {\"offset\": 1}"),
              "\"location\": {\"offset\": 0}");
  auto m = load_nnapi("x.nnapi.json", doc);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->graphs.size(), 3u);
  EXPECT_EQ(m->graphs[1].parent_graph, 0);
  EXPECT_EQ(m->graphs[2].parent_graph, -1);  // nothing references the else graph any more
  EXPECT_EQ(m->conditionals[0].branch[0].graph, m->conditionals[0].branch[1].graph);
  const auto fs = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(has(fs, "NN016"));
  EXPECT_TRUE(has(fs, "NN017"));
}

TEST(NnapiRules, UnknownSizeIsANoteForTheRuntimeAndAnErrorForHal) {
  const std::string doc = slurp(source_dir() / "corpus/nnapi/valid/while_unknown_dimension.nnapi.json");
  for (const char* target : {"runtime", "hal"}) {
    const auto fs = lint_text("u.nnapi.json", doc, target);
    ASSERT_EQ(fs.size(), 1u) << target;
    EXPECT_EQ(fs[0].rule, "NN026");
    EXPECT_EQ(fs[0].level, std::string(target) == "hal" ? Level::Error : Level::Note);
  }
}

TEST(NnapiRules, CycleAmongGraphsMainCannotReachIsFound) {
  // referenced/2 -> referenced/3 -> referenced/2; main never reaches them (HIDL's walk from main
  // would miss this, Android 13 starts from every referenced graph).
  std::string doc = slurp(source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json");
  const std::string g = R"({"operands": [{"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": %}},
      {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
      {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
     "operations": [{"type": "RELU", "inputs": [1], "outputs": [2]}], "inputIndexes": [1], "outputIndexes": [2]})";
  auto mk = [&](char target) {
    std::string s = g;
    s[s.find('%')] = target;
    return s;
  };
  const auto at =
      doc.rfind("]\n  ,") != std::string::npos ? doc.rfind("]\n  ,") : doc.find("  ],\n  \"operandValues\"");
  ASSERT_NE(at, std::string::npos);
  doc.insert(at, "  ," + mk('3') + ",\n" + mk('2') + "\n");
  const auto fs = lint_text("cyc.nnapi.json", doc);
  size_t cycles = 0;
  for (const auto& f : fs) cycles += f.rule == "NN016";
  EXPECT_EQ(cycles, 1u);
  EXPECT_TRUE(has(fs, "NN017"));
}

}  // namespace

TEST(NnapiLoader, ExecFindingsAtAnOperationCarryItsJsonPointer) {
  // Nodes keep only their position; an EX finding placed at an NNAPI operation takes the operation's JSON pointer
  // from NnapiData (SARIF's jsonPointer property, the text report's "(at ...)").
  const auto path = source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json";
  auto model = load_nnapi(path.string(), slurp(path));
  ASSERT_TRUE(model && model->nnapi);
  ASSERT_FALSE(model->graphs.empty());
  ASSERT_FALSE(model->graphs[0].nodes.empty());
  exec::ModelResult r;
  exec::CaseResult c;
  c.status = exec::CaseStatus::Unsupported;
  c.message = "operation X is not supported at " + model->path_of(0, 0);
  r.cases.push_back(c);
  const ExecResults out = exec::exec_results_from(*model, r);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].loc.node_index, 0);
  EXPECT_EQ(out.findings[0].loc.pointer, model->nnapi->subgraphs[0].operations[0].loc.pointer);
  EXPECT_EQ(out.findings[0].loc.pointer, "/main/operations/0");
}

namespace {

// The IF's condition as the view traces it: a subgraph input read directly, or GREATER of an input and a constant.
TEST(NnapiLoader, TheConditionIsTraced) {
  auto direct = load_nnapi("x.nnapi.json", kValidJson);
  ASSERT_TRUE(direct && direct->conditionals.size() == 1u);
  const ConditionProvenance& d = direct->conditionals[0].provenance;
  EXPECT_TRUE(d.traced);
  EXPECT_EQ(d.text, "'cond'");
  EXPECT_TRUE(d.on_values);
  EXPECT_FALSE(d.on_shapes);
  EXPECT_EQ(d.tested, std::vector<std::string>{"cond"});

  std::string computed = kValidJson;
  const std::string cond_operand =
      R"({"name": "cond", "type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},)";
  ASSERT_NE(computed.find(cond_operand), std::string::npos);
  computed.replace(computed.find(cond_operand), cond_operand.size(),
                   R"({"name": "cond", "type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "TEMPORARY_VARIABLE"},)");
  const std::string y_operand =
      R"({"name": "y", "type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"}
    ],)";
  ASSERT_NE(computed.find(y_operand), std::string::npos);
  computed.replace(computed.find(y_operand), y_operand.size(),
                   R"({"name": "y", "type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"},
      {"name": "level", "type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
      {"name": "limit", "type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [0.5]}
    ],)");
  const std::string ops = R"({"type": "IF", "inputs": [0, 1, 2, 3], "outputs": [4]})";
  ASSERT_NE(computed.find(ops), std::string::npos);
  computed.replace(computed.find(ops), ops.size(), R"({"type": "GREATER", "inputs": [5, 6], "outputs": [0]},
      {"type": "IF", "inputs": [0, 1, 2, 3], "outputs": [4]})");
  const std::string ins = R"("inputIndexes": [0, 3],)";
  ASSERT_NE(computed.find(ins), std::string::npos);
  computed.replace(computed.find(ins), ins.size(), R"("inputIndexes": [5, 3],)");
  auto m = load_nnapi("x.nnapi.json", computed);
  ASSERT_TRUE(m && m->conditionals.size() == 1u);
  const ConditionProvenance& p = m->conditionals[0].provenance;
  EXPECT_EQ(p.text, "'level' > 0.5");  // a small constant is read: its value, where a search for inputs starts
  EXPECT_TRUE(p.on_values);
  EXPECT_EQ(p.tested, std::vector<std::string>{"level"});
  EXPECT_EQ(p.constants, std::vector<double>{0.5});
  EXPECT_EQ(p.decided, -1);

  // Both sides constant: the comparison is decided, and the IF's then branch is dead.
  const std::string level =
      R"({"name": "level", "type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"})";
  ASSERT_NE(computed.find(level), std::string::npos);
  computed.replace(
      computed.find(level), level.size(),
      R"({"name": "level", "type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [0.25]})");
  computed.replace(computed.find(R"("inputIndexes": [5, 3],)"), 23, R"("inputIndexes": [3],)");
  auto decided = load_nnapi("x.nnapi.json", computed);
  ASSERT_TRUE(decided && decided->conditionals.size() == 1u);
  const ConditionProvenance& dp = decided->conditionals[0].provenance;
  EXPECT_EQ(dp.text, "0.25 > 0.5");
  EXPECT_EQ(dp.decided, 0);
  EXPECT_EQ(dp.decided_why, "it is computed from constants only");
  EXPECT_TRUE(has(run_rules(*decided, RuleSelection{}), "C012"));
}

}  // namespace

namespace {

// An IF whose condition operand is a boolean copied into the model is decided: its other branch is dead (C012), and
// the executor does not pin it.
TEST(NnapiLoader, AConstantConditionIsDecided) {
  std::string constant = kValidJson;
  const std::string cond_operand =
      R"({"name": "cond", "type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},)";
  ASSERT_NE(constant.find(cond_operand), std::string::npos);
  constant.replace(
      constant.find(cond_operand), cond_operand.size(),
      R"({"name": "cond", "type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [false]},)");
  const std::string ins = R"("inputIndexes": [0, 3],)";
  ASSERT_NE(constant.find(ins), std::string::npos);
  constant.replace(constant.find(ins), ins.size(), R"("inputIndexes": [3],)");
  auto m = load_nnapi("x.nnapi.json", constant);
  ASSERT_TRUE(m && m->conditionals.size() == 1u);
  const ConditionProvenance& p = m->conditionals[0].provenance;
  EXPECT_EQ(p.decided, 0);
  EXPECT_EQ(p.decided_why, "'cond' is a constant");
  const auto findings = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(has(findings, "C012"));
}

}  // namespace
