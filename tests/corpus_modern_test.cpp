// corpus-modern/: real exports of today's and recent exporters (tools/modern_corpus/generate.sh), with the verdicts
// of onnx and ONNX Runtime in MANIFEST.tsv. condlint must be silent (no error, no warning) on every model both accept,
// count the Ifs inside model-local functions, and run every If of the exports it executes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "test_support.hpp"

using namespace condlint;
using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

const fs::path cm_dir() { return source_dir() / "corpus-modern"; }

// The MANIFEST rows, each a map from column to value.
std::vector<std::map<std::string, std::string>> cm_manifest() { return read_tsv(cm_dir() / "MANIFEST.tsv"); }

std::string cm_model(const std::string& stem) { return (cm_dir() / "onnx" / stem / (stem + ".onnx")).string(); }

// Lines of `out` that start with `prefix` and contain `part`.
size_t cm_count_lines(const std::string& out, const std::string& prefix, const std::string& part) {
  size_t n = 0;
  std::stringstream ss(out);
  std::string line;
  while (std::getline(ss, line))
    if (line.rfind(prefix, 0) == 0 && line.find(part) != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST(CorpusModern, WhatBothOraclesAcceptLintsWithoutErrorsOrWarnings) {
  std::string files;
  int accepted = 0;
  for (const auto& row : cm_manifest()) {
    const auto& f = row.at("file");
    if (!row.at("export_error").empty() || row.at("check_model_full") != "ok" || row.at("strict_inference") != "ok" ||
        row.at("ort_load") != "ok" || row.at("ort_run").rfind("ok", 0) != 0)
      continue;
    files += " " + shell_quote((cm_dir() / f).string());
    ++accepted;
  }
  ASSERT_GE(accepted, 49) << "MANIFEST.tsv lists fewer accepted models than the corpus holds";
  const CmdResult r = run(condlint_cmd() + " lint" + files + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(accepted) + " files checked: 0 errors, 0 warnings"), std::string::npos) << r.out;
}

TEST(CorpusModern, TorchLibFunctionIfsAreCountedAndRunPerCallSite) {
  // torch 2.4's dynamo_export: aten_mean_dim (2 Ifs, one nested), aten_t (1) and aten_softmax_no_dtype (2) are
  // model-local functions; aten_t is called by each of the 8 Linear layers.
  const std::string model = cm_model("dynamo_export_llama_functions_opset18");
  const CmdResult lint = run(condlint_cmd() + " -v lint " + shell_quote(model) + " 2>&1");
  EXPECT_NE(lint.out.find("5 conditionals"), std::string::npos) << lint.out;
  EXPECT_NE(lint.out.find("0 errors, 0 warnings"), std::string::npos) << lint.out;
  const CmdResult r = run(condlint_cmd() + " run " + shell_quote(model) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(" 0 failed"), std::string::npos) << r.out;
  EXPECT_EQ(cm_count_lines(r.out, "  If main/", "/aten_t_2/n4:"), 8u) << r.out;
  EXPECT_EQ(cm_count_lines(r.out, "  If main/", "/aten_softmax_no_dtype_"), 2u) << r.out;
  EXPECT_EQ(cm_count_lines(r.out, "  If function:", ""), 0u) << r.out;  // each ran through its calls
  EXPECT_EQ(r.out.find("no run reached"), std::string::npos) << r.out;
}

TEST(CorpusModern, OptimumMergedDecoderRunsBothCacheBranches) {
  // optimum's merged Whisper decoder: one If on the input use_cache_branch; the golden data takes the cache branch,
  // an input condlint synthesizes the other.
  const std::string model = cm_model("optimum_whisper_decoder_merged");
  const CmdResult lint = run(condlint_cmd() + " -v lint " + shell_quote(model) + " 2>&1");
  EXPECT_NE(lint.out.find("1 conditionals"), std::string::npos) << lint.out;
  EXPECT_NE(lint.out.find("0 errors, 0 warnings, 0 notes"), std::string::npos) << lint.out;
  const CmdResult r = run(condlint_cmd() + " run " + shell_quote(model) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("If main/optimum::if: then data; else synthesized"), std::string::npos) << r.out;
}

TEST(CorpusModern, Tf2onnxIfsLintCleanAndRunEveryBranch) {
  // tf2onnx writes a tf.cond as an If whose branches may differ in shape (relu(x) [N,6] or a mean [N,1]) or in rank
  // ([6] or [2,3]) or in length (tf.boolean_mask), a tf.cond inside a branch as an If that reads the main graph's
  // input two levels up, and a tf.map_fn of a tf.cond as a Loop whose body holds the If. Both oracles accept these;
  // condlint gives no error or warning and runs every branch (the data takes one, pinning the others).
  const std::pair<const char*, int> cases[] = {
      {"tf2onnx_cond_differing_shapes_opset", 1}, {"tf2onnx_cond_differing_ranks_opset", 1},
      {"tf2onnx_nested_cond_opset", 2},           {"tf2onnx_keras_gated_block_opset", 1},
      {"tf2onnx_cond_boolean_mask_opset", 1},     {"tf2onnx_map_fn_cond_opset", 1}};
  for (const auto& [prefix, ifs] : cases) {
    for (const char* opset : {"13", "17", "18"}) {
      const std::string model = cm_model(std::string(prefix) + opset);
      const CmdResult lint = run(condlint_cmd() + " -v lint " + shell_quote(model) + " 2>&1");
      EXPECT_EQ(lint.exit_code, 0) << lint.out;
      EXPECT_NE(lint.out.find(" " + std::to_string(ifs) + " conditionals"), std::string::npos) << lint.out;
      // Silent but for C011's note where the branches' inferred shapes differ (tf.cond of [6] or [2,3]).
      EXPECT_NE(lint.out.find("0 errors, 0 warnings"), std::string::npos) << lint.out;
      const CmdResult r = run(condlint_cmd() + " run " + shell_quote(model) + " 2>&1");
      EXPECT_EQ(r.exit_code, 0) << r.out;
      EXPECT_NE(r.out.find(" 0 failed"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(" 0 dead, 0 behind shape guards (not pinned), 0 not covered (reason given), 0 not run"),
                std::string::npos)
          << r.out;
    }
  }
}

TEST(CorpusModern, Tf2onnxLoopsRunAgainstOnnxRuntime) {
  // tf.while_loop decoders: a tf.cond in the Loop body with a TensorArray of tokens, and a token sequence that grows
  // by a column each iteration (a loop-carried value whose shape changes), and Keras' masked LSTM, which tf2onnx writes
  // as a Loop. ONNX Runtime's outputs are the golden data.
  for (const char* stem : {"tf2onnx_while_decode_opset13", "tf2onnx_while_decode_opset18",
                           "tf2onnx_while_growing_sequence_opset13", "tf2onnx_while_growing_sequence_opset18",
                           "tf2onnx_keras_lstm_masked_opset13", "tf2onnx_keras_lstm_masked_opset18"}) {
    const std::string model = cm_model(stem);
    const CmdResult lint = run(condlint_cmd() + " lint " + shell_quote(model) + " 2>&1");
    EXPECT_NE(lint.out.find("0 errors, 0 warnings, 0 notes"), std::string::npos) << lint.out;
    const CmdResult r = run(condlint_cmd() + " run " + shell_quote(model) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("1 passed, 0 failed"), std::string::npos) << r.out;
  }
  const CmdResult r = run(condlint_cmd() + " run " + shell_quote(cm_model("tf2onnx_while_decode_opset18")) + " 2>&1");
  EXPECT_EQ(cm_count_lines(r.out, "  If main/while_loop/body/", "then data; else data"), 1u) << r.out;
}

TEST(CorpusModern, Tf2onnxSwitchCaseIsRejectedLikeTheOraclesDo) {
  // tf2onnx 1.16 has no conversion for TF's Case: it leaves TF's _SwitchN and Merge in the graph, which onnx's
  // checker and ONNX Runtime reject (MANIFEST.tsv); so does condlint.
  const CmdResult r = run(condlint_cmd() + " lint " + shell_quote(cm_model("tf2onnx_switch_case_opset18")) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(cm_count_lines(r.out, cm_model("tf2onnx_switch_case_opset18"), "[ONNX017]"), 2u) << r.out;
  EXPECT_NE(r.out.find("no operator _SwitchN is registered"), std::string::npos) << r.out;
}

TEST(CorpusModern, AttentionModelsRunWholeAgainstTheirGoldenData) {
  // ai.onnx Attention (opset 23) in torch's dynamo export of Phi-3, com.microsoft GroupQueryAttention (packed QKV,
  // rotary from cos/sin caches, an empty past KV cache) in onnxruntime-genai's LLaMA and Phi-3: every output of
  // ONNX Runtime's golden data, the present KV caches too.
  for (const char* stem : {"dynamo_phi3_longrope_opset23", "genai_llama", "genai_phi3_longrope"}) {
    const CmdResult r = run(condlint_cmd() + " run " + shell_quote(cm_model(stem)) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("summary: 1 passed, 0 failed, 0 unsupported"), std::string::npos) << r.out;
  }
}
