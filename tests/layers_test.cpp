// The layers of docs/DESIGN.md are checked on every build (cmake/check_layers.cmake): the tree follows them, and an
// include that goes the wrong way, or a folder with no layer, fails the check.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::test::run;
using condlint::test::shell_quote;

condlint::test::CmdResult check(const fs::path& src) {
  return run("cmake -DSRC=" + shell_quote(src.string()) + " -P " +
             shell_quote((condlint::test::source_dir() / "cmake/check_layers.cmake").string()) + " 2>&1");
}

TEST(Layers, TheTreeFollowsThem) {
  const auto r = check(condlint::test::source_dir() / "src");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(Layers, AWrongWayIncludeOrAFolderWithNoLayerFailsTheCheck) {
  const fs::path copy = condlint::test::temp_dir("layers") / "src";
  fs::remove_all(copy);
  fs::create_directories(copy.parent_path());
  fs::copy(condlint::test::source_dir() / "src", copy, fs::copy_options::recursive);
  std::ofstream(copy / "model" / "types.hpp", std::ios::app) << "\n#include \"report/report.hpp\"\n";
  auto r = check(copy);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("src/model/ may include only io;model"), std::string::npos) << r.out;

  std::ofstream(copy / "model" / "types.hpp", std::ios::trunc) << "#pragma once\n";
  fs::create_directories(copy / "newlayer");
  std::ofstream(copy / "newlayer" / "x.cpp") << "int x;\n";
  r = check(copy);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("a folder with no layer"), std::string::npos) << r.out;
}

}  // namespace
