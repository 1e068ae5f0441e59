// Live target checks (`lint --target` where the runtime is installed): diff/live_check's child processes, the
// rules ORT002 and OV002 over the verdicts, and the lint session's note when a runtime is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "diff/live_check.hpp"
#include "rules/support/live_refusals.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace live_targets_test {

// The `live:` verdicts the corpus records, for one runtime: (model, stage) pairs.
struct Recorded {
  std::string model, version, stage, message;
};
std::vector<Recorded> recorded(const std::string& runtime) {
  std::vector<Recorded> out;
  for (const auto& e : fs::recursive_directory_iterator(source_dir() / "corpus")) {
    if (e.path().extension() != ".expect") continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("live: " + runtime + "|", 0) != 0) continue;
      std::vector<std::string> parts;
      std::istringstream ss(line.substr(6));
      for (std::string p; parts.size() < 3 && std::getline(ss, p, '|');) parts.push_back(p);
      std::string rest;
      std::getline(ss, rest);
      for (const char* ext : {".onnx", ".xml"}) {
        fs::path model = e.path();
        model.replace_extension(ext);
        if (fs::exists(model)) out.push_back({model.string(), parts[1], parts[2], rest});
      }
    }
  }
  return out;
}

// A stand-in for the ONNX Runtime adapter's --check mode: a model whose name says crash, hang or grow does that.
constexpr const char* kFakeAdapter = R"(
const fs = require('fs');
const [list, results] = process.argv.slice(3);
fs.appendFileSync(results, JSON.stringify({ version: '0.0.1-fake' }) + '\n');
const models = JSON.parse(fs.readFileSync(list, 'utf8'));
let keep = [];
models.forEach((m, i) => {
  if (m.includes('crash')) process.kill(process.pid, 'SIGSEGV');
  if (m.includes('hang')) for (;;) {}
  // Grows until it is stopped: only the memory limit can end it (then it hangs, for a limit that failed to show).
  if (m.includes('grow')) { for (let k = 0; k < 256; k++) keep.push(Buffer.alloc(16 << 20, 1)); for (;;) {} }
  fs.appendFileSync(results, JSON.stringify(m.includes('bad') ? { i, ok: false, stage: 'optimizations off',
    error: 'Node (If_0) says no' } : { i, ok: true }) + '\n');
});
)";

}  // namespace live_targets_test

using namespace live_targets_test;

TEST(LiveTargets, RecordedVerdictsAreTheInstalledRuntimes) {
  int checked = 0;
  std::string skipped;
  for (const std::string runtime : {"onnxruntime", "openvino"}) {
    const auto cases = recorded(runtime);
    ASSERT_FALSE(cases.empty()) << "no corpus case records a verdict of " << runtime;
    std::vector<diff::ViewPlan> files;
    for (const auto& c : cases) {
      const LoadResult lr = load_file(c.model);
      ASSERT_TRUE(lr.model) << c.model;
      files.push_back(diff::plan_view(*lr.model));
    }
    const diff::LiveCheck lc = diff::check_live(runtime, files);
    if (!lc.available) {
      skipped += runtime + ": " + lc.unavailable + "; ";
      continue;
    }
    EXPECT_EQ(lc.processes, 1) << "one process per batch";
    for (size_t k = 0; k < cases.size(); ++k) {
      ++checked;
      EXPECT_TRUE(lc.verdicts[k].refused) << cases[k].model << " loads in " << runtime << " " << lc.version;
      if (lc.version != cases[k].version) continue;  // another release may word it otherwise
      EXPECT_EQ(lc.verdicts[k].stage, cases[k].stage) << cases[k].model;
      Model m;
      m.path = cases[k].model;
      EXPECT_EQ(live::clean_message(m, lc.verdicts[k].message), live::clean_message(m, cases[k].message))
          << cases[k].model;
    }
  }
  if (checked == 0) GTEST_SKIP() << "no runtime installed: " << skipped;
}

TEST(LiveTargets, ACrashAHangOrGrowthRefusesThatModelAndTheBatchGoesOn) {
  if (run("command -v node >/dev/null").exit_code != 0) GTEST_SKIP() << "node is not on PATH (the stand-in needs it)";
  const fs::path dir = fresh_dir("live_fake");
  write_file(dir / "fake.js", kFakeAdapter);
  setenv("CONDLINT_ORT_ADAPTER", (dir / "fake.js").c_str(), 1);
  const auto plans = [&](const std::vector<std::string>& names) {
    std::vector<diff::ViewPlan> v;
    for (const auto& n : names) {
      write_file(dir / n, "x");
      v.push_back(diff::plan_file((dir / n).string()));
    }
    return v;
  };
  // Each limit is provoked where no other can come first, however busy the machine: the memory limit and a crash
  // with a time limit no run reaches; the time limit by a model that only hangs, its memory unlimited.
  diff::LiveLimits limits;
  limits.per_model_ms = 600'000;
  limits.base_memory_bytes = int64_t{400} << 20;
  const std::vector<std::string> files = {"a.onnx", "crash.onnx", "b_bad.onnx", "grow.onnx", "c.onnx"};
  const diff::LiveCheck lc = diff::check_live("onnxruntime", plans(files), limits);
  diff::LiveLimits quick;
  quick.per_model_ms = 3000;
  quick.base_memory_bytes = 0;
  quick.memory_per_file_byte = 0;
  const diff::LiveCheck hang = diff::check_live("onnxruntime", plans({"d.onnx", "hang.onnx", "e.onnx"}), quick);
  unsetenv("CONDLINT_ORT_ADAPTER");
  ASSERT_TRUE(lc.available) << lc.unavailable;
  EXPECT_EQ(lc.version, "0.0.1-fake");
  EXPECT_EQ(lc.processes, 3);  // the first, and one after each model that stopped a process
  ASSERT_EQ(lc.verdicts.size(), files.size());
  for (size_t k : {0u, 4u}) EXPECT_TRUE(lc.verdicts[k].checked && !lc.verdicts[k].refused) << files[k];
  EXPECT_EQ(lc.verdicts[1].message, "its process died of signal 11 loading the model");
  EXPECT_TRUE(lc.verdicts[2].refused);
  EXPECT_EQ(lc.verdicts[2].message, "Node (If_0) says no");
  EXPECT_NE(lc.verdicts[3].message.find("its process was stopped when it passed"), std::string::npos)
      << lc.verdicts[3].message;
  ASSERT_TRUE(hang.available) << hang.unavailable;
  EXPECT_EQ(hang.processes, 2);
  EXPECT_TRUE(hang.verdicts[0].checked && !hang.verdicts[0].refused);
  EXPECT_EQ(hang.verdicts[1].message, "its process was stopped after 3000 ms loading the model");
  EXPECT_TRUE(hang.verdicts[2].checked && !hang.verdicts[2].refused);
}

TEST(LiveTargets, RuntimeWordsNameTheNodeOrTheModel) {
  LoadResult lr = load_file((source_dir() / "corpus/onnx/invalid/OV002_dynamic_rank_if.onnx").string());
  ASSERT_TRUE(lr.model);
  const Model& m = *lr.model;
  auto path = [&](const std::string& words) {
    const auto [g, n] = live::node_named(m, words);
    return g < 0 ? std::string("model") : m.path_of(g, n);
  };
  EXPECT_EQ(path("Node (If_guard) Op (If) [TypeInferenceError] Graph attribute inferencing failed: Node (LSTM_0) Op"),
            "main/LSTM_0");  // the innermost node named
  EXPECT_EQ(path("Node (If_guard) Op (If) failed: Node (no_such) Op"), "main/If_guard");
  EXPECT_EQ(path("doesn't support If operation with dynamic rank. Operation name: If_guard\n"), "main/If_guard");
  EXPECT_EQ(path("With friendly_name 'If_guard'"), "main/If_guard");
  EXPECT_EQ(path("Protobuf parsing failed."), "model");
  EXPECT_EQ(path("Node (not_a_node) failed"), "model");
  Model named;
  named.path = "/some/dir/m.onnx";
  EXPECT_EQ(live::clean_message(named, "Load model from /some/dir/m.onnx failed:Node (If_0)   bad\n\n"),
            "Node (If_0) bad");
  EXPECT_EQ(live::clean_message(named,
                                "Exception from src/inference/src/cpp/core.cpp:84:\nUnable to read "
                                "\"/some/dir/m.onnx\""),
            "Unable to read \"m.onnx\"");
}

TEST(LiveTargets, AnAbsentRuntimeIsSaidOnceAndTheProfileJudges) {
  const auto r = run("CONDLINT_PYTHON=/nonexistent/python " + condlint_cmd() + " lint " +
                     shell_quote((source_dir() / "corpus/onnx/invalid/OV002_dynamic_rank_if.onnx").string()) + " " +
                     shell_quote((source_dir() / "corpus/onnx/invalid/OV001_nested_32.onnx").string()) +
                     " '--target=openvino>=2025.0' 2>&1");
  EXPECT_EQ(count(r.out, "OpenVINO is not installed here"), 1) << r.out;
  EXPECT_NE(r.out.find("OV001"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[OV002]"), std::string::npos) << r.out;
}

TEST(LiveTargets, RealWorldModelsUnderBothTargets) {
  const fs::path models = source_dir() / "tools/models";
  if (!fs::exists(models)) GTEST_SKIP() << "tools/models is absent (scripts/install-deps.sh fetches the npm models)";
  const auto ort = run(condlint_cmd() + " lint '--target=onnxruntime>=1.17' " + shell_quote(models.string()) + " 2>&1");
  const auto ov = run(condlint_cmd() + " lint '--target=openvino>=2025.0' " + shell_quote(models.string()) + " 2>&1");
  if ((ort.out + ov.out).find("is not installed here") != std::string::npos)
    GTEST_SKIP() << "a runtime is absent:\n" << ort.out << ov.out;
  // ONNX Runtime 1.30.0 loads all 18 models, with optimizations off and on: no ORT002. The one error is the static
  // profile's: silero_vad_op18_ifless has IR version 10, which ONNX Runtime reads from 1.18 on (ORT001).
  EXPECT_EQ(count(ort.out, "[ORT002]"), 0) << ort.out;
  EXPECT_EQ(count(ort.out, "[ORT001]"), 1) << ort.out;
  EXPECT_NE(ort.out.find("18 files checked: 1 error, 0 warnings"), std::string::npos) << ort.out;
  // OpenVINO 2026.4.1 refuses 8 at read_model: the seven Silero VAD models whose If branches hold a Conv of unknown
  // input rank (its ONNX reader needs the rank), and hey_jarvis, whose If condition is bool[1,1] (ONNX allows any
  // single-element tensor; OpenVINO's If takes rank 0 or 1). Each is OV002 and nothing else.
  EXPECT_EQ(ov.exit_code, 1) << ov.out;
  EXPECT_NE(ov.out.find("18 files checked: 8 errors, 0 warnings"), std::string::npos) << ov.out;
  EXPECT_EQ(count(ov.out, "[OV002]"), 8) << ov.out;
}

// The README's "Why" section on OpenVINO's IR reader, each claim shown by OpenVINO itself on its corpus case
// (tools/openvino/ov_reader_facts.py, one Python process for all of them).
TEST(LiveTargets, OpenVinoReaderClaims) {
  const char* env = std::getenv("CONDLINT_PYTHON");
  const std::string py = env && *env ? env : (source_dir() / "tools/venv/bin/python").string();
  const auto r =
      run(shell_quote(py) + " " + shell_quote((source_dir() / "tools/openvino/ov_reader_facts.py").string()) + " " +
          shell_quote((source_dir() / "corpus").string()) + " 2>/dev/null");
  if (r.exit_code != 0) GTEST_SKIP() << py << " with openvino is absent (scripts/install-deps.sh installs it)";
  const auto facts = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(facts.is_object()) << r.out;
  SCOPED_TRACE("OpenVINO " + facts.value("version", std::string()));
  // Two then_port_map inputs for external port 1: the first entry binds Parameter 'a', 'b' is left unbound, and
  // the model compiles (IR009).
  const auto& dup = facts["duplicate_port_map"];
  EXPECT_EQ(dup["then_parameters"], nlohmann::json::parse(R"(["a","b"])")) << dup;
  EXPECT_EQ(dup["then_bound"], nlohmann::json::parse(R"(["a"])")) << dup;
  EXPECT_EQ(dup["compile"], "") << dup;
  // A then_body Parameter declared i64 bound to an f32 outer input comes out f32 (C008).
  const auto& type = facts["parameter_type"];
  EXPECT_EQ(type["outer_type"], "f32") << type;
  EXPECT_EQ(type["then_parameter_type"], "f32") << type;
  EXPECT_EQ(type["compile"], "") << type;
  // An else_body with more outputs than the If: read_model keeps both of else's output descriptions (not
  // truncated), and compile_model then fails inside a graph pass (C005).
  const auto& more = facts["else_more_outputs"];
  EXPECT_EQ(more["if_outputs"], 1) << more;
  EXPECT_EQ(more["else_results"], 2) << more;
  EXPECT_EQ(more["else_output_descriptions"], 2) << more;
  EXPECT_NE(more["compile"].get<std::string>().find("node index is out of range"), std::string::npos) << more;
  // The other way round (then maps an output else does not) read_model refuses, naming it (C005).
  EXPECT_NE(facts["then_more_outputs"]
                .value("read_model_refuses", std::string())
                .find("Incorrect associating in "
                      "else_body"),
            std::string::npos)
      << facts["then_more_outputs"];
  // An f32 condition is read and compiled (C002).
  const auto& cond = facts["condition_type"];
  EXPECT_EQ(cond["condition_type"], "f32") << cond;
  EXPECT_EQ(cond["compile"], "") << cond;
}

// `diff --runtime openvino` on an IR reads the IR itself (no export), each pinned variant with its conditions
// replaced by constants; three runtimes compare each with the first.
TEST(DiffOpenvinoIr, NestedIfOnThreeRuntimesPerBranch) {
  const fs::path model = source_dir() / "corpus/ir/exec/nested_if/nested_if.xml";
  const fs::path work = fresh_dir("diff_ov_ir");
  const auto r =
      run(condlint_cmd() + " diff " + shell_quote(model.string()) +
          " --runtime ref --runtime openvino --runtime onnxruntime --work-dir " + shell_quote(work.string()) + " 2>&1");
  if (r.out.find("needs") != std::string::npos && r.exit_code == 2) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("(ref vs openvino)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(ref vs onnxruntime)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("diverge:"), std::string::npos) << r.out;
}

// OpenVINO pins an If inside a Loop body (main/loop/body/step_if) and an If whose name holds a slash (if/cond).
TEST(DiffOpenvinoIr, PinsReachIfsInLoopBodiesAndIfsNamedWithSlashes) {
  for (const char* f : {"corpus/ir/valid/if_in_loop.xml", "corpus/ir/valid/spec_if_example.xml"}) {
    const auto r = run(condlint_cmd() + " diff " + shell_quote((source_dir() / f).string()) +
                       " --runtime ref --runtime openvino --random 2 2>&1");
    if (r.out.find("needs") != std::string::npos && r.exit_code == 2) GTEST_SKIP() << r.out;
    EXPECT_EQ(r.exit_code, 0) << f << "\n" << r.out;
    // 2 random sets on the model as given and on each If pinned to each branch (6 runs), and where the random sets
    // all take one branch, a set synthesized to take the other (the reference executor runs the IR itself).
    EXPECT_NE(r.out.find(" 0 diverge, 0 failed, 0 not comparable"), std::string::npos) << f << "\n" << r.out;
    EXPECT_TRUE(r.out.find("6 agree, 0 diverge") != std::string::npos ||
                r.out.find("7 agree, 0 diverge") != std::string::npos)
        << f << "\n" << r.out;
    EXPECT_NE(r.out.find("openvino: compiled for CPU in f32 (INFERENCE_PRECISION_HINT)"), std::string::npos) << r.out;
  }
}

// Without onnxruntime-node, ONNX Runtime from PyPI (tools/venv) gives the verdicts, worded as the npm package's.
TEST(LiveTargets, OnnxRuntimeFromPyPIWhereTheNpmPackageIsAbsent) {
  setenv("CONDLINT_ORT_ADAPTER", "/nonexistent/ort_run.js", 1);
  const std::vector<std::string> files = {(source_dir() / "corpus/onnx/invalid/ORT002_branch_types.onnx").string(),
                                          (source_dir() / "corpus/onnx/valid/downstream_broadcast.onnx").string()};
  const diff::LiveCheck lc = diff::check_live("onnxruntime", {diff::plan_file(files[0]), diff::plan_file(files[1])});
  unsetenv("CONDLINT_ORT_ADAPTER");
  if (!lc.available) GTEST_SKIP() << "onnxruntime from PyPI is absent: " << lc.unavailable;
  ASSERT_EQ(lc.verdicts.size(), 2u);
  EXPECT_TRUE(lc.verdicts[0].refused);
  EXPECT_EQ(lc.verdicts[0].stage, "optimizations off");
  Model m;
  m.path = files[0];
  EXPECT_EQ(live::clean_message(m, lc.verdicts[0].message),
            "Node (If_0) Op (If) [TypeInferenceError] Mismatched tensor element type: inferred=int64 declared=float");
  EXPECT_TRUE(lc.verdicts[1].checked && !lc.verdicts[1].refused) << lc.verdicts[1].message;
}
