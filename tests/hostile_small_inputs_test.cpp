// Small inputs condlint reads beside the models: the configuration (.condlint.yaml, picked up from a model's
// directory), `--files-from` lists and the shares `merge` reads. Each is bounded (docs/hardening.md, "Small inputs"):
// a hostile one is refused with a message naming it and exit 2, never a crash, a hang or memory that grows with
// what it claims. Commands that ran out of memory before run under a 2 GiB address-space limit (not under
// AddressSanitizer, which reserves far more), so that the old behaviour fails quickly instead of exhausting the
// machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lint/config.hpp"
#include "loaders/loader.hpp"
#include "report/merge.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;
using condlint::test::write_file;

// A shell prefix that caps the command's address space at 2 GiB (none under AddressSanitizer) and its time at 60 s.
std::string capped() {
  return std::string(condlint::test::kAddressSanitizer ? "" : "ulimit -v 2097152; ") + "timeout 60 ";
}

// A directory holding one valid model; returns the model's path.
fs::path model_dir(const std::string& tag) {
  const fs::path d = condlint::test::fresh_dir("small-" + tag);
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", d / "m.onnx");
  return d / "m.onnx";
}

condlint::test::CmdResult lint(const std::string& args) {
  return run("bash -c " + shell_quote(capped() + condlint_cmd() + " lint " + args + " 2>&1"));
}

// --- configuration ---

TEST(HostileSmallInputs, ConfigAliasesThatMultiplyAreRefused) {
  // One 200 KB justification aliased 4,000 times: 800 MB once copied into every suppression (the 20 GB of the
  // report took 20,000); a list of 500 rule IDs aliased by 4,000 ignore entries. Both files are under 1 MiB and are
  // found beside the model.
  const fs::path m = model_dir("alias");
  std::string text = "suppress:\n  - rule: C001\n    justification: &j " + std::string(200000, 'x') + "\n";
  for (int i = 0; i < 4000; ++i) text += "  - {rule: C002, justification: *j}\n";
  ASSERT_LT(text.size(), condlint::kMaxConfigBytes);
  write_file(m.parent_path() / ".condlint.yaml", text);
  auto r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("aliases expand the configuration past 4 MiB"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find(".condlint.yaml:"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 1000u);

  std::string ids = "[";
  for (int i = 0; i < 500; ++i) ids += i ? ", C001" : "C001";
  text = "ignore:\n  - {path: a.onnx, rules: &r " + ids + "]}\n";
  for (int i = 0; i < 4000; ++i) text += "  - {path: b.onnx, rules: *r}\n";
  write_file(m.parent_path() / ".condlint.yaml", text);
  r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("aliases expand"), std::string::npos) << r.out.substr(0, 2000);

  // An alias inside the node it names is refused too; aliases that do not multiply are fine.
  write_file(m.parent_path() / ".condlint.yaml", "suppress: &s\n  - *s\n");
  r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  write_file(m.parent_path() / ".condlint.yaml",
             "suppress:\n  - {rule: C002, justification: &why tracked in JIRA-1}\n  - {rule: C003, justification: "
             "*why}\n");
  r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(HostileSmallInputs, ConfigThatIsNotARegularFileIsRefusedAtOnce) {
  const fs::path m = model_dir("config-kind");
  const fs::path fifo = m.parent_path() / "fifo.yaml";
  ASSERT_EQ(run("mkfifo " + shell_quote(fifo.string())).exit_code, 0);
  auto r = lint("--config " + shell_quote(fifo.string()) + " " + shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;  // 124 when it waited for a writer
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fifo.yaml"), std::string::npos) << r.out;

  r = lint("--config " + shell_quote(m.parent_path().string()) + " " + shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;

  r = lint("--config /dev/zero " + shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;

  // `run` and `diff` read the configuration through the same function.
  r = run(capped() + condlint_cmd() + " run " + shell_quote(m.string()) + " --random 1 --config " +
          shell_quote(fifo.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
}

TEST(HostileSmallInputs, ConfigLargerThanItsLimitIsRefused) {
  // 50 MB of suppressions took 1.9 GB; past 1 MiB the file is not read at all.
  const fs::path m = model_dir("config-size");
  std::string text = "suppress:\n";
  while (text.size() <= condlint::kMaxConfigBytes) text += "  - {rule: C002, justification: not read}\n";
  write_file(m.parent_path() / ".condlint.yaml", text);
  const auto r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find(".condlint.yaml: cannot read the configuration file: the file has " +
                       std::to_string(text.size()) + " bytes, more than its limit of 1048576"),
            std::string::npos)
      << r.out.substr(0, 2000);
}

TEST(HostileSmallInputs, ASecondYamlDocumentIsAnErrorNamingItsLine) {
  const fs::path m = model_dir("config-docs");
  write_file(m.parent_path() / ".condlint.yaml", "rules:\n  C011: warning\n---\nrules:\n  C011: off\n");
  auto r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(".condlint.yaml:3: a second YAML document"), std::string::npos) << r.out;
  // One document opened with '---' (and closed with '...') is one document.
  write_file(m.parent_path() / ".condlint.yaml", "---\nrules:\n  C011: warning\n...\n");
  r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(HostileSmallInputs, GlobsAreBoundedInLengthAndWildcards) {
  const fs::path m = model_dir("config-glob");
  const fs::path cfg = m.parent_path() / ".condlint.yaml";
  write_file(cfg, "ignore:\n  - \"" + std::string(condlint::kMaxGlobBytes + 1, 'a') + "\"\n");
  auto r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find(".condlint.yaml:2: the ignore glob 'aaaa"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("(4097 bytes)' is longer than 4096 bytes"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 1000u);

  std::string many;
  for (int i = 0; i < 65; ++i) many += "**/";
  write_file(cfg, "suppress:\n  - rule: C002\n    node: \"" + many + "x\"\n");
  r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(":3: the node glob"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("has 65 wildcards (* and **), more than 64"), std::string::npos) << r.out;

  // Globs at both limits are accepted.
  std::string at_limit;
  for (int i = 0; i < 64; ++i) at_limit += "**" + std::string(60, 'q');
  ASSERT_LE(at_limit.size(), condlint::kMaxGlobBytes);
  std::string text = "suppress:\n";
  for (int i = 0; i < 100; ++i) text += "  - {rule: C, path: \"" + at_limit + "\", node: \"" + at_limit + "\"}\n";
  write_file(cfg, text);
  r = lint(shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
}

// The table matcher glob_match used before: the reference for what each pattern matches.
bool reference_glob(std::string_view pattern, std::string_view t) {
  enum Kind { Lit, One, Star, DStar, DStarSlash };
  std::vector<std::pair<Kind, char>> tok;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '*' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      if (i + 2 < pattern.size() && pattern[i + 2] == '/') {
        tok.push_back({DStarSlash, 0});
        i += 2;
      } else {
        tok.push_back({DStar, 0});
        ++i;
      }
    } else if (pattern[i] == '*') tok.push_back({Star, 0});
    else if (pattern[i] == '?') tok.push_back({One, 0});
    else tok.push_back({Lit, pattern[i]});
  }
  const size_t m = t.size();
  std::vector<char> after(m + 1, 0), here(m + 1, 0);
  after[m] = 1;
  for (size_t i = tok.size(); i-- > 0;) {
    const auto [kind, c] = tok[i];
    bool slash_then_rest = false;
    for (size_t j = m + 1; j-- > 0;) {
      bool ok = false;
      switch (kind) {
        case Lit: ok = j < m && t[j] == c && after[j + 1]; break;
        case One: ok = j < m && t[j] != '/' && after[j + 1]; break;
        case Star: ok = after[j] || (j < m && t[j] != '/' && here[j + 1]); break;
        case DStar: ok = after[j] || (j < m && here[j + 1]); break;
        case DStarSlash:
          if (j < m && t[j] == '/' && after[j + 1]) slash_then_rest = true;
          ok = after[j] || slash_then_rest;
          break;
      }
      here[j] = ok;
    }
    after.swap(here);
  }
  return after[0];
}

TEST(HostileSmallInputs, GlobMatchingAgreesWithTheTableMatcher) {
  std::mt19937 rng(36);
  const std::string pattern_chars = "ab/*?.";
  const std::string text_chars = "ab/.";
  size_t matched = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string p, t;
    for (size_t n = rng() % 9; n-- > 0;) p += pattern_chars[rng() % pattern_chars.size()];
    for (size_t n = rng() % 9; n-- > 0;) t += text_chars[rng() % text_chars.size()];
    const bool want = reference_glob(p, t);
    matched += want;
    ASSERT_EQ(condlint::glob_match(p, t), want) << "pattern '" << p << "' text '" << t << "'";
  }
  EXPECT_GT(matched, 1000u);  // the sample reaches both verdicts
  for (const auto& [p, t, want] :
       std::vector<std::tuple<std::string, std::string, bool>>{{"**/*.onnx", "a/b/c.onnx", true},
                                                               {"**/*.onnx", "c.onnx", true},
                                                               {"models/**/x.onnx", "models/x.onnx", true},
                                                               {"models/**/x.onnx", "models/a/b/x.onnx", true},
                                                               {"models/*/x.onnx", "models/a/b/x.onnx", false},
                                                               {"**", "", true},
                                                               {"a?c", "a/c", false}})
    EXPECT_EQ(condlint::glob_match(p, t), want) << p << " " << t;
}

// --- --files-from ---

// The list as read_path_list leaves it: true, or false and the message.
bool read_list(const std::string& text, std::vector<std::string>& out, std::string& err) {
  std::istringstream in(text);
  return condlint::read_path_list(in, out, err);
}

TEST(HostileSmallInputs, FileListsAreBoundedWhileRead) {
  const fs::path m = model_dir("list");
  const std::string p = m.string();
  std::vector<std::string> out;
  std::string err;

  // A path listed again is linted once; the first place counts.
  const fs::path other = m.parent_path() / "n.onnx";
  fs::copy_file(m, other);
  std::string text;
  for (int i = 0; i < 1000; ++i) text += p + "\n" + other.string() + "\r\n";
  ASSERT_TRUE(read_list(text, out, err)) << err;
  EXPECT_EQ(out, (std::vector<std::string>{p, other.string()}));

  // A NUL in a line is an error naming the line; nothing is listed.
  ASSERT_FALSE(read_list(p + "\n\n" + p + std::string(1, '\0') + "x\n" + p + "\n", out, err));
  EXPECT_EQ(err, "line 3 holds a NUL byte: not a path");
  EXPECT_TRUE(out.empty());

  // Line length: PATH_MAX bytes (and a CR) is a line, one more is not; a list without newlines stops there.
  EXPECT_TRUE(read_list(std::string(condlint::kMaxPathListLine, 'a') + "\r\n", out, err)) << err;
  EXPECT_FALSE(read_list(p + "\n" + std::string(condlint::kMaxPathListLine + 1, 'a') + "\n", out, err));
  EXPECT_EQ(err, "line 2 is longer than 4096 bytes (PATH_MAX)");
  EXPECT_FALSE(read_list(std::string(condlint::kMaxPathListLine + 2, 'a'), out, err));
  EXPECT_EQ(err, "line 1 is longer than 4096 bytes (PATH_MAX)");

  // Line count.
  EXPECT_TRUE(read_list(std::string(condlint::kMaxPathListLines, '\n'), out, err)) << err;
  EXPECT_FALSE(read_list(std::string(condlint::kMaxPathListLines + 1, '\n'), out, err));
  EXPECT_EQ(err, "more than 1000000 lines");
}

TEST(HostileSmallInputs, FilesFromThroughTheCommandLine) {
  const fs::path m = model_dir("files-from");
  const std::string q = shell_quote(m.string());
  // /dev/zero grew to 24 GB: now the first line stops at PATH_MAX.
  auto r = lint("--files-from /dev/zero");
  EXPECT_EQ(r.exit_code, 2) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("the file list /dev/zero: line 1 is longer than 4096 bytes"), std::string::npos)
      << r.out.substr(0, 2000);

  // 10,000 repeats of one path lint it once.
  r = lint("--format json --files-from <(for i in $(seq 10000); do echo " + q + "; done)");
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
  EXPECT_EQ(condlint::test::count(r.out, "\"path\""), 1) << r.out.substr(0, 2000);

  // A NUL lints neither path: an error naming the line.
  r = lint("--files-from - < <(printf '%s\\n%s\\0x\\n' " + q + " " + q + ")");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("the file list (standard input): line 2 holds a NUL byte"), std::string::npos) << r.out;

  // A directory is refused; a pipe (process substitution, standard input) is the usual list and keeps working.
  r = lint("--files-from " + shell_quote(m.parent_path().string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
  r = lint("--format json --files-from - < <(echo " + q + ")");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(condlint::test::count(r.out, "\"path\""), 1) << r.out;
}

// --- merge shares ---

// The JSON report of `lint --shard 1/1` over one model: a share that is complete alone.
std::string one_share() {
  const fs::path m = model_dir("share");
  const auto r = run(condlint_cmd() + " -q lint " + shell_quote(m.string()) + " --shard 1/1 --format json");
  return r.out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) ADD_FAILURE() << "no " << from << " in the share";
  else text.replace(at, from.size(), to);
  return text;
}

TEST(HostileSmallInputs, MergeSharesAreTrustedForNoSize) {
  const std::string share = one_share();
  ASSERT_NE(share.find("\"shard\": \"1/1\""), std::string::npos) << share.substr(0, 2000);
  const auto merged = condlint::merge_reports({{"s.json", share}}, std::nullopt);
  ASSERT_EQ(merged.error, "");

  // N past the limit of `lint --shard`: refused before any list is built (2^31 - 1 built two billion names).
  for (const char* n : {"10001", "20000000", "2147483647"}) {
    const auto m = condlint::merge_reports(
        {{"s.json", replaced(share, "\"shard\": \"1/1\"", std::string("\"shard\": \"1/") + n + "\"")}}, std::nullopt);
    EXPECT_NE(m.error.find("s.json: its shard bookkeeping is damaged (no K/N with 1 <= K <= N <= 10000, '1/"),
              std::string::npos)
        << m.error.substr(0, 2000);
    EXPECT_LT(m.error.size(), 200u);
  }
  // Within it, the missing shares are counted and the first few named.
  auto m = condlint::merge_reports({{"s.json", replaced(share, "\"shard\": \"1/1\"", "\"shard\": \"1/10000\"")}},
                                   std::nullopt);
  EXPECT_EQ(m.error,
            "share(s) 2/10000, 3/10000, 4/10000, 5/10000, 6/10000 and 9994 more missing (9999 of 10000): a merge of "
            "fewer shares would be a smaller report");

  // maxWarnings is an int: 2^40 is not truncated into one.
  m = condlint::merge_reports({{"s.json", replaced(share, "\"maxWarnings\": -1", "\"maxWarnings\": 1099511627776")}},
                              std::nullopt);
  EXPECT_NE(m.error.find("maxWarnings 1099511627776 is not -1 or 0 to 2147483647"), std::string::npos) << m.error;
  m = condlint::merge_reports({{"s.json", replaced(share, "\"maxWarnings\": -1", "\"maxWarnings\": -2")}},
                              std::nullopt);
  EXPECT_NE(m.error.find("maxWarnings -2"), std::string::npos) << m.error;
  m = condlint::merge_reports({{"s.json", replaced(share, "\"totalFiles\": 1", "\"totalFiles\": -1")}}, std::nullopt);
  EXPECT_NE(m.error.find("damaged (no totalFiles)"), std::string::npos) << m.error;

  // Through the command line.
  const std::string edited = condlint::test::write_temp(
      "edited-share.json", replaced(share, "\"shard\": \"1/1\"", "\"shard\": \"1/2147483647\""));
  const auto r = run(capped() + condlint_cmd() + " merge " + shell_quote(edited) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 1000u);
}

}  // namespace
