// corpus-modern/onnxslim/: what onnxslim 0.1.98 writes of corpus-modern's exports (tools/onnxslim_corpus/gen.py),
// with onnx's and ONNX Runtime's verdicts in MANIFEST.tsv. Where both accept a model condlint gives no error, and no
// warning but ONNX011 on the branch copies of equal outer initializers onnxslim makes (fixable); where onnx's full
// check rejects one, condlint gives an error. `condlint fix` removes the copies, proven (issues 47 and 49).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"

using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

const fs::path slim_dir() { return source_dir() / "corpus-modern" / "onnxslim"; }

std::vector<std::map<std::string, std::string>> slim_manifest() { return read_tsv(slim_dir() / "MANIFEST.tsv"); }

TEST(CorpusOnnxslim, NoErrorWhereOnnxAndOnnxRuntimeAcceptAndOnlyTheFixableCopiesWarn) {
  const auto rows = slim_manifest();
  ASSERT_GE(rows.size(), 50u);
  const auto r = run(condlint_cmd() + " lint --format json --fail-on never " + shell_quote(slim_dir().string()) +
                     " 2>/dev/null");
  const auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, std::vector<nlohmann::json>> by_file;
  for (const auto& f : doc["files"]) by_file[fs::path(f["path"].get<std::string>()).lexically_relative(slim_dir()).string()] = f["findings"];
  size_t accepted = 0, copies = 0, rejected = 0;
  for (const auto& row : rows) {
    if (row.at("status") != "slimmed") continue;
    const std::string& path = row.at("path");
    ASSERT_TRUE(by_file.count(path)) << path << " was not linted";
    const bool onnx_ok = row.at("onnx_full_check") == "ok";
    const bool ort_ok = row.at("ort_enable_all") == "ok" && row.at("ort_disable_all") == "ok";
    int errors = 0;
    for (const auto& x : by_file[path]) {
      const std::string level = x["level"], rule = x["rule"];
      errors += level == "error";
      if (onnx_ok && ort_ok) {
        EXPECT_NE(level, "error") << path << ": " << x.dump();
        if (level == "warning") {
          EXPECT_EQ(rule, "ONNX011") << path << ": " << x.dump();
          EXPECT_EQ(x.value("fixable", ""), "safe") << path << ": " << x.dump();
          ++copies;
        }
      }
    }
    if (onnx_ok && ort_ok) ++accepted;
    if (!onnx_ok) {
      EXPECT_GT(errors, 0) << path << ": onnx's full check rejects it (" << row.at("onnx_full_check") << ")";
      ++rejected;
    }
  }
  std::cout << "[ onnxslim ] " << accepted << " models onnx and ONNX Runtime accept: no error; " << copies
            << " equal branch copies (ONNX011 warnings, fixable); " << rejected << " models onnx rejects: an error each\n";
  EXPECT_GT(copies, 0u);
}

// The copies removed by condlint fix, proven, on a sample (every branch kind: nested Ifs, a Loop body, a detector).
TEST(CorpusOnnxslim, FixRemovesTheCopiesProven) {
  for (const char* name : {"tf2onnx_nested_cond_opset18", "tf2onnx_map_fn_cond_opset18", "ts_fasterrcnn_tiny_opset17"}) {
    const fs::path m = slim_dir() / name / (std::string(name) + ".onnx");
    const fs::path out = fresh_dir(std::string("slimfix-") + name) / "fixed.onnx";
    auto r = run(condlint_cmd() + " fix " + shell_quote(m.string()) + " -o " + shell_quote(out.string()) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.out;
    EXPECT_NE(r.out.find("fixed ONNX011: removed initializer"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("proof: reference executor: "), std::string::npos) << r.out;
    auto lint = run(condlint_cmd() + " lint --show all " + shell_quote(out.string()) + " 2>&1");
    EXPECT_EQ(lint.out.find("[ONNX011]"), std::string::npos) << name << "\n" << lint.out;
    EXPECT_EQ(lint.exit_code, 0) << name << "\n" << lint.out;
  }
}

}  // namespace
