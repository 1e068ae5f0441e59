// Replays inputs through the loaders exactly as the fuzz targets (fuzz/*_fuzz.cpp) do:
//   - tests/fuzz_regressions/<target>/*: every crasher the fuzzers found (kept once fixed);
//   - every corpus file and importer fixture through every loader (the CI smoke: cheap, and
//     cross-format bytes are hostile input for the other loaders).
// A crash, hang or sanitizer report here is a regression; the test itself only needs "no crash".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "exec/onnx_io.hpp"
#include "exec/tensor.hpp"
#include "io/mapped_file.hpp"
#include "fuzz/golden_data_replay.hpp"
#include "importers/nnapi_testmodel.hpp"
#include "report/merge.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace condlint;
using condlint::test::slurp;
namespace fs = std::filesystem;

// The body of each fuzz target. Returns the number of findings (any number is fine).
size_t replay(const std::string& target, const std::string& bytes) {
  if (target == "ir_loader_fuzz") {
    auto m = load_ir("fuzz.xml", bytes);
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "onnx_loader_fuzz") {
    auto m = load_onnx("fuzz.onnx", bytes);
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "nnapi_loader_fuzz") {
    auto m = load_nnapi("fuzz.nnapi.json", bytes);
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "tflite_loader_fuzz") {
    auto m = load_tflite("fuzz.tflite", io::MappedFile::from_bytes(bytes));
    return m ? run_rules(*m, RuleSelection{}).size() : 0;
  }
  if (target == "nnapi_testmodel_fuzz") {
    std::vector<ImportedModel> out;
    std::string error;
    (void)convert_nnapi_testmodels(bytes, out, error);
    size_t n = 0;
    for (const auto& im : out) {
      auto m = load_nnapi(im.name + ".nnapi.json", im.json);
      if (m) n += run_rules(*m, RuleSelection{}).size();
    }
    return n;
  }
  if (target == "merge_fuzz") {  // shares separated by NUL bytes, as fuzz/merge_fuzz.cpp splits them
    std::vector<ShardReport> shares;
    std::string_view in(bytes);
    while (shares.size() < 8) {
      const size_t z = in.find('\0');
      shares.push_back({"share" + std::to_string(shares.size() + 1), std::string(in.substr(0, z))});
      if (z == std::string_view::npos) break;
      in.remove_prefix(z + 1);
    }
    const MergeResult m = merge_reports(shares, std::nullopt);
    EXPECT_TRUE(m.error.empty() || m.text.empty());
    return m.error.empty() ? 1 : 0;
  }
  if (target == "golden_data_fuzz") {
    return fuzz::golden_data_replay(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) ? 1 : 0;
  }
  ADD_FAILURE() << "unknown fuzz target " << target << " (a directory under tests/fuzz_regressions/)";
  return 0;
}

const char* const kTargets[] = {"ir_loader_fuzz", "onnx_loader_fuzz", "nnapi_loader_fuzz", "nnapi_testmodel_fuzz",
                                "tflite_loader_fuzz"};

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> v;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "README.md") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(FuzzRegressions, EveryKeptCrasherReplaysWithoutCrashing) {
  const fs::path root = test::source_dir() / "tests/fuzz_regressions";
  size_t replayed = 0;
  for (const auto& f : files_under(root)) {
    const std::string target = f.lexically_relative(root).begin()->string();
    SCOPED_TRACE(f.string());
    (void)replay(target, slurp(f));
    ++replayed;
  }
  std::printf("[ figures  ] %zu fuzz regressions replayed\n", replayed);
}

// Found by golden_data_fuzz: a .npy header declaring 77,777,777 string elements over a few
// bytes of data made the reader allocate the tensor (2.5 GB) before checking the data was there.
TEST(FuzzRegressions, NpyShapeBeyondItsDataIsRejectedBeforeAllocating) {
  const fs::path f = test::source_dir() / "tests/fuzz_regressions/golden_data_fuzz" /
                     "npy-string-shape-beyond-data-oom-5415c21a54f1c26837cdf5985a66dffb19fce87e";
  const std::string bytes = slurp(f).substr(1);  // the first byte is the fuzz target's reader selector
  exec::guard().peak_bytes = 0;
  try {
    (void)exec::read_npy(bytes);
    FAIL() << "read_npy accepted a shape its data cannot hold";
  } catch (const exec::ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("fewer bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(exec::guard().peak_bytes, 0) << "a tensor was allocated before the size check";
  // A string tensor is accounted at its real footprint: 100 M elements exceed the 2 GiB budget.
  EXPECT_THROW(exec::Tensor(exec::DT::Str, exec::Dims{100'000'000}), exec::ExecError);
}

// Found by golden_data_fuzz: a STRING TensorProto with raw_data skipped the declared-size check (raw_data is
// never sized for strings), so its shape was allocated: 23 M strings, 756 MB, from 40 bytes.
TEST(FuzzRegressions, StringTensorWithRawDataIsSizedByItsStrings) {
  const fs::path f =
      test::source_dir() / "tests/fuzz_regressions/golden_data_fuzz/pb-string-tensor-raw-data-shape-oom-malloc756MB";
  const std::string bytes = slurp(f).substr(1);
  exec::guard().peak_bytes = 0;
  EXPECT_THROW((void)exec::read_pb_value(bytes, nullptr), exec::ExecError);
  EXPECT_EQ(exec::guard().peak_bytes, 0) << "a tensor was allocated before the size check";
}

// Found by golden_data_fuzz (UBSan): a .npy shape with a 0 among dims whose product overflows int64 made an
// "empty" tensor whose element count then overflowed. Such a shape is now refused.
TEST(FuzzRegressions, EmptyShapeWhoseOtherDimsOverflowIsRefused) {
  EXPECT_THROW(exec::checked_numel({0, int64_t(1) << 40, int64_t(1) << 40}), exec::ExecError);
  EXPECT_EQ(exec::checked_numel({0, 7, 7}), 0);
  EXPECT_EQ(exec::checked_numel({3, 0}), 0);
  const fs::path f = test::source_dir() / "tests/fuzz_regressions/golden_data_fuzz" /
                     "npy-empty-shape-with-overflowing-dims-ubsan-df386b1f93e1b9ba2d69bf3be76078422310ab70";
  const std::string bytes = slurp(f);
  (void)fuzz::golden_data_replay(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(FuzzSmoke, CorpusAndFixturesThroughEveryLoader) {
  std::vector<fs::path> inputs = files_under(test::source_dir() / "corpus");
  for (const auto& f : files_under(test::source_dir() / "tests/fixtures")) inputs.push_back(f);
  ASSERT_GT(inputs.size(), 50u);
  size_t runs = 0;
  for (const auto& f : inputs) {
    SCOPED_TRACE(f.string());
    const std::string bytes = slurp(f);
    for (const char* t : kTargets) {
      (void)replay(t, bytes);
      ++runs;
    }
  }
  std::printf("[ figures  ] %zu files x %zu loaders replayed\n", inputs.size(), std::size(kTargets));
  EXPECT_EQ(runs, inputs.size() * std::size(kTargets));
}

}  // namespace
