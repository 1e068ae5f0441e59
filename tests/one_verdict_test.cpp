// One verdict on readability (issue: `run` accepts what `lint` refuses): every command reads a file through its
// format's loader first, so `run`, `diff` and `export` refuse exactly what `lint` cannot read
// (rules/readability.hpp). Each hostile variant of a valid NNAPI model with examples is fed to `lint` and to `run`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_support.hpp"

namespace {

using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;
namespace fs = std::filesystem;

std::string base_model() { return slurp(condlint::test::source_dir() / "corpus/nnapi/valid/if_add_or_sub.nnapi.json"); }

// `base` with the first occurrence of `from` replaced by `to`.
std::string with(std::string base, const std::string& from, const std::string& to) {
  const auto p = base.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) base.replace(p, from.size(), to);
  return base;
}

fs::path write_case(const std::string& name, const std::string& text) {
  const fs::path dir = condlint::test::temp_dir("verdict") / name;
  fs::create_directories(dir);
  const fs::path p = dir / "model.nnapi.json";
  std::ofstream(p, std::ios::binary) << text;
  fs::copy_file(condlint::test::source_dir() / "corpus/nnapi/valid/if_pool_weights.bin", dir / "if_pool_weights.bin",
                fs::copy_options::overwrite_existing);
  return p;
}

struct Verdicts {
  condlint::test::CmdResult lint, run, exp;
};

Verdicts judge(const fs::path& p) {
  const fs::path out = p.parent_path() / "exported.onnx";
  return {run(condlint_cmd() + " lint " + shell_quote(p.string()) + " 2>&1"),
          run(condlint_cmd() + " run " + shell_quote(p.string()) + " 2>&1"),
          run(condlint_cmd() + " export --to onnx -o " + shell_quote(out.string()) + " " + shell_quote(p.string()) +
              " 2>&1")};
}

TEST(OneVerdict, TheValidModelRunsEverywhere) {
  const auto v = judge(write_case("valid", base_model()));
  EXPECT_EQ(v.lint.exit_code, 0) << v.lint.out;
  EXPECT_EQ(v.run.exit_code, 0) << v.run.out;
  EXPECT_EQ(v.exp.exit_code, 0) << v.exp.out;
}

void expect_refused_by_all(const std::string& name, const std::string& text, const std::string& rule) {
  SCOPED_TRACE(name);
  const auto v = judge(write_case(name, text));
  EXPECT_EQ(v.lint.exit_code, 1) << v.lint.out;
  EXPECT_NE(v.lint.out.find("[" + rule + "]"), std::string::npos) << v.lint.out;
  EXPECT_EQ(v.run.exit_code, 2) << v.run.out;  // an error, not a run
  EXPECT_NE(v.run.out.find(rule + ": "), std::string::npos) << v.run.out;
  EXPECT_NE(v.exp.exit_code, 0) << v.exp.out;
}

TEST(OneVerdict, DuplicateKeys) {
  expect_refused_by_all("dupkey", with(base_model(), R"("name": "if_add_or_sub",)", R"("name": "a", "name": "b",)"),
                        "NN001");
}

TEST(OneVerdict, NestingDeeperThanLintsLimit) {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  expect_refused_by_all(
      "deep", with(base_model(), R"("name": "if_add_or_sub",)", R"("name": "x", "extra": )" + deep + ","), "NN001");
}

TEST(OneVerdict, FractionalDimension) {
  expect_refused_by_all("dim25",
                        with(base_model(), R"({"name": "x", "type": "TENSOR_FLOAT32", "dimensions": [2])",
                             R"({"name": "x", "type": "TENSOR_FLOAT32", "dimensions": [2.5])"),
                        "NN002");
}

TEST(OneVerdict, PoolPathWithNul) {
  const std::string text = with(
      with(
          base_model(), R"("operandValues": {"base64": "AAAgQQAAAAA="},)",
          R"("operandValues": {"base64": "AAAgQQAAAAA="}, "pools": [{"file": "if_pool_weights.bin\u0000/../if_pool_weights.bin"}],)"),
      R"("location": {"poolIndex": 0, "offset": 0, "length": 4})",
      R"("location": {"poolIndex": 1, "offset": 0, "length": 4})");
  const auto v = judge(write_case("nulpath", text));
  EXPECT_EQ(v.lint.exit_code, 1) << v.lint.out;
  EXPECT_EQ(v.run.exit_code, 2) << v.run.out;
  EXPECT_EQ(v.run.out.find('\0'), std::string::npos);
}

TEST(OneVerdict, SelfReferencingIfIsNamedACycle) {
  // The then branch holds an IF whose branches are the then branch itself.
  std::string text = with(
      base_model(),
      R"({"name": "ten", "type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [10.0]},)",
      R"({"name": "c", "type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "CONSTANT_COPY", "value": [true]},)");
  text = with(text, R"({"name": "act", "type": "INT32", "lifetime": "CONSTANT_COPY", "value": [0]},)",
              R"({"name": "self", "type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 0}},)");
  text = with(text, R"({"type": "ADD", "inputs": [0, 1, 2], "outputs": [3]})",
              R"({"type": "IF", "inputs": [1, 2, 2, 0], "outputs": [3]})");
  const auto v = judge(write_case("cycle", text));
  EXPECT_EQ(v.lint.exit_code, 1) << v.lint.out;
  EXPECT_NE(v.lint.out.find("[NN016]"), std::string::npos) << v.lint.out;
  EXPECT_EQ(v.run.exit_code, 2) << v.run.out;
  EXPECT_NE(v.run.out.find("cycle"), std::string::npos) << v.run.out;
}

}  // namespace
