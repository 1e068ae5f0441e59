// Terminal-safe text (report/terminal.hpp): characters from a model or a path that a terminal would act on never
// reach a text report raw. JSON, SARIF and HTML keep the real characters, correctly escaped for their format.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "report/terminal.hpp"
#include "tests/test_support.hpp"

namespace {

using namespace condlint;
using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;
namespace fs = std::filesystem;

TEST(TermSafe, PrintableTextAndTabAreUnchanged) {
  for (const std::string s :
       {"", "plain ascii /a/b.onnx:3:4", "tab\there", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
        "back\\slash \\x1b stays as typed"}) {
    EXPECT_FALSE(needs_term_escape(s)) << s;
    EXPECT_EQ(term_safe(s), s);
  }
}

TEST(TermSafe, ControlCharactersAreEscaped) {
  EXPECT_EQ(term_safe("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(term_safe("line\nfake"), "line\\nfake");
  EXPECT_EQ(term_safe("over\rwrite"), "over\\rwrite");
  EXPECT_EQ(term_safe("bell\a"), "bell\\x07");
  EXPECT_EQ(term_safe(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(term_safe("del\x7f"), "del\\x7f");
}

TEST(TermSafe, C1ControlsAndBidiControlsAreEscaped) {
  EXPECT_EQ(term_safe("csi\xc2\x9b"
                      "2J"),
            "csi\\u009b2J");  // U+009B, the 8-bit CSI
  EXPECT_EQ(term_safe("abc\xe2\x80\xae"
                      "fed"),
            "abc\\u202efed");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(term_safe("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), "\\u202a\\u2066\\u2069");
  EXPECT_EQ(term_safe("\xe2\x80\x8f\xd8\x9c"), "\\u200f\\u061c");  // RLM, ARABIC LETTER MARK
}

TEST(TermSafe, InvalidUtf8IsEscapedBytewise) {
  EXPECT_EQ(term_safe("\xff"), "\\xff");
  EXPECT_EQ(term_safe("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(term_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(term_safe("ab\xe2\x80"), "ab\\xe2\\x80");                // truncated at the end
  EXPECT_EQ(term_safe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(term_safe("\xc3\xa9\xc3"), "\xc3\xa9\\xc3");
}

// The hostile text used below: clears the screen, starts a fake clean summary line, rings, reverses the rest.
const std::string kEvil =
    "x\x1b[2J\r\n0 files checked: 0 errors\a\xe2\x80\xae"
    "dne";

// Bytes a terminal would act on: C0 controls other than tab and newline, DEL, C1 controls, bidi controls.
std::string raw_controls_in(const std::string& out) {
  std::string found;
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) found += "byte " + std::to_string(c) + "; ";
    if (c == 0xc2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) < 0xa0) found += "C1; ";
    if (out.compare(i, 3, "\xe2\x80\xae") == 0) found += "U+202E; ";
  }
  return found;
}

// A copy of a corpus model under a name holding kEvil (its .bin too, for IR), in a fresh directory.
fs::path evil_copy(const std::string& rel, const std::string& ext, const std::string& tag) {
  const fs::path dir = condlint::test::temp_dir("termsafe-" + tag);
  const fs::path src = condlint::test::source_dir() / rel;
  const fs::path dst = dir / ("m" + kEvil + ext);
  fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
  if (ext == ".xml") {
    fs::path bin = src;
    bin.replace_extension(".bin");
    fs::path dbin = dst;
    dbin.replace_extension(".bin");
    if (fs::exists(bin)) fs::copy_file(bin, dbin, fs::copy_options::overwrite_existing);
  }
  return dst;
}

void expect_text_safe_and_json_exact(const fs::path& model) {
  const auto text = run(condlint_cmd() + " lint " + shell_quote(model.string()) + " 2>&1");
  EXPECT_EQ(text.exit_code, 1) << text.out;
  EXPECT_EQ(raw_controls_in(text.out), "") << text.out;
  EXPECT_NE(text.out.find("\\x1b[2J\\r\\n0 files checked: 0 errors\\x07\\u202edne"), std::string::npos) << text.out;
  // The only summary line is condlint's own.
  EXPECT_EQ(condlint::test::count(text.out, "\n1 file checked"), 1) << text.out;

  const auto json = run(condlint_cmd() + " lint --format json " + shell_quote(model.string()));
  const auto doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  EXPECT_NE(json.out.find("\\u001b[2J\\r\\n"), std::string::npos);  // JSON's own escapes, the real characters
  EXPECT_EQ(doc["files"][0]["path"].get<std::string>(), model.string());
}

TEST(TermSafe, LintTextEscapesPathsInEveryFormat) {
  expect_text_safe_and_json_exact(evil_copy("corpus/onnx/invalid/C002_condition_float.onnx", ".onnx", "onnx"));
  expect_text_safe_and_json_exact(evil_copy("corpus/ir/invalid/C001_no_condition.xml", ".xml", "ir"));
  expect_text_safe_and_json_exact(
      evil_copy("corpus/nnapi/invalid/C003_condition_shape_2.nnapi.json", ".nnapi.json", "nnapi"));
}

TEST(TermSafe, LintTextEscapesNodeNamesFromTheModel) {
  onnx::ModelProto m;
  {
    std::ifstream in(condlint::test::source_dir() / "corpus/onnx/invalid/C002_condition_float.onnx", std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  for (auto& n : *m.mutable_graph()->mutable_node()) n.set_name("If" + kEvil);
  const fs::path p = condlint::test::temp_dir("termsafe-names") / "names.onnx";
  {
    std::ofstream out(p, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }
  const auto text = run(condlint_cmd() + " lint " + shell_quote(p.string()) + " 2>&1");
  EXPECT_EQ(raw_controls_in(text.out), "") << text.out;
  EXPECT_NE(text.out.find("If" + term_safe(kEvil)), std::string::npos) << text.out;
  const auto sarif = run(condlint_cmd() + " lint --format sarif " + shell_quote(p.string()));
  EXPECT_FALSE(nlohmann::json::parse(sarif.out, nullptr, false).is_discarded());
  const auto run_text = run(condlint_cmd() + " run --branches taken " + shell_quote(p.string()) + " 2>&1");
  EXPECT_EQ(raw_controls_in(run_text.out), "") << run_text.out;
}

TEST(TermSafe, RunTextEscapesPaths) {
  const fs::path model = evil_copy("corpus/onnx/valid/nested_ifs.onnx", ".onnx", "run");
  const auto r = run(condlint_cmd() + " run " + shell_quote(model.string()) + " 2>&1");
  EXPECT_EQ(raw_controls_in(r.out), "") << r.out;
  EXPECT_NE(r.out.find(term_safe(model.string())), std::string::npos) << r.out;
}

}  // namespace
