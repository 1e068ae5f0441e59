// `condlint import nnapi-testmodel`: AOSP generated test models (hand-written fixtures in that
// syntax, Android 13 and Android 11 field orders) become NNAPI JSON that loads and lints.
#include <gtest/gtest.h>

#include <algorithm>

#include "importers/nnapi_testmodel.hpp"
#include "model/nnapi_data.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace {

const fs::path kFixtures = source_dir() / "tests/fixtures/nnapi_testmodel";

std::vector<ImportedModel> convert(const std::string& file) {
  std::vector<ImportedModel> out;
  std::string err;
  EXPECT_TRUE(convert_nnapi_testmodels(slurp(kFixtures / file), out, err)) << err;
  return out;
}

TEST(NnapiImport, Android13LayoutBecomesACleanModelWithGoldens) {
  const auto models = convert("if_add_or_sub.example.cpp");
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "if_add_or_sub_true");
  auto m = load_nnapi("if.nnapi.json", models[0].json);
  ASSERT_TRUE(m && m->nnapi && m->nnapi->structurally_valid) << models[0].json;
  EXPECT_TRUE(run_rules(*m, RuleSelection{}).empty());
  const NnapiData& d = *m->nnapi;
  ASSERT_EQ(d.subgraphs.size(), 3u);
  EXPECT_EQ(d.subgraphs[0].operands[3].name, "x");
  EXPECT_EQ(d.subgraphs[0].operands[2].offset, 1u);  // the else SUBGRAPH operand
  // CONSTANT_REFERENCE goes to a pool; CONSTANT_COPY uses the value shorthand.
  ASSERT_EQ(d.pools.size(), 1u);
  EXPECT_EQ(d.pools[0].bytes, std::string("\0\0\x20\x41", 4));
  EXPECT_EQ(d.subgraphs[2].operands[1].lifetime, nn::CONSTANT_REFERENCE);
  EXPECT_TRUE(d.subgraphs[1].operands[1].has_value);
  ASSERT_EQ(d.examples.size(), 1u);
  ASSERT_EQ(d.examples[0].inputs.size(), 2u);
  EXPECT_EQ(d.examples[0].inputs[1].data_count, 2u);
  ASSERT_EQ(d.examples[0].outputs.size(), 1u);
  EXPECT_FALSE(d.examples[0].outputs[0].is_null);
  EXPECT_FALSE(d.examples[0].expect_failure);
  ASSERT_EQ(m->conditionals.size(), 1u);
}

TEST(NnapiImport, Android11LayoutIgnoredOutputsAndExpectFailure) {
  const auto models = convert("while_half_a11.example.cpp");
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "while_half");
  EXPECT_EQ(models[1].name, "while_half_cond_as_body");
  auto m0 = load_nnapi("w.nnapi.json", models[0].json);
  ASSERT_TRUE(m0 && m0->nnapi->structurally_valid);
  EXPECT_TRUE(run_rules(*m0, RuleSelection{}).empty());
  // 0.5 as binary16 (0x3800) was packed from the value shorthand.
  const NnOperand& half = m0->nnapi->subgraphs[2].operands[1];
  ASSERT_TRUE(half.has_value);
  EXPECT_EQ(m0->nnapi->operand_values.substr(half.offset, 2), std::string("\x00\x38", 2));

  auto m1 = load_nnapi("w1.nnapi.json", models[1].json);
  ASSERT_TRUE(m1 && m1->nnapi->structurally_valid);
  EXPECT_TRUE(m1->nnapi->relax_float32_to_float16);
  ASSERT_EQ(m1->nnapi->examples.size(), 1u);
  EXPECT_TRUE(m1->nnapi->examples[0].expect_failure);
  ASSERT_EQ(m1->nnapi->examples[0].outputs.size(), 1u);
  EXPECT_TRUE(m1->nnapi->examples[0].outputs[0].is_null);
  // The condition graph used as the body feeds a TENSOR_BOOL8 back into a TENSOR_FLOAT16 slot.
  const auto fs = run_rules(*m1, RuleSelection{});
  EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.rule == "NN024"; }));
}

TEST(NnapiImport, BadInputIsAnErrorNotACrash) {
  std::vector<ImportedModel> out;
  std::string err;
  EXPECT_FALSE(convert_nnapi_testmodels("int main() { return 0; }", out, err));
  EXPECT_NE(err.find("registration"), std::string::npos);
  std::string src = slurp(kFixtures / "if_add_or_sub.example.cpp");
  // A registered name that would leave the output directory.
  std::string evil = src;
  evil.replace(evil.find("\"if_add_or_sub_true\""), 20, "\"../../escape\"");
  out.clear();
  EXPECT_FALSE(convert_nnapi_testmodels(evil, out, err));
  EXPECT_NE(err.find("safe file name"), std::string::npos);
  // Every truncation: no crash, and either an error or whole models only.
  for (size_t n = 0; n < src.size(); n += 97) {
    out.clear();
    convert_nnapi_testmodels(src.substr(0, n), out, err);
  }
  // Deep nesting is bounded.
  out.clear();
  EXPECT_FALSE(convert_nnapi_testmodels("const TestModel& get_x() { static TestModel model = " + std::string(5000, '{'),
                                        out, err));
}

TEST(NnapiImport, CommandLineWritesOneFilePerModel) {
  const fs::path dir = fs::temp_directory_path() / ("condlint-import-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const auto r =
      run(condlint_cmd() + " import nnapi-testmodel \"" + (kFixtures / "if_add_or_sub.example.cpp").string() + "\" \"" +
          (kFixtures / "while_half_a11.example.cpp").string() + "\" -o \"" + dir.string() + "\"");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir / "if_add_or_sub_true.nnapi.json"));
  EXPECT_TRUE(fs::exists(dir / "while_half.nnapi.json"));
  EXPECT_TRUE(fs::exists(dir / "while_half_cond_as_body.nnapi.json"));
  EXPECT_EQ(run(condlint_cmd() + " lint \"" + (dir / "while_half.nnapi.json").string() + "\"").exit_code, 0);
  EXPECT_EQ(run(condlint_cmd() + " import nnapi-testmodel /no/such.example.cpp -o \"" + dir.string() + "\" 2>/dev/null")
                .exit_code,
            2);
  fs::remove_all(dir);
}

}  // namespace
