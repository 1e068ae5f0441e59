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

// Only the front door opens a model file: the layers that take its Model (exec, export, diff, report) fail the check
// when they call a model reader, parse a ModelProto or read a model path themselves; a comment naming one does not.
TEST(Layers, AModelReadBelowTheFrontDoorFailsTheCheck) {
  const fs::path copy = condlint::test::temp_dir("layers_reads") / "src";
  fs::remove_all(copy);
  fs::create_directories(copy.parent_path());
  fs::copy(condlint::test::source_dir() / "src", copy, fs::copy_options::recursive);
  std::ofstream(copy / "report" / "checks.cpp", std::ios::app) << "\n// load_file(path) is the front door's\n";
  EXPECT_EQ(check(copy).exit_code, 0);
  const std::vector<std::pair<std::string, std::string>> reads = {
      {"report/checks.cpp", "static auto f = condlint::load_file(\"m.onnx\");"},
      {"diff/diff.cpp", "void g(const std::string& b, onnx::ModelProto& m) { exec::parse_proto(b, m); }"},
      {"export/export.cpp", "void h(std::string& b) { std::string e; read_file(\"m.nnapi.json\", b, e); }"},
      {"exec/ir_exec.cpp", "void k(std::string& b) { read_file_bytes(model_path, b); }"},
      {"exec/runner.cpp", "void q(onnx::ModelProto& m, const std::string& s) { m.ParseFromString(s); }"},
      {"diff/diff.cpp", "bool ir = format_from_name(p) == Format::IR;"},
  };
  for (const auto& [file, line] : reads) {
    const std::string original = condlint::test::slurp(copy / file);
    std::ofstream(copy / file, std::ios::app) << "\n" << line << "\n";
    const auto r = check(copy);
    EXPECT_NE(r.exit_code, 0) << file << ": " << line;
    EXPECT_NE(r.out.find("src/" + file + ":"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("opens no model file"), std::string::npos) << r.out;
    std::ofstream(copy / file, std::ios::trunc) << original;
  }
  EXPECT_EQ(check(copy).exit_code, 0);
}

}  // namespace
