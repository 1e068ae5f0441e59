// Walks corpus/: every model's findings must match the expectations beside it
// (`<model>.expect`: one `RULE` or `RULE@LINE` per line; no file = no finding at all).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "exec/lint_exec.hpp"
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
    if (it->is_regular_file() && format_from_name(it->path())) rel.push_back(fs::relative(it->path(), source_dir()).string());
  std::sort(rel.begin(), rel.end());
  return rel;
}

fs::path expect_path(const fs::path& model) {
  std::string s = model.string();
  for (const char* ext : {".nnapi.json", ".onnx", ".xml"})
    if (s.size() > strlen(ext) && s.compare(s.size() - strlen(ext), strlen(ext), ext) == 0)
      return s.substr(0, s.size() - strlen(ext)) + ".expect";
  return s + ".expect";
}

struct Expectation {
  std::string rule;
  int line = 0;
};

std::vector<Expectation> read_expectations(const fs::path& p) {
  std::vector<Expectation> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ss(line);
    std::string tok;
    while (ss >> tok) {
      Expectation e;
      auto at = tok.find('@');
      e.rule = tok.substr(0, at);
      if (at != std::string::npos) e.line = std::stoi(tok.substr(at + 1));
      out.push_back(e);
    }
  }
  return out;
}

std::string render(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs)
    s += "  " + f.rule + "@" + std::to_string(f.loc.line) + ": " + f.message + "\n";
  return s;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, FindingsMatchExpectations) {
  const fs::path model = source_dir() / GetParam();
  // Models under corpus/**/exec-cases/ are linted as `lint --exec` does: with their golden data run.
  std::vector<Finding> findings;
  if (GetParam().find("/exec-cases/") != std::string::npos) {
    LoadResult lr = load_file(model.string());
    ASSERT_TRUE(lr.model) << lr.io_error;
    exec::attach_exec_results(*lr.model, model.string());
    EXPECT_TRUE(lr.model->exec) << GetParam() << ": no golden data ran";
    findings = run_rules(*lr.model, RuleSelection{});
  } else {
    findings = lint(model.string());
  }
  const fs::path ep = expect_path(model);
  const auto expected = fs::exists(ep) ? read_expectations(ep) : std::vector<Expectation>{};
  std::set<std::string> want, got;
  for (const auto& e : expected) want.insert(e.rule);
  for (const auto& f : findings) got.insert(f.rule);
  EXPECT_EQ(want, got) << GetParam() << " gave:\n" << render(findings);
  for (const auto& e : expected) {
    if (!e.line) continue;
    const bool hit = std::any_of(findings.begin(), findings.end(),
                                 [&](const Finding& f) { return f.rule == e.rule && f.loc.line == e.line; });
    EXPECT_TRUE(hit) << GetParam() << ": expected " << e.rule << " at line " << e.line << "; got:\n" << render(findings);
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
  for (const RuleDef* r : all_rules()) {
    const std::string id(r->id);
    EXPECT_TRUE(fired.count(id)) << "no corpus case fires " << id;
    EXPECT_TRUE(fs::exists(source_dir() / "rules" / (id + ".md"))) << "rules/" << id << ".md is missing";
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
