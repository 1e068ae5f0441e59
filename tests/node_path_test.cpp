// Node paths are built in one place (model/node_path.hpp): the Model, the executors and the writers spell a path the
// same way, a '/' inside a node name is written "~1", and the pin key is the full path at any depth.
#include "model/node_path.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <google/protobuf/io/coded_stream.h>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/ir_gen.hpp"
#include "bench/onnx_gen.hpp"
#include "loaders/loader.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
namespace np = condlint::node_path;
using condlint::test::condlint_cmd;
using condlint::test::shell_quote;

namespace {

TEST(NodePath, NamesWithSlashesAndTildesAreEscapedAndSplitBack) {
  EXPECT_EQ(np::escape("If_1"), "If_1");
  EXPECT_EQ(np::escape("/model/decoder/If_1"), "~1model~1decoder~1If_1");
  EXPECT_EQ(np::escape("a~b/c"), "a~0b~1c");
  EXPECT_EQ(np::unescape("a~0b~1c"), "a~b/c");
  EXPECT_EQ(np::unescape("a~2b~"), "a~2b~");  // not an escape: kept as written
  EXPECT_EQ(np::node_segment("", "Add", 3), "Add#3");
  EXPECT_EQ(np::node_segment("/m/If", "If", 3), "~1m~1If");
  const std::string p = np::child(np::branch(np::child("main", np::escape("/m/If")), true), np::escape("x~1/y"));
  EXPECT_EQ(p, "main/~1m~1If/then/x~01~1y");
  EXPECT_EQ(np::split(p), (std::vector<std::string>{"main", "/m/If", "then", "x~1/y"}));
  EXPECT_EQ(np::body("main/loop"), "main/loop/body");
  EXPECT_TRUE(np::has_escapes(p));
  EXPECT_FALSE(np::has_escapes("main/If_1/then/Add#0"));
  EXPECT_EQ(np::legacy(p), "main//m/If/then/x~1/y");
}

// The deepest If of a chain of `depth` nested Ifs, each named `prefix` + "If_k" (ONNX) or "if_k" (IR), as its path.
std::string deepest(int depth, const std::string& escaped_prefix, const std::string& stem) {
  std::string p = "main";
  for (int k = 0; k < depth; ++k) {
    if (k) p += "/then";
    p += "/" + escaped_prefix + stem + std::to_string(k);
  }
  return p;
}

struct Chain {
  fs::path onnx, ir;
};

// A generated chain nests deeper than protobuf's default recursion limit (100 messages).
onnx::ModelProto parse_deep(const std::string& bytes) {
  onnx::ModelProto m;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(4096);
  EXPECT_TRUE(m.ParseFromCodedStream(&in));
  return m;
}

// The nested chains of bench/, their Ifs renamed the way PyTorch names nodes ("/blk/If_k").
Chain write_chains(int depth) {
  const fs::path dir = condlint::test::fresh_dir("node_path");
  onnx::ModelProto m = parse_deep(condlint::gen::nested_if_onnx(depth));
  std::vector<onnx::GraphProto*> todo{m.mutable_graph()};
  while (!todo.empty()) {
    onnx::GraphProto* g = todo.back();
    todo.pop_back();
    for (auto& n : *g->mutable_node()) {
      if (n.op_type() == "If") n.set_name("/blk/" + n.name());
      for (auto& a : *n.mutable_attribute())
        if (a.has_g()) todo.push_back(a.mutable_g());
    }
  }
  Chain c{dir / "chain.onnx", dir / "chain.xml"};
  condlint::test::write_file(c.onnx, m.SerializeAsString());
  std::string ir = condlint::gen::nested_if_ir(depth);
  for (size_t at = ir.find("name=\"if_"); at != std::string::npos; at = ir.find("name=\"if_", at + 1))
    ir.replace(at, 6, "name=\"/blk/");
  condlint::test::write_file(c.ir, ir);
  return c;
}

// At depth 64 (far past the 16 levels a finding's path keeps), a pin on the deepest If's full path reaches it in
// both formats that name nodes, in the escaped spelling and in the spelling of condlint 0.2.
TEST(NodePath, APinOnTheFullPathReachesAnIfAtDepth64) {
  constexpr int kDepth = 64;
  const Chain c = write_chains(kDepth);
  struct Case {
    fs::path model;
    std::string stem;
  };
  for (const Case& k : {Case{c.onnx, "If_"}, Case{c.ir, "if_"}}) {
    condlint::LoadResult lr = condlint::load_file(k.model.string());
    ASSERT_TRUE(lr.model) << lr.io_error;
    const std::string path = deepest(kDepth, "~1blk~1", k.stem);
    bool found = false;
    for (const auto& cond : lr.model->conditionals) found |= lr.model->full_path_of(cond.graph, cond.node) == path;
    EXPECT_TRUE(found) << k.model;
    for (const std::string& pin : {path, np::legacy(path)}) {
      const auto r = condlint::test::run(condlint_cmd() + " run " + shell_quote(k.model.string()) +
                                         " --random 1 --pin " + shell_quote(pin + "=false") + " 2>&1");
      EXPECT_NE(r.exit_code, 2) << r.out;
      EXPECT_NE(r.out.find("If " + path + ": then "), std::string::npos) << k.model << "\n" << r.out;
      EXPECT_NE(r.out.find("If " + path + ": then synthesized; else pinned"), std::string::npos)
          << k.model << " --pin " << pin << "\n"
          << r.out.substr(0, 4000);
    }
  }
}

// A finding on a node whose name holds '/' is located by the escaped path; a baseline written by condlint 0.2 (the
// name's '/' as it is) still matches it, so upgrading does not turn old findings into new ones.
TEST(NodePath, FindingsUseTheEscapedPathAndOldBaselinesStillMatch) {
  const fs::path dir = condlint::test::fresh_dir("node_path_baseline");
  // An If whose else branch gives i64 where the then branch gives f32: an error located at the If.
  onnx::ModelProto m = parse_deep(condlint::gen::nested_if_onnx(1));
  onnx::NodeProto* top = m.mutable_graph()->mutable_node(0);
  top->set_name("/blk/top");
  for (auto& a : *top->mutable_attribute())
    if (a.name() == "else_branch") {
      onnx::NodeProto* n = a.mutable_g()->mutable_node(0);
      n->set_op_type("Cast");
      auto* to = n->add_attribute();
      to->set_name("to");
      to->set_type(onnx::AttributeProto::INT);
      to->set_i(onnx::TensorProto::INT64);
      a.mutable_g()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    }
  condlint::test::write_file(dir / "m.onnx", m.SerializeAsString());
  const std::string model = shell_quote((dir / "m.onnx").string());
  auto r = condlint::test::run(condlint_cmd() + " lint --format sarif " + model + " > " +
                               shell_quote((dir / "new.sarif").string()));
  std::string sarif = condlint::test::slurp(dir / "new.sarif");
  ASSERT_NE(sarif.find("main/~1blk~1top"), std::string::npos)
      << condlint::test::run(condlint_cmd() + " lint " + model).out;
  // The same report as condlint 0.2 wrote it: the name's '/' unescaped in the paths and their fingerprints.
  auto doc = nlohmann::json::parse(sarif);
  size_t renamed = 0;
  for (auto& res : doc["runs"][0]["results"]) {
    auto& ll = res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"];
    const std::string now = ll.get<std::string>();
    if (!np::has_escapes(now)) continue;
    const std::string old = np::legacy(now);
    ll = old;
    const std::string fp = res["partialFingerprints"]["primaryLocationLineHash"].get<std::string>();
    const std::string uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>();
    const std::string pointer =
        res["locations"][0].value("properties", nlohmann::json::object()).value("jsonPointer", "");
    res["partialFingerprints"]["primaryLocationLineHash"] =
        condlint::fingerprint_hash(res["ruleId"].get<std::string>(), uri, old, pointer) + fp.substr(fp.find(':'));
    ++renamed;
  }
  ASSERT_GT(renamed, 0u);
  condlint::test::write_file(dir / "old.sarif", doc.dump());
  r = condlint::test::run(condlint_cmd() + " lint --format json --baseline " +
                          shell_quote((dir / "old.sarif").string()) + " " + model);
  const auto j = nlohmann::json::parse(r.out);
  size_t results = 0;
  for (const auto& f : j["files"])
    for (const auto& x : f["findings"]) {
      ++results;
      EXPECT_EQ(x.value("baselineState", ""), "unchanged") << x.dump();
    }
  EXPECT_GT(results, 0u) << r.out.substr(0, 2000);
}

}  // namespace
