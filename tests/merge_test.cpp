// `condlint merge`: the reports of the N shares of a sharded lint merge, byte for byte, into the report of the
// unsharded run (SARIF and JSON), with the same exit code; a missing, repeated, cut or foreign share is an error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "report/merge.hpp"
#include "tests/test_support.hpp"

namespace {

using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;
namespace fs = std::filesystem;

// A copy of the corpus with what makes merging hard: a configuration with rule levels and a suppression, and a
// baseline from a tree that had one more model (its results are absent now).
struct Tree {
  fs::path dir, root, baseline;
};

const Tree& tree() {
  static const Tree t = [] {
    Tree t;
    t.dir = condlint::test::temp_dir("merge");
    t.root = t.dir / "models";
    fs::remove_all(t.dir);
    fs::create_directories(t.root);
    fs::copy(condlint::test::source_dir() / "corpus", t.root, fs::copy_options::recursive);
    std::ofstream(t.root / "onnx" / ".condlint.yaml")
        << "rules:\n  C011: warning\nsuppress:\n  - rule: C003\n    justification: tracked elsewhere\n";
    const fs::path gone = t.root / "ir" / "gone_since.xml";
    fs::copy_file(t.root / "ir" / "invalid" / "C001_no_condition.xml", gone);
    t.baseline = t.dir / "baseline.sarif";
    run(condlint_cmd() + " -q lint " + shell_quote(t.root.string()) + " --fail-on never --format sarif -o " +
        shell_quote(t.baseline.string()));
    fs::remove(gone);
    return t;
  }();
  return t;
}

struct Reports {
  int exit_code = -1;
  std::string sarif, json;
};

// Lints the tree (one share when `shard` is given), writing SARIF and JSON in one run.
Reports lint_shares(const std::string& args, const std::string& shard, const std::string& tag) {
  const fs::path sarif = tree().dir / (tag + ".sarif"), json = tree().dir / (tag + ".json");
  const auto r =
      run(condlint_cmd() + " -q lint " + args + (shard.empty() ? "" : " --shard " + shard) + " --format json -o " +
          shell_quote(json.string()) + " --sarif " + shell_quote(sarif.string()) + " 2>&1");
  return Reports{r.exit_code, sarif.string(), json.string()};
}

void expect_merge_gives_unsharded(const std::string& args, const std::string& what) {
  const Reports whole = lint_shares(args, "", "whole");
  ASSERT_NE(whole.exit_code, -1);
  for (int n : {1, 3, 7}) {
    std::string sarifs, jsons;
    for (int k = 1; k <= n; ++k) {
      const Reports share = lint_shares(args, std::to_string(k) + "/" + std::to_string(n), "share" + std::to_string(k));
      // Listed from the last share to the first: the order given does not matter.
      sarifs = " " + shell_quote(share.sarif) + sarifs;
      jsons = " " + shell_quote(share.json) + jsons;
    }
    for (const auto& [inputs, expected] : {std::pair{sarifs, whole.sarif}, std::pair{jsons, whole.json}}) {
      const fs::path out = tree().dir / "merged";
      const auto m = run(condlint_cmd() + " merge" + inputs + " -o " + shell_quote(out.string()) + " 2>&1");
      EXPECT_EQ(m.exit_code, whole.exit_code) << what << ", N = " << n << ": " << m.out;
      const std::string want = slurp(expected), got = slurp(out);
      EXPECT_GT(want.size(), 1000u);
      EXPECT_TRUE(got == want) << what << ", N = " << n << ", " << expected << ": the merged report differs";
    }
  }
}

TEST(Merge, SharesGiveTheUnshardedReportByteForByte) {
  const std::string root = shell_quote(tree().root.string());
  expect_merge_gives_unsharded(root + " --baseline " + shell_quote(tree().baseline.string()), "baseline + config");
  expect_merge_gives_unsharded(root + " --disable C011 --max-warnings 0", "rule off, max warnings");
  // An input that does not exist: every share says so, the merged report once (exit 2).
  expect_merge_gives_unsharded(root + " " + shell_quote((tree().dir / "no-such-dir").string()), "input error");
}

TEST(Merge, TheBaselineStatesSurviveTheMerge) {
  const std::string args = shell_quote(tree().root.string()) + " --baseline " + shell_quote(tree().baseline.string());
  const Reports whole = lint_shares(args, "", "whole-baseline");
  const std::string s = slurp(whole.sarif);
  EXPECT_NE(s.find("\"baselineState\": \"absent\""), std::string::npos);
  EXPECT_NE(s.find("\"baselineState\": \"unchanged\""), std::string::npos);
  EXPECT_NE(s.find("\"kind\": \"external\""), std::string::npos) << "the suppression is in the run";
  EXPECT_EQ(s.find("condlint.shard"), std::string::npos);
  EXPECT_EQ(whole.exit_code, 0) << "nothing new";
}

struct Shares {
  std::vector<std::string> sarif, json;
};

Shares three_shares(const std::string& extra = "", const std::string& tag = "s") {
  Shares s;
  for (int k = 1; k <= 3; ++k) {
    const Reports r =
        lint_shares(shell_quote(tree().root.string()) + extra, std::to_string(k) + "/3", tag + std::to_string(k));
    s.sarif.push_back(r.sarif);
    s.json.push_back(r.json);
  }
  return s;
}

condlint::test::CmdResult merge(const std::vector<std::string>& files, const std::string& extra = "") {
  std::string cmd = condlint_cmd() + " merge";
  for (const auto& f : files) cmd += " " + shell_quote(f);
  return run(cmd + extra + " -o " + shell_quote((tree().dir / "out").string()) + " 2>&1");
}

TEST(Merge, AMissingRepeatedCutOrForeignShareIsAnError) {
  const Shares s = three_shares();
  auto expect_error = [](const condlint::test::CmdResult& r, const std::string& says) {
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << r.out;
  };
  expect_error(merge({s.sarif[0], s.sarif[2]}), "2/3 missing");
  expect_error(merge({s.json[0], s.json[1]}), "3/3 missing");
  expect_error(merge({s.sarif[0], s.sarif[1], s.sarif[1], s.sarif[2]}), "given twice");
  expect_error(merge({s.sarif[0], s.json[1], s.sarif[2]}), "of one kind");

  const std::string cut = condlint::test::write_temp("merge-cut.sarif", slurp(s.sarif[1]).substr(0, 2000));
  expect_error(merge({s.sarif[0], cut, s.sarif[2]}), "truncated");

  std::string text = slurp(s.json[2]);
  text.replace(text.find(CONDLINT_VERSION), std::string(CONDLINT_VERSION).size(), "0.0.1");
  const std::string old = condlint::test::write_temp("merge-old.json", text);
  expect_error(merge({s.json[0], s.json[1], old}), "written by condlint 0.0.1");

  const Shares other = three_shares(" --disable C0", "o");
  expect_error(merge({s.sarif[0], other.sarif[1], s.sarif[2]}), "different runs");

  const Reports whole = lint_shares(shell_quote(tree().root.string()), "", "plain");
  expect_error(merge({whole.sarif}), "not the report of a share");
  expect_error(merge({"/no/such/report.sarif"}), "cannot read");
}

TEST(Merge, TheExitCodeFollowsFailOnOverTheMergedResults) {
  const Shares s = three_shares();
  EXPECT_EQ(merge(s.sarif).exit_code, 1);
  EXPECT_EQ(merge(s.sarif, " --fail-on never").exit_code, 0);
  EXPECT_EQ(merge(s.json, " --fail-on never").exit_code, 0);
  // The merged SARIF keeps the shares' exit code (that of the unsharded run) whatever the merge's own policy.
  merge(s.sarif, " --fail-on never");
  EXPECT_NE(slurp(tree().dir / "out").find("\"exitCode\": 1"), std::string::npos);
}

// `merge --html` writes the page the unsharded lint writes, from SARIF shares as from JSON ones: the same findings,
// suppressions, baseline states and conditional panels, byte for byte.
TEST(Merge, TheHtmlPageOfTheSharesIsTheUnshardedLintsPage) {
  const std::string args = shell_quote(tree().root.string()) + " --baseline " + shell_quote(tree().baseline.string());
  const fs::path whole = tree().dir / "whole-page.html";
  const auto w = run(condlint_cmd() + " -q lint " + args + " -o /dev/null --html " + shell_quote(whole.string()));
  ASSERT_EQ(w.exit_code, 0);
  const std::string want = slurp(whole);
  ASSERT_NE(want.find("<details class=\"cond"), std::string::npos) << "the page has conditional panels";
  ASSERT_NE(want.find("[external]"), std::string::npos) << "the page shows the suppression";
  Shares s;
  for (int k = 1; k <= 3; ++k) {
    const Reports r = lint_shares(args, std::to_string(k) + "/3", "page" + std::to_string(k));
    s.sarif.push_back(r.sarif);
    s.json.push_back(r.json);
  }
  for (const auto* shares : {&s.sarif, &s.json}) {
    const fs::path html = tree().dir / "merged.html";
    fs::remove(html);
    const auto r = merge(*shares, " --html " + shell_quote(html.string()));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(slurp(html) == want) << (shares == &s.sarif ? "SARIF" : "JSON") << " shares: the page differs";
  }
  // Shares linted with --cache carry the same page data: the cache keeps what the panels need of each model, so
  // the page is the same with a cold cache (every model judged and stored) and a warm one (every result reused).
  const std::string cache = (tree().dir / "page-cache").string();
  fs::remove_all(cache);
  for (const char* round : {"cold", "warm"}) {
    Shares cached;
    size_t reused = 0, judged = 0;
    for (int k = 1; k <= 3; ++k) {
      const std::string tag = std::string(round) + std::to_string(k);
      const fs::path sarif = tree().dir / (tag + ".sarif"), json = tree().dir / (tag + ".json");
      const auto r = run(condlint_cmd() + " -v lint " + args + " --cache " + shell_quote(cache) + " --shard " +
                         std::to_string(k) + "/3 --format json -o " + shell_quote(json.string()) + " --sarif " +
                         shell_quote(sarif.string()) + " 2>&1");
      ASSERT_EQ(r.exit_code, 0) << r.out;
      std::smatch m;
      ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"((\d+) results reused, (\d+) files judged)"))) << r.out;
      reused += std::stoul(m[1]);
      judged += std::stoul(m[2]);
      cached.sarif.push_back(sarif.string());
      cached.json.push_back(json.string());
    }
    if (std::string(round) == "cold") EXPECT_EQ(reused, 0u);
    else EXPECT_EQ(judged, 0u) << "the warm shares reuse every result";
    EXPECT_GT(reused + judged, 2u);
    for (const auto* shares : {&cached.sarif, &cached.json}) {
      const fs::path html = tree().dir / "merged-cached.html";
      fs::remove(html);
      const auto r = merge(*shares, " --html " + shell_quote(html.string()));
      EXPECT_EQ(r.exit_code, 0) << r.out;
      EXPECT_TRUE(slurp(html) == want) << round << " cache, " << (shares == &cached.sarif ? "SARIF" : "JSON")
                                       << " shares: the page differs";
    }
  }
}

TEST(Merge, InProcessEmptyAndGarbage) {
  EXPECT_FALSE(condlint::merge_reports({}, std::nullopt).error.empty());
  for (const char* text : {"", "{", "[]", "{\"runs\": 3}", "{\"runs\": [{}]}", "{\"tool\": {}, \"files\": []}",
                           "{\"tool\": {\"name\": \"condlint\", \"version\": \"" CONDLINT_VERSION "\"}, \"files\": [], "
                           "\"shard\": {\"shard\": \"1/1\", \"run\": \"x\", \"failOn\": \"error\", \"totalFiles\": 1, "
                           "\"inputErrors\": 0, \"maxWarnings\": -1, \"positions\": [5]}}"}) {
    const auto m = condlint::merge_reports({{"r", text}}, std::nullopt);
    EXPECT_FALSE(m.error.empty()) << text;
    EXPECT_TRUE(m.text.empty()) << text;
  }
}

TEST(Merge, ADeeplyNestedShareIsAnErrorNotARecursion) {
  const std::string deep = "{\"runs\": [" + std::string(200000, '[') + std::string(200000, ']') + "]}";
  const auto m = condlint::merge_reports({{"deep.sarif", deep}}, std::nullopt);
  EXPECT_NE(m.error.find("nested deeper than 64 levels"), std::string::npos) << m.error;
}

}  // namespace
