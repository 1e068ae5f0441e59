// Hostile inputs (issue 8): each gives a finding or a clear error, never a crash, a hang, a read
// outside the model's directory or a huge allocation. Peak memory of the 1 GiB cases is measured on
// a child `condlint lint` process (getrusage of the child, via wait4) and bounded far below the file
// size; no timing is asserted.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "bench/ir_gen.hpp"
#include "bench/onnx_gen.hpp"
#include "importers/nnapi_testmodel.hpp"
#include "model/onnx_data.hpp"
#include "tests/test_support.hpp"

using condlint::test::dump_findings;
using condlint::test::write_file;

namespace {

using namespace condlint;
using condlint::test::kAddressSanitizer;
using condlint::test::rules_of;
using condlint::test::slurp;
namespace fs = std::filesystem;

// A fresh directory for one test.
fs::path fresh_dir(const std::string& name) {
  const fs::path d = test::temp_dir("hostile") / name;
  std::error_code ec;
  fs::remove_all(d, ec);
  fs::create_directories(d);
  return d;
}

bool any_message_has(const std::vector<Finding>& f, const std::string& rule, const std::string& text) {
  return std::any_of(f.begin(), f.end(),
                     [&](const Finding& x) { return x.rule == rule && x.message.find(text) != std::string::npos; });
}

// Runs fn on a thread with a large stack: the test's own helpers (protobuf's serializer) recurse
// on deep models, and sanitizer builds make every frame bigger. The code under test needs no such
// thing (its walks are iterative); only the generators do.
void on_big_stack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t(512) << 20), 0);
  pthread_t tid;
  auto trampoline = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&tid, &attr, trampoline, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(tid, nullptr);
  pthread_attr_destroy(&attr);
}

// `condlint lint <file>` in a child process: exit code and peak resident set size (KiB).
// A child forked from this (large) test process would inherit the test's own RSS high-water mark,
// which Linux keeps across execve; so the test binary re-executes itself (a fresh, small address
// space) with CONDLINT_RSS_PROBE=<file>, and that process, before main, spawns the lint, waits for
// it with wait4 (the child's getrusage figures) and prints "<exit code> <ru_maxrss>".
struct ChildRun {
  int exit_code = -1;
  long max_rss_kb = -1;
};

__attribute__((constructor)) void rss_probe() {
  const char* file = std::getenv("CONDLINT_RSS_PROBE");
  if (!file) return;
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(condlint::test::condlint_binary(), condlint::test::condlint_binary(), "lint", file,
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) _exit(3);
  std::printf("%d %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, ru.ru_maxrss);
  std::fflush(stdout);
  _exit(0);
}

ChildRun lint_in_child(const std::string& file) {
  ChildRun r;
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const auto out = test::run("CONDLINT_RSS_PROBE='" + file + "' '" + self + "'");
  if (std::sscanf(out.out.c_str(), "%d %ld", &r.exit_code, &r.max_rss_kb) != 2)
    ADD_FAILURE() << "probe said: " << out.out;
  return r;
}

// Peak RSS allowed for a lint of a hostile 1 GiB file: far below the file (a loader that read it
// would need 1,048,576 KiB); generous above condlint's own footprint: about 9 MiB, 100-120 MiB under
// AddressSanitizer (its allocator and quarantine).
constexpr long kMaxRssKb = 256 * 1024;

// A sparse file of `size` zero bytes.
void sparse_zeros(const fs::path& p, uintmax_t size) {
  write_file(p, "");
  fs::resize_file(p, size);
}

constexpr uintmax_t kGiB = uintmax_t(1) << 30;

std::string ir_template() { return slurp(test::source_dir() / "corpus/ir/invalid/IR017_const_out_of_bounds.xml"); }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// A minimal NNAPI model whose then branch reads one constant from `pools[0]` (a Blob `pool_blob`)
// at the given location.
std::string nnapi_pool_model(const std::string& pool_blob, const std::string& location) {
  return R"({"format": "nnapi-model", "version": 1,
 "main": {"operands": [
   {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
   {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 0}},
   {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 1}},
   {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
  "operations": [{"type": "IF", "inputs": [0, 1, 2], "outputs": [3]}],
  "inputIndexes": [0], "outputIndexes": [3]},
 "referenced": [
  {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_POOL", "location": )" +
         location + R"(},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
   "operations": [{"type": "RELU", "inputs": [0], "outputs": [1]}], "inputIndexes": [], "outputIndexes": [1]},
  {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [1.0]},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
   "operations": [{"type": "RELU", "inputs": [0], "outputs": [1]}], "inputIndexes": [], "outputIndexes": [1]}],
 "pools": [)" +
         pool_blob + R"(]})";
}

// ONNX model whose initializer 'one' lives in external data at `location` with offset/length.
std::string onnx_external(const std::string& location, const std::string& offset, const std::string& length) {
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto* one = g->mutable_initializer(0);
  one->clear_float_data();
  one->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    if (v.empty()) return;
    auto* e = one->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  add("offset", offset);
  add("length", length);
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  auto* t = n->add_attribute();
  t->set_name("then_branch");
  t->set_type(onnx::AttributeProto::GRAPH);
  gen::onnx_branch(t->mutable_g(), "then", "x", "t_out", 1, true);
  auto* e = n->add_attribute();
  e->set_name("else_branch");
  e->set_type(onnx::AttributeProto::GRAPH);
  gen::onnx_branch(e->mutable_g(), "else", "x", "e_out", 1, false);
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  return m.SerializeAsString();
}

// ---------------------------------------------------------------- deep nesting

TEST(Hostile, IrIfsNested10000Deep) {
  auto m = load_ir("deep.xml", gen::nested_if_ir(10000));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->conditionals.size(), 10000u);
  EXPECT_EQ(m->graphs.size(), 20001u);
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(f.empty()) << dump_findings(f);  // valid, however deep
}

TEST(Hostile, XmlElementsNestedAMillionDeep) {
  std::string s = "<net version=\"11\"><layers>";
  for (int i = 0; i < 1000000; ++i) s += "<a>";
  auto m = load_ir("deep_elements.xml", s);  // unclosed: malformed, found without recursion
  ASSERT_TRUE(m);
  EXPECT_EQ(rules_of(run_rules(*m, RuleSelection{})), std::set<std::string>{"IR001"});
}

TEST(Hostile, OnnxIfsNested10000Deep) {
  std::string bytes;
  on_big_stack([&] { bytes = gen::nested_if_onnx(10000); });
  auto m = load_onnx("deep.onnx", bytes);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->conditionals.size(), 10000u);
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_EQ(rules_of(f), std::set<std::string>{"ONNX002"}) << dump_findings(f);
}

// main IF -> referenced[0] IF -> referenced[1] IF -> ... -> referenced[depth] (a leaf), every else
// branch the leaf. With self_ref, the last IF's then branch is its own subgraph.
std::string nnapi_if_chain(int depth, bool self_ref = false) {
  auto level = [&](int then_index) {
    return std::string(R"({"operands": [
 {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
 {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_INPUT"},
 {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": )") +
           std::to_string(then_index) + R"(}},
 {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": )" +
           std::to_string(depth) + R"(}},
 {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"}],
 "operations": [{"type": "IF", "inputs": [0, 2, 3, 0, 1], "outputs": [4]}],
 "inputIndexes": [0, 1], "outputIndexes": [4]})";
  };
  std::string s = R"({"format": "nnapi-model", "version": 1, "main": )" + level(0) + ",\n\"referenced\": [\n";
  for (int k = 0; k < depth; ++k) s += level(self_ref && k + 1 == depth ? k : k + 1) + ",\n";
  s += R"({"operands": [
 {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
 {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_INPUT"},
 {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"}],
 "operations": [{"type": "RELU", "inputs": [1], "outputs": [2]}],
 "inputIndexes": [0, 1], "outputIndexes": [2]}]})";
  return s;
}

TEST(Hostile, NnapiIfsNested10000Deep) {
  auto m = load_nnapi("deep.nnapi.json", nnapi_if_chain(10000));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->conditionals.size(), 10001u);
  EXPECT_EQ(m->graphs.size(), 10002u);
  int deepest = 0;
  for (const auto& g : m->graphs) deepest = std::max(deepest, g.depth);
  EXPECT_EQ(deepest, 10000);  // the leaf is else branch of main, depth 1
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(f.empty()) << dump_findings(f);
}

TEST(Hostile, NnapiSubgraphReferencingItself) {
  // The last level's IF names its own subgraph as the then branch: a cycle, NN016.
  auto m = load_nnapi("self.nnapi.json", nnapi_if_chain(3, true));
  ASSERT_TRUE(m);
  EXPECT_TRUE(rules_of(run_rules(*m, RuleSelection{})).count("NN016"));
  // A long chain closed into a cycle.
  auto big = load_nnapi("self_big.nnapi.json", nnapi_if_chain(5000, true));
  ASSERT_TRUE(big);
  EXPECT_TRUE(rules_of(run_rules(*big, RuleSelection{})).count("NN016"));
}

TEST(Hostile, JsonNestedAMillionDeep) {
  for (const std::string& open : {std::string("["), std::string("{\"a\":")}) {
    std::string s;
    for (int i = 0; i < 1000000; ++i) s += open;
    auto m = load_nnapi("deep.nnapi.json", s);
    ASSERT_TRUE(m);
    const auto f = run_rules(*m, RuleSelection{});
    EXPECT_EQ(rules_of(f), std::set<std::string>{"NN001"}) << dump_findings(f);
    EXPECT_TRUE(any_message_has(f, "NN001", "nesting deeper than")) << dump_findings(f);
  }
}

// ---------------------------------------------------------------- cycles

TEST(Hostile, IrCycleOfEdges) {
  // A ring of 10,000 layers inside an If's then body (each feeds the next, the last feeds the first).
  const int n = 10000;
  std::string ring = "<layers>\n";
  for (int i = 0; i < n; ++i)
    ring += "<layer id=\"" + std::to_string(i) + "\" name=\"r" + std::to_string(i) +
            "\" type=\"Relu\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim></port></input>"
            "<output><port id=\"1\" precision=\"FP32\"><dim>1</dim></port></output></layer>\n";
  ring +=
      "<layer id=\"" + std::to_string(n) +
      "\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim></port></input></layer>\n";
  ring += "</layers><edges>\n";
  for (int i = 0; i < n; ++i)
    ring += "<edge from-layer=\"" + std::to_string(i) + "\" from-port=\"1\" to-layer=\"" + std::to_string((i + 1) % n) +
            "\" to-port=\"0\"/>\n";
  ring += "<edge from-layer=\"0\" from-port=\"1\" to-layer=\"" + std::to_string(n) + "\" to-port=\"0\"/>\n</edges>\n";
  const std::string xml = "<?xml version=\"1.0\"?>\n<net name=\"ring\" version=\"11\">\n" + ring + "</net>\n";
  auto m = load_ir("ring.xml", xml);
  ASSERT_TRUE(m);
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(rules_of(f).count("IR015")) << dump_findings(f);
}

TEST(Hostile, IrLayerWith100000PortsAndEdges) {
  // Edges were matched to ports by a linear scan per edge: 100,000 ports fed by 100,000 edges took
  // 53 s (quadratic). Layers with many ports are now indexed; the first port of an id still wins.
  const int n = 100000;
  std::string outs, ins, edges;
  for (int i = 0; i < n; ++i) {
    const std::string id = std::to_string(i == n - 1 ? 0 : i);  // the last input port repeats id 0
    outs += "<port id=\"" + std::to_string(i) + "\" precision=\"FP32\"><dim>1</dim></port>";
    ins += "<port id=\"" + id + "\"><dim>1</dim></port>";
    if (i < n - 1)
      edges += "<edge from-layer=\"0\" from-port=\"" + std::to_string(n - 1 - i) + "\" to-layer=\"1\" to-port=\"" +
               std::to_string(i) + "\"/>";
  }
  const std::string xml =
      "<?xml version=\"1.0\"?><net name=\"ports\" version=\"11\"><layers>"
      "<layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\"><output>" +
      outs + "</output></layer><layer id=\"1\" name=\"b\" type=\"Concat\" version=\"opset1\"><input>" + ins +
      "</input><output><port id=\"" + std::to_string(n) +
      "\" precision=\"FP32\"><dim>1</dim></port></output></layer></layers><edges>" + edges + "</edges></net>";
  auto m = load_ir("ports.xml", xml);
  ASSERT_TRUE(m);
  const Node& b = m->graphs[0].nodes[1];
  ASSERT_EQ(b.sources.size(), size_t(n));
  for (int i = 0; i < n - 1; ++i) {
    ASSERT_TRUE(b.sources[i].valid()) << i;
    ASSERT_EQ(b.sources[i].output, n - 1 - i) << i;
  }
  EXPECT_FALSE(b.sources[n - 1].valid());  // id 0 again: edge "to-port 0" fed the first port of that id
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(rules_of(f).count("IR014")) << dump_findings(f);  // the duplicate-id port has no edge
}

// ---------------------------------------------------------------- sizes that overflow

TEST(Hostile, IrDimensionsOverflow64Bits) {
  const fs::path d = fresh_dir("ir_dims");
  std::string xml = ir_template();
  xml = replace_all(xml, "shape=\"\" offset=\"0\" size=\"4\"",
                    "shape=\"4294967296,4294967296,4294967296\" offset=\"0\" size=\"4\"");
  xml = replace_all(xml, "<port id=\"0\" precision=\"FP32\"/>",
                    "<port id=\"0\" precision=\"FP32\"><dim>4294967296</dim><dim>4294967296</dim>"
                    "<dim>4294967296</dim><dim>99999999999999999999</dim></port>");
  write_file(d / "m.xml", xml);
  write_file(d / "m.bin", std::string(8, '\0'));
  const auto f = test::lint_file((d / "m.xml").string());
  EXPECT_TRUE(any_message_has(f, "IR018", "overflows 64 bits")) << dump_findings(f);
  EXPECT_TRUE(any_message_has(f, "IR003", "99999999999999999999")) << dump_findings(f);
}

TEST(Hostile, OnnxDimensionsOverflow64Bits) {
  // Branch outputs declared [2^62, 2^62, 4] and [2^62, 2^62, 8], computed from an initializer that claims 2^62 x 2^62
  // elements with two values: the element count overflows 64 bits.
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  g->mutable_initializer(0)->clear_dims();
  g->mutable_initializer(0)->add_dims(int64_t(1) << 62);
  g->mutable_initializer(0)->add_dims(int64_t(1) << 62);
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  for (int b = 0; b < 2; ++b) {
    auto* a = n->add_attribute();
    a->set_name(b == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* bg = a->mutable_g();
    bg->set_name(b == 0 ? "then" : "else");
    gen::onnx_node(bg, "Add", b == 0 ? "Add_t" : "Add_e", {"x", "one"}, {b == 0 ? "t" : "e"});
    gen::onnx_value(bg->add_output(), b == 0 ? "t" : "e", onnx::TensorProto::FLOAT,
                    {int64_t(1) << 62, int64_t(1) << 62, b == 0 ? 4 : 8});
  }
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {int64_t(1) << 62, int64_t(1) << 62, 4});
  auto model = load_onnx("dims.onnx", m.SerializeAsString());
  ASSERT_TRUE(model);
  const auto f = run_rules(*model, RuleSelection{});
  // One finding: the initializer's element count; the branch shapes computed from it are not judged again.
  EXPECT_EQ(rules_of(f), std::set<std::string>{"ONNX018"}) << dump_findings(f);
  EXPECT_TRUE(any_message_has(f, "ONNX018", "multiply past 2^64")) << dump_findings(f);
}

// Memory proportional to the file: peak RSS at most 16 x the file + 64 MiB (docs/hardening.md). A figure of the
// release build: under AddressSanitizer (its allocator, quarantine and shadow memory) it is not checked.
long memory_bound_kb(uintmax_t file_bytes) { return static_cast<long>(16 * file_bytes / 1024) + 64 * 1024; }

// A lint of `p` exits 1 within the memory bound, with exactly one C013 and a report that does not grow with what
// the file declares.
void expect_one_limit_finding_within_the_bound(const fs::path& p) {
  const uintmax_t size = fs::file_size(p);
  const ChildRun r = lint_in_child(p.string());
  EXPECT_EQ(r.exit_code, 1);
  if (!kAddressSanitizer) EXPECT_LE(r.max_rss_kb, memory_bound_kb(size)) << "file " << size / 1024 << " KiB";
  const auto out = test::run(test::condlint_cmd() + " lint --format json " + test::shell_quote(p.string()));
  EXPECT_EQ(test::count(out.out, "\"rule\": \"C013\""), 1) << out.out.substr(0, 2000);
  EXPECT_LT(out.out.size(), 20000u);
}

TEST(Hostile, OnnxShapeWithMillionsOfDimsStaysWithinTheMemoryBound) {
  // A graph input declaring 2,000,000 dimensions (8 MB): C013, read as unknown rank, never copied or inferred.
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* in = m.mutable_graph()->add_input();
  in->set_name("big");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int i = 0; i < 2000000; ++i) tt->mutable_shape()->add_dim()->set_dim_value(1);
  const fs::path dir = fresh_dir("huge-rank");
  const fs::path p = dir / "rank.onnx";
  write_file(p, m.SerializeAsString());
  m.Clear();
  expect_one_limit_finding_within_the_bound(p);
}

TEST(Hostile, NnapiDimensionsListOfMillionsStaysWithinTheMemoryBound) {
  // An operand whose `dimensions` lists 2,000,000 entries (4 MB): C013, not built.
  std::string text = slurp(test::source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json");
  const std::string from = R"({"name": "x", "type": "TENSOR_FLOAT32", "dimensions": [2])";
  std::string dims;
  dims.reserve(4000000);
  for (int i = 0; i < 2000000; ++i) dims += i ? ",1" : "1";
  text.replace(text.find(from), from.size(), R"({"name": "x", "type": "TENSOR_FLOAT32", "dimensions": [)" + dims + "]");
  const fs::path p = fresh_dir("huge-dims") / "dims.nnapi.json";
  write_file(p, text);
  expect_one_limit_finding_within_the_bound(p);
}

TEST(Hostile, IrShapeAttributeOfMillionsStaysWithinTheMemoryBound) {
  // A Parameter whose `shape` attribute lists 2,000,000 dims (4 MB): C013, not built.
  std::string text = slurp(test::source_dir() / "corpus/ir/valid/dynamic_shapes.xml");
  const std::string from = R"(<data element_type="f32" shape="?,4"/>)";
  std::string dims;
  dims.reserve(4000000);
  for (int i = 0; i < 2000000; ++i) dims += i ? ",1" : "1";
  text.replace(text.find(from), from.size(), R"(<data element_type="f32" shape=")" + dims + R"("/>)");
  const fs::path p = fresh_dir("huge-shape") / "shape.xml";
  write_file(p, text);
  expect_one_limit_finding_within_the_bound(p);
}

TEST(Hostile, DenseOnnxModelStaysWithinTheMemoryBound) {
  // Not hostile, only dense: 5,000 Ifs with 10 nodes per branch in 4.2 MB, the file whose Model costs the most per
  // byte (tiny nodes, a port per value). 70 MiB against a bound of 130 (it took 134 while ports carried their own
  // types and the Model was built beside the parsed subgraphs' pages, 104 while the whole model was parsed first).
  if (kAddressSanitizer)
    GTEST_SKIP() << "the bound is the release build's: AddressSanitizer's allocator and quarantine are not";
  const fs::path p = fresh_dir("dense-chain") / "chain.onnx";
  write_file(p, gen::flat_if_chain_onnx(5000));
  const uintmax_t size = fs::file_size(p);
  const ChildRun r = lint_in_child(p.string());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LE(r.max_rss_kb, memory_bound_kb(size)) << "file " << size / 1024 << " KiB";
}

// A model whose graph holds `n` initializers besides one Relu: each named and a float[1] (`named`), or each the
// empty message (2 bytes of the file), appended at the wire level.
std::string many_initializers_onnx(int n, bool named) {
  onnx::ModelProto m = gen::onnx_model_base(13);
  onnx::GraphProto g;
  g.set_name("g");
  gen::onnx_node(&g, "Relu", "relu", {"x"}, {"y"});
  gen::onnx_value(g.add_input(), "x", onnx::TensorProto::FLOAT, {1});
  gen::onnx_value(g.add_output(), "y", onnx::TensorProto::FLOAT, {1});
  std::string graph = g.SerializeAsString();
  for (int i = 0; i < n; ++i) {
    if (!named) {
      graph += std::string("\x2a\x00", 2);
      continue;
    }
    onnx::TensorProto t;
    t.set_name("w" + std::to_string(i));
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(1);
    t.add_float_data(1.0f);
    const std::string b = t.SerializeAsString();
    graph += '\x2a';
    graph += static_cast<char>(b.size());  // under 128 bytes: one varint byte
    graph += b;
  }
  m.clear_graph();
  std::string out = m.SerializeAsString();
  out += '\x3a';
  for (uint64_t v = graph.size();; v >>= 7) {
    if (v < 0x80) {
      out += static_cast<char>(v);
      break;
    }
    out += static_cast<char>((v & 0x7f) | 0x80);
  }
  return out + graph;
}

TEST(Hostile, AMillionSmallInitializersStayWithinTheMemoryBound) {
  // 10^6 initializers of one float (21 MB): each costs memory whatever its bytes (protobuf's parse alone peaks at
  // 388 MiB, 19 x the file), so the bound counts entries: 16 x the file + 64 MiB + 512 bytes an entry (docs/hardening.md,
  // "Many small entries"). 679 MiB before a type was interned per initializer, about 510 MiB now, bound 871 MiB.
  if (kAddressSanitizer)
    GTEST_SKIP() << "the bound is the release build's: AddressSanitizer's allocator and quarantine are not";
  const fs::path d = fresh_dir("many_inits");
  write_file(d / "many.onnx", many_initializers_onnx(1'000'000, true));
  const uintmax_t size = fs::file_size(d / "many.onnx");
  const ChildRun r = lint_in_child((d / "many.onnx").string());
  EXPECT_EQ(r.exit_code, 0);
  const long bound = memory_bound_kb(size) + 1'000'003 * 512 / 1024;
  EXPECT_LE(r.max_rss_kb, bound) << "file " << size / 1024 << " KiB";
  std::printf("[ figures  ] 10^6 float[1] initializers (%ju KiB): condlint peak RSS %ld KiB (bound %ld KiB)\n",
              size / 1024, r.max_rss_kb, bound);
  // 3,000,000 empty initializers in 6 MB: past kMaxOnnxEntries, one C013, nothing parsed (3.3 GiB and 3,000,000
  // duplicate-name errors before).
  write_file(d / "empty.onnx", many_initializers_onnx(3'000'000, false));
  const ChildRun e = lint_in_child((d / "empty.onnx").string());
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_LE(e.max_rss_kb, memory_bound_kb(fs::file_size(d / "empty.onnx")));
  const auto out = test::run(test::condlint_cmd() + " lint --format json " + test::shell_quote((d / "empty.onnx").string()));
  EXPECT_EQ(test::count(out.out, "\"rule\": \"C013\""), 1) << out.out.substr(0, 2000);
  EXPECT_NE(out.out.find("3000003 entries, more than condlint's limit of 1048576"), std::string::npos)
      << out.out.substr(0, 2000);
  EXPECT_LT(out.out.size(), 5000u);
  std::printf("[ figures  ] 3x10^6 empty initializers (6 MB): condlint peak RSS %ld KiB\n", e.max_rss_kb);
}

TEST(Hostile, ModelsLintedInOneRunDoNotAddUp) {
  // A zoo in one process: what one model's load leaves behind must be reused by the next. 400 models of 100 Ifs and
  // 256 KiB of weights (130 MB) lint in about 25 MiB; a version that gave each load an allocator heap of its own
  // and deleted it afterwards reached 94 MiB.
  if (kAddressSanitizer)
    GTEST_SKIP() << "the figure is the release build's: AddressSanitizer's allocator and quarantine are not";
  const fs::path dir = fresh_dir("zoo");
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(gen::flat_if_chain_onnx(100)));
  auto* w = m.mutable_graph()->add_initializer();  // weights, as the models on npm have
  w->set_name("weights");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(65536);
  w->set_raw_data(std::string(size_t(1) << 18, '\0'));
  const std::string model = m.SerializeAsString();
  for (int k = 0; k < 400; ++k) write_file(dir / ("m" + std::to_string(k) + ".onnx"), model);
  const ChildRun r = lint_in_child(dir.string());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LE(r.max_rss_kb, 48 * 1024);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(Hostile, NnapiConstantPastTheRankLimitIsOneFinding) {
  // The operand past the limit is a constant with a value: C013 says so once; the value, whose shape condlint did
  // not build, is not judged against it (no NN004 / NN006 echo).
  auto doc = nlohmann::json::parse(slurp(test::source_dir() / "corpus/nnapi/invalid/C013_dims_past_limit.nnapi.json"));
  auto& main = doc["main"];
  main["operands"][3]["lifetime"] = "CONSTANT_COPY";
  main["operands"][3]["value"] = nlohmann::json::array({0.5});
  main["inputIndexes"] = nlohmann::json::array({0});
  const fs::path p = fresh_dir("nnapi-const-limit") / "m.nnapi.json";
  write_file(p, doc.dump());
  const auto f = test::lint_file(p.string());
  EXPECT_EQ(rules_of(f), (std::set<std::string>{"C013"})) << dump_findings(f);
}

TEST(Hostile, NnapiDimensionsOverflow64Bits) {
  std::string s = slurp(test::source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json");
  // x and y of main: 2^32-1 in every one of five dimensions (the product overflows 64 bits).
  s = replace_all(
      s, R"("name": "x", "type": "TENSOR_FLOAT32", "dimensions": [2])",
      R"("name": "x", "type": "TENSOR_FLOAT32", "dimensions": [4294967295, 4294967295, 4294967295, 4294967295, 4294967295])");
  auto m = load_nnapi("dims.nnapi.json", s);
  ASSERT_TRUE(m);
  const auto f = run_rules(*m, RuleSelection{});
  EXPECT_FALSE(f.empty()) << "the operand's byte size overflows; Android rejects it";
  // And a dimension past uint32: a schema finding.
  std::string s2 = replace_all(s, "4294967295, 4294967295, 4294967295, 4294967295, 4294967295", "18446744073709551617");
  const auto f2 = run_rules(*load_nnapi("dims2.nnapi.json", s2), RuleSelection{});
  EXPECT_TRUE(rules_of(f2).count("NN002")) << dump_findings(f2);
}

// ---------------------------------------------------------------- constant offsets and short weights

TEST(Hostile, IrConstOffsetsNegativeHugeAndShortBin) {
  const fs::path d = fresh_dir("ir_offsets");
  struct Case {
    std::string attrs, rule, text;
  } cases[] = {
      {"offset=\"-1\" size=\"4\"", "IR017", "negative offset"},
      {"offset=\"0\" size=\"-4\"", "IR017", "negative size"},
      {"offset=\"9223372036854775807\" size=\"9223372036854775807\"", "IR017", "weights file has only 8 bytes"},
      {"offset=\"4\" size=\"18446744073709551615\"", "IR003", "is not an integer"},
      {"offset=\"6\" size=\"4\"", "IR017", "weights file has only 8 bytes"},  // .bin shorter than declared
  };
  for (const auto& c : cases) {
    write_file(d / "m.xml", replace_all(ir_template(), "offset=\"0\" size=\"4\"", c.attrs));
    write_file(d / "m.bin", std::string(8, '\0'));
    const auto f = test::lint_file((d / "m.xml").string());
    EXPECT_TRUE(any_message_has(f, c.rule, c.text)) << c.attrs << "\n" << dump_findings(f);
  }
}

TEST(Hostile, OnnxExternalOffsetsNegativeHugeAndShortFile) {
  const fs::path d = fresh_dir("onnx_offsets");
  write_file(d / "w.bin", std::string(4, '\0'));  // 'one' needs 8 bytes
  struct Case {
    std::string offset, length, text;
  } cases[] = {
      {"-1", "8", "not a non-negative integer"},
      {"0", "-8", "not a non-negative integer"},
      {"9223372036854775807", "9223372036854775807", "but the file has 4"},
      {"1", "9223372036854775807", "but the file has 4"},
      {"0", "8", "but the file has 4"},  // shorter than declared
  };
  for (const auto& c : cases) {
    write_file(d / "m.onnx", onnx_external("w.bin", c.offset, c.length));
    const auto f = test::lint_file((d / "m.onnx").string());
    EXPECT_TRUE(any_message_has(f, "ONNX015", c.text)) << c.offset << " " << c.length << "\n" << dump_findings(f);
  }
}

TEST(Hostile, NnapiPoolOffsetsNegativeHugeAndShortFile) {
  const fs::path d = fresh_dir("nnapi_offsets");
  write_file(d / "w.bin", std::string(2, '\0'));
  const std::string pool = R"({"file": "w.bin"})";
  struct Case {
    std::string location, rule;
  } cases[] = {
      {R"({"poolIndex": 0, "offset": -1, "length": 4})", "NN002"},
      {R"({"poolIndex": 0, "offset": 4294967295, "length": 4294967295})", "NN010"},
      {R"({"poolIndex": 0, "offset": 99999999999999999999999, "length": 4})", "NN002"},
      {R"({"poolIndex": 0, "offset": 0, "length": 4})", "NN009"},  // the pool is shorter than declared
      {R"({"poolIndex": 7, "offset": 0, "length": 4})", "NN009"},
  };
  for (const auto& c : cases) {
    write_file(d / "m.nnapi.json", nnapi_pool_model(pool, c.location));
    const auto f = test::lint_file((d / "m.nnapi.json").string());
    EXPECT_FALSE(f.empty()) << c.location;
    EXPECT_TRUE(rules_of(f).count(c.rule)) << c.location << "\n" << dump_findings(f);
  }
}

// ---------------------------------------------------------------- paths leaving the directory

struct Escapes {
  fs::path dir;      // the model's directory
  fs::path outside;  // a file outside it
};
Escapes escape_fixture(const std::string& name) {
  Escapes e;
  const fs::path root = fresh_dir(name);
  e.dir = root / "model";
  e.outside = root / "outside" / "secret.bin";
  write_file(e.outside, std::string(64, 'S'));
  fs::create_directories(e.dir);
  fs::create_symlink(e.outside, e.dir / "link.bin");                     // a file symlink out
  fs::create_directory_symlink(e.outside.parent_path(), e.dir / "sub");  // a directory symlink out
  return e;
}

TEST(Hostile, OnnxExternalDataLeavingTheDirectory) {
  const Escapes e = escape_fixture("onnx_escape");
  for (const std::string& loc :
       {std::string("../../etc/passwd"), std::string("/etc/passwd"), std::string("../outside/secret.bin"),
        std::string("link.bin"), std::string("sub/secret.bin"), std::string("sub/../../outside/secret.bin")}) {
    write_file(e.dir / "m.onnx", onnx_external(loc, "0", "8"));
    const auto f = test::lint_file((e.dir / "m.onnx").string());
    EXPECT_TRUE(rules_of(f).count("ONNX014")) << loc << "\n" << dump_findings(f);
  }
}

TEST(Hostile, NnapiBlobPathsLeavingTheDirectory) {
  const Escapes e = escape_fixture("nnapi_escape");
  const std::string loc = R"({"poolIndex": 0, "offset": 0, "length": 4})";
  for (const std::string& p :
       {std::string("../../etc/passwd"), std::string("/etc/passwd"), std::string("../outside/secret.bin"),
        std::string("link.bin"), std::string("sub/secret.bin"), std::string("sub/../../outside/secret.bin")}) {
    write_file(e.dir / "m.nnapi.json", nnapi_pool_model(R"({"file": ")" + p + R"("})", loc));
    const auto f = test::lint_file((e.dir / "m.nnapi.json").string());
    // Lexically outside (absolute, '..'): a schema violation; through a symbolic link: NN003.
    EXPECT_TRUE(any_message_has(f, "NN002", "must be a relative path inside the document's directory") ||
                any_message_has(f, "NN003", "outside the document's directory"))
        << p << "\n"
        << dump_findings(f);
  }
}

// ---------------------------------------------------------------- XML declarations

TEST(Hostile, XmlDoctypeAndEntitiesAreNotExpanded) {
  // Billion laughs, an external entity naming /etc/passwd, and a parameter entity.
  std::string dtd = "<!DOCTYPE net [\n<!ENTITY lol0 \"lollollollollollollollollollol\">\n";
  for (int i = 1; i <= 9; ++i) {
    dtd += "<!ENTITY lol" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) dtd += "&lol" + std::to_string(i - 1) + ";";
    dtd += "\">\n";
  }
  dtd += "<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n<!ENTITY % pe SYSTEM \"file:///etc/passwd\"> %pe;\n]>\n";
  std::string xml = ir_template();
  xml.insert(xml.find("<net"), dtd);
  xml = replace_all(xml, "name=\"then_value\"", "name=\"&lol9;&xxe;\"");
  auto m = load_ir("dtd.xml", xml);
  ASSERT_TRUE(m);
  const auto f = run_rules(*m, RuleSelection{});
  for (const auto& x : f) EXPECT_EQ(x.message.find("root:"), std::string::npos) << x.message;
  size_t longest = 0;
  for (const auto& g : m->graphs)
    for (const auto& n : g.nodes) longest = std::max(longest, n.name.size());
  EXPECT_LT(longest, 1000u) << "an entity was expanded";
  // Declarations only, no document element: a finding, not an error.
  const auto f2 = run_rules(*load_ir("only_dtd.xml", dtd), RuleSelection{});
  EXPECT_EQ(rules_of(f2), std::set<std::string>{"IR001"}) << dump_findings(f2);
}

// ---------------------------------------------------------------- huge files

TEST(Hostile, OneGibFileOfZerosIsRefusedWithoutReadingIt) {
  // IR and NNAPI files are read into memory, so one over the limit is refused; an ONNX file is mapped and judged
  // from its first bytes (field number 0: ONNX001).
  const fs::path d = fresh_dir("zeros");
  for (const std::string name : {"zeros.xml", "zeros.onnx", "zeros.nnapi.json"}) {
    const fs::path p = d / name;
    sparse_zeros(p, kGiB);
    const LoadResult lr = load_file(p.string());
    const bool onnx = name == "zeros.onnx";
    EXPECT_EQ(!lr.model, !onnx) << name;
    if (onnx) EXPECT_EQ(rules_of(run_rules(*lr.model, RuleSelection{})), std::set<std::string>{"ONNX001"});
    else EXPECT_NE(lr.io_error.find("more than condlint reads into memory"), std::string::npos) << lr.io_error;
    const ChildRun r = lint_in_child(p.string());
    EXPECT_EQ(r.exit_code, onnx ? 1 : 2) << name;
    EXPECT_GT(r.max_rss_kb, 0);
    EXPECT_LT(r.max_rss_kb, kMaxRssKb) << name;
    std::printf("[ figures  ] %s (1 GiB of zeros): condlint peak RSS %ld KiB\n", name.c_str(), r.max_rss_kb);
    fs::remove(p);
  }
}

TEST(Hostile, OnnxWeightsInTheFileAreNeverCopied) {
  // A valid model of 384 MiB, nearly all of it one initializer's raw_data (a sparse file): lint maps it and strips
  // the payload before protobuf parses anything (loaders/onnx_wire), so the peak RSS is condlint's own, far below
  // the file (a whole read and parse took 2.3 x the file). Above protobuf's 2 GiB a single file is refused unread.
  const fs::path d = fresh_dir("big_onnx");
  const uint64_t weights = uint64_t{384} << 20;
  const std::string head = gen::big_weight_onnx_head(weights);
  const fs::path p = d / "big.onnx";
  write_file(p, head);
  fs::resize_file(p, head.size() + weights);
  const LoadResult lr = load_file(p.string());
  ASSERT_TRUE(lr.model) << lr.io_error;
  EXPECT_TRUE(lr.model->onnx->payload_file);
  const auto f = run_rules(*lr.model, RuleSelection{});
  EXPECT_TRUE(f.empty()) << dump_findings(f);
  const ChildRun r = lint_in_child(p.string());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LT(r.max_rss_kb, kMaxRssKb);
  std::printf("[ figures  ] a 384 MiB ONNX model (one initializer): condlint peak RSS %ld KiB\n", r.max_rss_kb);
  // The same size as one INT64 initializer whose values are an int64_data run of varints (protobuf would hold them
  // as 8 bytes each, 3 GiB): read in windows to prove it, and stripped.
  const fs::path q = d / "big_int64.onnx";
  const std::string int64_head = gen::big_weight_onnx_head(weights, /*int64_run=*/true);
  write_file(q, int64_head);
  fs::resize_file(q, int64_head.size() + weights);
  const ChildRun r64 = lint_in_child(q.string());
  EXPECT_EQ(r64.exit_code, 0);
  EXPECT_LT(r64.max_rss_kb, kMaxRssKb);
  std::printf("[ figures  ] a 384 MiB ONNX model (one int64_data run): condlint peak RSS %ld KiB\n", r64.max_rss_kb);
  fs::remove(q);
  fs::resize_file(p, (uintmax_t{2} << 30) + 1);
  const LoadResult over = load_file(p.string());
  EXPECT_FALSE(over.model);
  EXPECT_NE(over.io_error.find("more than the 2 GiB protobuf parses"), std::string::npos) << over.io_error;
  fs::remove(p);
}

TEST(Hostile, OneGibWeightsAreNotReadByTheLint) {
  // Weights beside a model: the IR .bin and ONNX external data are only measured; an NNAPI Blob
  // file is read, so one larger than the limit is NN003.
  const fs::path d = fresh_dir("big_weights");
  write_file(d / "m.xml", ir_template());
  sparse_zeros(d / "m.bin", kGiB);
  write_file(d / "m.onnx", onnx_external("w.bin", "0", "8"));
  sparse_zeros(d / "w.bin", kGiB);
  write_file(d / "m.nnapi.json",
             nnapi_pool_model(R"({"file": "w.bin"})", R"({"poolIndex": 0, "offset": 0, "length": 4})"));
  const auto fn = test::lint_file((d / "m.nnapi.json").string());
  EXPECT_TRUE(any_message_has(fn, "NN003", "more than condlint reads into memory")) << dump_findings(fn);
  for (const std::string name : {"m.xml", "m.onnx", "m.nnapi.json"}) {
    const ChildRun r = lint_in_child((d / name).string());
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << name << " exit " << r.exit_code;
    EXPECT_LT(r.max_rss_kb, kMaxRssKb) << name;
    std::printf("[ figures  ] %s with 1 GiB of weights: condlint peak RSS %ld KiB\n", name.c_str(), r.max_rss_kb);
  }
}

TEST(Hostile, SizeLimitIsConfigurable) {
  const fs::path d = fresh_dir("limit");
  const fs::path p = d / "zeros.xml";
  sparse_zeros(p, 3u << 20);
  ASSERT_EQ(setenv("CONDLINT_MAX_FILE_MB", "2", 1), 0);
  const LoadResult small = load_file(p.string());
  ASSERT_EQ(setenv("CONDLINT_MAX_FILE_MB", "4", 1), 0);
  const LoadResult big = load_file(p.string());
  unsetenv("CONDLINT_MAX_FILE_MB");
  EXPECT_FALSE(small.model);
  EXPECT_NE(small.io_error.find("(2 MiB;"), std::string::npos) << small.io_error;
  ASSERT_TRUE(big.model) << big.io_error;  // read, and 3 MiB of zeros is malformed XML
  EXPECT_EQ(rules_of(run_rules(*big.model, RuleSelection{})), std::set<std::string>{"IR001"});
  EXPECT_EQ(max_model_file_bytes(), kDefaultMaxFileMB << 20);
}

TEST(Hostile, ZerosUnderTheLimitAreMalformedInEveryFormat) {
  const std::string zeros(4u << 20, '\0');
  EXPECT_EQ(rules_of(run_rules(*load_ir("z.xml", zeros), RuleSelection{})), std::set<std::string>{"IR001"});
  EXPECT_EQ(rules_of(run_rules(*load_onnx("z.onnx", zeros), RuleSelection{})), std::set<std::string>{"ONNX001"});
  EXPECT_EQ(rules_of(run_rules(*load_nnapi("z.nnapi.json", zeros), RuleSelection{})), std::set<std::string>{"NN001"});
  std::vector<ImportedModel> out;
  std::string err;
  EXPECT_FALSE(convert_nnapi_testmodels(zeros, out, err) && !out.empty());
}

// ---------------------------------------------------------------- every truncation

// Loads every proper prefix of `bytes`; returns how many gave no finding at all.
size_t clean_prefixes(const std::string& bytes, const std::function<std::unique_ptr<Model>(const std::string&)>& load,
                      size_t must_fail_below) {
  size_t clean = 0;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    auto m = load(bytes.substr(0, cut));
    if (!m) {
      ADD_FAILURE() << "no model for a prefix of " << cut << " bytes";
      continue;
    }
    const auto f = run_rules(*m, RuleSelection{});
    if (f.empty()) {
      ++clean;
      if (cut < must_fail_below) ADD_FAILURE() << "the prefix of " << cut << " bytes lints clean";
    }
  }
  return clean;
}

size_t last_non_space(const std::string& s) {
  size_t e = s.size();
  while (e > 0 && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return e;
}

TEST(Hostile, EveryTruncationOfAnIrModel) {
  const std::string xml = slurp(test::source_dir() / "corpus/ir/valid/body_without_parameters.xml");
  ASSERT_FALSE(xml.empty());
  // Every cut before the root's closing '>' is malformed XML: a finding.
  clean_prefixes(
      xml, [](const std::string& b) { return load_ir("cut.xml", b); }, last_non_space(xml));
}

TEST(Hostile, EveryTruncationOfAnOnnxModel) {
  const std::string bytes = slurp(test::source_dir() / "corpus/onnx/valid/if_opset11.onnx");
  ASSERT_FALSE(bytes.empty());
  // A protobuf cut at a field boundary can still parse (a model missing its later fields), so only
  // the absence of crashes is asserted for those; a cut inside the graph is always a finding.
  const size_t clean = clean_prefixes(
      bytes, [](const std::string& b) { return load_onnx("cut.onnx", b); }, 0);
  EXPECT_LT(clean, 4u);
}

TEST(Hostile, EveryTruncationOfAnNnapiModel) {
  const std::string json = slurp(test::source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json");
  ASSERT_FALSE(json.empty());
  clean_prefixes(
      json, [](const std::string& b) { return load_nnapi("cut.nnapi.json", b); }, last_non_space(json));
}

TEST(Hostile, EveryTruncationOfATestModelSource) {
  const std::string src = slurp(test::source_dir() / "tests/fixtures/nnapi_testmodel/if_add_or_sub.example.cpp");
  ASSERT_FALSE(src.empty());
  size_t converted = 0;
  for (size_t cut = 0; cut < src.size(); ++cut) {
    std::vector<ImportedModel> out;
    std::string err;
    (void)convert_nnapi_testmodels(std::string_view(src).substr(0, cut), out, err);
    for (const auto& m : out) {
      ++converted;
      auto model = load_nnapi(m.name + ".nnapi.json", m.json);
      ASSERT_TRUE(model);
      (void)run_rules(*model, RuleSelection{});
    }
  }
  EXPECT_GT(converted, 0u);
}

}  // namespace
