// IR loader behaviour that the corpus does not show on its own: deep nesting, locations, hostile bytes.
#include <gtest/gtest.h>

#include "bench/ir_gen.hpp"
#include "test_support.hpp"

using namespace condlint;
using namespace condlint::test;

namespace {

TEST(IrLoader, ThousandNestedIfsLintCleanWithoutStackOverflow) {
  const std::string xml = gen::nested_if_ir(1000);
  auto m = load_ir("deep.xml", xml);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->conditionals.size(), 1000u);
  EXPECT_EQ(m->graphs.size(), 1u + 2 * 1000u);
  const auto findings = run_rules(*m, RuleSelection{});
  EXPECT_TRUE(findings.empty()) << findings.front().rule << " " << findings.front().message;
  // The innermost If's logical path walks all the way up.
  const auto& inner = m->conditionals.back();
  const std::string path = m->path_of(inner.graph, inner.node);
  EXPECT_EQ(path.rfind("main/if_0/then/if_1/then/", 0), 0u) << path.substr(0, 80);
}

TEST(IrLoader, TenThousandNestedIfsThroughTheCli) {
  const std::string p = write_temp("deep10k.xml", gen::nested_if_ir(10000));
  auto r = run(condlint_cmd() + " lint \"" + p + "\"");
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 500);
}

TEST(IrLoader, LocationsPointAtTheElement) {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<net name=\"n\" version=\"11\">\n  <layers>\n"
      "    <layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\">\n"
      "      <data element_type=\"f32\" shape=\"1\"/>\n"
      "      <output><port id=\"0\" precision=\"FP32\"><dim>1</dim></port></output>\n    </layer>\n"
      "    <layer id=\"1\" name=\"r\" type=\"Result\" version=\"opset1\">\n"
      "      <input><port id=\"0\"><dim>1</dim></port></input>\n    </layer>\n"
      "  </layers>\n  <edges/>\n</net>\n";
  auto m = load_ir("loc.xml", xml);
  const auto findings = run_rules(*m, RuleSelection{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "IR014");
  EXPECT_EQ(findings[0].loc.line, 9);
  EXPECT_EQ(findings[0].loc.column, 14);  // the '<' of <port>
  EXPECT_EQ(findings[0].loc.node, "main/r");
}

TEST(IrLoader, EveryTruncationGivesAFindingNeverACrash) {
  const std::string xml = gen::nested_if_ir(2);
  size_t with_findings = 0;
  for (size_t cut = 0; cut < xml.size(); cut += 7) {
    auto m = load_ir("cut.xml", xml.substr(0, cut));
    ASSERT_TRUE(m);
    const auto f = run_rules(*m, RuleSelection{});
    if (!f.empty()) ++with_findings;
  }
  EXPECT_EQ(with_findings, (xml.size() + 6) / 7);
}

TEST(IrLoader, MalformedXmlReportsLineAndColumn) {
  auto m = load_ir("bad.xml", "<net version=\"11\">\n<layers>\n<layer id=\"0\" type=\"Parameter\" name=\"x\">\n</net>\n");
  const auto f = run_rules(*m, RuleSelection{});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "IR001");
  EXPECT_EQ(f[0].loc.line, 4);
}

TEST(IrLoader, DoctypeEntitiesAreNotExpanded) {
  std::string xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE net [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n"
                    "<net name=\"&b;\" version=\"11\"><layers/><edges/></net>\n";
  auto m = load_ir("doctype.xml", xml);
  ASSERT_TRUE(m);
  EXPECT_TRUE(run_rules(*m, RuleSelection{}).empty());
}

TEST(IrLoader, ZeroBytesAndBinaryNoiseAreFindings) {
  for (const std::string& bytes : {std::string(), std::string(4096, '\0'), std::string("\xff\xfe\x00<", 4)}) {
    auto m = load_ir("noise.xml", bytes);
    ASSERT_TRUE(m);
    const auto f = run_rules(*m, RuleSelection{});
    ASSERT_FALSE(f.empty());
    EXPECT_TRUE(f[0].rule == "IR001" || f[0].rule == "IR002") << f[0].rule;
  }
}

}  // namespace
