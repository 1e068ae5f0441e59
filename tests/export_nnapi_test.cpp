// `condlint export` of NNAPI models (src/export/export_nnapi.cpp): every exported model is run with the ONNX
// reference executor on every example, with every IF branch pinned as the NNAPI executor pins it, and must
// agree with the NNAPI executor run for run (same success, outputs within Android's CTS tolerances) and with
// the golden outputs where the executor compares them. Unsupported and hostile models give problems.
#include <gtest/gtest.h>

#include <onnx/checker.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "diff/diff.hpp"
#include "exec/compare.hpp"
#include "exec/interpreter.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/onnx_io.hpp"
#include "export/export.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::exec;
using json = nlohmann::json;

namespace {

fs::path cts_dir() { return test::shared_dir() / "corpus" / "nnapi-cts"; }

std::vector<fs::path> nnapi_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (condlint::format_from_name(e.path()) == condlint::Format::NNAPI) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// relaxComputationFloat32toFloat16 or any float16 operand: the harness's float16 tolerances apply.
bool loose_model(const fs::path& p) {
  std::string bytes;
  if (!read_file_bytes(p, bytes).empty()) return false;
  try {
    const json j = json::parse(bytes);
    if (j.value("relaxComputationFloat32toFloat16", false)) return true;
    std::vector<const json*> gs{&j.at("main")};
    if (j.contains("referenced"))
      for (const auto& g : j["referenced"]) gs.push_back(&g);
    for (const json* g : gs)
      for (const auto& o : g->at("operands")) {
        const auto& t = o.at("type");
        if (t == "TENSOR_FLOAT16" || t == "FLOAT16" || t == 8 || t == 10) return true;
      }
  } catch (...) {
  }
  return false;
}

// Android's CTS criteria, as the NNAPI executor applies them (nnapi_exec.cpp).
std::string compare_nnapi(const std::vector<Value>& actual, const std::vector<Value>& expected, bool loose) {
  if (actual.size() < expected.size()) return "fewer outputs than expected";
  for (size_t k = 0; k < expected.size(); ++k) {
    if (expected[k].kind == Value::Kind::None) continue;
    if (!actual[k].is_tensor() || !expected[k].is_tensor()) return "output " + std::to_string(k) + " is not a tensor";
    const Tensor& g = *expected[k].t;
    const bool q = !is_float(g.dt) && g.dt != DT::Bool;
    const bool f16 = loose || g.dt == DT::F16;
    const double atol = q ? 1.0 : g.dt == DT::Bool ? 0.0 : f16 ? 5 * 0.0009765625 : 1e-5;
    const double rtol = q || g.dt == DT::Bool ? 0.0 : f16 ? 5 * 0.0009765625 : 5 * 1.1920928955078125e-7;
    Tensor a = *actual[k].t;
    if (a.dt != g.dt) a = cast_tensor(a, g.dt);
    const Comparison c = compare_values(Value::tensor(a), expected[k], atol, rtol);
    if (!c.ok) return "output " + std::to_string(k) + ": " + c.reason;
  }
  return "";
}

bool any_contains(const std::vector<std::string>& v, const std::string& s) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
}

struct Stats {
  int executor_cannot_read = 0;
  int files = 0, exported = 0, with_data = 0, runs = 0, agree = 0, golden_runs = 0, golden_pass = 0;
  std::map<std::string, int> not_exported;
  double export_ms = 0;
};

// The first problem, reduced to a reason (without the node path) for the counts.
std::string reason_of(const std::string& p) {
  auto k = p.find("): ");
  std::string s = k == std::string::npos ? p : p.substr(k + 3);
  if (s.size() > 90) s = s.substr(0, 90) + "...";
  return s;
}

// Exports one model and checks every run of every example against the NNAPI executor.
void check_model(const fs::path& path, Stats& st, bool expect_ok) {
  ++st.files;
  const auto t0 = std::chrono::steady_clock::now();
  const xport::ExportResult r = condlint::test::export_nnapi_file(path, {});
  st.export_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) {
    ++st.not_exported[reason_of(r.problems.front())];
    if (expect_ok) ADD_FAILURE() << path.filename() << ": " << r.problems.front();
    return;
  }
  ++st.exported;
  try {
    onnx::ModelProto copy = r.model;
    onnx::checker::check_model(copy);
  } catch (const std::exception& e) {
    // Unknown-rank main inputs/outputs have no ONNX spelling the checker accepts (it wants a shape there).
    const bool unknown_rank = std::string(e.what()).find("Field 'shape' of 'type' is required") != std::string::npos &&
                              any_contains(r.notes, "has unknown rank");
    if (!unknown_rank) ADD_FAILURE() << path.filename() << ": the ONNX checker rejects the export: " << e.what();
  }
  // if_paths name real If nodes.
  std::set<std::string> onnx_ifs;
  for (const auto& s : diff::find_ifs(r.model)) onnx_ifs.insert(s.path);
  for (const auto& [nnp, copies] : r.if_path_copies)
    for (const auto& q : copies) EXPECT_TRUE(onnx_ifs.count(q)) << path.filename() << ": " << nnp << " -> " << q;
  if (r.data_sets.empty()) return;
  ++st.with_data;
  const bool loose = loose_model(path);
  RunConfig cfg;
  cfg.limits.timeout_ms = 2000;
  const ModelResult mr = condlint::test::run_file(path, cfg);
  if (!mr.error.empty()) {
    // The executor reads the whole document (an unreferenced subgraph with an op it lacks, say); the export only
    // what is used.
    ++st.executor_cannot_read;
    if (expect_ok) ADD_FAILURE() << path << ": " << mr.error;
    return;
  }
  for (const auto& ds : r.data_sets) {
    const std::string nn_name = "examples/" + ds.name.substr(ds.name.find('_') + 1);
    for (const auto& c : mr.cases) {
      // The example's own runs, pinned or not (a run on synthesized inputs has other inputs than the example's).
      if (c.data_set != nn_name || !c.synthesized.empty()) continue;
      ++st.runs;
      std::map<std::string, bool> pins;
      bool mapped = true;
      for (const auto& [p, b] : c.pins) {
        auto it = r.if_path_copies.find(p);
        if (it == r.if_path_copies.end()) {
          mapped = false;
          ADD_FAILURE() << path.filename() << ": no ONNX If for " << p;
          continue;
        }
        for (const auto& q : it->second) pins[q] = b;
      }
      if (!mapped) continue;
      const NnapiRun nn = condlint::test::run_nnapi_once_file(path, ds.inputs, c.pins, cfg.limits);
      RunOptions ro;
      ro.limits = cfg.limits;
      ro.pins = pins;
      std::vector<Value> outs;
      std::string onnx_error;
      Interpreter ip(r.model, ro);
      try {
        outs = ip.run(ds.inputs);
      } catch (const std::exception& e) {
        onnx_error = e.what();
      }
      const std::string where = path.filename().string() + " " + ds.name + " pins {" + diff::pins_label(c.pins) + "}";
      if (nn.ok != onnx_error.empty()) {
        ADD_FAILURE() << where << ": NNAPI " << (nn.ok ? "ran" : "failed: " + nn.error) << ", ONNX "
                      << (onnx_error.empty() ? "ran" : "failed: " + onnx_error);
        continue;
      }
      if (nn.ok) {
        if (auto e = compare_nnapi(outs, nn.outputs, loose); !e.empty()) {
          ADD_FAILURE() << where << ": ONNX differs from the NNAPI executor: " << e;
          continue;
        }
        // The same branches ran (over every copy of each IF).
        for (const auto& [p, site] : nn.trace.ifs) {
          std::set<bool> ran;
          auto it = r.if_path_copies.find(p);
          if (it != r.if_path_copies.end())
            for (const auto& q : it->second)
              if (auto s = ip.trace.ifs.find(q); s != ip.trace.ifs.end())
                ran.insert(s->second.ran.begin(), s->second.ran.end());
          EXPECT_EQ(ran, site.ran) << where << ": IF " << p;
        }
      }
      if (!c.derived) {
        ++st.golden_runs;
        const bool onnx_pass = onnx_error.empty() && compare_nnapi(outs, ds.outputs, loose).empty();
        EXPECT_EQ(onnx_pass, c.status == CaseStatus::Passed)
            << where << ": golden comparison differs from the NNAPI run (" << c.message << ")";
        st.golden_pass += onnx_pass;
      }
      ++st.agree;
    }
  }
}

void print(const char* what, const Stats& s) {
  std::cout << what << ": " << s.files << " models, " << s.exported << " exported (" << s.with_data
            << " with data sets), " << s.files - s.exported << " not exported; " << s.runs << " runs (" << s.golden_runs
            << " against golden data, " << s.golden_pass << " pass), " << s.agree
            << " agree with the NNAPI executor; export time " << s.export_ms << " ms";
  if (s.executor_cannot_read) std::cout << "; the NNAPI executor cannot read " << s.executor_cannot_read;
  std::cout << "\n";
  for (const auto& [why, n] : s.not_exported) std::cout << "  not exported (" << n << "): " << why << "\n";
}

xport::ExportResult export_text(const std::string& name, const std::string& text, const xport::ExportOptions& o = {}) {
  return condlint::test::export_nnapi_file(test::write_temp(name, text), o);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace

TEST(ExportNnapi, CtsVectorsAgreeWithTheNnapiExecutor) {
  if (!fs::is_directory(cts_dir())) GTEST_SKIP() << cts_dir() << " is absent (the shared corpus is not checked out)";
  const auto files = nnapi_files(cts_dir());
  ASSERT_EQ(files.size(), 763u);
  Stats st;
  for (const auto& f : files) check_model(f, st, true);
  print("NNAPI CTS export", st);
  EXPECT_EQ(st.exported, 763);
  EXPECT_EQ(st.with_data, 752);  // 11 examples expect a failure (no condition value, loop timeout)
  EXPECT_EQ(st.agree, st.runs);
  EXPECT_EQ(st.golden_pass, 752);
}

TEST(ExportNnapi, CorpusModels) {
  Stats valid, invalid;
  for (const auto& f : nnapi_files(test::source_dir() / "corpus" / "nnapi" / "valid")) check_model(f, valid, true);
  for (const auto& f : nnapi_files(test::source_dir() / "corpus" / "nnapi" / "invalid")) check_model(f, invalid, false);
  print("corpus/nnapi/valid export", valid);
  print("corpus/nnapi/invalid export", invalid);
  EXPECT_GE(valid.files, 5);
  EXPECT_EQ(valid.exported, valid.files);
  EXPECT_GT(valid.runs, 0);
  EXPECT_EQ(valid.agree, valid.runs);
  EXPECT_EQ(invalid.agree, invalid.runs);
  EXPECT_GT(invalid.files - invalid.exported, 15);  // broken documents are refused, never half-exported
}

TEST(ExportNnapi, GraphLayoutAndIfPaths) {
  const auto r = condlint::test::export_nnapi_file(
      test::source_dir() / "corpus" / "nnapi" / "valid" / "if_add_or_sub.nnapi.json", {});
  ASSERT_TRUE(r.ok()) << join(r.problems);
  const auto& g = r.model.graph();
  ASSERT_EQ(g.input_size(), 2);
  EXPECT_EQ(g.input(0).name(), "cond");
  EXPECT_EQ(g.input(1).name(), "x");
  EXPECT_EQ(g.input(1).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(g.output_size(), 1);
  EXPECT_EQ(g.output(0).name(), "y");
  EXPECT_EQ(r.model.opset_import(0).version(), 17);
  ASSERT_EQ(r.if_paths.size(), 1u);
  EXPECT_EQ(r.if_paths.begin()->first, "main/IF#0");
  EXPECT_EQ(r.if_paths.begin()->second, "main/IF#0");
  ASSERT_EQ(r.data_sets.size(), 2u);
  EXPECT_EQ(r.data_sets[0].name, "example_0");
  // Branches take no inputs: they read the IF's inputs by name.
  for (const auto& n : g.node())
    if (n.op_type() == "If")
      for (const auto& a : n.attribute()) EXPECT_EQ(a.g().input_size(), 0);
}

TEST(ExportNnapi, SameSubgraphTwiceGetsDistinctNames) {
  const auto r = condlint::test::export_nnapi_file(
      test::source_dir() / "corpus" / "nnapi" / "valid" / "if_quant8_same_branch.nnapi.json", {});
  ASSERT_TRUE(r.ok()) << join(r.problems);
  std::set<std::string> outs;
  std::function<void(const onnx::GraphProto&)> walk = [&](const onnx::GraphProto& g) {
    for (const auto& n : g.node()) {
      for (const auto& o : n.output()) EXPECT_TRUE(outs.insert(o).second) << "value " << o << " is produced twice";
      for (const auto& a : n.attribute())
        if (a.has_g()) walk(a.g());
    }
  };
  walk(r.model.graph());
  EXPECT_GT(outs.size(), 4u);
}

TEST(ExportNnapi, PinsReplaceTheCondition) {
  if (!fs::is_directory(cts_dir())) GTEST_SKIP() << cts_dir() << " is absent (the shared corpus is not checked out)";
  const fs::path p = cts_dir() / "if_simple_true.nnapi.json";
  const auto plain = condlint::test::export_nnapi_file(p, {});
  ASSERT_TRUE(plain.ok()) << join(plain.problems);
  ASSERT_EQ(plain.if_paths.size(), 1u);
  const std::string nn_if = plain.if_paths.begin()->first;
  xport::ExportOptions o;
  o.pins[nn_if] = false;
  const auto pinned = condlint::test::export_nnapi_file(p, o);
  ASSERT_TRUE(pinned.ok()) << join(pinned.problems);
  ASSERT_EQ(pinned.data_sets.size(), 1u);
  // The example takes the then branch; the pinned export runs the else branch, as the executor's pin does.
  Interpreter ip(pinned.model, {});
  const auto outs = ip.run(pinned.data_sets[0].inputs);
  const NnapiRun nn = condlint::test::run_nnapi_once_file(p, pinned.data_sets[0].inputs, o.pins, Limits{});
  ASSERT_TRUE(nn.ok) << nn.error;
  EXPECT_EQ(compare_nnapi(outs, nn.outputs, false), "");
  EXPECT_NE(compare_nnapi(outs, pinned.data_sets[0].outputs, false), "");
  EXPECT_EQ(pinned.model.graph().node(0).op_type(), "Constant");
  xport::ExportOptions bad;
  bad.pins["main/IF#99"] = true;
  const auto b = condlint::test::export_nnapi_file(p, bad);
  EXPECT_FALSE(b.ok());
  EXPECT_TRUE(any_contains(b.problems, "no IF at 'main/IF#99'")) << join(b.problems);
}

TEST(ExportNnapi, NoValueConditionFailsAtRunTime) {
  if (!fs::is_directory(cts_dir())) GTEST_SKIP() << cts_dir() << " is absent (the shared corpus is not checked out)";
  const auto r = condlint::test::export_nnapi_file(cts_dir() / "if_no_value.nnapi.json", {});
  ASSERT_TRUE(r.ok()) << join(r.problems);
  EXPECT_TRUE(r.data_sets.empty());
  EXPECT_TRUE(any_contains(r.notes, "no value")) << join(r.notes);
  EXPECT_TRUE(any_contains(r.notes, "example_0 is skipped")) << join(r.notes);
  Tensor x(DT::F32, {3, 4}), y(DT::F32, {3, 4});
  Interpreter ip(r.model, {});
  EXPECT_THROW(ip.run({Value::tensor(x), Value::tensor(y)}), ExecError);
}

TEST(ExportNnapi, WhileInConditionIsCopiedAndPinnedEverywhere) {
  // main: WHILE whose condition graph holds an IF (then: i < n, else: false).
  const std::string text = condlint::test::kNnapiWhileWithIfInCondition;
  const auto r = export_text("while_if_cond.nnapi.json", text);
  ASSERT_TRUE(r.ok()) << join(r.problems);
  const std::string nn_if = "main/WHILE#0/cond/IF#0";
  ASSERT_EQ(r.if_path_copies.count(nn_if), 1u);
  const auto& copies = r.if_path_copies.at(nn_if);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0], "main/WHILE#0/cond/IF#0");
  EXPECT_EQ(copies[1], "main/WHILE#0/body/cond/IF#0");
  EXPECT_EQ(r.if_paths.at(nn_if), copies[0]);
  ASSERT_EQ(r.data_sets.size(), 1u);
  Interpreter ip(r.model, {});
  const auto outs = ip.run(r.data_sets[0].inputs);
  EXPECT_EQ(compare_nnapi(outs, r.data_sets[0].outputs, false), "");
  // Pinned to else (i > n): the loop stops at once and the output is the initial i, as in the executor.
  xport::ExportOptions o;
  o.pins[nn_if] = false;
  const auto p = export_text("while_if_cond.nnapi.json", text, o);
  ASSERT_TRUE(p.ok()) << join(p.problems);
  Interpreter ip2(p.model, {});
  const auto outs2 = ip2.run(p.data_sets[0].inputs);
  ASSERT_EQ(outs2.size(), 1u);
  EXPECT_EQ(outs2[0].t->geti(0), 0);
}

TEST(ExportNnapi, UnsupportedOperationIsAProblemNamingIt) {
  const std::string text = R"({"format":"nnapi-model","version":1,
  "main":{"operands":[
    {"type":"TENSOR_FLOAT32","dimensions":[2],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"TENSOR_FLOAT32","dimensions":[2],"lifetime":"TEMPORARY_VARIABLE"},
    {"type":"TENSOR_FLOAT32","dimensions":[2],"lifetime":"SUBGRAPH_OUTPUT"},
    {"type":"INT32","lifetime":"CONSTANT_COPY","value":[0]}],
   "operations":[{"type":"ADD","inputs":[0,0,3],"outputs":[1]},{"type":"TANH","inputs":[1],"outputs":[2]}],
   "inputIndexes":[0],"outputIndexes":[2]}})";
  const auto r = export_text("tanh.nnapi.json", text);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.problems.size(), 1u) << join(r.problems);
  EXPECT_NE(r.problems[0].find("main/TANH#1"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[0].find("operation 1, TANH"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[0].find("not exported"), std::string::npos) << r.problems[0];
}

TEST(ExportNnapi, ActivationMustBeConstant) {
  const std::string text = R"({"format":"nnapi-model","version":1,
  "main":{"operands":[
    {"type":"TENSOR_FLOAT32","dimensions":[2],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"INT32","lifetime":"SUBGRAPH_INPUT"},
    {"type":"TENSOR_FLOAT32","dimensions":[2],"lifetime":"SUBGRAPH_OUTPUT"}],
   "operations":[{"type":"MUL","inputs":[0,0,1],"outputs":[2]}],
   "inputIndexes":[0,1],"outputIndexes":[2]}})";
  const auto r = export_text("act.nnapi.json", text);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(any_contains(r.problems, "fused activation (input 2) is not a constant")) << join(r.problems);
}

TEST(ExportNnapi, QuantizedArithmeticMatchesTheExecutorRounding) {
  // ADD of two TENSOR_QUANT8_ASYMM with different scales into a third scale; ties and clamping included.
  const std::string text = R"({"format":"nnapi-model","version":1,
  "main":{"operands":[
    {"type":"TENSOR_QUANT8_ASYMM","dimensions":[6],"scale":0.5,"zeroPoint":3,"lifetime":"SUBGRAPH_INPUT"},
    {"type":"TENSOR_QUANT8_ASYMM","dimensions":[6],"scale":0.25,"zeroPoint":128,"lifetime":"SUBGRAPH_INPUT"},
    {"type":"INT32","lifetime":"CONSTANT_COPY","value":[3]},
    {"type":"TENSOR_QUANT8_ASYMM","dimensions":[6],"scale":0.1,"zeroPoint":7,"lifetime":"SUBGRAPH_OUTPUT"},
    {"type":"TENSOR_QUANT8_ASYMM_SIGNED","dimensions":[6],"scale":0.3,"zeroPoint":-5,"lifetime":"SUBGRAPH_OUTPUT"},
    {"type":"INT32","lifetime":"CONSTANT_COPY","value":[0]}],
   "operations":[{"type":"ADD","inputs":[0,1,2],"outputs":[3]},{"type":"SUB","inputs":[0,1,5],"outputs":[4]}],
   "inputIndexes":[0,1],"outputIndexes":[3,4]},
  "examples":[{"inputs":[{"data":[0,3,4,255,17,100]},{"data":[0,128,131,255,1,200]}],"outputs":[null,null]}]})";
  const fs::path p = test::write_temp("quant_add.nnapi.json", text);
  const auto r = condlint::test::export_nnapi_file(p, {});
  ASSERT_TRUE(r.ok()) << join(r.problems);
  ASSERT_EQ(r.data_sets.size(), 1u);
  Interpreter ip(r.model, {});
  const auto outs = ip.run(r.data_sets[0].inputs);
  const NnapiRun nn = condlint::test::run_nnapi_once_file(p, r.data_sets[0].inputs, {}, Limits{});
  ASSERT_TRUE(nn.ok) << nn.error;
  ASSERT_EQ(outs.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(outs[k].t->dt, nn.outputs[k].t->dt);
    EXPECT_EQ(outs[k].t->i, nn.outputs[k].t->i) << "output " << k << " must be bit-exact";
  }
}

TEST(ExportNnapi, HostileNestingAndCycles) {
  // 10,000 nested IFs: referenced[k] holds an IF whose branches are referenced[k+1].
  const int n = 10000;
  std::string text = R"({"format":"nnapi-model","version":1,"main":{"operands":[
    {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":0}},
    {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"IF","inputs":[0,1,1,0,2],"outputs":[3]}],"inputIndexes":[0,2],"outputIndexes":[3]},
    "referenced":[)";
  for (int k = 0; k < n; ++k) {
    const int next = k + 1 < n ? k + 1 : k;  // the last one refers to itself: a cycle as well
    text += std::string(k ? "," : "") + R"({"operands":[
      {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
      {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":)" +
            std::to_string(next) + R"(}},
      {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
      {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
      "operations":[{"type":"IF","inputs":[0,1,1,0,2],"outputs":[3]}],"inputIndexes":[0,2],"outputIndexes":[3]})";
  }
  text += "]}";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = export_text("deep.nnapi.json", text);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "10,000 nested IFs (both branches the same subgraph): refused in " << ms << " ms\n";
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(any_contains(r.problems, "nesting deeper than 64") || any_contains(r.problems, "would exceed"))
      << join(r.problems);

  const std::string cyc = R"({"format":"nnapi-model","version":1,"main":{"operands":[
    {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":0}},
    {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"IF","inputs":[0,1,1,0,2],"outputs":[3]}],"inputIndexes":[0,2],"outputIndexes":[3]},
    "referenced":[{"operands":[
      {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
      {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":0}},
      {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
      {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
      "operations":[{"type":"IF","inputs":[0,1,1,0,2],"outputs":[3]}],"inputIndexes":[0,2],"outputIndexes":[3]}]})";
  // 40 levels, both branches the same subgraph: 2^40 copies, stopped by the size bound.
  std::string wide = R"({"format":"nnapi-model","version":1,"main":{"operands":[
    {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":0}},
    {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"}],
    "operations":[{"type":"IF","inputs":[0,1,1,0,2],"outputs":[3]}],"inputIndexes":[0,2],"outputIndexes":[3]},
    "referenced":[)";
  for (int k = 0; k < 40; ++k) {
    const bool last = k == 39;
    wide += std::string(k ? "," : "") + R"({"operands":[
      {"type":"TENSOR_BOOL8","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
      {"type":"SUBGRAPH","lifetime":"SUBGRAPH","location":{"offset":)" +
            std::to_string(last ? 0 : k + 1) + R"(}},
      {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_INPUT"},
      {"type":"TENSOR_FLOAT32","dimensions":[1],"lifetime":"SUBGRAPH_OUTPUT"},
      {"type":"INT32","lifetime":"CONSTANT_COPY","value":[0]}],
      "operations":[)" +
            (last ? R"({"type":"ADD","inputs":[2,2,4],"outputs":[3]})"
                  : R"({"type":"IF","inputs":[0,1,1,0,2],"outputs":[3]})") +
            R"(],"inputIndexes":[0,2],"outputIndexes":[3]})";
  }
  wide += "]}";
  const auto t1 = std::chrono::steady_clock::now();
  const auto w = export_text("wide.nnapi.json", wide);
  std::cout << "40 nested IFs with shared branches (2^40 copies): refused in "
            << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count() << " ms\n";
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(any_contains(w.problems, "would exceed")) << join(w.problems);

  const auto c = export_text("cycle.nnapi.json", cyc);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(any_contains(c.problems, "subgraph reference cycle: referenced[0]")) << join(c.problems);

  for (const char* junk : {"", "{", "[]", R"({"format":"nnapi-model","version":1,"main":{}})"}) {
    const auto j = export_text("junk.nnapi.json", junk);
    EXPECT_FALSE(j.ok()) << junk;
  }
  EXPECT_FALSE(condlint::test::export_nnapi_file("/nonexistent/x.nnapi.json", {}).ok());
}

TEST(ExportNnapi, OnnxRuntimeAgreesWithTheExamples) {
  std::string err;
  diff::RuntimeOptions ro;
  auto ort = diff::make_runtime("onnxruntime", ro, err);
  if (!ort) GTEST_SKIP() << "ONNX Runtime is not available: " << err;
  if (!fs::is_directory(cts_dir())) GTEST_SKIP() << cts_dir() << " is absent (the shared corpus is not checked out)";
  const fs::path work = fs::temp_directory_path() / ("condlint-export-nnapi-ort-" + std::to_string(getpid()));
  fs::remove_all(work);
  struct Item {
    fs::path model;
    xport::ExportResult r;
    size_t ds;
    bool loose;
  };
  std::vector<Item> items;
  for (const auto& f : nnapi_files(cts_dir())) {
    auto r = condlint::test::export_nnapi_file(f, {});
    if (!r.ok() || r.data_sets.empty()) continue;
    items.push_back({f, std::move(r), 0, loose_model(f)});
  }
  std::vector<diff::Job> jobs;
  jobs.reserve(items.size());
  for (size_t k = 0; k < items.size(); ++k) {
    const fs::path dir = work / std::to_string(k);
    fs::create_directories(dir / "in");
    diff::Job j;
    j.model = &items[k].r.model;
    j.inputs = &items[k].r.data_sets[0].inputs;
    j.model_file = dir / "model.onnx";
    j.input_dir = dir / "in";
    j.output_dir = dir / "out";
    std::ofstream(j.model_file, std::ios::binary) << items[k].r.model.SerializeAsString();
    const auto& graph = items[k].r.model.graph();
    for (size_t i = 0; i < j.inputs->size(); ++i)
      std::ofstream(j.input_dir / ("input_" + std::to_string(i) + ".pb"), std::ios::binary)
          << write_pb_value((*j.inputs)[i], graph.input(static_cast<int>(i)).name());
    jobs.push_back(j);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto res = ort->run(jobs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  int agree = 0;
  std::map<std::string, int> failures;
  for (size_t k = 0; k < items.size(); ++k) {
    const auto& o = res[k];
    if (!o.ok) {
      ++failures[o.error.substr(0, 160)];
      ADD_FAILURE() << items[k].model.filename() << ": onnxruntime failed: " << o.error;
      continue;
    }
    std::vector<Value> outs;
    for (const auto& v : o.outputs) outs.push_back(v ? *v : Value{});
    if (auto e = compare_nnapi(outs, items[k].r.data_sets[0].outputs, items[k].loose); !e.empty()) {
      ADD_FAILURE() << items[k].model.filename() << ": onnxruntime differs from the example: " << e;
      continue;
    }
    ++agree;
  }
  std::cout << "onnxruntime on " << items.size() << " exported CTS models: " << agree << " agree with the examples ("
            << ms << " ms)\n";
  for (const auto& [e, n] : failures) std::cout << "  failed (" << n << "): " << e << "\n";
  fs::remove_all(work);
  EXPECT_EQ(agree, static_cast<int>(items.size()));
}

TEST(ExportNnapi, OperationsBeyondTheExecutor) {
  // DIV (float), GREATER, EQUAL, NOT_EQUAL, LOGICAL_AND/OR/NOT follow Android's CpuExecutor (the NNAPI executor
  // does not run them): checked here against hand-computed results.
  const std::string text = R"({"format":"nnapi-model","version":1,
  "main":{"operands":[
    {"name":"a","type":"TENSOR_FLOAT32","dimensions":[4],"lifetime":"SUBGRAPH_INPUT"},
    {"name":"b","type":"TENSOR_FLOAT32","dimensions":[4],"lifetime":"SUBGRAPH_INPUT"},
    {"type":"INT32","lifetime":"CONSTANT_COPY","value":[3]},
    {"name":"q","type":"TENSOR_FLOAT32","dimensions":[4],"lifetime":"SUBGRAPH_OUTPUT"},
    {"name":"gt","type":"TENSOR_BOOL8","dimensions":[4],"lifetime":"TEMPORARY_VARIABLE"},
    {"name":"eq","type":"TENSOR_BOOL8","dimensions":[4],"lifetime":"TEMPORARY_VARIABLE"},
    {"name":"ne","type":"TENSOR_BOOL8","dimensions":[4],"lifetime":"TEMPORARY_VARIABLE"},
    {"name":"and","type":"TENSOR_BOOL8","dimensions":[4],"lifetime":"SUBGRAPH_OUTPUT"},
    {"name":"or","type":"TENSOR_BOOL8","dimensions":[4],"lifetime":"TEMPORARY_VARIABLE"},
    {"name":"not","type":"TENSOR_BOOL8","dimensions":[4],"lifetime":"SUBGRAPH_OUTPUT"}],
   "operations":[
    {"type":"DIV","inputs":[0,1,2],"outputs":[3]},
    {"type":"GREATER","inputs":[0,1],"outputs":[4]},
    {"type":"EQUAL","inputs":[0,1],"outputs":[5]},
    {"type":"NOT_EQUAL","inputs":[0,1],"outputs":[6]},
    {"type":"LOGICAL_AND","inputs":[4,6],"outputs":[7]},
    {"type":"LOGICAL_OR","inputs":[4,5],"outputs":[8]},
    {"type":"LOGICAL_NOT","inputs":[8],"outputs":[9]}],
   "inputIndexes":[0,1],"outputIndexes":[3,7,9]},
  "examples":[{"inputs":[{"data":[1.0,-8.0,30.0,2.0]},{"data":[4.0,2.0,2.0,2.0]}],
               "outputs":[{"data":[0.25,0.0,6.0,1.0]},{"data":[false,false,true,false]},{"data":[true,true,false,false]}]}]})";
  for (int64_t opset : {13, 17}) {
    xport::ExportOptions o;
    o.opset = opset;
    const auto r = export_text("more_ops.nnapi.json", text, o);
    ASSERT_TRUE(r.ok()) << join(r.problems);
    EXPECT_EQ(r.model.opset_import(0).version(), opset);
    ASSERT_EQ(r.data_sets.size(), 1u);
    Interpreter ip(r.model, {});
    EXPECT_EQ(compare_nnapi(ip.run(r.data_sets[0].inputs), r.data_sets[0].outputs, false), "") << "opset " << opset;
  }
  xport::ExportOptions old;
  old.opset = 12;
  const auto r12 = export_text("more_ops.nnapi.json", text, old);
  EXPECT_FALSE(r12.ok());
  EXPECT_TRUE(any_contains(r12.problems, "opset 12 is not supported")) << join(r12.problems);
}
