// IR loader behaviour that the corpus does not show on its own: deep nesting, locations, hostile bytes.
#include <gtest/gtest.h>

#include "bench/ir_gen.hpp"
#include "loaders/ir_dump.hpp"
#include "model/parallel.hpp"
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
  auto m =
      load_ir("bad.xml", "<net version=\"11\">\n<layers>\n<layer id=\"0\" type=\"Parameter\" name=\"x\">\n</net>\n");
  const auto f = run_rules(*m, RuleSelection{});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "IR001");
  EXPECT_EQ(f[0].loc.line, 4);
}

TEST(IrLoader, DoctypeEntitiesAreNotExpanded) {
  std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE net [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b "
      "\"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n"
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

// ----- The two XML readers (loaders/xml_flat.hpp): FlatXml where it can, pugixml for the rest. -----

namespace {

namespace fs = std::filesystem;

// Both readers on the same bytes; returns whether FlatXml took them. Where it did, the dumps must be equal.
bool readers_agree(const std::string& name, const std::string& bytes) {
  auto flat = load_ir(name, bytes, IrXmlReader::Flat);
  if (!flat) return false;
  auto pugi = load_ir(name, bytes, IrXmlReader::Pugixml);
  EXPECT_EQ(dump_ir_model(*flat), dump_ir_model(*pugi)) << name;
  return true;
}

}  // namespace

TEST(IrXmlReaders, AgreeOnEveryIrOfTheCorpusAndTheSharedOnes) {
  size_t files = 0, flat = 0;
  std::vector<fs::path> dirs{source_dir() / "corpus", source_dir() / "tests"};
  if (fs::is_directory(shared_dir() / "corpus" / "openvino-ir"))
    dirs.push_back(shared_dir() / "corpus" / "openvino-ir");
  else std::printf("[ note ] ../shared/corpus/openvino-ir not found: only the project's own IR files compared\n");
  for (const auto& dir : dirs)
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".xml") continue;
      ++files;
      if (readers_agree(e.path().string(), slurp(e.path()))) ++flat;
    }
  std::printf("[ figures ] %zu IR files, %zu read by FlatXml, the same model as pugixml's\n", files, flat);
  EXPECT_GT(files, 20u);
  EXPECT_GT(flat * 10, files * 8);  // the fast reader takes the usual files
}

TEST(IrXmlReaders, AgreeOnGeneratedModelsAndEveryCut) {
  EXPECT_TRUE(readers_agree("chain.xml", gen::flat_if_chain_ir(20, 3)));
  EXPECT_TRUE(readers_agree("nested.xml", gen::nested_if_ir(50)));
  const std::string xml = gen::flat_if_chain_ir(2, 2);
  for (size_t cut = 0; cut <= xml.size(); ++cut) readers_agree("cut.xml", xml.substr(0, cut));
}

TEST(IrXmlReaders, FlatXmlDeclinesWhatNeedsPugixmlAndTheLoaderStillReadsIt) {
  const std::string base =
      "<?xml version=\"1.0\"?>\n<net name=\"n\" version=\"11\">\n<layers>\n"
      "<!-- condlint-disable IR014 -->\n"
      "<layer id=\"0\" name=\"NAME\" type=\"Parameter\" version=\"opset1\"><data element_type=\"f32\" shape=\"2\"/>"
      "<output><port id=\"0\" precision=\"FP32\"><dim>DIM</dim></port></output></layer>\n"
      "</layers>\n<edges/>\n</net>\n";
  auto with = [&](std::string name, std::string dim) {
    std::string s = base;
    s.replace(s.find("NAME"), 4, name);
    s.replace(s.find("DIM"), 3, dim);
    return s;
  };
  // Taken by FlatXml (and the same as pugixml's): plain names, text with spaces, comments, single quotes.
  EXPECT_TRUE(readers_agree("plain.xml", with("x", "2")));
  EXPECT_TRUE(readers_agree("spaces.xml", with("x y", " 2 ")));
  std::string single = with("x", "2");
  single.replace(single.find("\"Parameter\""), 11, "'Parameter'");
  EXPECT_TRUE(readers_agree("single.xml", single));
  // Windows line ends between tags: whitespace to both readers.
  std::string crlf = with("x", "2");
  for (size_t at = crlf.find('\n'); at != std::string::npos; at = crlf.find('\n', at + 2)) crlf.insert(at, "\r");
  EXPECT_TRUE(readers_agree("crlf.xml", crlf));
  // Declined (pugixml decodes or normalises these): entities, character references, CR line ends, CDATA,
  // DOCTYPE, a tab in an attribute value, a NUL byte, a non-ASCII element name, a second root.
  const std::vector<std::pair<std::string, std::string>> declined = {
      {"amp.xml", with("a&amp;b", "2")},
      {"charref.xml", with("x", "&#50;")},
      {"cr_text.xml", with("x", "2\r\n")},
      {"cr_comment.xml",
       [&] {
         std::string x = with("x", "2");
         x.replace(x.find("disable IR014"), 13, "disable\r\nIR014");
         return x;
       }()},
      {"nul_text.xml", with("x", std::string("2\0", 2))},
      {"cdata.xml", with("x", "<![CDATA[2]]>")},
      {"doctype.xml", "<!DOCTYPE net>\n" + with("x", "2")},
      {"tab.xml", with("x\ty", "2")},
      {"second_root.xml", with("x", "2") + "<net/>"},
      {"utf8_name.xml",
       [&] {
         std::string x = with("x", "2");
         x.replace(x.find("<edges/>"), 8,
                   "<\xC3\xA9"
                   "dges/>");
         return x;
       }()},
  };
  for (const auto& [name, bytes] : declined) {
    EXPECT_FALSE(load_ir(name, bytes, IrXmlReader::Flat)) << name;
    auto m = load_ir(name, bytes);  // the default reader falls back to pugixml
    ASSERT_TRUE(m) << name;
    EXPECT_EQ(dump_ir_model(*m), dump_ir_model(*load_ir(name, bytes, IrXmlReader::Pugixml))) << name;
  }
  EXPECT_EQ(load_ir("amp.xml", declined[0].second)->graphs[0].nodes[0].name, "a&b");
  EXPECT_EQ(load_ir("charref.xml", declined[1].second)->graphs[0].nodes[0].outputs[0].shape().str(), "[2]");
}

// Layer lookups go through the loader's id table when every id is a small canonical integer, else through a
// hash of the id strings; both must find the same layers and the same duplicates.
TEST(IrLoader, LayerIdLookupsWithAndWithoutTheIdTable) {
  auto ir = [](const std::string& a, const std::string& b, const std::string& c, const std::string& edge_to_c) {
    return "<?xml version=\"1.0\"?>\n<net name=\"n\" version=\"11\">\n<layers>\n"
           "<layer id=\"" +
           a +
           "\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data element_type=\"f32\" shape=\"2\"/>"
           "<output><port id=\"0\" precision=\"FP32\"><dim>2</dim></port></output></layer>\n"
           "<layer id=\"" +
           b +
           "\" name=\"r\" type=\"Relu\" version=\"opset1\"><input><port id=\"0\"><dim>2</dim></port></input>"
           "<output><port id=\"1\" precision=\"FP32\"><dim>2</dim></port></output></layer>\n"
           "<layer id=\"" +
           c +
           "\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port "
           "id=\"0\"><dim>2</dim></port></input></layer>\n"
           "</layers>\n<edges>\n<edge from-layer=\"" +
           a + "\" from-port=\"0\" to-layer=\"" + b +
           "\" to-port=\"0\"/>\n"
           "<edge from-layer=\"" +
           b + "\" from-port=\"1\" to-layer=\"" + edge_to_c + "\" to-port=\"0\"/>\n</edges>\n</net>\n";
  };
  struct Case {
    std::string a, b, c, to_c;
    bool table;
    std::set<std::string> rules;
  };
  const std::vector<Case> cases = {
      {"0", "1", "2", "2", true, {}},
      {"0", "1", "99999", "99999", false, {}},          // too sparse for a table
      {"00", "1", "2", "2", false, {}},                 // not canonical
      {"0", "1", "2", "02", true, {"IR013", "IR014"}},  // "02" is not "2": no such layer
      // A duplicate: the second edge goes to the first "1" (the Relu, whose input is fed already), so the
      // Result stays unfed; with or without the table.
      {"0", "1", "1", "1", true, {"IR012", "IR013", "IR014"}},
      {"0", "01", "01", "01", false, {"IR012", "IR013", "IR014"}},
      {"a", "b", "b", "b", false, {"IR003", "IR012", "IR014"}},  // ids that are not integers: edges unreadable
  };
  for (const auto& c : cases) {
    auto m = load_ir("ids.xml", ir(c.a, c.b, c.c, c.to_c));
    ASSERT_TRUE(m);
    EXPECT_EQ(!m->ir->graph_extra[0].index_of_id.empty(), c.table) << c.a << c.b << c.c;
    EXPECT_EQ(rules_of(run_rules(*m, RuleSelection{})), c.rules) << c.a << " " << c.b << " " << c.c << " " << c.to_c;
  }
}

// A large model's edges, views and rules run on two cores (model/parallel.hpp): the model and the findings
// must be those of one thread, in the same order. Defects spread over the file make several rules report.
TEST(IrLoader, TwoCoresGiveTheModelAndFindingsOfOne) {
  std::string xml = gen::flat_if_chain_ir(1200, 8);  // 24,003 layers: above the parallel threshold
  auto every = [&xml](const std::string& what, const std::string& with, size_t nth) {
    size_t seen = 0;
    for (size_t at = xml.find(what); at != std::string::npos; at = xml.find(what, at + with.size()))
      if (++seen % nth == 0) xml.replace(at, what.size(), with);
  };
  every("<edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/>", "", 97);                 // IR014
  every("<output><port id=\"2\" precision=\"FP32\">", "<output><port id=\"2\" precision=\"I32\">", 131);  // C007
  every("<dim>16</dim></port></input></layer>", "<dim>7</dim></port></input></layer>", 113);  // shapes differ
  struct Run {
    std::string model;
    std::vector<std::string> findings;
  };
  auto run = [&xml](bool parallel) {
    set_parallel(parallel);
    auto m = load_ir("big.xml", xml);
    Run r;
    r.model = dump_ir_model(*m);
    for (const auto& f : run_rules(*m, RuleSelection{}))
      r.findings.push_back(f.rule + " " + std::to_string(f.loc.line) + ":" + std::to_string(f.loc.column) + " " +
                           f.loc.node + " " + f.message);
    return r;
  };
  const Run one = run(false), two = run(true);
  set_parallel(true);
  if (!parallel_enabled()) std::printf("[ note ] one core (or CONDLINT_THREADS=1): both runs used one thread\n");
  EXPECT_EQ(one.model, two.model);
  EXPECT_EQ(one.findings, two.findings);
  std::set<std::string> rules;
  for (const auto& f : one.findings) rules.insert(f.substr(0, f.find(' ')));
  EXPECT_GE(rules.size(), 3u) << testing::PrintToString(rules);
  EXPECT_GT(one.findings.size(), 20u);
}
