// Runs the Android NNAPI control-flow CTS vectors (../shared/corpus/nnapi-cts) with the reference executor.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "exec/nnapi_exec.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::exec;

TEST(ExecNnapiConformance, CtsVectors) {
  const fs::path dir = condlint::test::shared_dir() / "corpus" / "nnapi-cts";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) GTEST_SKIP() << dir << " is absent (the shared corpus is not checked out)";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (condlint::format_from_name(e.path()) == condlint::Format::NNAPI) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 700u);
  int passed = 0, failed = 0, unsupported = 0, expected_failures = 0, runs = 0, ifs_both = 0, ifs = 0, golden = 0;
  int no_value = 0, timeouts = 0;
  for (const auto& f : files) {
    RunConfig cfg;
    cfg.limits.timeout_ms = 100;  // Android's default is 2 s; the infinite-loop vectors only need to stop
    const ModelResult r = condlint::test::run_file(f, cfg);
    ASSERT_TRUE(r.error.empty()) << f << ": " << r.error;
    bool ok = r.failed == 0 && r.unsupported == 0;
    for (const auto& c : r.cases) {
      ++runs;
      if (c.message.rfind("failed as expected", 0) == 0) {
        ++expected_failures;
        no_value += c.message.find("has no value") != std::string::npos;
        timeouts += c.message.find("loop timeout") != std::string::npos;
      }
      golden += c.golden && c.status == CaseStatus::Passed;
    }
    for (auto& [p, b] : r.if_coverage) {
      ++ifs;
      ifs_both += b.size() == 2;
    }
    if (ok) ++passed;
    else if (r.failed) {
      ++failed;
      for (const auto& c : r.cases)
        if (c.status != CaseStatus::Passed) ADD_FAILURE() << f.filename() << ": " << c.message;
    } else ++unsupported;
  }
  std::cout << "NNAPI CTS: " << files.size() << " vectors, " << passed << " passed (" << expected_failures
            << " failing as expected), " << failed << " failed, " << unsupported << " unsupported; " << runs
            << " runs; " << ifs_both << " of " << ifs << " IFs ran both branches\n";
  std::cout << golden << " runs compared with golden outputs\n";
  EXPECT_EQ(expected_failures, 11);
  EXPECT_EQ(no_value, 6);  // if_no_value*: the condition operand has no value
  EXPECT_EQ(timeouts, 5);  // while_infinite_loop*: stopped by the loop timeout
  EXPECT_EQ(golden, 752);
  EXPECT_EQ(passed, static_cast<int>(files.size()));
}

// Operation codes are the AIDL numbers, by name or by number: SLICE is 86 (the executor and the loader share one
// table of codes, model/nnapi_data).
TEST(ExecNnapi, OperationsRunByTheirAidlCode) {
  const fs::path dir = condlint::test::temp_dir("nnapi-codes");
  const fs::path model = dir / "slice.nnapi.json";
  std::ofstream(model) << R"({
  "format": "nnapi-model", "version": 1, "name": "slice",
  "main": {
    "operands": [
      {"name": "x", "type": "TENSOR_FLOAT32", "dimensions": [4], "lifetime": "SUBGRAPH_INPUT"},
      {"name": "begin", "type": "TENSOR_INT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [1]},
      {"name": "size", "type": "TENSOR_INT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [2]},
      {"name": "y", "type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"}
    ],
    "operations": [{"type": 86, "inputs": [0, 1, 2], "outputs": [3]}],
    "inputIndexes": [0], "outputIndexes": [3]
  },
  "examples": [{"inputs": [{"data": [1, 2, 3, 4]}], "outputs": [{"data": [2, 3]}]}]
})";
  const ModelResult r = condlint::test::run_file(model, RunConfig{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].status, CaseStatus::Passed) << r.cases[0].message;
  EXPECT_TRUE(r.cases[0].golden);
  fs::remove_all(dir);
}

// A model without examples runs on random inputs made from its declared input operands (`run --random`): named by
// the operand's name, with its dims and type; synthesis and pins then reach the other branch as for the examples.
TEST(ExecNnapi, RandomInputsFromTheDeclaredOperands) {
  const fs::path dir = condlint::test::temp_dir("nnapi-random");
  fs::create_directories(dir);
  auto doc = nlohmann::json::parse(
      condlint::test::slurp(condlint::test::source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json"));
  doc.erase("examples");
  const fs::path model = dir / "no_examples.nnapi.json";
  std::ofstream(model) << doc.dump(2);
  EXPECT_NE(condlint::test::run_file(model, RunConfig{}).error.find("--random N"), std::string::npos);

  RunConfig cfg;
  cfg.random.count = 3;
  cfg.random.ranges["cond"] = {1, 1};  // every random set takes the then branch
  ModelResult r = condlint::test::run_file(model, cfg);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.failed, 0);
  int random_runs = 0;
  for (const auto& c : r.cases) {
    random_runs += c.data_set.rfind("random_", 0) == 0 && c.synthesized.empty();
    EXPECT_FALSE(c.golden);
  }
  EXPECT_EQ(random_runs, 3);
  // The else branch no random set took is reached by an input synthesized from them (cond = false).
  const auto cov = branch_coverage(r);
  ASSERT_EQ(cov.size(), 2u);
  EXPECT_EQ(cov[0].how, "data");
  EXPECT_EQ(cov[1].how, "synthesized");

  RunConfig bad = cfg;
  bad.random.shapes["x"] = {3};
  EXPECT_EQ(condlint::test::run_file(model, bad).error,
            model.string() + ": --input-shapes gives 'x' dim 0 = 3; the model declares 2");
  fs::remove_all(dir);
}
