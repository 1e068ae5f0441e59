// The hostile classes docs/hardening.md lists that are not about one loader's limits: symbolic-link loops, XInclude,
// shell metacharacters in paths handed to `cmd:` runtimes, and that no command writes next to its input. Each case
// asserts the verdict and what must not happen (a hang, a file created, bytes from outside in the output).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;

// Every path under `dir` (links not followed), relative to it.
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec))
    out.insert(it->path().lexically_relative(dir).generic_string());
  return out;
}

TEST(HostileSuite, SymbolicLinkLoopsNeitherHangNorRepeat) {
  const fs::path d = condlint::test::fresh_dir("hostile-links");
  fs::create_directories(d / "models" / "sub");
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", d / "models" / "sub" / "m.onnx");
  fs::create_directory_symlink("..", d / "models" / "sub" / "up");  // a directory loop
  fs::create_symlink("b.onnx", d / "models" / "a.onnx");            // a file loop
  fs::create_symlink("a.onnx", d / "models" / "b.onnx");
  const auto r =
      run("timeout 60 " + condlint_cmd() + " lint --format json " + shell_quote((d / "models").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;  // the loop's links are not models; the tree is read once
  EXPECT_EQ(condlint::test::count(r.out, "\"path\""), 1) << r.out;

  const auto direct =
      run("timeout 60 " + condlint_cmd() + " lint " + shell_quote((d / "models" / "a.onnx").string()) + " 2>&1");
  EXPECT_EQ(direct.exit_code, 2) << direct.out;  // named on the command line: an I/O error, said once
  EXPECT_NE(direct.out.find("a.onnx"), std::string::npos) << direct.out;
}

// A FIFO, a device or a socket named as a model is an I/O error said at once, never a wait for a writer; in a
// tree it is not a model at all.
TEST(HostileSuite, AFifoNamedAsAModelIsAnErrorNotAWait) {
  const fs::path d = condlint::test::fresh_dir("hostile-fifo");
  fs::create_directories(d / "models");
  const fs::path fifo = d / "models" / "model.xml";
  ASSERT_EQ(run("mkfifo " + shell_quote(fifo.string())).exit_code, 0);
  const auto named = run("timeout 60 " + condlint_cmd() + " lint " + shell_quote(fifo.string()) + " 2>&1");
  EXPECT_EQ(named.exit_code, 2) << named.out;  // 124 when it waited for a writer
  EXPECT_NE(named.out.find("not a regular file"), std::string::npos) << named.out;
  const auto device = run("timeout 60 " + condlint_cmd() + " lint --format json --baseline /dev/zero " +
                          shell_quote((condlint::test::source_dir() / "corpus/onnx/valid").string()) + " 2>&1");
  EXPECT_EQ(device.exit_code, 2) << device.out;  // a device read to its end would never end
  const auto tree = run("timeout 60 " + condlint_cmd() + " lint --format json " + shell_quote((d / "models").string()) +
                        " 2>&1");
  EXPECT_NE(tree.exit_code, 124) << tree.out;
  EXPECT_EQ(condlint::test::count(tree.out, "\"path\""), 0) << tree.out;
}

TEST(HostileSuite, XIncludeIsNotFollowed) {
  const fs::path d = condlint::test::fresh_dir("hostile-xinclude");
  const fs::path secret = d / "outside" / "secret.txt";
  fs::create_directories(secret.parent_path());
  std::ofstream(secret) << "TOP-SECRET-CONTENT\n";
  std::string xml = slurp(condlint::test::source_dir() / "corpus/ir/valid/nested_if.xml");
  const size_t net = xml.find("<net ");
  ASSERT_NE(net, std::string::npos);
  const size_t end = xml.find('>', net);
  xml.insert(end + 1, "\n<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"" + secret.string() +
                          "\" parse=\"text\"/>\n");
  fs::create_directories(d / "models");
  std::ofstream(d / "models" / "m.xml") << xml;
  for (const char* format : {"text", "json", "sarif"}) {
    const auto r = run(condlint_cmd() + " lint --format " + format + " " +
                       shell_quote((d / "models" / "m.xml").string()) + " 2>&1");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out;
    EXPECT_EQ(r.out.find("TOP-SECRET"), std::string::npos) << format << ": the included file was read";
  }
}

TEST(HostileSuite, ShellMetacharactersInPathsReachCmdRuntimesQuoted) {
  const fs::path d = condlint::test::fresh_dir("hostile-shell");
  // Directory and file names a shell would act on if they were pasted into the command unquoted.
  const fs::path dir = d / "a;touch INJECTED_1;b $(touch INJECTED_2) `touch INJECTED_3` 'q\"";
  fs::create_directories(dir);
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", dir / "m $(touch INJECTED_4).onnx");
  const fs::path model = dir / "m $(touch INJECTED_4).onnx";
  const fs::path seen = d / "seen.txt";  // what the runtime received, one argument per line
  const std::string runtime = "cmd:printf '%s\\n' {model} {inputs} >> " + seen.string() + "; test -d {outputs}";
  const auto r =
      run("cd " + shell_quote(d.string()) + " && timeout 120 " + condlint_cmd() + " diff " +
          shell_quote(model.string()) + " --runtime ref --runtime " + shell_quote(runtime) + " --random 1 2>&1");
  EXPECT_NE(slurp(seen).find(model.string() + "\n"), std::string::npos) << "the path arrives as one argument, as it is";
  EXPECT_NE(r.out.find("runs:"), std::string::npos) << r.out;
  for (const auto& p : listing(d)) {
    const std::string name = fs::path(p).filename().string();
    EXPECT_FALSE(name.size() == 10 && name.rfind("INJECTED_", 0) == 0) << p << " was created: " << r.out;
  }
  for (int i = 1; i <= 4; ++i) EXPECT_FALSE(fs::exists(fs::current_path() / ("INJECTED_" + std::to_string(i))));
}

TEST(HostileSuite, NoCommandWritesNextToItsInput) {
  const fs::path d = condlint::test::fresh_dir("hostile-nowrite");
  fs::copy(condlint::test::source_dir() / "corpus/ir/exec/if_in_loop", d / "ir", fs::copy_options::recursive);
  fs::create_directories(d / "onnx");
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", d / "onnx" / "m.onnx");
  const auto before = listing(d);
  const fs::path out = condlint::test::fresh_dir("hostile-nowrite-out");
  const std::string ir = shell_quote((d / "ir" / "if_in_loop.xml").string());
  const std::string onnx = shell_quote((d / "onnx" / "m.onnx").string());
  const std::string o = shell_quote(out.string());
  for (const std::string& args :
       {"lint --exec " + shell_quote(d.string()) + " --sarif " + o + "/r.sarif --html " + o + "/r.html",
        "lint " + shell_quote(d.string()) + " --cache " + o + "/cache", "run " + ir + " --format json",
        "diff " + onnx + " --runtime ref --runtime ref --random 1",
        "export " + ir + " --to onnx -o " + o + "/x.onnx"}) {
    const auto r = run("cd " + o + " && " + condlint_cmd() + " " + args + " >/dev/null 2>&1");
    EXPECT_NE(r.exit_code, 2) << args;
    EXPECT_EQ(listing(d), before) << args << " wrote next to its input";
  }
}

}  // namespace
