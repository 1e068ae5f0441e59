// corpus-openvino (IR that OpenVINO 2026.4.1's converter wrote, with OpenVINO's f32 outputs and verdicts): `condlint
// run` runs every IR whole and never disagrees with OpenVINO; `condlint lint` is clean on every IR OpenVINO compiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::test;

namespace {

// The IRs of corpus-openvino (not ops/, op_oracle.py's one-op cases, which IrOpsOracle runs), in path order.
std::vector<fs::path> corpus_irs() {
  std::vector<fs::path> out;
  const fs::path ops = source_dir() / "corpus-openvino" / "ops";
  for (auto it = fs::recursive_directory_iterator(source_dir() / "corpus-openvino"); it != fs::end(it); ++it) {
    if (it->path() == ops) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() == "model.xml") out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(CorpusOpenvino, RunNeverDisagreesWithOpenVinosF32Outputs) {
  int irs = 0, with_data = 0, fully_run = 0;
  for (const fs::path& model : corpus_irs()) {
    ++irs;
    if (!fs::exists(model.parent_path() / "test_data_set_0")) continue;
    ++with_data;
    const auto [r, summary] = run_model(model);
    ASSERT_FALSE(summary.empty()) << model << "\n" << r.out;
    // Every run agrees with OpenVINO where its data is, and no run of a branch fails (a pinned branch of a shape
    // guard is not run: its condition tests shapes).
    EXPECT_NE(summary.find(" 0 failed"), std::string::npos) << model << "\n" << r.out;
    if (summary.find(" 0 unsupported") != std::string::npos) ++fully_run;
    else ADD_FAILURE() << model << " stops at an op the IR executor lacks\n" << r.out;
  }
  EXPECT_GE(irs, 100);
  std::printf("[ figures  ] corpus-openvino: %d IRs, %d with OpenVINO's golden data, %d run whole by condlint\n", irs,
              with_data, fully_run);
}

// Lint by evidence: where OpenVINO compiled an IR for the CPU (MANIFEST.tsv, its own verdict), condlint gives no
// error and no warning; where the CPU plugin refused an If of dynamic rank, IR021 says so.
TEST(CorpusOpenvino, LintIsCleanWhereOpenVinoCompilesAndNamesTheRankRefusal) {
  std::map<std::string, std::string> compile;  // "modern/x/fp16" -> OpenVINO's compile verdict
  std::istringstream manifest(slurp(source_dir() / "corpus-openvino" / "MANIFEST.tsv"));
  for (std::string line; std::getline(manifest, line);) {
    std::vector<std::string> col;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, '\t');) col.push_back(c);
    if (col.size() > 9 && col[0] != "id") compile[col[0] + "/" + col[3]] = col[9];
  }
  int clean = 0, refused = 0;
  for (const fs::path& model : corpus_irs()) {
    const std::string id = fs::relative(model.parent_path(), source_dir() / "corpus-openvino").string();
    ASSERT_TRUE(compile.count(id)) << id << " is not in MANIFEST.tsv";
    const std::string& verdict = compile[id];
    const auto r = run(condlint_cmd() + " lint --show all --fail-on never " + shell_quote(model.string()) + " 2>&1");
    if (verdict == "ok") {
      EXPECT_NE(r.out.find(" 0 errors, 0 warnings"), std::string::npos) << id << ": OpenVINO compiles it\n" << r.out;
      ++clean;
    } else if (verdict.find("If operation with dynamic rank") != std::string::npos) {
      EXPECT_NE(r.out.find("[IR021]"), std::string::npos) << id << ": " << verdict << "\n" << r.out;
      ++refused;
    }
  }
  EXPECT_GE(clean, 80);
  std::printf("[ figures  ] corpus-openvino: %d IRs OpenVINO compiles, all lint-clean; %d refused for a dynamic rank, "
              "each IR021\n", clean, refused);
}

// `diff --runtime ref --runtime openvino` on IRs OpenVINO wrote: the reference executor runs the IR itself (most of
// these the exporter cannot write as ONNX) and OpenVINO reads the same files, compiled in f32. A fixed sample, one IR
// of each source kind with golden data; tools/openvino_corpus/diff_all.sh runs every IR and writes the figures in
// docs/openvino-corpus.md.
TEST(CorpusOpenvino, DiffAgainstOpenVinoAgreesOnASample) {
  const char* env = std::getenv("CONDLINT_PYTHON");
  const std::string py = env && *env ? env : (source_dir() / "tools/venv/bin/python").string();
  if (run(shell_quote(py) + " -c 'import openvino, numpy' 2>/dev/null").exit_code != 0)
    GTEST_SKIP() << py << " with openvino is absent (scripts/install-deps.sh installs it)";
  const fs::path root = source_dir() / "corpus-openvino";
  for (const char* rel : {"npm/@ricky0123+vad-web@0.0.31/silero_vad_legacy/fp16/model.xml",
                          "modern/ts_fasterrcnn_tiny_opset11/fp32/model.xml", "valid/nested_ifs/fp32/model.xml"}) {
    const fs::path xml = root / rel;
    const auto r = run(condlint_cmd() + " diff " + shell_quote(xml.string()) + " --runtime ref --runtime openvino");
    EXPECT_EQ(r.exit_code, 0) << xml << "\n" << r.out;
    EXPECT_NE(r.out.find(" 0 diverge, 0 failed"), std::string::npos) << xml << "\n" << r.out;
    EXPECT_EQ(r.out.find(" 0 agree"), std::string::npos) << xml << "\n" << r.out;
    EXPECT_NE(r.out.find("compiled for CPU in f32"), std::string::npos) << r.out;
  }
}
