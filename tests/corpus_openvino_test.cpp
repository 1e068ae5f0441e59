// corpus-openvino (IR that OpenVINO 2026.4.1's converter wrote, with OpenVINO's f32 outputs as golden data): what
// `condlint run` computes never disagrees with OpenVINO. An IR that stops at an op the executor lacks is counted, not
// failed (docs/openvino-corpus.md has the figures); a run whose outputs differ from OpenVINO's fails the test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::test;

namespace {

// "summary: 3 passed, 2 failed, 0 unsupported" -> 2 (-1 when the summary says no count of failures).
int failed_count(const std::string& summary) {
  const auto at = summary.find(" failed");
  if (at == std::string::npos) return -1;
  auto b = summary.rfind(' ', at - 1);
  return std::atoi(summary.substr(b + 1, at - b - 1).c_str());
}

// The case lines of a run that failed or mismatched on a pinned branch without golden data.
int pinned_failures(const std::string& out) {
  int n = 0;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if ((line.rfind("  failed  ", 0) == 0 || line.rfind("  mismatch  ", 0) == 0) &&
        line.find("[other branch, no golden data]") != std::string::npos)
      ++n;
  return n;
}

}  // namespace

TEST(CorpusOpenvino, RunNeverDisagreesWithOpenVinosF32Outputs) {
  int irs = 0, with_data = 0, fully_run = 0, with_broken_branch = 0;
  const fs::path ops = source_dir() / "corpus-openvino" / "ops";  // op_oracle.py's cases: IrOpsOracle runs them
  for (auto it = fs::recursive_directory_iterator(source_dir() / "corpus-openvino"); it != fs::end(it); ++it) {
    const auto& e = *it;
    if (e.path() == ops) {
      it.disable_recursion_pending();
      continue;
    }
    if (e.path().filename() != "model.xml") continue;
    ++irs;
    if (!fs::exists(e.path().parent_path() / "test_data_set_0")) continue;
    ++with_data;
    const auto r = run(condlint_cmd() + " run " + shell_quote(e.path().string()) + " 2>&1");
    const auto at = r.out.rfind("summary: ");
    ASSERT_NE(at, std::string::npos) << e.path() << "\n" << r.out;
    const std::string summary = r.out.substr(at);
    // Every run on OpenVINO's data agrees with it. A run of a pinned branch the data does not take (no golden data)
    // may fail: the IR's branch is broken there (an If output of another shape than declared), which is a finding.
    const int failed = failed_count(summary), pinned = pinned_failures(r.out);
    EXPECT_EQ(failed, pinned) << e.path() << "\n" << r.out;
    if (pinned) ++with_broken_branch;
    if (summary.find(" 0 unsupported") != std::string::npos) ++fully_run;
  }
  EXPECT_GE(irs, 100);
  std::printf("[ figures  ] corpus-openvino: %d IRs, %d with OpenVINO's golden data, %d run whole by condlint\n", irs,
              with_data, fully_run);
  std::printf("[ figures  ] corpus-openvino: %d IRs with a pinned branch that fails (no golden data there)\n",
              with_broken_branch);
}
