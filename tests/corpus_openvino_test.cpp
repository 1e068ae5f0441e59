// corpus-openvino (IR that OpenVINO 2026.4.1's converter wrote, with OpenVINO's f32 outputs as golden data): what
// `condlint run` computes never disagrees with OpenVINO. An IR that stops at an op the executor lacks is counted, not
// failed (docs/openvino-corpus.md has the figures); a run whose outputs differ from OpenVINO's fails the test.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::test;

TEST(CorpusOpenvino, RunNeverDisagreesWithOpenVinosF32Outputs) {
  int irs = 0, with_data = 0, fully_run = 0;
  for (const auto& e : fs::recursive_directory_iterator(source_dir() / "corpus-openvino")) {
    if (e.path().filename() != "model.xml") continue;
    ++irs;
    if (!fs::exists(e.path().parent_path() / "test_data_set_0")) continue;
    ++with_data;
    const auto r = run(condlint_cmd() + " run " + shell_quote(e.path().string()) + " 2>&1");
    const auto at = r.out.rfind("summary: ");
    ASSERT_NE(at, std::string::npos) << e.path() << "\n" << r.out;
    const std::string summary = r.out.substr(at);
    EXPECT_NE(summary.find(" 0 failed"), std::string::npos) << e.path() << "\n" << r.out;
    if (summary.find(" 0 unsupported") != std::string::npos) ++fully_run;
  }
  EXPECT_GE(irs, 100);
  std::printf("[ figures  ] corpus-openvino: %d IRs, %d with OpenVINO's golden data, %d run whole by condlint\n", irs,
              with_data, fully_run);
}
