// `lint --cache DIR`: the cache never changes a report; a changed model, .bin, external data file, golden data or
// configuration is judged again, and only that; damaged, cut or foreign entries are recomputed, never trusted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <chrono>
#include <regex>
#include <thread>
#include <string>

#include "lint/cache.hpp"
#include "tests/test_support.hpp"

namespace {

using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;
namespace fs = std::filesystem;

struct Lint {
  int exit_code = -1;
  std::string sarif, json, log;
  size_t reused = 0, judged = 0, rejected = 0, stored = 0;
};

// Lints `args` with SARIF and JSON reports; with `cache`, also reads the cache statistics from the debug log.
Lint lint_tree(const fs::path& work, const std::string& args, const std::string& cache = "") {
  // The cache stores nothing for a file changed in the clock tick its run starts in (it may have changed after it
  // was judged); the tests change files and lint at once, so a tick (at most 10 ms) passes first.
  if (!cache.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  const fs::path sarif = work / "r.sarif", json = work / "r.json";
  const auto r =
      run(condlint_cmd() + " -v lint " + args + (cache.empty() ? "" : " --cache " + shell_quote(cache)) +
          " --format json -o " + shell_quote(json.string()) + " --sarif " + shell_quote(sarif.string()) + " 2>&1");
  Lint l{r.exit_code, slurp(sarif), slurp(json), r.out};
  std::smatch m;
  if (std::regex_search(
          r.out, m,
          std::regex(R"((\d+) results reused, (\d+) files judged \((\d+) entries stale or damaged\), (\d+) stored)"))) {
    l.reused = std::stoul(m[1]);
    l.judged = std::stoul(m[2]);
    l.rejected = std::stoul(m[3]);
    l.stored = std::stoul(m[4]);
  }
  return l;
}

TEST(Cache, TheReportsAreTheSameWithAndWithoutIt) {
  const fs::path work = condlint::test::fresh_dir("cache-same");
  fs::copy(condlint::test::source_dir() / "corpus", work / "models", fs::copy_options::recursive);
  std::ofstream(work / "models" / "onnx" / ".condlint.yaml")
      << "rules:\n  C011: warning\nsuppress:\n  - rule: C003\n    justification: tracked elsewhere\n";
  const std::string args = shell_quote((work / "models").string());
  const std::string cache = (work / "cache").string();
  const Lint plain = lint_tree(work, args);
  const Lint cold = lint_tree(work, args, cache);
  const Lint warm = lint_tree(work, args, cache);
  ASSERT_GT(plain.sarif.size(), 1000u);
  EXPECT_EQ(cold.exit_code, plain.exit_code);
  EXPECT_EQ(warm.exit_code, plain.exit_code);
  EXPECT_TRUE(cold.sarif == plain.sarif && cold.json == plain.json) << "the first run with a cache";
  EXPECT_TRUE(warm.sarif == plain.sarif && warm.json == plain.json) << "the run that reuses every result";
  EXPECT_EQ(cold.reused, 0u);
  EXPECT_GT(cold.stored, 100u);
  EXPECT_EQ(warm.reused, cold.stored) << warm.log;
  EXPECT_EQ(warm.judged, cold.judged - cold.stored) << "only what could not be stored is judged again";

  // Another rule selection is another result.
  const Lint other = lint_tree(work, args + " --disable C0", cache);
  EXPECT_EQ(other.reused, 0u);
  EXPECT_TRUE(other.sarif == lint_tree(work, args + " --disable C0").sarif);
}

TEST(Cache, AChangedModelBinExternalDataOrConfigIsJudgedAgainAndOnlyIt) {
  const fs::path work = condlint::test::fresh_dir("cache-change");
  const fs::path src = condlint::test::source_dir() / "corpus";
  fs::create_directories(work / "m");
  for (const char* f : {"ir/valid/cond_from_const.xml", "ir/valid/cond_from_const.bin", "ir/valid/nested_if.xml",
                        "onnx/invalid/ONNX015_external_missing.onnx", "onnx/valid/nested_ifs.onnx"})
    fs::copy_file(src / f, work / "m" / fs::path(f).filename());
  const std::string args = shell_quote((work / "m").string());
  const std::string cache = (work / "cache").string();
  const Lint first = lint_tree(work, args, cache);
  EXPECT_EQ(first.stored, 4u) << first.log;  // four models

  // The .bin of one IR model: that model alone.
  std::ofstream(work / "m" / "cond_from_const.bin", std::ios::app) << "x";
  Lint l = lint_tree(work, args, cache);
  EXPECT_EQ(l.judged, 1u) << l.log;
  EXPECT_EQ(l.reused, 3u);
  EXPECT_TRUE(l.sarif == lint_tree(work, args).sarif);

  // The external data file that was missing appears: the ONNX015 finding goes.
  EXPECT_NE(l.json.find("ONNX015"), std::string::npos);
  std::ofstream(work / "m" / "no_such_weights.bin", std::ios::binary) << std::string(64, '\0');
  l = lint_tree(work, args, cache);
  EXPECT_EQ(l.judged, 1u) << l.log;
  EXPECT_TRUE(l.sarif == lint_tree(work, args).sarif);

  // A model's own bytes.
  std::ofstream(work / "m" / "nested_if.xml", std::ios::app) << "\n<!-- edited -->\n";
  l = lint_tree(work, args, cache);
  EXPECT_EQ(l.judged, 1u) << l.log;

  // A configuration beside the models changes every result under it.
  std::ofstream(work / "m" / ".condlint.yaml") << "rules:\n  C011: warning\n";
  l = lint_tree(work, args, cache);
  EXPECT_EQ(l.reused, 0u) << l.log;
  l = lint_tree(work, args, cache);
  EXPECT_EQ(l.reused, 4u) << l.log;
}

TEST(Cache, GoldenDataIsPartOfTheKeyWithExec) {
  const fs::path work = condlint::test::fresh_dir("cache-golden");
  fs::copy(condlint::test::source_dir() / "corpus/ir/exec/if_in_loop", work / "m", fs::copy_options::recursive);
  const std::string args = "--exec " + shell_quote((work / "m").string());
  const std::string cache = (work / "cache").string();
  const Lint first = lint_tree(work, args, cache);
  EXPECT_EQ(first.stored, 1u) << first.log;
  EXPECT_EQ(lint_tree(work, args, cache).reused, 1u);
  // A changed expected output: judged again, and the mismatch is found.
  const fs::path out = work / "m" / "test_data_set_0" / "output_0.pb";
  std::string bytes = slurp(out);
  ASSERT_GT(bytes.size(), 8u);
  bytes[bytes.size() - 1] ^= 0x40;
  std::ofstream(out, std::ios::binary | std::ios::trunc) << bytes;
  Lint l = lint_tree(work, args, cache);
  EXPECT_EQ(l.judged, 1u) << l.log;
  EXPECT_TRUE(l.json == lint_tree(work, args).json);
  // A new data set directory.
  fs::copy(work / "m" / "test_data_set_1", work / "m" / "test_data_set_9", fs::copy_options::recursive);
  EXPECT_EQ(lint_tree(work, args, cache).judged, 1u);
  // Without --exec the golden data does not matter: its own entry.
  EXPECT_EQ(lint_tree(work, shell_quote((work / "m").string()), cache).stored, 1u);
}

TEST(Cache, DamagedCutOrForeignEntriesAreRecomputed) {
  const fs::path work = condlint::test::fresh_dir("cache-damaged");
  fs::copy(condlint::test::source_dir() / "corpus/onnx/invalid", work / "m", fs::copy_options::recursive);
  const std::string args = shell_quote((work / "m").string());
  const fs::path cache = work / "cache";
  const Lint plain = lint_tree(work, args);
  const Lint first = lint_tree(work, args, cache.string());
  ASSERT_GT(first.stored, 10u);
  std::vector<fs::path> entries;
  for (const auto& e : fs::recursive_directory_iterator(cache))
    if (e.is_regular_file() && e.path().parent_path().parent_path().filename() != "stat") entries.push_back(e.path());
  ASSERT_EQ(entries.size(), first.stored) << "no temporary file is left behind";
  std::sort(entries.begin(), entries.end());
  auto rewrite = [](const fs::path& p, const std::function<void(std::string&)>& edit) {
    std::string t = slurp(p);
    edit(t);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << t;
  };
  rewrite(entries[0], [](std::string& t) { t.resize(t.size() / 2); });  // cut short
  rewrite(entries[1], [](std::string& t) { t[t.size() - 3] ^= 1; });    // one bit
  rewrite(entries[2], [](std::string& t) { t.replace(15, 1, "9"); });   // another format
  rewrite(entries[3], [](std::string& t) { t = ""; });                  // empty
  rewrite(entries[4], [&](std::string& t) { t = slurp(entries[5]); });  // another key's entry
  const Lint again = lint_tree(work, args, cache.string());
  EXPECT_EQ(again.rejected, 5u) << again.log;
  EXPECT_TRUE(again.sarif == plain.sarif && again.json == plain.json);
  EXPECT_EQ(lint_tree(work, args, cache.string()).reused, first.stored) << "the entries were written anew";
}

TEST(Cache, TwoProcessesShareTheDirectory) {
  const fs::path work = condlint::test::fresh_dir("cache-shared");
  fs::copy(condlint::test::source_dir() / "corpus", work / "models", fs::copy_options::recursive);
  const std::string tree = shell_quote((work / "models").string()), cache = shell_quote((work / "cache").string());
  const Lint plain = lint_tree(work, tree);
  std::string cmd;
  for (int p = 0; p < 4; ++p)
    cmd += condlint_cmd() + " -q lint " + tree + " --cache " + cache + " -j 2 --format sarif -o " +
           shell_quote((work / ("p" + std::to_string(p) + ".sarif")).string()) + " & ";
  run(cmd + "wait");
  for (int p = 0; p < 4; ++p) EXPECT_TRUE(slurp(work / ("p" + std::to_string(p) + ".sarif")) == plain.sarif) << p;
  for (const auto& e : fs::recursive_directory_iterator(work / "cache"))
    EXPECT_EQ(e.path().filename().string().rfind(".tmp-", 0), std::string::npos) << e.path();
}

TEST(Cache, NotUsedForHtmlAndAnUnusableDirectoryIsAnError) {
  const fs::path work = condlint::test::fresh_dir("cache-html");
  const std::string model = shell_quote((condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx").string());
  auto r = run(condlint_cmd() + " lint " + model + " --cache " + shell_quote((work / "c").string()) + " --html " +
               shell_quote((work / "r.html").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("--cache is not used"), std::string::npos) << r.out;
  std::ofstream(work / "file") << "x";
  r = run(condlint_cmd() + " lint " + model + " --cache " + shell_quote((work / "file").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

// A share's page data needs the conditionals' summaries: an entry keeps them when its run summarized them. An entry
// stored without them (a run that is no share) is judged again for a share, never counted as damaged, and then answers
// both; the share's report is the same from a cold and a warm cache.
TEST(Cache, AnEntryKeepsTheConditionalsAShareNeeds) {
  const fs::path work = condlint::test::fresh_dir("cache-share");
  fs::copy(condlint::test::source_dir() / "corpus", work / "models", fs::copy_options::recursive);
  const std::string args = shell_quote((work / "models").string());
  const std::string cache = (work / "cache").string();
  const Lint plain = lint_tree(work, args, cache);
  ASSERT_GT(plain.stored, 2u) << plain.log;
  const Lint cold = lint_tree(work, args + " --shard 1/1", cache);
  EXPECT_EQ(cold.log.find("--cache is not used"), std::string::npos) << cold.log;
  EXPECT_EQ(cold.reused, 0u) << cold.log;
  EXPECT_EQ(cold.rejected, 0u) << cold.log;
  EXPECT_EQ(cold.judged, plain.judged) << cold.log;
  EXPECT_NE(cold.sarif.find("\"conditionals\": ["), std::string::npos) << "the page data holds the panels";
  const Lint warm = lint_tree(work, args + " --shard 1/1", cache);
  EXPECT_EQ(warm.judged, 0u) << warm.log;
  EXPECT_TRUE(warm.sarif == cold.sarif) << "the share's SARIF differs with a warm cache";
  EXPECT_TRUE(warm.json == cold.json) << "the share's JSON differs with a warm cache";
  const Lint again = lint_tree(work, args, cache);
  EXPECT_EQ(again.judged, 0u) << again.log;
  EXPECT_TRUE(again.sarif == plain.sarif);
}

TEST(Cache, TheHashDependsOnEveryByteAndNotOnHowItIsFed) {
  std::string data(1000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  const std::string whole = condlint::io::hash_bytes(data);
  for (size_t cut : {0, 1, 15, 16, 17, 999}) {
    condlint::io::Hasher h;
    h.update(std::string_view(data).substr(0, cut));
    h.update(std::string_view(data).substr(cut));
    EXPECT_EQ(h.hex(), whole) << cut;
  }
  for (size_t i : {0, 15, 16, 500, 999}) {
    std::string d = data;
    d[i] ^= 1;
    EXPECT_NE(condlint::io::hash_bytes(d), whole) << i;
  }
  EXPECT_NE(condlint::io::hash_bytes(data.substr(0, 999)), whole);
  EXPECT_NE(condlint::io::hash_bytes(""), condlint::io::hash_bytes(std::string(1, '\0')));
  EXPECT_EQ(whole.size(), 32u);
}

}  // namespace
