// ONNX011 by evidence: a branch initializer that shadows an outer initializer with the same element type, dims and
// bytes (as onnxslim copies one into each branch) is a warning, one whose value differs stays an error; both corpus
// cases run, and the equal one runs as ONNX Runtime runs it.
#include <gtest/gtest.h>

#include <string>

#include "tests/test_support.hpp"

using namespace condlint::test;

namespace {

std::string corpus_case(const std::string& stem) {
  return (source_dir() / "corpus" / "onnx" / "invalid" / (stem + ".onnx")).string();
}

}  // namespace

TEST(ONNX011Evidence, EqualValueShadowingIsAWarningInEachBranch) {
  const auto r = run(condlint_cmd() + " lint --show all " +
                   shell_quote(corpus_case("ONNX011_initializer_shadows_equal")) + " 2>&1");
  EXPECT_NE(r.out.find("1 file checked: 0 errors, 2 warnings"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal to the outer value: no runtime can differ (at main/If_0/then) [ONNX011]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(at main/If_0/else) [ONNX011]"), std::string::npos) << r.out;
}

TEST(ONNX011Evidence, DifferingValueShadowingStaysAnError) {
  const auto r = run(condlint_cmd() + " lint " + shell_quote(corpus_case("ONNX011_initializer_shadows")) + " 2>&1");
  EXPECT_NE(r.out.find("1 file checked: 1 error, 0 warnings"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ONNX Runtime 1.32 (at every optimization level) uses the outer value"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("no runtime can differ"), std::string::npos) << r.out;
}
