// ONNX loader behaviour the corpus does not show on its own: deep and hostile nesting, logical
// paths, scopes across sibling branches, truncations, external data that leaves the directory.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <random>

#include <algorithm>

#include <onnx/defs/data_type_utils.h>

#include "bench/onnx_gen.hpp"
#include "loaders/onnx_util.hpp"
#include "model/onnx_data.hpp"
#include "test_support.hpp"

using namespace condlint;
using namespace condlint::test;
namespace fs = std::filesystem;

TEST(OnnxLoader, ALoopCarriedValueTakesTheBodysElementType) {
  // The body casts the carried f32 to i32: onnx's Loop inference gives the Loop's output the body's element type, so
  // its checker and ONNX Runtime reject the output declared f32 (the initial value's type). Declared i32, it passes.
  for (const int declared : {onnx::TensorProto::FLOAT, onnx::TensorProto::INT32}) {
    onnx::ModelProto m = gen::onnx_model_base(18);
    auto* g = m.mutable_graph();
    gen::onnx_value(g->add_input(), "n", onnx::TensorProto::INT64, {});
    auto* loop = gen::onnx_node(g, "Loop", "L", {"n", "c", "x"}, {"y"});
    auto* a = loop->add_attribute();
    a->set_name("body");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name("body");
    gen::onnx_value(body->add_input(), "i", onnx::TensorProto::INT64, {});
    gen::onnx_value(body->add_input(), "cin", onnx::TensorProto::BOOL, {});
    gen::onnx_value(body->add_input(), "v", onnx::TensorProto::FLOAT, {2});
    gen::onnx_node(body, "Identity", "I", {"cin"}, {"cout"});
    auto* cast = gen::onnx_node(body, "Cast", "C", {"v"}, {"w"});
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::INT32);
    gen::onnx_value(body->add_output(), "cout", onnx::TensorProto::BOOL, {});
    gen::onnx_value(body->add_output(), "w", onnx::TensorProto::INT32, {2});
    gen::onnx_value(g->add_output(), "y", declared, {2});
    auto model = load_onnx("loop_carried_cast.onnx", m.SerializeAsString());
    ASSERT_TRUE(model);
    const auto f = run_rules(*model, RuleSelection{});
    std::vector<std::string> at;
    for (const auto& x : f)
      if (x.level != Level::Note) at.push_back(x.rule + " " + x.loc.node + " " + x.message);
    if (declared == onnx::TensorProto::INT32) {
      EXPECT_TRUE(at.empty()) << dump_findings(f);
    } else {
      ASSERT_EQ(at.size(), 1u) << dump_findings(f);
      EXPECT_EQ(at[0],
                "ONNX007 main/L in the main graph, output 0 'y' of Loop 'L' is declared f32 but the node computes i32")
          << dump_findings(f);
    }
  }
}

namespace {

// Adds an If's then_branch or else_branch graph attribute to `node`; returns the branch graph.
onnx::GraphProto* branch(onnx::NodeProto* node, const char* name) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);  // onnx's checker requires a graph name (ONNX017)
  return a->mutable_g();
}

// Serialized bytes of `depth` Ifs nested through then_branch, written straight in the wire format
// (protobuf's own serializer recurses, which is what this test must not do with hostile depths).
std::string raw_nested_ifs(int depth) {
  auto varint = [](std::string& o, uint64_t v) {
    while (v >= 0x80) {
      o += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    o += static_cast<char>(v);
  };
  auto vsize = [](uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
      v >>= 7;
      ++n;
    }
    return n;
  };
  const std::string leaf = std::string("\x0a\x01x\x12\x01t\x22\x03Neg", 11);  // Node: input x, output t, op Neg
  const std::string node_head = std::string(
      "\x0a\x01"
      "c"
      "\x12\x01t\x22\x02If",
      10);                                                                           // input c, output t, op If
  const std::string attr_head = std::string("\x0a\x0bthen_branch\xa0\x01\x05", 16);  // name, type GRAPH
  // sizes[k] = size of NodeProto at level k (k = depth is the leaf).
  std::vector<uint64_t> node(depth + 1), graph(depth + 1), attr(depth + 1);
  node[depth] = leaf.size();
  for (int k = depth - 1; k >= 0; --k) {
    graph[k] = 1 + vsize(node[k + 1]) + node[k + 1];
    attr[k] = attr_head.size() + 1 + vsize(graph[k]) + graph[k];
    node[k] = node_head.size() + 1 + vsize(attr[k]) + attr[k];
  }
  std::string o;
  o += std::string("\x08\x07", 2);                 // ir_version 7
  o += std::string("\x42\x02\x10\x0d", 4);         // opset_import { version 13 }
  const std::string gin = std::string("\x0a", 1);  // main graph: node + input c (bool scalar)
  const std::string input_c = std::string(
      "\x5a\x0b\x0a\x01"
      "c"
      "\x12\x06\x0a\x04\x08\x09\x12\x00",
      13);
  const uint64_t main_size = 1 + vsize(node[0]) + node[0] + input_c.size();
  o += '\x3a';
  varint(o, main_size);
  for (int k = 0; k < depth; ++k) {
    o += '\x0a';  // GraphProto.node (1) at level 0 is the main graph's node
    varint(o, node[k]);
    o += node_head;
    o += '\x2a';  // NodeProto.attribute (5)
    varint(o, attr[k]);
    o += attr_head;
    o += '\x32';  // AttributeProto.g (6)
    varint(o, graph[k]);
  }
  o += '\x0a';
  varint(o, node[depth]);
  o += leaf;
  o += input_c;
  return o;
}

TEST(OnnxLoader, ThousandNestedIfsLoadWithOnlyTheStockDepthWarning) {
  auto m = load_onnx("deep.onnx", gen::nested_if_onnx(1000));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->conditionals.size(), 1000u);
  EXPECT_EQ(m->graphs.size(), 1u + 2 * 1000u);
  EXPECT_EQ(m->onnx->max_depth, 1000);
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_EQ(rules_of(f), std::set<std::string>{"ONNX002"}) << dump_findings(f);
  const auto& inner = m->conditionals.back();
  const std::string path = m->path_of(inner.graph, inner.node);
  EXPECT_EQ(path.rfind("main/If_0/then/If_1/then/If_2/", 0), 0u) << path.substr(0, 80);
}

TEST(OnnxLoader, PortsOfEqualTypeShareOneCopy) {
  // A chain of 50 Ifs has hundreds of ports and a handful of distinct types: every port points at one of them.
  auto m = load_onnx("chain.onnx", gen::flat_if_chain_onnx(50));
  ASSERT_TRUE(m);
  std::set<const TypeDesc*> distinct;
  size_t ports = 0;
  for (const Graph& g : m->graphs)
    for (const Node& n : g.nodes)
      for (const auto* list : {&n.inputs, &n.outputs})
        for (const Port& p : *list) {
          ++ports;
          distinct.insert(&p.type());
        }
  EXPECT_GT(ports, 500u);
  EXPECT_LT(distinct.size(), 10u);
}

TEST(OnnxLoader, MainGraphNodesKeepEveryGraphAttributeWhenTheWalkFreesSubgraphs) {
  // The loader moves the main graph's nodes to fresh memory before the walk (their subgraphs moved, not copied):
  // a node with a list of graphs (`graphs`) keeps both, and a chain of Ifs (`g`) keeps every branch.
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto* multi = gen::onnx_node(g, "Branches", "multi", {"x"}, {"m_out"});
  multi->set_domain("com.example");
  auto* list = multi->add_attribute();
  list->set_name("bodies");
  list->set_type(onnx::AttributeProto::GRAPHS);
  gen::onnx_branch(list->add_graphs(), "b0", "x", "b0_out", 2, true);
  gen::onnx_branch(list->add_graphs(), "b1", "x", "b1_out", 3, true);
  auto* opset = m.add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  onnx::ModelProto chain;
  ASSERT_TRUE(chain.ParseFromString(gen::flat_if_chain_onnx(3)));
  auto model = load_onnx("multi.onnx", m.SerializeAsString());
  ASSERT_TRUE(model);
  const Node& node = model->graphs[0].nodes[0];
  ASSERT_EQ(node.bodies.size(), 2u);
  EXPECT_EQ(model->graphs[node.bodies[0].second].nodes.size(), 2u);
  EXPECT_EQ(model->graphs[node.bodies[1].second].nodes.size(), 3u);
  // The same for a chain of Ifs: every branch read, every node of the main graph as written.
  auto ifs = load_onnx("chain.onnx", chain.SerializeAsString());
  ASSERT_TRUE(ifs);
  ASSERT_EQ(ifs->conditionals.size(), 3u);
  for (const auto& c : ifs->conditionals)
    for (const auto& b : c.branch) {
      ASSERT_GE(b.graph, 0);
      EXPECT_EQ(ifs->graphs[b.graph].nodes.size(), 10u);
    }
  EXPECT_EQ(ifs->graphs[0].nodes.size(), static_cast<size_t>(chain.graph().node_size()));
}

TEST(OnnxLoader, ThirtyOneLevelsAreSilentThirtyTwoWarn) {
  EXPECT_TRUE(run_rules(*load_onnx("d31.onnx", gen::nested_if_onnx(31)), RuleSelection{}).empty());
  EXPECT_EQ(rules_of(run_rules(*load_onnx("d32.onnx", gen::nested_if_onnx(32)), RuleSelection{})),
            std::set<std::string>{"ONNX002"});
}

TEST(OnnxLoader, HostileNestingIsAFindingNeverACrash) {
  // 20,000 nested Ifs (60,000 message levels): within the bounded limit, loads in linear time.
  auto deep = load_onnx("deep20k.onnx", raw_nested_ifs(20000));
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->conditionals.size(), 20000u);
  EXPECT_EQ(deep->onnx->max_depth, 20000);
  // (Only ONNX002 runs here: these Ifs have no else branch, so every If would have findings of its own.)
  RuleSelection only_nesting;
  only_nesting.enable = {"ONNX002"};
  const auto f = run_rules(*deep, only_nesting);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("nested 20000 deep"), std::string::npos) << f[0].message;
  // 40,000 nested Ifs (120,000 levels): past the limit of 100,000, so protobuf refuses: ONNX001.
  auto hostile = load_onnx("hostile.onnx", raw_nested_ifs(40000));
  ASSERT_TRUE(hostile);
  EXPECT_EQ(rules_of(run_rules(*hostile, RuleSelection{})), std::set<std::string>{"ONNX001"});
}

TEST(OnnxLoader, LogicalPathsNameGraphIfBranchAndNode) {
  auto m = load_onnx("chain.onnx", gen::flat_if_chain_onnx(5));
  ASSERT_TRUE(m);
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(f.empty()) << dump_findings(f);
  ASSERT_EQ(m->conditionals.size(), 5u);
  const auto& c = m->conditionals[3];
  const int then_graph = c.branch[0].graph;
  ASSERT_GE(then_graph, 0);
  EXPECT_EQ(m->path_of(then_graph, 7), "main/If_3/then/Add_7");
  EXPECT_EQ(m->graphs[c.branch[1].graph].role, "else");
  // The If's output type comes from value_info; the branches' from their declared outputs.
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].type.str(), "f32");
  EXPECT_EQ(c.outputs[0].shape.str(), "[2]");
  ASSERT_EQ(c.branch[0].outputs.size(), 1u);
  EXPECT_EQ(c.branch[0].outputs[0].value.shape.str(), "[2]");
  EXPECT_TRUE(c.branch[0].inputs.empty());
  EXPECT_EQ(c.condition.type.str(), "boolean");
}

TEST(OnnxLoader, SiblingBranchNamesAreNotVisible) {
  // then_branch defines 'z'; else_branch reads 'z': the then branch's scope is gone by then.
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  auto* t = branch(n, "then_branch");
  gen::onnx_node(t, "Neg", "Neg_t", {"x"}, {"z"});
  gen::onnx_value(t->add_output(), "z", onnx::TensorProto::FLOAT, {2});
  auto* e = branch(n, "else_branch");
  gen::onnx_node(e, "Abs", "Abs_e", {"z"}, {"w"});
  gen::onnx_value(e->add_output(), "w", onnx::TensorProto::FLOAT, {2});
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  auto model = load_onnx("sibling.onnx", m.SerializeAsString());
  const auto f = run_rules(*model, RuleSelection{});
  ASSERT_EQ(rules_of(f), std::set<std::string>{"ONNX009"}) << dump_findings(f);
  EXPECT_EQ(f[0].loc.node, "main/If_0/else/Abs_e");
}

TEST(OnnxLoader, TruncationsGiveAFindingWithTheByteOffset) {
  const std::string bytes = gen::flat_if_chain_onnx(2, 3);
  int parse_findings = 0;
  for (size_t cut = 0; cut < bytes.size(); cut += 5) {
    auto m = load_onnx("cut.onnx", bytes.substr(0, cut));
    ASSERT_TRUE(m);
    for (const auto& f : run_rules(*m, RuleSelection{}))
      if (f.rule == "ONNX001") {
        ++parse_findings;
        EXPECT_GE(f.loc.offset, -1);
        EXPECT_LE(f.loc.offset, static_cast<int64_t>(cut));
      }
  }
  EXPECT_GE(parse_findings, static_cast<int>(bytes.size() / 5) - 2);
  auto m = load_onnx("cut.onnx", bytes.substr(0, bytes.size() / 2));
  const auto f = run_rules(*m, RuleSelection{});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_GE(f[0].loc.offset, 0) << f[0].message;
  EXPECT_NE(f[0].message.find("truncated"), std::string::npos) << f[0].message;
}

TEST(OnnxLoader, ExternalDataThatLeavesTheDirectoryIsNeverOpened) {
  const fs::path dir = fs::temp_directory_path() / ("condlint-onnx-ext-" + std::to_string(getpid()));
  fs::create_directories(dir / "m");
  std::ofstream(dir / "outside.bin", std::ios::binary) << std::string(8, '\0');
  std::ofstream(dir / "m" / "inside.bin", std::ios::binary) << std::string(8, '\0');
  std::error_code ec;
  fs::remove(dir / "m" / "link.bin", ec);
  fs::create_symlink(dir / "outside.bin", dir / "m" / "link.bin");
  auto model_with = [&](const std::string& location) {
    onnx::ModelProto m = onnx::ModelProto();
    m.ParseFromString(gen::flat_if_chain_onnx(1, 1));
    auto* t = m.mutable_graph()->mutable_initializer(0);
    t->clear_float_data();
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    const std::string p = (dir / "m" / "model.onnx").string();
    std::ofstream(p, std::ios::binary) << m.SerializeAsString();
    return p;
  };
  EXPECT_TRUE(lint_file(model_with("inside.bin")).empty());
  EXPECT_EQ(rules_of(lint_file(model_with("link.bin"))), std::set<std::string>{"ONNX014"});
  EXPECT_EQ(rules_of(lint_file(model_with("../outside.bin"))), std::set<std::string>{"ONNX014"});
  EXPECT_EQ(rules_of(lint_file(model_with("sub/../../outside.bin"))), std::set<std::string>{"ONNX014"});
  EXPECT_EQ(rules_of(lint_file(model_with((dir / "outside.bin").string()))), std::set<std::string>{"ONNX014"});
  EXPECT_EQ(rules_of(lint_file(model_with("missing.bin"))), std::set<std::string>{"ONNX015"});
  fs::remove_all(dir, ec);
}

TEST(OnnxLoader, CliExitCodes) {
  const std::string dir = (source_dir() / "corpus" / "onnx").string();
  EXPECT_EQ(run(condlint_cmd() + " lint \"" + dir + "/valid\"").exit_code, 0);
  EXPECT_EQ(run(condlint_cmd() + " lint \"" + dir + "/invalid/ONNX001_truncated.onnx\"").exit_code, 1);
}

}  // namespace

TEST(OnnxLoader, InferenceOfOnePatternIsSharedButEachNodeKeepsItsOwnResult) {
  // In the then branch, three Transposes read the same input: a and c share a pattern (perm 1,0), b does not. The
  // loader infers a pattern once; b's and c's declared shapes contradict what each computes (ONNX007, each at its
  // own node), a's does not. Two identical invalid Transposes each report ONNX008: failures are never shared.
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  gen::onnx_value(g->add_input(), "m", onnx::TensorProto::FLOAT, {2, 3});
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  auto* tg = branch(n, "then_branch");
  auto transpose = [&](const std::string& name, std::initializer_list<int64_t> perm, const std::string& out) {
    auto* node = gen::onnx_node(tg, "Transpose", name, {"m"}, {out});
    auto* a = node->add_attribute();
    a->set_name("perm");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : perm) a->add_ints(p);
  };
  transpose("T_a", {1, 0}, "a");
  transpose("T_b", {0, 1}, "b");
  transpose("T_c", {1, 0}, "cc");
  transpose("T_bad1", {0, 0, 1}, "bad1");
  transpose("T_bad2", {0, 0, 1}, "bad2");
  gen::onnx_value(tg->add_value_info(), "a", onnx::TensorProto::FLOAT, {3, 2});
  gen::onnx_value(tg->add_value_info(), "b", onnx::TensorProto::FLOAT, {3, 2});
  gen::onnx_value(tg->add_value_info(), "cc", onnx::TensorProto::FLOAT, {2, 3});
  gen::onnx_node(tg, "Neg", "Neg_t", {"x"}, {"z"});
  gen::onnx_value(tg->add_output(), "z", onnx::TensorProto::FLOAT, {2});
  auto* e = branch(n, "else_branch");
  gen::onnx_node(e, "Abs", "Abs_e", {"x"}, {"w"});
  gen::onnx_value(e->add_output(), "w", onnx::TensorProto::FLOAT, {2});
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  auto model = load_onnx("patterns.onnx", m.SerializeAsString());
  const auto f = run_rules(*model, RuleSelection{});
  std::vector<std::string> at;
  for (const auto& x : f)
    if (x.rule == "ONNX007" || x.rule == "ONNX008") at.push_back(x.rule + " " + x.loc.node);
  std::sort(at.begin(), at.end());
  EXPECT_EQ(at, (std::vector<std::string>{"ONNX007 main/If_0/then/T_b", "ONNX007 main/If_0/then/T_c",
                                          "ONNX008 main/If_0/then/T_bad1", "ONNX008 main/If_0/then/T_bad2"}))
      << dump_findings(f);
}

TEST(OnnxUtil, TypeStringsAreOnnxsOwn) {
  // onnx_type_string builds If's constraint strings without onnx's process-wide table: the same text as ToType.
  auto tensor = [](onnx::TypeProto& t, int elem) { t.mutable_tensor_type()->set_elem_type(elem); };
  std::vector<onnx::TypeProto> types(4);
  tensor(types[0], onnx::TensorProto::FLOAT);
  tensor(*types[1].mutable_sequence_type()->mutable_elem_type(), onnx::TensorProto::INT64);
  tensor(*types[2].mutable_optional_type()->mutable_elem_type()->mutable_sequence_type()->mutable_elem_type(),
         onnx::TensorProto::BOOL);
  tensor(*types[3].mutable_optional_type()->mutable_elem_type(), onnx::TensorProto::FLOAT16);
  for (const auto& t : types) EXPECT_EQ(onnx_type_string(t), *onnx::Utils::DataTypeUtils::ToType(t));
  EXPECT_EQ(onnx_type_string(types[2]), "optional(seq(tensor(bool)))");
  onnx::TypeProto map, odd, unset;
  map.mutable_map_type()->set_key_type(onnx::TensorProto::INT64);
  tensor(odd, 12345);
  EXPECT_EQ(onnx_type_string(map), "");
  EXPECT_EQ(onnx_type_string(odd), "");
  EXPECT_EQ(onnx_type_string(unset), "");
}

namespace {

// A Constant whose raw_data is shorter than its dims feeds an Unsqueeze's axes in a branch: onnx's inference would
// read past the data. ONNX018 reports it, the data never reaches the inference, and nothing downstream is reported.
TEST(OnnxLoader, ShortConstantDataIsReportedNotRead) {
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  auto* t = branch(n, "then_branch");
  auto* k = gen::onnx_node(t, "Constant", "Const_t", {}, {"axes"});
  auto* a = k->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->set_raw_data(std::string(4, '\0'));  // one int64 needs 8 bytes
  gen::onnx_node(t, "Unsqueeze", "Unsqueeze_t", {"x", "axes"}, {"t_out"});
  gen::onnx_value(t->add_output(), "t_out", onnx::TensorProto::FLOAT, {1, 2});
  auto* e = branch(n, "else_branch");
  gen::onnx_node(e, "Unsqueeze", "Unsqueeze_e", {"x", "axes0"}, {"e_out"});
  gen::onnx_value(e->add_output(), "e_out", onnx::TensorProto::FLOAT, {1, 2});
  auto* axes0 = g->add_initializer();
  axes0->set_name("axes0");
  axes0->set_data_type(onnx::TensorProto::INT64);
  axes0->add_dims(1);
  axes0->add_int64_data(0);
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, 2});
  auto model = load_onnx("short.onnx", m.SerializeAsString());
  const auto f = run_rules(*model, RuleSelection{});
  std::set<std::string> errors;
  for (const auto& x : f)
    if (x.level == Level::Error) errors.insert(x.rule);
  EXPECT_EQ(errors, std::set<std::string>{"ONNX018"}) << dump_findings(f);
}

// Each way a stored tensor can fail to hold its dims, as the loader measures it and ONNX018 says it.
TEST(OnnxLoader, EveryWayATensorCannotHoldItsDimsHasItsMessage) {
  using TP = onnx::TensorProto;
  struct Case {
    int type;
    std::vector<int64_t> dims;
    std::function<void(TP&)> data;
    std::string message;  // after "initializer 'w' in the main graph: "; "" = holds its dims
  };
  const std::vector<Case> cases = {
      {TP::FLOAT, {2, 3}, [](TP& t) { t.add_float_data(1); }, "float_data holds 1 value; 2 x 3 elements need 6"},
      {TP::FLOAT, {2}, [](TP& t) { t.add_float_data(1), t.add_float_data(2); }, ""},
      {TP::INT64,
       {2, 3},
       [](TP& t) { t.set_raw_data("abcd"); },
       "raw_data holds 4 bytes; 2 x 3 elements of 8 bytes need 48"},
      {TP::UINT8, {5}, [](TP& t) { t.set_raw_data("abcde"); }, ""},
      {TP::FLOAT,
       {},
       [](TP&) {},
       "it holds no values in float_data and no raw_data, but declares 1 element (a scalar)"},
      {TP::FLOAT,
       {},
       [](TP& t) { t.set_raw_data("ab"); },
       "raw_data holds 2 bytes; 1 element (a scalar) of 4 bytes needs 4"},
      {TP::FLOAT,
       {2},
       [](TP& t) { t.add_int64_data(1); },
       "it holds no values in float_data (they are in a field its type does not use) and no raw_data, but declares 2 "
       "elements"},
      {TP::COMPLEX64,
       {2},
       [](TP& t) { t.add_float_data(1), t.add_float_data(2); },
       "float_data holds 2 values; 2 elements need 4"},
      {TP::STRING, {2}, [](TP& t) { t.add_string_data("a"); }, "string_data holds 1 value; 2 strings need 2"},
      {TP::STRING, {2}, [](TP& t) { t.set_raw_data("ab"); }, ""},  // onnx's checker judges string raw_data
      {TP::FLOAT,
       {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
       [](TP& t) { t.set_raw_data("ab"); },
       "raw_data holds 2 bytes; 1 x 1 x 1 x 1 x 1 x 1 x 1 x 1 x ... elements of 4 bytes need 4"},
      {TP::FLOAT, {1, 1, 1, 1, 1, 1, 1, 1, 1, -3}, [](TP& t) { t.add_float_data(1); }, "dimension 9 is negative (-3)"},
      {TP::FLOAT,
       {int64_t{1} << 40, int64_t{1} << 40},
       [](TP& t) { t.set_raw_data("abcd"); },
       "its 2 dims multiply past 2^64 elements"},
      {TP::DOUBLE,
       {int64_t{1} << 31, int64_t{1} << 31, 2},
       [](TP& t) { t.set_raw_data("abcd"); },
       "its 9223372036854775808 elements overflow a byte count"},
  };
  for (const Case& c : cases) {
    onnx::ModelProto m = gen::onnx_model_base(13);
    auto* g = m.mutable_graph();
    gen::onnx_node(g, "Identity", "id", {"x"}, {"y"});
    gen::onnx_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1});
    gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {1});
    TP* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(c.type);
    for (int64_t d : c.dims) w->add_dims(d);
    c.data(*w);
    auto model = load_onnx("w.onnx", m.SerializeAsString());
    std::vector<std::string> got;
    for (const auto& x : run_rules(*model, RuleSelection{}))
      if (x.rule == "ONNX018") got.push_back(x.message);
    const std::vector<std::string> want =
        c.message.empty() ? std::vector<std::string>{}
                          : std::vector<std::string>{"initializer 'w' in the main graph: " + c.message};
    EXPECT_EQ(got, want) << c.message;
  }
}

}  // namespace

namespace {

// A model of opset 13 whose main graph has no inputs or initializers yet.
onnx::ModelProto bare_model() {
  onnx::ModelProto m = gen::onnx_model_base(13);
  m.mutable_graph()->clear_input();
  m.mutable_graph()->clear_initializer();
  return m;
}

// A Constant node in `g` named `name` whose value is `t`, giving `out`.
void add_constant(onnx::GraphProto* g, const std::string& name, const std::string& out, onnx::TensorProto t) {
  auto* a = gen::onnx_node(g, "Constant", name, {}, {out})->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = std::move(t);
}

// Main graph: inputs c (bool), x (float [2,3]), z (float [6]). If 'outer' on `outer_cond` gives x in its then branch;
// its else branch holds If 'inner' on c, whose branches give x ([2,3]) and z ([6]): C011 for 'inner' wherever it
// runs.
std::string outer_with_inner_in_else(bool outer_decided) {
  onnx::ModelProto m = bare_model();
  auto* g = m.mutable_graph();
  gen::onnx_value(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  gen::onnx_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  gen::onnx_value(g->add_input(), "z", onnx::TensorProto::FLOAT, {6});
  std::string outer_cond = "c";
  if (outer_decided) {  // a constant true: the else branch never runs (C012)
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::BOOL);
    t.add_int32_data(1);
    add_constant(g, "always", "t", std::move(t));
    outer_cond = "t";
  }
  auto* outer = gen::onnx_node(g, "If", "outer", {outer_cond}, {"y"});
  auto* then_b = branch(outer, "then_branch");
  gen::onnx_node(then_b, "Identity", "keep", {"x"}, {"y_then"});
  then_b->add_output()->set_name("y_then");
  auto* else_b = branch(outer, "else_branch");
  auto* inner = gen::onnx_node(else_b, "If", "inner", {"c"}, {"y_inner"});
  auto* inner_then = branch(inner, "then_branch");
  gen::onnx_node(inner_then, "Identity", "from_x", {"x"}, {"ix"});
  inner_then->add_output()->set_name("ix");
  auto* inner_else = branch(inner, "else_branch");
  gen::onnx_node(inner_else, "Identity", "from_z", {"z"}, {"iz"});
  inner_else->add_output()->set_name("iz");
  else_b->add_output()->set_name("y_inner");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

size_t count_rule(const std::vector<Finding>& f, const std::string& rule, const std::string& text) {
  return static_cast<size_t>(std::count_if(f.begin(), f.end(), [&](const Finding& x) {
    return x.rule == rule && x.message.find(text) != std::string::npos;
  }));
}

}  // namespace

// One root cause, one finding: an If inside a branch C012 proves dead gets no C011 (its shapes are never given) and
// no C012 of its own; the same If where it can run gets its C011.
TEST(OnnxLoader, NothingIsSaidOfIfsInABranchThatNeverRuns) {
  const auto dead = run_rules(*load_onnx("dead.onnx", outer_with_inner_in_else(true)), RuleSelection{});
  EXPECT_EQ(count_rule(dead, "C012", "If 'outer'"), 1u) << dump_findings(dead);
  EXPECT_EQ(count_rule(dead, "C011", "'inner'"), 0u) << dump_findings(dead);
  const auto live = run_rules(*load_onnx("live.onnx", outer_with_inner_in_else(false)), RuleSelection{});
  EXPECT_EQ(count_rule(live, "C012", ""), 0u) << dump_findings(live);
  EXPECT_EQ(count_rule(live, "C011", "'inner'"), 1u) << dump_findings(live);
}

namespace {

// x reshaped to a shape of unknown length (float, no rank known) -> Conv with weights [channels,4,3] -> Sigmoid; If on
// dim 1 of that == 1: the squeeze guard PyTorch exports write. The then branch squeezes axis 1, the else branch passes
// the value on.
std::string conv_channel_guard(int channels) {
  onnx::ModelProto m = bare_model();
  auto* g = m.mutable_graph();
  gen::onnx_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {24});
  gen::onnx_value(g->add_input(), "to", onnx::TensorProto::INT64, {});  // a shape of unknown length
  g->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim();
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {int64_t(channels), int64_t(4), int64_t(3)}) w->add_dims(d);
  for (int k = 0; k < channels * 12; ++k) w->add_float_data(0.5f);
  auto scalar = [&](const char* name, int64_t v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_int64_data(v);
  };
  scalar("one", 1);
  gen::onnx_node(g, "Reshape", "any_rank", {"x", "to"}, {"xr"});  // no rank known: onnx infers no shape of the Conv
  gen::onnx_node(g, "Conv", "conv", {"xr", "w"}, {"y"});
  gen::onnx_node(g, "Sigmoid", "sig", {"y"}, {"s"});
  gen::onnx_node(g, "Shape", "shape", {"s"}, {"sh"});
  gen::onnx_node(g, "Gather", "dim1", {"sh", "one"}, {"d1"});
  gen::onnx_node(g, "Equal", "is_one", {"d1", "one"}, {"c"});
  auto* n = gen::onnx_node(g, "If", "squeeze_guard", {"c"}, {"out"});
  auto* then_b = branch(n, "then_branch");
  onnx::TensorProto axes;
  axes.set_data_type(onnx::TensorProto::INT64);
  axes.add_dims(1);
  axes.add_int64_data(1);
  add_constant(then_b, "axes", "ax", std::move(axes));
  gen::onnx_node(then_b, "Squeeze", "squeeze", {"s", "ax"}, {"sq"});
  then_b->add_output()->set_name("sq");
  auto* else_b = branch(n, "else_branch");
  gen::onnx_node(else_b, "Identity", "keep", {"s"}, {"kept"});
  else_b->add_output()->set_name("kept");
  auto* out = g->add_output();
  out->set_name("out");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int d = 0; d < 3; ++d) out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim();
  return m.SerializeAsString();
}

}  // namespace

// A Conv's output has the rank of its weights and their dim 0 as its channels whatever its input is, so a guard on
// those channels is decided even when the input's shape is unknown: dead else with one output channel, dead then
// with two. Only the condition uses it: the Squeeze in the dead then branch is not inferred with it (onnx and ONNX
// Runtime do not know the channels there either), so nothing fails in it.
TEST(OnnxLoader, AConvsChannelsComeFromItsWeights) {
  const auto one = run_rules(*load_onnx("one.onnx", conv_channel_guard(1)), RuleSelection{});
  EXPECT_EQ(count_rule(one, "C012", "the else branch of If 'squeeze_guard' never runs"), 1u) << dump_findings(one);
  const auto two = run_rules(*load_onnx("two.onnx", conv_channel_guard(2)), RuleSelection{});
  EXPECT_EQ(count_rule(two, "C012", "the then branch of If 'squeeze_guard' never runs"), 1u) << dump_findings(two);
  EXPECT_TRUE(std::none_of(two.begin(), two.end(), [](const Finding& f) { return f.level != Level::Note; }))
      << dump_findings(two);
}

namespace {

// Every finding with everything it says and where, one per line.
std::string all_of(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs)
    s += f.rule + " " + std::to_string(static_cast<int>(f.level)) + " " + std::to_string(f.loc.graph) + ":" +
         std::to_string(f.loc.node_index) + " @" + std::to_string(f.loc.offset) + " " + f.message + "\n";
  return s;
}

// The findings on a model parsed node by node as the walk reaches them (how `lint` loads), and on the same bytes
// parsed whole (how `--exec` loads them, keeping the parsed model).
std::pair<std::string, std::string> split_and_whole(const std::string& bytes) {
  const auto split = run_rules(*load_onnx("m.onnx", std::string(bytes), false), RuleSelection{});  // owned, as lint
  const auto whole = run_rules(*load_onnx("m.onnx", bytes, true), RuleSelection{});
  return {all_of(split), all_of(whole)};
}

// A length-delimited field: its tag byte (field number < 16), the length, the payload.
std::string wire_field(char tag, const std::string& payload) {
  std::string out(1, tag);
  for (uint64_t v = payload.size();; v >>= 7) {
    if (v < 0x80) {
      out += static_cast<char>(v);
      break;
    }
    out += static_cast<char>((v & 0x7f) | 0x80);
  }
  return out + payload;
}

}  // namespace

// The main graph's nodes are parsed one at a time as the walk reaches them, so that the parsed branches of all of
// them are never in memory at once. Pieces parsed in order are the model parsed whole: the same findings on every
// ONNX file of the corpus, the pinned real models and libonnx-testdata, on a model whose graph and model fields come
// before, between and after the nodes, and on one whose last node protobuf rejects (the finding is then the one a
// whole parse gives, and nothing of the file is read).
TEST(OnnxLoader, NodesParsedAsTheWalkReachesThemGiveTheFindingsOfTheWholeParse) {
  size_t files = 0;
  // The pinned real models (scripts/install-deps.sh) and Debian's libonnx-testdata when installed. Under
  // AddressSanitizer the corpus alone: the rest took half a minute there, the slowest test of the sanitized suite
  // (the unsanitized suite compares them, and the fuzz smoke parses under the sanitizers).
  for (const fs::path& root :
       {source_dir() / "corpus", source_dir() / "tools/models", fs::path("/usr/share/libonnx-testdata/data")}) {
    if (!fs::exists(root)) {
      std::cout << "[ NOTE     ] " << root << " is not there: its models are not compared\n";
      continue;
    }
    if (kAddressSanitizer && root != source_dir() / "corpus") {
      std::cout << "[ NOTE     ] " << root << ": compared in the unsanitized suite only\n";
      continue;
    }
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".onnx") continue;
      const auto [split, whole] = split_and_whole(slurp(e.path()));
      EXPECT_EQ(split, whole) << e.path();
      ++files;
    }
  }
  EXPECT_GE(files, 30u);
  // Bytes the loader owns are given back as the walk passes them, 4 MiB at a time: 5,000 Ifs are 4.4 MB (not under
  // AddressSanitizer, for its time).
  if (!kAddressSanitizer) {
    const auto [chain_split, chain_whole] = split_and_whole(gen::flat_if_chain_onnx(5000));
    EXPECT_EQ(chain_split, chain_whole);
  }

  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(gen::flat_if_chain_onnx(3)));
  onnx::GraphProto rest = m.graph();
  rest.clear_node();
  onnx::GraphProto between;  // graph fields between the nodes: a declared type for an output of the second node
  auto* vi = between.add_value_info();
  vi->set_name(m.graph().node(1).output(0));
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);  // contradicts: a finding
  std::string graph = wire_field('\x0a', m.graph().node(0).SerializeAsString()) + between.SerializeAsString();
  for (int i = 1; i < m.graph().node_size(); ++i) {
    graph += wire_field('\x0a', m.graph().node(i).SerializeAsString());
    if (i == 1) graph += rest.SerializeAsString();
  }
  onnx::ModelProto head = m;
  head.clear_graph();
  onnx::ModelProto tail;  // model fields after the graph
  auto* md = tail.add_metadata_props();
  md->set_key("k");
  md->set_value("v");
  const std::string model = head.SerializeAsString() + wire_field('\x3a', graph) + tail.SerializeAsString();
  const auto [split, whole] = split_and_whole(model);
  EXPECT_EQ(split, whole);
  EXPECT_NE(split, "");

  // A last node whose attribute is one byte of a truncated tag: the model scans, the node does not parse.
  const std::string bad_node = wire_field('\x2a', std::string(1, '\xff'));
  const std::string bad = head.SerializeAsString() + wire_field('\x3a', graph + wire_field('\x0a', bad_node));
  const auto [bad_split, bad_whole] = split_and_whole(bad);
  EXPECT_EQ(bad_split, bad_whole);
  EXPECT_NE(bad_split.find("protobuf rejects the bytes"), std::string::npos) << bad_split;
}

// The same on damaged bytes: 300 mutants of a small model with nested Ifs and weights (bytes flipped, cut, or
// copied over other bytes), each linted split and whole.
TEST(OnnxLoader, DamagedBytesGiveTheSameFindingsSplitAndWhole) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(gen::nested_if_onnx(3)));
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_raw_data(std::string(16, '\x01'));
  const std::string base = m.SerializeAsString();
  std::mt19937 rng(20261127);
  size_t differing = 0, rejected = 0;
  for (int k = 0; k < 300; ++k) {
    std::string b = base;
    switch (k % 3) {
      case 0:
        for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips)
          b[rng() % b.size()] = static_cast<char>(rng());
        break;
      case 1: b.resize(rng() % b.size()); break;
      default: {
        const size_t from = rng() % b.size(), to = rng() % b.size(), n = 1 + rng() % 16;
        for (size_t i = 0; i < n && from + i < b.size() && to + i < b.size(); ++i) b[to + i] = b[from + i];
      }
    }
    const auto [split, whole] = split_and_whole(b);
    if (split != whole) {
      ++differing;
      ADD_FAILURE() << "mutant " << k << "\nsplit:\n" << split << "whole:\n" << whole;
      if (differing > 3) break;
    }
    rejected += whole.find("not a valid ONNX ModelProto") != std::string::npos;
  }
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(rejected, 20u);  // the mutants reach the parse failures too
}
