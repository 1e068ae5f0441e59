// What a new user meets in the first hour (issue 39): global options after the command, the pre-commit hook's
// files, paths that yield no model, unknown formats, help texts, the baseline in text, --show, --pin's "did you
// mean", rule pages, Git LFS pointers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace condlint::test;

namespace {

std::string fh_src(const std::string& rel) { return shell_quote((source_dir() / rel).string()); }

TEST(FirstHour, GlobalOptionsAfterTheCommand) {
  const std::string valid = fh_src("corpus/ir/valid/spec_if_example.xml");
  auto v = run(condlint_cmd() + " lint -v " + valid + " 2>&1");
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_NE(v.out.find("debug"), std::string::npos) << v.out;  // -v took effect: debug lines on stderr
  auto q = run(condlint_cmd() + " lint " + valid + " --quiet 2>&1");
  EXPECT_EQ(q.exit_code, 0) << q.out;
  auto r = run(condlint_cmd() + " rules -q 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace
