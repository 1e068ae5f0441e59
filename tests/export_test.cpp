// `condlint export` (OpenVINO IR -> ONNX): every corpus/ir/exec model exported and run by the ONNX reference
// executor on its golden data, both branches of every If, with the same outcome as the IR executor; problems
// for what cannot be exported; pins; the CLI; `condlint diff` on IR models against ONNX Runtime; the shared
// OpenVINO IR corpus (counted, not required).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "bench/ir_gen.hpp"
#include "diff/diff.hpp"
#include "exec/ir_exec.hpp"
#include "exec/onnx_io.hpp"
#include "exec/runner.hpp"
#include "export/export.hpp"
#include "report/checks.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using condlint::test::shell_quote;
using condlint::test::source_dir;
using condlint::test::write_file;

namespace {

struct TmpDir {
  fs::path dir;
  explicit TmpDir(const std::string& tag) {
    dir = fs::temp_directory_path() / ("condlint_export_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TmpDir() { fs::remove_all(dir); }
};

std::vector<fs::path> ir_models(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".xml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Exports `xml`, writes the ONNX model and the converted data sets under `dir`, and runs the ONNX reference
// executor on it (both branches of every If).
// These tests compare the executors on the exported model with the IR executor on the source, not how each covers
// branches: both run knowing nothing of the conditions (an empty policy), so both pin every branch they do not take.
exec::RunConfig pin_every_branch() {
  exec::RunConfig cfg;
  cfg.policy = std::make_shared<const exec::BranchPolicy>();
  return cfg;
}

exec::ModelResult run_exported(const fs::path& xml, const fs::path& dir, xport::ExportResult& ex) {
  ex = condlint::test::export_ir_file(xml, {});
  exec::ModelResult mr;
  if (!ex.ok()) {
    mr.error = "export failed";
    return mr;
  }
  const fs::path onnx = dir / (xml.stem().string() + ".onnx");
  std::string bytes;
  EXPECT_TRUE(ex.model.SerializeToString(&bytes));
  write_file(onnx, bytes);
  int n = 0;
  EXPECT_EQ(xport::write_data_sets(xml, ex, dir, &n), "");
  return condlint::test::run_file(onnx, pin_every_branch());
}

std::string summary(const exec::ModelResult& r) {
  std::ostringstream os;
  write_run_text(os, r);
  return os.str();
}

// cond, x f32[2] -> If(then: Relu(x), else: <op>(x)).
std::string export_if_ir(const std::string& else_op, const std::string& x_type = "f32",
                         const std::string& prec = "FP32") {
  return gen::if_relu_ir(else_op, x_type, prec, prec);
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace

// Every corpus/ir/exec model: exported, run by the ONNX reference executor on its golden data with both
// branches of every If, the same outcome as the IR executor (all pass), and the same Ifs covered both ways.
TEST(ExportIr, CorpusModelsRunAsTheIrExecutorRunsThem) {
  const auto models = ir_models(source_dir() / "corpus/ir/exec");
  ASSERT_GE(models.size(), 4u);
  int exported = 0;
  for (const auto& xml : models) {
    SCOPED_TRACE(xml.string());
    const exec::ModelResult ir = condlint::test::run_file(xml, pin_every_branch());
    ASSERT_TRUE(ir.error.empty()) << ir.error;
    ASSERT_EQ(ir.failed + ir.unsupported, 0) << summary(ir);
    TmpDir tmp(xml.stem().string());
    xport::ExportResult ex;
    const exec::ModelResult on = run_exported(xml, tmp.dir, ex);
    ASSERT_TRUE(ex.ok()) << joined(ex.problems);
    ++exported;
    ASSERT_TRUE(on.error.empty()) << on.error;
    EXPECT_GT(on.passed, 0);
    EXPECT_EQ(on.failed + on.unsupported, 0) << summary(on);
    EXPECT_EQ(on.passed, ir.passed) << summary(on) << summary(ir);
    // The same Ifs, each run both ways.
    std::map<std::string, std::vector<bool>> mapped;
    for (const auto& [p, v] : ir.if_coverage) {
      ASSERT_TRUE(ex.if_paths.count(p)) << p;
      mapped[ex.if_paths.at(p)] = v;
      EXPECT_EQ(v.size(), 2u) << p;
    }
    EXPECT_EQ(on.if_coverage, mapped);
  }
  std::cout << "[ corpus/ir/exec ] " << exported << " of " << models.size()
            << " models exported and agree with the IR executor\n";
}

// Other opsets: Reduce axes as an attribute below 18, Reshape without allowzero below 14.
TEST(ExportIr, OpsetsThirteenToTwentyOne) {
  for (int64_t opset : {13, 14, 18, 21})
    for (const char* name : {"ops", "if_in_loop"}) {
      SCOPED_TRACE(std::to_string(opset) + " " + name);
      const fs::path xml = source_dir() / "corpus/ir/exec" / name / (std::string(name) + ".xml");
      xport::ExportOptions o;
      o.opset = opset;
      const auto ex = condlint::test::export_ir_file(xml, o);
      ASSERT_TRUE(ex.ok()) << joined(ex.problems);
      TmpDir tmp("opset" + std::to_string(opset) + name);
      std::string bytes;
      ASSERT_TRUE(ex.model.SerializeToString(&bytes));
      write_file(tmp.dir / "m.onnx", bytes);
      ASSERT_EQ(xport::write_data_sets(xml, ex, tmp.dir), "");
      const auto on = condlint::test::run_file(tmp.dir / "m.onnx", {});
      EXPECT_GT(on.passed, 0);
      EXPECT_EQ(on.failed + on.unsupported, 0) << summary(on);
    }
  xport::ExportOptions o;
  o.opset = 12;
  EXPECT_FALSE(condlint::test::export_ir_file(source_dir() / "corpus/ir/exec/ops/ops.xml", o).ok());
}

// The failing corpus cases (exec-cases): where the export succeeds, the exported model fails the same way.
TEST(ExportIr, ExecCasesKeepTheirOutcome) {
  const auto models = ir_models(source_dir() / "corpus/ir/exec-cases");
  ASSERT_FALSE(models.empty());
  for (const auto& xml : models) {
    SCOPED_TRACE(xml.string());
    const exec::ModelResult ir = condlint::test::run_file(xml, pin_every_branch());
    TmpDir tmp("case_" + xml.stem().string());
    xport::ExportResult ex;
    const exec::ModelResult on = run_exported(xml, tmp.dir, ex);
    if (ir.unsupported > 0) {
      // What the IR executor cannot run is not exported either, and the problem names the node.
      EXPECT_FALSE(ex.ok());
      continue;
    }
    ASSERT_TRUE(ex.ok()) << joined(ex.problems);
    EXPECT_EQ(on.passed, ir.passed) << summary(on) << summary(ir);
    EXPECT_EQ(on.failed > 0, ir.failed > 0) << summary(on) << summary(ir);
  }
}

// A Loop with an iteration counter (i32), a carried value, a concatenated output (axis 1) and a last value
// without a back edge: the exported model gives what the IR executor gives.
TEST(ExportIr, LoopOutputsMatchTheIrExecutor) {
  const std::string xml = R"(<?xml version="1.0"?>
<net name="loop" version="11"><layers>
<layer id="0" name="trip" type="Parameter" version="opset1"><data element_type="i64" shape="1"/><output><port id="0" precision="I64"><dim>1</dim></port></output></layer>
<layer id="1" name="cond" type="Parameter" version="opset1"><data element_type="boolean" shape=""/><output><port id="0" precision="BOOL"/></output></layer>
<layer id="2" name="x" type="Parameter" version="opset1"><data element_type="f32" shape="1,2"/><output><port id="0" precision="FP32"><dim>1</dim><dim>2</dim></port></output></layer>
<layer id="3" name="loop" type="Loop" version="opset5">
<input><port id="0"><dim>1</dim></port><port id="1"/><port id="2"><dim>1</dim><dim>2</dim></port></input>
<output><port id="3" precision="FP32"><dim>1</dim><dim>2</dim></port><port id="4" precision="FP32"><dim>1</dim><dim>-1</dim></port><port id="5" precision="FP32"><dim>1</dim><dim>2</dim></port></output>
<port_map>
<input external_port_id="2" internal_layer_id="0"/>
<input external_port_id="1" internal_layer_id="8"/>
<input external_port_id="-1" internal_layer_id="1" purpose="current_iteration"/>
<output external_port_id="3" internal_layer_id="4"/>
<output external_port_id="4" internal_layer_id="5" axis="1"/>
<output external_port_id="5" internal_layer_id="7"/>
<output external_port_id="-1" internal_layer_id="9" purpose="execution_condition"/>
</port_map>
<back_edges><edge from-layer="4" from-port="0" to-layer="0" to-port="0"/><edge from-layer="9" from-port="0" to-layer="8" to-port="0"/></back_edges>
<body><layers>
<layer id="0" name="x_in" type="Parameter" version="opset1"><data element_type="f32" shape="1,2"/><output><port id="0" precision="FP32"><dim>1</dim><dim>2</dim></port></output></layer>
<layer id="1" name="it" type="Parameter" version="opset1"><data element_type="i32" shape=""/><output><port id="0" precision="I32"/></output></layer>
<layer id="2" name="itf" type="Convert" version="opset1"><data destination_type="f32"/><input><port id="0"/></input><output><port id="1" precision="FP32"/></output></layer>
<layer id="3" name="y" type="Add" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port><port id="1"/></input><output><port id="2" precision="FP32"><dim>1</dim><dim>2</dim></port></output></layer>
<layer id="4" name="y_out" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port></input></layer>
<layer id="5" name="y_cat" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port></input></layer>
<layer id="6" name="z" type="Multiply" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port><port id="1"><dim>1</dim><dim>2</dim></port></input><output><port id="2" precision="FP32"><dim>1</dim><dim>2</dim></port></output></layer>
<layer id="7" name="z_last" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port></input></layer>
<layer id="8" name="c_in" type="Parameter" version="opset1"><data element_type="boolean" shape=""/><output><port id="0" precision="BOOL"/></output></layer>
<layer id="9" name="c_out" type="Result" version="opset1"><input><port id="0"/></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="1"/><edge from-layer="3" from-port="2" to-layer="4" to-port="0"/>
<edge from-layer="3" from-port="2" to-layer="5" to-port="0"/><edge from-layer="3" from-port="2" to-layer="6" to-port="0"/>
<edge from-layer="3" from-port="2" to-layer="6" to-port="1"/><edge from-layer="6" from-port="2" to-layer="7" to-port="0"/>
<edge from-layer="8" from-port="0" to-layer="9" to-port="0"/>
</edges></body></layer>
<layer id="4" name="last" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port></input></layer>
<layer id="5" name="all" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>-1</dim></port></input></layer>
<layer id="6" name="sq" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>2</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/><edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/><edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>
<edge from-layer="3" from-port="4" to-layer="5" to-port="0"/><edge from-layer="3" from-port="5" to-layer="6" to-port="0"/>
</edges></net>
)";
  TmpDir tmp("loop");
  write_file(tmp.dir / "loop.xml", xml);
  for (int64_t trip : {1, 3}) {
    SCOPED_TRACE(trip);
    fs::remove_all(tmp.dir / "test_data_set_0");
    fs::remove_all(tmp.dir / "golden");
    fs::create_directories(tmp.dir / "test_data_set_0");
    exec::Tensor t(exec::DT::I64, {1});
    t.i[0] = trip;
    exec::Tensor c(exec::DT::Bool, {});
    c.i[0] = 1;
    exec::Tensor x(exec::DT::F32, {1, 2});
    x.f = {1.5, -2};
    write_file(tmp.dir / "test_data_set_0/input_0.pb", exec::write_pb_value(exec::Value::tensor(t), ""));
    write_file(tmp.dir / "test_data_set_0/input_1.pb", exec::write_pb_value(exec::Value::tensor(c), ""));
    write_file(tmp.dir / "test_data_set_0/input_2.pb", exec::write_pb_value(exec::Value::tensor(x), ""));
    // The IR executor's outputs become the golden data of the exported model.
    exec::RunConfig cfg;
    cfg.save_dir = tmp.dir / "golden";
    const exec::ModelResult ir = condlint::test::run_file(tmp.dir / "loop.xml", cfg);
    ASSERT_TRUE(ir.error.empty()) << ir.error;
    ASSERT_EQ(ir.passed, 1) << summary(ir);
    const auto ex = condlint::test::export_ir_file(tmp.dir / "loop.xml", {});
    ASSERT_TRUE(ex.ok()) << joined(ex.problems);
    std::string bytes;
    ASSERT_TRUE(ex.model.SerializeToString(&bytes));
    write_file(tmp.dir / "loop.onnx", bytes);
    exec::RunConfig oc;
    oc.data_dirs = {tmp.dir / "golden"};
    const exec::ModelResult on = condlint::test::run_file(tmp.dir / "loop.onnx", oc);
    ASSERT_TRUE(on.error.empty()) << on.error;
    EXPECT_EQ(on.passed, 1) << summary(on);
    ASSERT_FALSE(on.cases.empty());
    EXPECT_EQ(on.cases[0].outputs.size(), 3u);
    for (const auto& o : on.cases[0].outputs) EXPECT_TRUE(o.compared && o.ok) << o.name << ": " << o.detail;
  }
}

// Every IR file of the corpus (valid, invalid: cycles, dangling edges, missing bodies...) and the fuzz
// regressions: an export or problems, never a crash; a model that exports serializes.
TEST(ExportIr, EveryCorpusIrExportsOrSaysWhy) {
  int ok = 0, refused = 0;
  for (const char* dir : {"corpus/ir", "tests/fuzz_regressions", "tests/fixtures"})
    for (const auto& xml : ir_models(source_dir() / dir)) {
      SCOPED_TRACE(xml.string());
      const auto ex = condlint::test::export_ir_file(xml, {});
      if (ex.ok()) {
        ++ok;
        std::string bytes;
        EXPECT_TRUE(ex.model.SerializeToString(&bytes));
      } else {
        ++refused;
        for (const auto& p : ex.problems) EXPECT_FALSE(p.empty());
      }
    }
  std::cout << "[ corpus IR files ] " << ok << " export, " << refused << " refused with problems\n";
  EXPECT_GT(ok, 0);
  EXPECT_GT(refused, 0);
}

TEST(ExportIr, UnsupportedOpIsAProblemNamingTheNode) {
  TmpDir tmp("unsupported");
  write_file(tmp.dir / "m.xml", export_if_ir("Erf"));
  const auto ex = condlint::test::export_ir_file(tmp.dir / "m.xml", {});
  ASSERT_FALSE(ex.ok());
  ASSERT_EQ(ex.problems.size(), 1u) << joined(ex.problems);
  EXPECT_NE(ex.problems[0].find("main/sel/else/op (Erf)"), std::string::npos) << ex.problems[0];
  EXPECT_NE(ex.problems[0].find("no ONNX export"), std::string::npos) << ex.problems[0];
  // The corpus case the IR executor reports as unsupported.
  const auto ex2 =
      condlint::test::export_ir_file(source_dir() / "corpus/ir/exec-cases/unsupported_op/unsupported_op.xml", {});
  ASSERT_FALSE(ex2.ok());
  EXPECT_NE(joined(ex2.problems).find("main/"), std::string::npos) << joined(ex2.problems);
}

TEST(ExportIr, ElementTypesOnnxLacksAreProblems) {
  TmpDir tmp("types");
  for (const auto& [t, prec] :
       std::vector<std::pair<std::string, std::string>>{{"u1", "BIN"}, {"i4", "I4"}, {"nf4", "NF4"}}) {
    write_file(tmp.dir / "m.xml", export_if_ir("Relu", t, prec));
    const auto ex = condlint::test::export_ir_file(tmp.dir / "m.xml", {});
    EXPECT_FALSE(ex.ok()) << t;
    EXPECT_NE(joined(ex.problems).find(t), std::string::npos) << joined(ex.problems);
  }
  write_file(tmp.dir / "m.xml", export_if_ir("Negative", "f16", "FP16"));
  EXPECT_TRUE(condlint::test::export_ir_file(tmp.dir / "m.xml", {}).ok());
}

TEST(ExportIr, PinnedIfReadsAConstant) {
  const fs::path xml = source_dir() / "corpus/ir/exec/nested_if/nested_if.xml";
  xport::ExportOptions o;
  o.pins["main/outer/then/inner"] = false;
  const auto ex = condlint::test::export_ir_file(xml, o);
  ASSERT_TRUE(ex.ok()) << joined(ex.problems);
  ASSERT_TRUE(ex.if_paths.count("main/outer/then/inner"));
  // Find the inner If and the node producing its condition.
  const onnx::GraphProto* then_g = nullptr;
  for (const auto& n : ex.model.graph().node())
    if (n.op_type() == "If")
      for (const auto& a : n.attribute())
        if (a.name() == "then_branch") then_g = &a.g();
  ASSERT_NE(then_g, nullptr);
  bool found = false;
  for (const auto& n : then_g->node()) {
    if (n.op_type() != "If") continue;
    found = true;
    const std::string c = n.input(0);
    bool constant = false;
    for (const auto& m : then_g->node())
      if (m.output_size() && m.output(0) == c && m.op_type() == "Constant") constant = true;
    EXPECT_TRUE(constant) << c;
  }
  EXPECT_TRUE(found);
  // The unpinned outer If still reads its input.
  for (const auto& n : ex.model.graph().node())
    if (n.op_type() == "If") EXPECT_EQ(n.input(0).rfind("condlint_pin", 0), std::string::npos);
  // A pin naming no If is a problem.
  o.pins = {{"main/nope", true}};
  const auto bad = condlint::test::export_ir_file(xml, o);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(joined(bad.problems).find("main/nope"), std::string::npos);
}

// Ifs nested thousands deep export without recursion.
TEST(ExportIr, DeepNestingIsWalkedIteratively) {
  const int depth = 3000;
  const std::string p =
      R"(<layer id="0" name="p" type="Parameter" version="opset1"><data element_type="boolean" shape=""/><output><port id="0" precision="BOOL"/></output></layer>)";
  const std::string r =
      R"(<layer id="2" name="r" type="Result" version="opset1"><input><port id="0"/></input></layer>)";
  std::string xml = R"(<?xml version="1.0"?><net name="deep" version="11"><layers>
<layer id="0" name="c" type="Parameter" version="opset1"><data element_type="boolean" shape=""/><output><port id="0" precision="BOOL"/></output></layer>
)";
  for (int d = 0; d < depth; ++d)
    xml += R"(<layer id="1" name="if)" + std::to_string(d) +
           R"(" type="If" version="opset8"><input><port id="0"/></input><output><port id="1" precision="BOOL"/></output>
<then_port_map><input external_port_id="0" internal_layer_id="0"/><output external_port_id="0" internal_layer_id="2"/></then_port_map>
<else_port_map><input external_port_id="0" internal_layer_id="0"/><output external_port_id="0" internal_layer_id="2"/></else_port_map>
<else_body><layers>)" +
           p + r + R"(</layers><edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/></edges></else_body>
<then_body><layers>)" +
           p + "\n";
  for (int d = depth - 1; d >= 0; --d)
    xml +=
        r + "</layers><edges>" +
        (d == depth - 1
             ? std::string(R"(<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>)")
             : std::string(
                   R"(<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>)")) +
        "</edges></then_body></layer>\n";
  xml += R"(<layer id="2" name="out" type="Result" version="opset1"><input><port id="0"/></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>)";
  TmpDir tmp("deep");
  write_file(tmp.dir / "deep.xml", xml);
  const auto ex = condlint::test::export_ir_file(tmp.dir / "deep.xml", {});
  ASSERT_TRUE(ex.ok()) << joined(ex.problems).substr(0, 2000);
  EXPECT_EQ(ex.if_paths.size(), 64u);  // listed as deep as pins can reach
  EXPECT_EQ(ex.if_paths.at("main/if0/then/if1"), "main/if0/then/if1");
  std::string bytes;
  EXPECT_TRUE(ex.model.SerializeToString(&bytes));
}

TEST(ExportCli, ExitCodesAndOutputFile) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  TmpDir tmp("cli");
  const std::string xml = (source_dir() / "corpus/ir/exec/spec_if/spec_if.xml").string();
  const std::string out = (tmp.dir / "m.onnx").string();
  auto r = run(condlint_cmd() + " export " + shell_quote(xml) + " --to onnx -o " + shell_quote(out) + " --data-out " +
               shell_quote((tmp.dir / "data").string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(out));
  EXPECT_TRUE(fs::is_regular_file(tmp.dir / "data/test_data_set_0/input_0.pb")) << r.out;
  EXPECT_TRUE(fs::is_regular_file(tmp.dir / "data/test_data_set_0/output_0.pb")) << r.out;
  // The written model runs on the written data.
  r = run(condlint_cmd() + " run " + shell_quote(out) + " --data " + shell_quote((tmp.dir / "data").string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // Pinned, JSON report.
  r = run(condlint_cmd() + " export " + shell_quote(xml) + " --to onnx -o " + shell_quote(out) +
          " --pin main/if_cond=true --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"ok\": true"), std::string::npos) << r.out;
  // Not exportable: exit 1, the problem names the node, nothing written.
  write_file(tmp.dir / "bad.xml", export_if_ir("Erf"));
  const std::string out2 = (tmp.dir / "bad.onnx").string();
  r = run(condlint_cmd() + " export " + shell_quote((tmp.dir / "bad.xml").string()) + " --to onnx -o " +
          shell_quote(out2));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("main/sel/else/op (Erf)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out2));
  // Usage and I/O: exit 2.
  EXPECT_EQ(run(condlint_cmd() + " export " + shell_quote((tmp.dir / "missing.xml").string()) + " --to onnx -o " +
                shell_quote(out2) + " 2>/dev/null")
                .exit_code,
            2);
  EXPECT_EQ(run(condlint_cmd() + " export " + shell_quote(xml) + " --to onnx -o " + shell_quote(out) +
                " --pin main/if_cond=maybe 2>/dev/null")
                .exit_code,
            2);
  EXPECT_EQ(run(condlint_cmd() + " export " + shell_quote(xml) + " --to tflite -o " + shell_quote(out) + " 2>/dev/null")
                .exit_code,
            2);
  EXPECT_EQ(run(condlint_cmd() + " export " + shell_quote(xml) + " 2>/dev/null").exit_code, 2);  // no -o
  // Help teaches; the top-level help lists the command.
  r = run(condlint_cmd() + " export --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--pin"), std::string::npos);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
  r = run(condlint_cmd() + " --help");
  EXPECT_NE(r.out.find("export"), std::string::npos);
}

// An IR the exporter cannot write as ONNX is still diffed: the reference executor runs the IR itself (and OpenVINO
// reads it); a runtime that reads ONNX only does not run it and says why, naming the op.
TEST(ExportCli, DiffOfAnUnexportableIrRunsTheIrAndNamesTheOpForOnnxRuntimes) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  TmpDir tmp("diffbad");
  write_file(tmp.dir / "bad.xml", export_if_ir("Erf"));
  const std::string xml = shell_quote((tmp.dir / "bad.xml").string());
  auto r = run(condlint_cmd() + " diff " + xml + " --runtime ref --runtime ref --random 1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("not exported to ONNX"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Erf"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 diverge, 0 failed"), std::string::npos) << r.out;
  // A command runtime reads the ONNX variant: it has none, so every run fails with the reason, and nothing is run.
  r = run(condlint_cmd() + " diff " + xml + " --runtime ref --runtime " +
          shell_quote("cmd:touch " + (tmp.dir / "ran").string() + " {model} {inputs} {outputs}") + " --random 1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("not run: condlint cannot export this IR to ONNX exactly"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Erf"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(tmp.dir / "ran"));
}

// ref vs ref on an exported IR model: pins are labelled with the IR model's If paths.
TEST(ExportCli, DiffOfAnIrModelUsesItsIfPaths) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  const std::string xml = (source_dir() / "corpus/ir/exec/if_in_loop/if_in_loop.xml").string();
  const auto r = run(condlint_cmd() + " diff " + shell_quote(xml) + " --runtime ref --runtime ref");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("main/loop/body/step_if=else"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 diverge, 0 failed"), std::string::npos) << r.out;
}

// Every corpus/ir/exec model through export + ONNX Runtime agrees with ref, both branches of every If.
TEST(ExportDiff, IrCorpusAgreesWithOnnxRuntime) {
  using condlint::test::condlint_cmd;
  using condlint::test::run;
  {
    std::string err;
    diff::RuntimeOptions o;
    if (!diff::make_runtime("onnxruntime", o, err)) GTEST_SKIP() << "ONNX Runtime is not available: " << err;
  }
  int agree_models = 0, runs = 0;
  const auto models = ir_models(source_dir() / "corpus/ir/exec");
  for (const auto& xml : models) {
    const auto r = run(condlint_cmd() + " diff " + shell_quote(xml.string()) +
                       " --runtime ref --runtime onnxruntime --format json");
    EXPECT_EQ(r.exit_code, 0) << xml << "\n" << r.out;
    if (r.exit_code == 0) ++agree_models;
    const auto pos = r.out.rfind("\"agree\": ");
    if (pos != std::string::npos) runs += std::atoi(r.out.c_str() + pos + 9);
  }
  std::cout << "[ diff ref vs onnxruntime ] " << agree_models << " of " << models.size() << " IR models agree (" << runs
            << " runs agree)\n";
}

// onnx's own checker (full_check: shape inference too) accepts every exported corpus/ir/exec model.
TEST(ExportIr, OnnxCheckerAcceptsTheExports) {
  using condlint::test::run;
  if (run("/usr/bin/python3 -c 'import onnx' 2>/dev/null").exit_code != 0)
    GTEST_SKIP() << "/usr/bin/python3 with python3-onnx is absent (Debian package python3-onnx)";
  TmpDir tmp("checker");
  for (const auto& xml : ir_models(source_dir() / "corpus/ir/exec")) {
    const auto ex = condlint::test::export_ir_file(xml, {});
    ASSERT_TRUE(ex.ok()) << xml;
    std::string bytes;
    ASSERT_TRUE(ex.model.SerializeToString(&bytes));
    const fs::path p = tmp.dir / (xml.stem().string() + ".onnx");
    write_file(p, bytes);
    const auto r = run(
        "/usr/bin/python3 -c 'import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)' " +
        shell_quote(p.string()) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << xml << ": " << r.out;
  }
}

// The shared OpenVINO IR corpus: how many export; the problems of the rest (not required to export).
TEST(ExportShared, OpenVinoIrCorpusCounts) {
  const fs::path root = condlint::test::shared_dir() / "corpus/openvino-ir";
  const auto models = ir_models(root);
  if (models.empty()) GTEST_SKIP() << root << " is absent (the shared corpus)";
  int ok = 0;
  for (const auto& xml : models) {
    const auto ex = condlint::test::export_ir_file(xml, {});
    if (ex.ok()) {
      ++ok;
      std::string bytes;
      EXPECT_TRUE(ex.model.SerializeToString(&bytes)) << xml;
      continue;
    }
    std::cout << "  not exported: " << xml.filename().string() << "\n";
    for (size_t k = 0; k < ex.problems.size() && k < 3; ++k) std::cout << "    " << ex.problems[k] << "\n";
    if (ex.problems.size() > 3) std::cout << "    ... " << ex.problems.size() - 3 << " more\n";
  }
  std::cout << "[ shared openvino-ir ] " << ok << " of " << models.size() << " models export\n";
  // Those that export: ref and ONNX Runtime agree on random inputs, both branches of every If.
  std::string err;
  diff::RuntimeOptions ro;
  if (!diff::make_runtime("onnxruntime", ro, err)) {
    std::cout << "  (ONNX Runtime is not available, no diff: " << err << ")\n";
    return;
  }
  // The reference runs the IR itself (as OpenVINO does), ONNX Runtime its export: the one difference the export
  // names ("with zero iterations ONNX gives an empty tensor where OpenVINO fails") shows where a random trip count is
  // 0, and only there.
  int agree = 0, runs = 0, zero_trip = 0;
  for (const auto& xml : models) {
    if (!condlint::test::export_ir_file(xml, {}).ok()) continue;
    const auto r = condlint::test::run(condlint::test::condlint_cmd() + " diff " + shell_quote(xml.string()) +
                                       " --runtime ref --runtime onnxruntime --random 3 --seed 1 --format json");
    if (r.exit_code == 1) {
      using condlint::test::count;
      const auto failed = count(r.out, "\"status\": \"failed\"");
      const auto empty = count(r.out, "Loop ran no iteration: concatenated output");
      EXPECT_EQ(failed, empty / 2) << xml << "\n" << r.out;  // each failure's message and error name it
      EXPECT_EQ(count(r.out, "\"status\": \"diverge\""), 0) << xml << "\n" << r.out;
      zero_trip += failed;
    } else {
      EXPECT_EQ(r.exit_code, 0) << xml << "\n" << r.out;
    }
    agree += r.exit_code == 0;
    const auto pos = r.out.rfind("\"agree\": ");
    if (pos != std::string::npos) runs += std::atoi(r.out.c_str() + pos + 9);
  }
  std::cout << "[ shared openvino-ir, diff ref vs onnxruntime ] " << agree << " of " << ok << " exported models agree ("
            << runs << " runs agree; " << zero_trip << " runs of zero iterations differ as the export says)\n";
}
