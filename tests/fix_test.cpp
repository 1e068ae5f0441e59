// condlint fix (issue 49): the fixes of the findings every report marks fixable, proven before they are written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

}  // namespace
