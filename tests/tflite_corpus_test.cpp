// The pinned corpus of real TFLite models (corpus-tflite/: TensorFlow 2.21's converter, judged by the LiteRT 2.3.0
// interpreter, tools/tflite_corpus/gen.py) and its mutants, held to what the interpreter did with them
// (corpus-tflite/MANIFEST.tsv, corpus-tflite/invalid/MANIFEST.tsv): every model it runs is lint-clean and runs in
// condlint's executor against its outputs, both branches of every IF taken by the data; every mutant it refuses gets
// an error, and one it runs gets none.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "exec/runner.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace {

const fs::path kCorpus = "corpus-tflite";

int count_at(const std::vector<Finding>& fs, Level l) {
  int n = 0;
  for (const Finding& f : fs) n += f.level == l;
  return n;
}

}  // namespace

TEST(CorpusTflite, EveryModelTheInterpreterRunsIsLintClean) {
  const auto rows = read_tsv(source_dir() / kCorpus / "MANIFEST.tsv");
  int models = 0;
  for (const auto& row : rows) {
    if (row.at("interpreter verdict") != "ok") continue;
    const fs::path p = source_dir() / kCorpus / row.at("file");
    const auto fs = lint_file(p.string());
    EXPECT_EQ(count_at(fs, Level::Error) + count_at(fs, Level::Warning), 0) << p << "\n" << dump_findings(fs);
    ++models;
  }
  EXPECT_GE(models, 18);
  std::printf("[ figures ] corpus-tflite: %d models the interpreter runs, all lint-clean\n", models);
}

TEST(CorpusTflite, RunCoversBothBranchesOfEveryIfAgainstTheInterpreter) {
  const auto rows = read_tsv(source_dir() / kCorpus / "MANIFEST.tsv");
  int models = 0, branches = 0;
  for (const auto& row : rows) {
    if (row.at("interpreter verdict") != "ok") continue;
    const fs::path p = source_dir() / kCorpus / row.at("file");
    const exec::ModelResult r = run_file(p);
    ASSERT_TRUE(r.error.empty()) << p << ": " << r.error;
    EXPECT_GT(r.passed, 0) << p;
    EXPECT_EQ(r.failed, 0) << p;
    EXPECT_EQ(r.unsupported, 0) << p;
    for (const auto& c : exec::branch_coverage(r)) {
      EXPECT_EQ(c.how, "data") << p << ": " << c.if_path << (c.branch ? " then" : " else") << " " << c.why;
      ++branches;
    }
    ++models;
  }
  EXPECT_GE(models, 18);
  std::printf("[ figures ] corpus-tflite: %d models run against LiteRT's outputs, %d IF branches taken by the data\n",
              models, branches);
}

TEST(CorpusTflite, MutantsTheInterpreterRefusesGetAnError) {
  const auto rows = read_tsv(source_dir() / kCorpus / "invalid" / "MANIFEST.tsv");
  int refused = 0, ran = 0;
  for (const auto& row : rows) {
    const fs::path p = source_dir() / kCorpus / row.at("file");
    const auto fs = lint_file(p.string());
    const std::string& alloc = row.at("allocate_tensors");
    if (alloc == "ok") {
      // It runs: no error (a contradiction the interpreter accepts is a warning or a note).
      EXPECT_EQ(count_at(fs, Level::Error), 0) << p << "\n" << dump_findings(fs);
      ++ran;
    } else {
      EXPECT_GT(count_at(fs, Level::Error) + count_at(fs, Level::Warning), 0) << p << " (" << alloc << ")\n"
                                                                                << dump_findings(fs);
      ++refused;
    }
  }
  EXPECT_GE(refused + ran, 25);
  std::printf("[ figures ] corpus-tflite mutants: %d the interpreter refuses, each found; %d it runs, none an error\n",
              refused, ran);
}
