// Walks corpus/: every model's findings must match the expectations beside it
// (`<model>.expect`: one `RULE@WHERE` per line, WHERE the line, the JSON pointer (`/main/operands/3`), the node path
// (`node:main/if_0`) or `file` when the finding has none of them; no file = no finding at all).
#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <map>

#include "exec/lint_exec.hpp"
#include "rules/support/targets.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace {

// Every model file under corpus/, including XML that is not an IR (a directory walk of the CLI skips
// those; the corpus keeps them to show IR002 firing when such a file is named explicitly).
std::vector<std::string> corpus_files() {
  std::vector<std::string> rel;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(source_dir() / "corpus", ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && format_from_name(it->path()))
      rel.push_back(fs::relative(it->path(), source_dir()).string());
  std::sort(rel.begin(), rel.end());
  return rel;
}

fs::path expect_path(const fs::path& model) {
  std::string s = model.string();
  for (const char* ext : {".nnapi.json", ".onnx", ".xml", ".tflite"})
    if (s.size() > strlen(ext) && s.compare(s.size() - strlen(ext), strlen(ext), ext) == 0)
      return s.substr(0, s.size() - strlen(ext)) + ".expect";
  return s + ".expect";
}

struct Expectation {
  std::string rule;
  std::string where;  // "" (not pinned), a line number, a JSON pointer, node:PATH or file
  bool matches(const Finding& f) const {
    if (f.rule != rule) return false;
    if (where.empty()) return true;
    if (where == "file") return f.loc.line <= 0 && f.loc.pointer.empty() && f.loc.node.empty();
    if (where.rfind("node:", 0) == 0) return f.loc.line <= 0 && f.loc.pointer.empty() && f.loc.node == where.substr(5);
    if (where[0] == '/') return f.loc.line <= 0 && f.loc.pointer == where;
    return std::to_string(f.loc.line) == where;
  }
};

std::vector<Expectation> read_expectations(const fs::path& p) {
  std::vector<Expectation> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    // A comment starts at a '#' that begins the line or follows a blank: TFLite paths hold '#' (main/IF#0).
    for (size_t h = line.find('#'); h != std::string::npos; h = line.find('#', h + 1))
      if (h == 0 || line[h - 1] == ' ' || line[h - 1] == '\t') {
        line.resize(h);
        break;
      }
    if (line.rfind("target:", 0) == 0) continue;  // a target the case is linted for (targets_of)
    if (line.rfind("live:", 0) == 0) continue;    // a runtime's recorded verdict (live_refusals_of)
    std::istringstream ss(line);
    std::string tok;
    while (ss >> tok) {
      Expectation e;
      auto at = tok.find('@');
      e.rule = tok.substr(0, at);
      if (at != std::string::npos) e.where = tok.substr(at + 1);
      out.push_back(e);
    }
  }
  return out;
}

// The targets a case is linted for: `target: SPEC` lines of its .expect (`lint --target SPEC`).
std::vector<Target> targets_of(const fs::path& expect) {
  std::vector<Target> out;
  std::ifstream in(expect);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("target:", 0) != 0) continue;
    std::istringstream ss(line.substr(7));
    std::string spec, err;
    ss >> spec;
    Target t;
    EXPECT_TRUE(targets::parse_target(spec, t, err)) << expect << ": " << err;
    out.push_back(t);
  }
  return out;
}

// The verdicts of installed runtimes a case records: `live: RUNTIME|VERSION|STAGE|MESSAGE` lines of its .expect,
// what the lint session gives the rules after loading the model into the runtime (ORT002, OV002).
std::vector<LiveRefusal> live_refusals_of(const fs::path& expect) {
  std::vector<LiveRefusal> out;
  std::ifstream in(expect);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("live:", 0) != 0) continue;
    std::vector<std::string> parts;
    std::istringstream ss(line.substr(5));
    for (std::string part; parts.size() < 3 && std::getline(ss, part, '|');) parts.push_back(part);
    std::string rest;
    std::getline(ss, rest);
    if (parts.size() < 3) continue;
    while (!parts[0].empty() && parts[0].front() == ' ') parts[0].erase(0, 1);
    out.push_back(LiveRefusal{parts[0], parts[1], parts[2], rest});
  }
  return out;
}

// Where a finding is, as an expectation pins it.
std::string where_of(const Finding& f) {
  if (f.loc.line > 0) return std::to_string(f.loc.line);
  if (!f.loc.pointer.empty()) return f.loc.pointer;
  if (!f.loc.node.empty()) return "node:" + f.loc.node;
  return "file";
}

std::string render(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += "  " + f.rule + "@" + where_of(f) + ": " + f.message + "\n";
  return s;
}

// A corpus file's findings; models under corpus/**/exec-cases/ are linted as `lint --exec` does: with their golden
// data run.
std::vector<Finding> findings_of(const std::string& corpus_file) {
  const fs::path model = source_dir() / corpus_file;
  if (const auto targets = targets_of(expect_path(model)); !targets.empty()) {
    LoadResult lr = load_file(model.string());
    EXPECT_TRUE(lr.model) << lr.io_error;
    if (!lr.model) return {};
    RuleSelection sel;
    sel.options.targets = targets;
    lr.model->live_refusals = live_refusals_of(expect_path(model));
    return run_rules(*lr.model, sel);
  }
  if (corpus_file.find("/exec-cases/") == std::string::npos) return lint_file(model.string());
  LoadResult lr = load_file(model.string(), /*keep_onnx_proto=*/true);  // as `lint --exec` opens it
  EXPECT_TRUE(lr.model) << lr.io_error;
  if (!lr.model) return {};
  exec::attach_exec_results(*lr.model, model.string());
  EXPECT_TRUE(lr.model->exec) << corpus_file << ": no golden data ran";
  return run_rules(*lr.model, RuleSelection{});
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, FindingsMatchExpectations) {
  const fs::path model = source_dir() / GetParam();
  const std::vector<Finding> findings = findings_of(GetParam());
  const fs::path ep = expect_path(model);
  const auto expected = fs::exists(ep) ? read_expectations(ep) : std::vector<Expectation>{};
  std::set<std::string> want, got;
  for (const auto& e : expected) want.insert(e.rule);
  for (const auto& f : findings) got.insert(f.rule);
  EXPECT_EQ(want, got) << GetParam() << " gave:\n" << render(findings);
  for (const auto& e : expected) {
    const bool hit = std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return e.matches(f); });
    EXPECT_TRUE(hit) << GetParam() << ": expected " << e.rule << " at " << e.where << "; got:\n" << render(findings);
  }
  if (GetParam().find("/valid/") != std::string::npos) {
    for (const auto& f : findings) EXPECT_NE(f.level, Level::Error) << GetParam() << ": " << f.message;
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(All, Corpus, ::testing::ValuesIn(corpus_files()), test_name);

// Every rule must have a corpus case that fires it and a documentation page.
TEST(CorpusCoverage, EveryRuleFiresSomewhereAndHasAPage) {
  std::set<std::string> fired;
  for (const auto& f : corpus_files()) {
    const fs::path ep = expect_path(source_dir() / f);
    if (fs::exists(ep))
      for (const auto& e : read_expectations(ep)) fired.insert(e.rule);
  }
  // Rules whose failing model is too large for corpus/: a test generates it (named on the rule's page).
  const std::set<std::string> generated{"OV003"};  // Targets.IrNestingAtTheDepthsOpenVinosReaderCrashesOrStallsAt
  for (const RuleDef* r : all_rules()) {
    const std::string id(r->id);
    EXPECT_TRUE(fired.count(id) || generated.count(id)) << "no corpus case fires " << id;
    EXPECT_TRUE(fs::exists(source_dir() / "rules" / (id + ".md"))) << "rules/" << id << ".md is missing";
  }
}

// A finding that moves is a visible diff: every expectation says where its finding is.
TEST(CorpusCoverage, EveryExpectationPinsALocation) {
  for (const auto& f : corpus_files()) {
    const fs::path ep = expect_path(source_dir() / f);
    if (!fs::exists(ep)) continue;
    for (const auto& e : read_expectations(ep))
      EXPECT_FALSE(e.where.empty()) << ep << ": " << e.rule << " pins no location";
  }
}

// Every message of every corpus case, with its rule, place and level, against tests/snapshots/corpus_messages.txt:
// a reworded message, a moved finding or a new one is a visible diff in review. After an intended change:
//   CONDLINT_UPDATE_SNAPSHOTS=1 build/condlint_tests --gtest_filter=CorpusCoverage.MessagesMatchTheSnapshot
TEST(CorpusCoverage, MessagesMatchTheSnapshot) {
  const std::string src = source_dir().string();
  std::string text;
  for (const auto& f : corpus_files()) {
    text += "## " + f + "\n";
    for (const auto& x : findings_of(f)) {
      std::string msg = x.message;
      for (size_t p = msg.find(src); p != std::string::npos; p = msg.find(src, p)) msg.replace(p, src.size(), "<src>");
      text += x.rule + "@" + where_of(x) + " " + std::string(to_string(x.level)) + ": " + msg + "\n";
    }
  }
  const fs::path snap = source_dir() / "tests/snapshots/corpus_messages.txt";
  if (const char* u = std::getenv("CONDLINT_UPDATE_SNAPSHOTS"); u && *u && *u != '0') {
    fs::create_directories(snap.parent_path());
    std::ofstream(snap, std::ios::binary) << text;
    GTEST_SKIP() << "wrote " << snap;
  }
  const std::string want = condlint::test::slurp(snap);
  if (want == text) return;
  std::istringstream a(want), b(text);
  std::string la, lb;
  int line = 0;
  while (true) {
    ++line;
    const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) break;
    if (!ga || !gb || la != lb) {
      ADD_FAILURE() << snap << " line " << line << " differs:\n  snapshot: " << (ga ? la : "(end)")
                    << "\n  now:      " << (gb ? lb : "(end)")
                    << "\nAfter an intended change, update it with CONDLINT_UPDATE_SNAPSHOTS=1 (see this test).";
      break;
    }
  }
}

TEST(CorpusCoverage, ExpectationsNameOnlyRegisteredRules) {
  for (const auto& f : corpus_files()) {
    const fs::path ep = expect_path(source_dir() / f);
    if (!fs::exists(ep)) continue;
    for (const auto& e : read_expectations(ep)) EXPECT_NE(find_rule(e.rule), nullptr) << ep << ": " << e.rule;
  }
}

}  // namespace
