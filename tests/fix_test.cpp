// condlint fix (issue 49): the fixes of the findings every report marks fixable, proven before they are written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "rules/engine.hpp"
#include "rules/fix.hpp"
#include "test_support.hpp"

using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

const std::string kIr011 = "corpus/ir/invalid/IR011_unmapped_result.xml";
const std::string kIr009Out = "corpus/ir/invalid/IR009_duplicate_output.xml";
const std::string kIr009In = "corpus/ir/invalid/IR009_duplicate_input.xml";
const std::string kOnnx011Equal = "corpus/onnx/invalid/ONNX011_initializer_shadows_equal.onnx";
const std::string kOnnx011Differs = "corpus/onnx/invalid/ONNX011_initializer_shadows.onnx";
const std::string kC010Onnx = "corpus/onnx/invalid/C010_declared_shape_unreachable.onnx";
const std::string kC010OnnxBoth = "corpus/onnx/invalid/C010_both_branches_contradict.onnx";
const std::string kC007Onnx = "corpus/onnx/invalid/C007_declared_output_type.onnx";
const std::string kC010Ir = "corpus/ir/invalid/C010_output_shape.xml";
const std::string kC010IrBoth = "corpus/ir/invalid/C010_both_branches.xml";
const std::string kC007Ir = "corpus/ir/invalid/C007_output_type.xml";

// A copy of a corpus file in a fresh folder.
fs::path copy_of(const std::string& rel, const std::string& tag) {
  const fs::path d = fresh_dir(tag);
  const fs::path p = d / fs::path(rel).filename();
  fs::copy_file(source_dir() / rel, p);
  return p;
}

CmdResult condlint(const std::string& args) { return run(condlint_cmd() + " " + args + " 2>&1"); }

// Every report says which findings `condlint fix` repairs.
TEST(Fix, ReportsMarkFixableFindings) {
  const std::string models = shell_quote((source_dir() / kIr011).string()) + " " +
                             shell_quote((source_dir() / kIr009In).string()) + " " +
                             shell_quote((source_dir() / kOnnx011Equal).string()) + " " +
                             shell_quote((source_dir() / kOnnx011Differs).string());
  auto text = condlint("lint --show all " + models);
  EXPECT_NE(text.out.find("[IR011] (fixable)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("[IR009] (fixable)"), std::string::npos) << "removing the entry would unbind a Parameter\n"
                                                                   << text.out;
  EXPECT_EQ(count(text.out, "[ONNX011] (fixable)"), 2) << "the equal copies only\n" << text.out;
  EXPECT_NE(text.out.find("3 fixable with `condlint fix`"), std::string::npos) << text.out;
  auto json = run(condlint_cmd() + " lint --format json " + models + " 2>/dev/null");
  const auto doc = nlohmann::json::parse(json.out);
  int fixable = 0;
  for (const auto& f : doc["files"])
    for (const auto& x : f["findings"])
      if (x.value("fixable", "") == "safe") {
        ++fixable;
        EXPECT_TRUE(x["rule"] == "IR011" || x["rule"] == "ONNX011") << x.dump();
      }
  EXPECT_EQ(fixable, 3);
  auto sarif = run(condlint_cmd() + " lint --format sarif " + models + " 2>/dev/null");
  EXPECT_EQ(count(sarif.out, "\"condlint.fixable\": \"safe\""), 3) << sarif.out.substr(0, 400);
}

// fix -o: the fixed model is written there, proven (lint, the reference executor, the runtime where installed), and
// the original is untouched.
TEST(Fix, OutputIsTheProvenFixedModelAndTheOriginalStays) {
  const fs::path m = copy_of(kIr011, "fix-out");
  const std::string before = slurp(m);
  const fs::path out = m.parent_path() / "fixed.xml";
  auto r = condlint("fix " + shell_quote(m.string()) + " -o " + shell_quote(out.string()) + " --no-runtime-proof");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("fixed IR011: removed Result 'then_unused' (layer 3) and the edge into it"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("proof: lint: the fixed findings are gone"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("proof: reference executor: "), std::string::npos) << r.out;
  EXPECT_EQ(slurp(m), before);
  const std::string fixed = slurp(out);
  EXPECT_EQ(fixed.find("then_unused"), std::string::npos);
  EXPECT_EQ(fixed.find("from-layer=\"2\" from-port=\"1\" to-layer=\"3\""), std::string::npos);
  EXPECT_EQ(before.size() - fixed.size() > 0, true);
  // Byte for byte the rest: the fixed file is the original with the Result's lines and the edge's line removed.
  EXPECT_NE(fixed.find("<layer id=\"2\" name=\"relu\" type=\"Relu\""), std::string::npos);
  auto lint = condlint("lint --show all " + shell_quote(out.string()));
  EXPECT_EQ(lint.exit_code, 0) << lint.out;
  EXPECT_EQ(lint.out.find("[IR011]"), std::string::npos) << lint.out;
  // Nothing is written onto the model.
  r = condlint("fix " + shell_quote(m.string()) + " -o " + shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(slurp(m), before);
}

// --diff shows the change and writes nothing (exit 1: there is a change); --in-place replaces the model.
TEST(Fix, DiffShowsAndInPlaceReplaces) {
  const fs::path m = copy_of(kIr009Out, "fix-diff");
  const std::string before = slurp(m);
  auto d = condlint("fix --diff --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_EQ(d.exit_code, 1) << d.out;
  EXPECT_NE(d.out.find("--- " + m.string() + "\n+++ " + m.string() + "\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("\n-                <output external_port_id=\"0\""), std::string::npos) << d.out;
  EXPECT_EQ(slurp(m), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(m.parent_path()), fs::directory_iterator()), 1) << "nothing written";
  auto w = condlint("fix --in-place --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_EQ(w.exit_code, 0) << w.out;
  EXPECT_NE(slurp(m), before);
  EXPECT_EQ(count(slurp(m), "external_port_id=\"0\""), count(before, "external_port_id=\"0\"") - 1);
  EXPECT_EQ(condlint("lint " + shell_quote(m.string())).exit_code, 0);
  // The Result the removed entry mapped is now mapped by no entry: fixable in turn, by a second run.
  EXPECT_NE(w.out.find("has 1 finding fixable in turn: run condlint fix again"), std::string::npos) << w.out;
  auto second = condlint("fix --in-place --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_NE(second.out.find("fixed IR011"), std::string::npos) << second.out;
  auto again = condlint("fix --diff --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("summary: 0 fixes to apply"), std::string::npos) << again.out;
}

// ONNX: the branch's equal copy of an outer initializer removed; a copy that differs is left (an error, no fix).
TEST(Fix, OnnxEqualShadowingCopyIsRemoved) {
  const fs::path m = copy_of(kOnnx011Equal, "fix-onnx");
  const fs::path out = m.parent_path() / "fixed.onnx";
  auto r = condlint("fix " + shell_quote(m.string()) + " -o " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(count(r.out, "fixed ONNX011: removed initializer 'one'"), 2) << r.out;
  auto lint = condlint("lint --show all " + shell_quote(out.string()));
  EXPECT_EQ(lint.out.find("[ONNX011]"), std::string::npos) << lint.out;
  EXPECT_EQ(lint.exit_code, 0) << lint.out;
  const fs::path differs = copy_of(kOnnx011Differs, "fix-onnx-differs");
  auto n = condlint("fix --diff " + shell_quote(differs.string()));
  EXPECT_EQ(n.exit_code, 0) << n.out;
  EXPECT_NE(n.out.find("summary: 0 fixes"), std::string::npos) << n.out;
}

// A fix the reference executor cannot check (an op it has no kernel for) fails its proof: nothing is written.
TEST(Fix, AFixThatCannotBeProvenIsNotWritten) {
  const fs::path m = copy_of(kIr011, "fix-unproven");
  std::string xml = slurp(m);
  const std::string relu = "type=\"Relu\" version=\"opset1\"";
  ASSERT_NE(xml.find(relu), std::string::npos);
  xml.replace(xml.find(relu), relu.size(), "type=\"NoSuchKernel\" version=\"extension\"");
  write_file(m, xml);
  const fs::path out = m.parent_path() / "fixed.xml";
  auto r = condlint("fix " + shell_quote(m.string()) + " -o " + shell_quote(out.string()) + " --no-runtime-proof");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("not fixed: the fixed model failed its proof: reference executor: "), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(out));
}

// An IR OpenVINO wrote (save_model's fp16 compression leaves FP16 on the output ports of the Converts it inserts):
// IR020's fix writes what OpenVINO computes, proven by lint, the executor on the golden data and OpenVINO itself.
TEST(Fix, ConvertPortsOfAnOpenVinoWrittenIrStateTheirDestinationType) {
  const fs::path src = source_dir() / "corpus-openvino/valid/downstream_broadcast/fp16";
  const fs::path d = fresh_dir("fix-ir020");
  fs::copy(src, d, fs::copy_options::recursive);
  const fs::path m = d / "model.xml", out = d / "fixed.xml";
  const std::string before = slurp(m);
  auto r = condlint("fix " + shell_quote(m.string()) + " -o " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("fixed IR020: the output port of 2 Converts now states its destination_type"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("on the golden data"), std::string::npos) << r.out;
  const bool have_openvino = r.out.find("proof: OpenVINO ") != std::string::npos;
  if (have_openvino) EXPECT_NE(r.out.find("accepts the fixed model, as the original"), std::string::npos) << r.out;
  const std::string fixed = slurp(out);
  EXPECT_EQ(fixed.size(), before.size()) << "FP16 -> FP32: only the two precisions change";
  EXPECT_EQ(count(fixed, "precision=\"FP16\""), count(before, "precision=\"FP16\"") - 2);
  EXPECT_TRUE(fs::exists(d / "fixed.bin"));
  auto lint = condlint("lint --show all " + shell_quote(out.string()));
  EXPECT_EQ(lint.out.find("[IR020]"), std::string::npos) << lint.out;
}

// An If OpenVINO's converter kept whose condition is decided (C012): replaced by its live branch, inlined, the If
// output's tensor name kept on the port that now gives the value; proven on the IR's golden data.
TEST(Fix, ADecidedIfOfAnOpenVinoWrittenIrIsInlined) {
  const fs::path d = fresh_dir("fix-c012");
  fs::copy(source_dir() / "corpus-openvino/valid/downstream_dead_branch/fp32", d, fs::copy_options::recursive);
  const fs::path m = d / "model.xml", out = d / "fixed.xml";
  auto r = condlint("fix --rule C012 --no-runtime-proof " + shell_quote(m.string()) + " -o " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("fixed C012: replaced If 'pick' by its then branch (1 layer inlined"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on the golden data"), std::string::npos) << r.out;
  const std::string fixed = slurp(out);
  EXPECT_EQ(fixed.find("type=\"If\""), std::string::npos);
  EXPECT_NE(fixed.find("names=\"t_out,res\""), std::string::npos) << "the If output's name moves to its producer";
  auto lint = condlint("lint --show all " + shell_quote(out.string()));
  EXPECT_EQ(lint.exit_code, 0) << lint.out;
  EXPECT_EQ(lint.out.find("[C012]"), std::string::npos) << lint.out;
  // The fixed model runs on the original's golden data with the same outputs.
  auto ran = condlint("run " + shell_quote(out.string()) + " --data " + shell_quote((d / "test_data_set_0").string()));
  EXPECT_EQ(ran.exit_code, 0) << ran.out;
}

// A directory is walked as lint walks it; -o then takes one model only.
TEST(Fix, DirectoriesAreWalked) {
  const fs::path d = fresh_dir("fix-walk");
  for (const std::string& rel : {kIr011, kIr009Out}) fs::copy_file(source_dir() / rel, d / fs::path(rel).filename());
  auto r = condlint("fix --diff --no-runtime-proof " + shell_quote(d.string()));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("summary: 2 fixes to apply in 2 files"), std::string::npos) << r.out;
  EXPECT_EQ(condlint("fix " + shell_quote(d.string()) + " -o " + shell_quote((d / "x.xml").string())).exit_code, 2);
}

// Usage: one of -o, --in-place, --diff; -o with one model.
TEST(Fix, UsageNeedsOneWayToWrite) {
  const std::string m = shell_quote((source_dir() / kIr011).string());
  EXPECT_EQ(condlint("fix " + m).exit_code, 2);
  EXPECT_EQ(condlint("fix " + m + " --diff --in-place").exit_code, 2);
  EXPECT_EQ(condlint("fix " + m + " " + m + " -o /tmp/x.xml").exit_code, 2);
}

// Every rule's page says under "Fixable" whether condlint fix repairs its findings: "Yes" exactly for the rules
// with a fixer.
TEST(Fix, EveryPageSaysWhetherItsRuleIsFixable) {
  for (const condlint::RuleDef* r : condlint::all_rules()) {
    const std::string page = slurp(source_dir() / "rules" / (std::string(r->id) + ".md"));
    const size_t at = page.find("## Fixable\n");
    ASSERT_NE(at, std::string::npos) << r->id << ": no Fixable section";
    const std::string first = page.substr(at + 12, 4);
    const bool yes = first.rfind("Yes", 0) == 0;
    EXPECT_TRUE(yes || first.rfind("No", 0) == 0) << r->id << ": the section starts with neither Yes nor No";
    EXPECT_EQ(yes, condlint::find_fixer(r->id) != nullptr) << r->id;
  }
}

// The declared type of graph output `name` of an ONNX file: "f32[?,3]" style (elem type number, then dims: a
// dim_value, a dim_param as written, '?' for neither; "[...]" without a shape).
std::string declared_output(const fs::path& p, const std::string& name) {
  onnx::ModelProto m;
  if (!m.ParseFromString(slurp(p))) return "unreadable";
  for (const auto& o : m.graph().output())
    if (o.name() == name) {
      const auto& t = o.type().tensor_type();
      std::string s = std::to_string(t.elem_type());
      if (!t.has_shape()) return s + "[...]";
      s += "[";
      for (int k = 0; k < t.shape().dim_size(); ++k) {
        const auto& d = t.shape().dim(k);
        s += (k ? "," : "") +
             (d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "?");
      }
      return s + "]";
    }
  return "no such output";
}

// Fixes `m` into `out` and says the lint of `out` shows no finding of `rule`.
void expect_fixed_clean(const fs::path& m, const fs::path& out, const std::string& rule, const std::string& line) {
  auto r = condlint("fix --no-runtime-proof " + shell_quote(m.string()) + " -o " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("proof: reference executor: "), std::string::npos) << r.out;
  auto lint = condlint("lint --show all " + shell_quote(out.string()));
  EXPECT_EQ(lint.out.find("[" + rule + "]"), std::string::npos) << lint.out;
}

// ONNX, C010: the If output's declaration (here also the graph output's) becomes onnx's union of the branches: dims
// they give differently an unknown dim, dims they agree on kept; the corpus cases then lint clean of C010.
TEST(Fix, OnnxDeclaredShapeBecomesTheUnionOfTheBranches) {
  const fs::path one = copy_of(kC010Onnx, "fix-c010-onnx");
  auto d = condlint("fix --diff --no-runtime-proof " + shell_quote(one.string()));
  EXPECT_EQ(d.exit_code, 1) << d.out;
  EXPECT_NE(d.out.find(one.string() + ": C010: If 'If_0' output 0 declared [?] (was [2]): the union of what its "
                                      "branches give, [2] and [3]\n"),
            std::string::npos)
      << d.out;
  const fs::path out = one.parent_path() / "fixed.onnx";
  expect_fixed_clean(one, out, "C010", "fixed C010: If 'If_0' output 0 declared [?]");
  EXPECT_EQ(declared_output(one, "y"), "1[2]");
  EXPECT_EQ(declared_output(out, "y"), "1[?]") << "a dim with neither value nor param";
  const fs::path both = copy_of(kC010OnnxBoth, "fix-c010-onnx-both");
  const fs::path out2 = both.parent_path() / "fixed.onnx";
  expect_fixed_clean(both, out2, "C010", "fixed C010: If 'If_0' output 0 declared [3] (was [2])");
  EXPECT_EQ(declared_output(out2, "y"), "1[3]");
}

// ONNX, C010, an If output that is not a graph output: its value_info is rewritten (dim 0 a dim with neither value
// nor param), the graph output computed from it left as it is.
TEST(Fix, OnnxValueInfoOfAnIfOutputBecomesTheUnion) {
  const fs::path m = copy_of(kC010Onnx, "fix-c010-onnx-vi");
  onnx::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(slurp(m)));
  onnx::GraphProto& g = *p.mutable_graph();
  ASSERT_EQ(g.node(0).op_type(), "If");
  g.mutable_node(0)->set_output(0, "mid");  // If -> mid -> Unsqueeze -> y: mid declared [2], y [n,1]
  onnx::NodeProto& u = *g.add_node();
  u.set_op_type("Unsqueeze");
  u.set_name("Unsqueeze_0");
  u.add_input("mid");
  u.add_input("axes");
  u.add_output("y");
  onnx::TensorProto& axes = *g.add_initializer();
  axes.set_name("axes");
  axes.set_data_type(onnx::TensorProto::INT64);
  axes.add_dims(1);
  axes.add_int64_data(1);
  onnx::ValueInfoProto& vi = *g.add_value_info();
  vi.set_name("mid");
  vi.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  vi.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  g.mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
  g.mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  write_file(m, bytes);
  const fs::path out = m.parent_path() / "fixed.onnx";
  expect_fixed_clean(m, out, "C010", "fixed C010: If 'If_0' output 0 declared [?] (was [2])");
  onnx::ModelProto f;
  ASSERT_TRUE(f.ParseFromString(slurp(out)));
  ASSERT_EQ(f.graph().value_info_size(), 1);
  const auto& shape = f.graph().value_info(0).type().tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 1);
  EXPECT_FALSE(shape.dim(0).has_dim_value());
  EXPECT_FALSE(shape.dim(0).has_dim_param());
  EXPECT_EQ(declared_output(out, "y"), "1[n,1]") << "not the If's output: left as it is";
}

// ONNX, C007: the declared element type becomes the one both branches give (ONNX Runtime refuses the original and
// runs the fixed model); branches of two types (C006) leave it alone.
TEST(Fix, OnnxDeclaredTypeBecomesTheBranchesType) {
  const fs::path m = copy_of(kC007Onnx, "fix-c007-onnx");
  auto lint = condlint("lint --show all " + shell_quote(m.string()));
  EXPECT_EQ(count(lint.out, "[C007] (fixable)"), 1) << "one fix per output\n" << lint.out;
  const fs::path out = m.parent_path() / "fixed.onnx";
  expect_fixed_clean(m, out, "C007", "fixed C007: If 'If_0' output 0 declared f32 (was i64)");
  EXPECT_EQ(declared_output(out, "y").substr(0, 2), "1[") << declared_output(out, "y");  // FLOAT
  const fs::path c006 = copy_of("corpus/onnx/invalid/C006_branch_types.onnx", "fix-c006-onnx");
  auto n = condlint("fix --diff --no-runtime-proof " + shell_quote(c006.string()));
  EXPECT_NE(n.out.find("summary: 0 fixes"), std::string::npos) << n.out;
}

// IR: the If's output port states OpenVINO's If-8 union of the branches (an interval for two static dims, another
// rank where both branches give one) and the precision both give; only those bytes change.
TEST(Fix, IrDeclaredShapeAndTypeBecomeWhatTheBranchesGive) {
  const fs::path m = copy_of(kC010Ir, "fix-c010-ir");
  auto d = condlint("fix --diff --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_EQ(d.exit_code, 1) << d.out;
  EXPECT_NE(d.out.find("@@ -38,1 +38,1 @@\n-                    <dim>2</dim>\n+                    <dim>2..3</dim>\n"),
            std::string::npos)
      << d.out;
  expect_fixed_clean(m, m.parent_path() / "fixed.xml", "C010",
                     "fixed C010: If 'if' output 0 declared [2..3] (was [2])");
  EXPECT_EQ(slurp(m.parent_path() / "fixed.xml").size(), slurp(m).size() + 3);
  // Both branches [3], the port declared [2]: [3].
  const fs::path both3 = copy_of(kC010IrBoth, "fix-c010-ir-both3");
  expect_fixed_clean(both3, both3.parent_path() / "fixed.xml", "C010",
                     "fixed C010: If 'if' output 0 declared [3] (was [2]): the union of what its branches give, [3] "
                     "and [3]");
  // Both branches [3], the port declared [2,1]: another rank, the dims replaced.
  const fs::path both = copy_of(kC010IrBoth, "fix-c010-ir-both");
  std::string xml = slurp(both);
  const size_t at = xml.find("<dim>2</dim>", xml.find("<output>\n                <port id=\"3\""));
  ASSERT_NE(at, std::string::npos);
  xml.insert(at + 12, "\n                    <dim>1</dim>");
  write_file(both, xml);
  d = condlint("fix --diff --no-runtime-proof " + shell_quote(both.string()));
  EXPECT_NE(d.out.find("-                    <dim>2</dim>\n-                    <dim>1</dim>\n"
                       "+                    <dim>3</dim>\n"),
            std::string::npos)
      << d.out;
  expect_fixed_clean(both, both.parent_path() / "fixed.xml", "C010", "declared [3] (was [2,1])");
  // C007: the precision of the If's output port.
  const fs::path t = copy_of(kC007Ir, "fix-c007-ir");
  d = condlint("fix --diff --no-runtime-proof " + shell_quote(t.string()));
  EXPECT_NE(d.out.find("-                <port id=\"2\" precision=\"I64\">\n"
                       "+                <port id=\"2\" precision=\"FP32\">\n"),
            std::string::npos)
      << d.out;
  expect_fixed_clean(t, t.parent_path() / "fixed.xml", "C007", "fixed C007: If 'if' output 0 declared f32 (was i64)");
  const fs::path c006 = copy_of("corpus/ir/invalid/C006_branch_types_declared.xml", "fix-c006-ir");
  auto n = condlint("fix --diff --no-runtime-proof " + shell_quote(c006.string()));
  EXPECT_NE(n.out.find("summary: 0 fixes"), std::string::npos) << n.out;
}

// A real torchvision export (TorchScript, batched_nms with its empty-input guard) whose graph output `keep` is
// declared at the size it has on the model's golden data, [8], instead of its symbolic `k`: the then branch (no
// boxes) gives [0], which ONNX Runtime reports when it runs (VerifyOutputSizes). Fixed to onnx's union of [0] and [?],
// proven on the golden data and the inputs synthesized for the empty case, and lint-clean of C010.
TEST(Fix, ATorchvisionExportsDeclaredOutputShapeBecomesTheUnion) {
  const fs::path d = fresh_dir("fix-c010-nms");
  fs::copy(source_dir() / "corpus-modern/onnx/ts_batched_nms_opset11", d, fs::copy_options::recursive);
  const fs::path m = d / "ts_batched_nms_opset11.onnx";
  onnx::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(slurp(m)));
  ASSERT_EQ(p.graph().output(0).name(), "keep");
  auto* dim =
      p.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  ASSERT_EQ(dim->dim_param(), "k");
  dim->set_dim_value(8);
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  write_file(m, bytes);
  auto lint = condlint("lint --show all " + shell_quote(m.string()));
  EXPECT_NE(lint.out.find("declared [8] but the then branch gives [0]"), std::string::npos) << lint.out;
  EXPECT_NE(lint.out.find("[C010] (fixable)"), std::string::npos) << lint.out;
  const fs::path out = d / "fixed.onnx";
  expect_fixed_clean(m, out, "C010", "fixed C010: If 'If_5' output 0 declared [?] (was [8]): the union of what its "
                                     "branches give, [0] and [?]");
  EXPECT_EQ(declared_output(out, "keep"), "7[?]");
  auto again = condlint("lint " + shell_quote(out.string()));
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

}  // namespace
