// `lint --shard K/N` splits a tree into N disjoint shares whose union is the unsharded run; `--files-from` reads
// the files to lint from a list (as `git diff --name-only` prints it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "loaders/loader.hpp"
#include "tests/test_support.hpp"

namespace {

using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
namespace fs = std::filesystem;

std::multiset<std::string> linted_files(const std::string& args) {
  const auto r = run(condlint_cmd() + " lint --format json " + args + " 2>/dev/null");
  std::multiset<std::string> out;
  const auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << args;
  if (doc.is_discarded()) return out;
  for (const auto& f : doc["files"]) out.insert(f["path"].get<std::string>());
  return out;
}

TEST(Shard, SharesAreDisjointAndTogetherTheWholeTree) {
  const std::string tree = shell_quote((condlint::test::source_dir() / "corpus").string());
  const auto all = linted_files(tree);
  ASSERT_GT(all.size(), 50u);
  for (int n : {1, 3, 7}) {
    std::multiset<std::string> joined;
    for (int k = 1; k <= n; ++k) {
      const auto share = linted_files("--shard " + std::to_string(k) + "/" + std::to_string(n) + " " + tree);
      if (n > 1) EXPECT_LT(share.size(), all.size()) << k << "/" << n;
      joined.insert(share.begin(), share.end());
    }
    EXPECT_EQ(joined, all) << "N = " << n;  // a multiset: no file in two shares, none left out
  }
}

TEST(Shard, TheHashIsOfThePathRelativeToTheTree) {
  // The same tree under two different parents splits the same way.
  const fs::path a = condlint::test::temp_dir("shard-a") / "x" / "models";
  const fs::path b = condlint::test::temp_dir("shard-b") / "elsewhere" / "deeper" / "models";
  for (const fs::path& d : {a, b}) {
    fs::create_directories(d);
    fs::copy(condlint::test::source_dir() / "corpus/onnx/valid", d,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
  size_t total = 0;
  for (int k = 1; k <= 3; ++k) {
    condlint::Collected ca = condlint::collect_inputs({a.string()}), cb = condlint::collect_inputs({b.string()});
    condlint::keep_shard(ca, k, 3);
    condlint::keep_shard(cb, k, 3);
    EXPECT_EQ(ca.keys, cb.keys) << k;
    total += ca.keys.size();
  }
  EXPECT_EQ(total, condlint::collect_inputs({a.string()}).files.size());
  EXPECT_GT(total, 5u);
}

// However the tree is spelt (a trailing slash, "." or ".." in it, absolute or relative), a file's key is its path
// relative to the tree, as lexically_relative gives it.
TEST(Shard, TheKeyIsTheSameHoweverTheTreeIsSpelt) {
  const fs::path top = condlint::test::temp_dir("shard-spelt");
  fs::create_directories(top / "models" / "sub");
  fs::copy(condlint::test::source_dir() / "corpus/onnx/valid", top / "models" / "sub",
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const std::vector<std::string> expected = condlint::collect_inputs({(top / "models").string()}).keys;
  ASSERT_GT(expected.size(), 5u);
  for (const std::string& spelt :
       {(top / "models").string() + "/", (top / "models").string() + "//", (top / "models" / ".").string(),
        (top / "models" / "sub" / "..").string(), (top / "." / "models").string()}) {
    const condlint::Collected c = condlint::collect_inputs({spelt});
    EXPECT_EQ(c.keys, expected) << spelt;
    ASSERT_EQ(c.keys.size(), c.files.size());
    for (size_t i = 0; i < c.files.size(); ++i)
      EXPECT_EQ(c.keys[i], fs::path(c.files[i]).lexically_relative(spelt).generic_string()) << spelt;
  }
  for (const auto& k : expected) EXPECT_EQ(k.rfind("sub/", 0), 0u) << k;
}

TEST(Shard, BadShardIsAUsageError) {
  for (const char* s : {"0/3", "4/3", "3", "a/b", "1/0", "1/3x"}) {
    const auto r = run(condlint_cmd() + " lint --shard " + s + " " +
                       shell_quote((condlint::test::source_dir() / "corpus/onnx/valid").string()) + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << s << ": " << r.out;
  }
}

TEST(FilesFrom, ListedModelsOnlyAndDeletedOrOtherFilesLeftOut) {
  const fs::path src = condlint::test::source_dir();
  const fs::path list = condlint::test::temp_dir("files-from") / "changed.txt";
  {
    std::ofstream out(list);
    out << (src / "corpus/onnx/invalid/C002_condition_float.onnx").string() << "\n"
        << (src / "README.md").string() << "\n"
        << "\n"
        << (src / "corpus/onnx/valid/gone_in_this_commit.onnx").string() << "\n"
        << (src / "corpus/ir/invalid/C001_no_condition.xml").string() << "\r\n";
  }
  const auto files = linted_files("--files-from " + shell_quote(list.string()));
  EXPECT_EQ(files, (std::multiset<std::string>{(src / "corpus/onnx/invalid/C002_condition_float.onnx").string(),
                                               (src / "corpus/ir/invalid/C001_no_condition.xml").string()}));
  const auto piped = run("cat " + shell_quote(list.string()) + " | " + condlint_cmd() + " lint --files-from - 2>&1");
  EXPECT_EQ(piped.exit_code, 1) << piped.out;
  EXPECT_NE(piped.out.find("2 files checked"), std::string::npos) << piped.out;
  const auto none = run(condlint_cmd() + " lint 2>&1");
  EXPECT_EQ(none.exit_code, 2) << none.out;
}

}  // namespace
