// condlint fix --in-place never loses the model (issue 49, "Done when"): a read-only model is not replaced, a full
// disk or a file size limit leaves the original bytes and no temporary, an interrupted fix leaves the original or
// the whole fixed model and no temporary; a replaced model keeps its permissions; `lint --fix` fixes, then lints.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "test_support.hpp"

using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

const std::string kUnmappedResult = "corpus/ir/invalid/IR011_unmapped_result.xml";  // 4.6 KB, one safe fix

fs::path copy_in(const fs::path& dir, const std::string& rel) {
  const fs::path p = dir / fs::path(rel).filename();
  fs::copy_file(source_dir() / rel, p, fs::copy_options::overwrite_existing);
  return p;
}

CmdResult cl(const std::string& args) { return run(condlint_cmd() + " " + args + " 2>&1"); }

// The files of `dir` other than `keep`: what a fix left behind (a temporary is `.NAME.condlint-tmp-...`).
std::vector<std::string> left_beside(const fs::path& dir, const fs::path& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != keep.filename()) out.push_back(e.path().filename().string());
  return out;
}

// The model as `fix -o` writes it: what an in-place fix must leave when it completes.
std::string fixed_by_output(const fs::path& model) {
  const fs::path out = model.parent_path().parent_path() / ("fixed_" + model.filename().string());
  const auto r = cl("fix --no-runtime-proof " + shell_quote(model.string()) + " -o " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string bytes = slurp(out);
  fs::remove(out);
  return bytes;
}

}  // namespace

// A model marked read-only is not replaced, by root neither (exit 2, the bytes as they were, nothing beside them).
TEST(FixSafety, AReadOnlyModelIsNotReplaced) {
  const fs::path dir = fresh_dir("fix-ro");
  const fs::path m = copy_in(dir, kUnmappedResult);
  const std::string before = slurp(m);
  fs::permissions(m, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto r = cl("fix --in-place --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is read-only: not replaced"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(m), before);
  EXPECT_TRUE(left_beside(dir, m).empty());
  fs::permissions(m, fs::perms::owner_write, fs::perm_options::add);
}

// A model replaced keeps its permissions.
TEST(FixSafety, AReplacedModelKeepsItsMode) {
  const fs::path dir = fresh_dir("fix-mode");
  const fs::path m = copy_in(dir, kUnmappedResult);
  const std::string before = slurp(m);
  ::chmod(m.c_str(), 0640);
  const auto r = cl("fix --in-place --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(slurp(m), before);
  struct stat st {};
  ASSERT_EQ(::stat(m.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_TRUE(left_beside(dir, m).empty());
}

// The disk fills (a file size limit below the model's size: every write past it fails with EFBIG, as a full disk
// fails with ENOSPC): exit 2 naming the write, the original bytes, no temporary left.
TEST(FixSafety, AWriteThatFailsLeavesTheOriginalAndNoTemporary) {
  const fs::path dir = fresh_dir("fix-full");
  const fs::path m = copy_in(dir, kUnmappedResult);
  const std::string before = slurp(m);
  ASSERT_GT(before.size(), 2048u);
  // ulimit -f counts 1024-byte blocks: 2 KiB, less than the fixed model needs.
  const auto r = run("ulimit -f 2 && " + condlint_cmd() + " fix --in-place --no-runtime-proof " +
                     shell_quote(m.string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  // The first write past the limit is the proof's copy of the fixed model (in a temporary folder): it fails there,
  // before anything is written beside the model. AFullDiskLeavesTheOriginalAndNoTemporary fails the last write.
  EXPECT_NE(r.out.find("cannot write the fixed model"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(m), before);
  EXPECT_TRUE(left_beside(dir, m).empty()) << left_beside(dir, m).front();
}

// A real full disk: a 64 KiB tmpfs holding the model and a file that fills it, in a mount namespace of the test's
// own (root only; skipped elsewhere).
TEST(FixSafety, AFullDiskLeavesTheOriginalAndNoTemporary) {
  const fs::path dir = fresh_dir("fix-enospc");
  const fs::path mnt = dir / "disk";
  fs::create_directories(mnt);
  const std::string src = (source_dir() / kUnmappedResult).string();
  const std::string model = (mnt / "m.xml").string();
  // Inside the namespace: mount, copy the model, fill the rest, fix in place, then report what is left.
  const std::string script =
      "set -e; mount -t tmpfs -o size=64k tmpfs " + shell_quote(mnt.string()) + "; cp " + shell_quote(src) + " " +
      shell_quote(model) + "; dd if=/dev/zero of=" + shell_quote((mnt / "filler").string()) +
      " bs=4k 2>/dev/null || true; set +e; " + condlint_cmd() + " fix --in-place --no-runtime-proof " +
      shell_quote(model) + "; echo \"exit=$?\"; cmp -s " + shell_quote(src) + " " + shell_quote(model) +
      " && echo same; ls -A " + shell_quote(mnt.string());
  const auto r = run("unshare -m sh -c " + shell_quote(script) + " 2>&1");
  if (r.out.find("exit=") == std::string::npos) GTEST_SKIP() << "no mount namespace with a tmpfs here: " << r.out;
  EXPECT_NE(r.out.find("exit=2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot write the fixed model to " + model + ": No space left on device"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("same"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("condlint-tmp"), std::string::npos) << r.out;
}

// Interrupted (SIGTERM or SIGINT) at moments from its start to its end: the model is the original or the whole
// fixed model, never anything else, and no temporary is left.
TEST(FixSafety, AnInterruptedFixLeavesTheOriginalOrTheFixedModel) {
  const fs::path dir = fresh_dir("fix-int");
  const fs::path m = copy_in(dir, kUnmappedResult);
  const std::string before = slurp(m);
  const std::string after = fixed_by_output(m);
  ASSERT_NE(after, before);
  int originals = 0, fixed = 0;
  for (int delay_ms : {0, 2, 5, 10, 20, 40, 80, 160}) {
    copy_in(dir, kUnmappedResult);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      execl(condlint_binary(), "condlint", "fix", "--in-place", "--no-runtime-proof", m.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, delay_ms % 20 == 0 ? SIGTERM : SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const std::string now = slurp(m);
    EXPECT_TRUE(now == before || now == after) << "after " << delay_ms << " ms: " << now.size() << " bytes";
    originals += now == before;
    fixed += now == after;
    EXPECT_TRUE(left_beside(dir, m).empty()) << "after " << delay_ms << " ms: " << left_beside(dir, m).front();
  }
  std::printf("[ figures  ] interrupted fixes: %d left the original, %d the fixed model\n", originals, fixed);
}

// lint --fix: the safe fixes applied in place (said on standard error), then the lint of what is left.
TEST(FixSafety, LintFixFixesThenLints) {
  const fs::path dir = fresh_dir("lint-fix");
  const fs::path m = copy_in(dir, kUnmappedResult);
  const std::string before = slurp(m);
  const auto plain = run(condlint_cmd() + " lint --show all " + shell_quote(m.string()) + " 2>/dev/null");
  EXPECT_NE(plain.out.find("[IR011]"), std::string::npos) << plain.out;
  const fs::path err = dir.parent_path() / "lint-fix.err";
  const auto r = run(condlint_cmd() + " lint --fix --show all --format json " + shell_quote(m.string()) + " 2>" +
                     shell_quote(err.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("\"rule\": \"IR011\""), std::string::npos) << r.out;  // the report is of the fixed model
  EXPECT_EQ(r.out.front(), '{') << "standard output is the report alone";
  EXPECT_NE(slurp(err).find("fixed IR011"), std::string::npos) << slurp(err);
  EXPECT_NE(slurp(m), before);
  EXPECT_EQ(cl("lint --fix --files-from - < /dev/null").exit_code, 2);
}

// An unsafe fix (C002 of an IR: a number as the condition, read as non-zero = true through a new Convert) is listed
// as available with --unsafe-fixes, applied only with it, and proven like the safe ones.
TEST(FixUnsafe, AnIrNumberConditionIsConvertedOnlyWithUnsafeFixes) {
  const fs::path dir = fresh_dir("fix-unsafe");
  const fs::path m = copy_in(dir, "corpus/ir/invalid/C002_cond_f32.xml");
  const std::string before = slurp(m);
  auto lint = cl("lint " + shell_quote(m.string()));
  EXPECT_NE(lint.out.find("[C002] (fixable with --unsafe-fixes)"), std::string::npos) << lint.out;
  auto r = cl("fix --diff --no-runtime-proof " + shell_quote(m.string()));
  EXPECT_NE(r.out.find("C002: not fixed: available with --unsafe-fixes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("summary: 0 fixes to apply"), std::string::npos) << r.out;
  const fs::path out = dir / "fixed.xml";
  r = cl("fix --unsafe-fixes --no-runtime-proof " + shell_quote(m.string()) + " -o " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("fixed C002 (unsafe): the condition of If 'if' (f32) converted to boolean"), std::string::npos)
      << r.out;
  EXPECT_EQ(slurp(m), before);
  const std::string fixed = slurp(out);
  EXPECT_NE(fixed.find("<layer id=\"4\" name=\"if/condition_as_boolean\" type=\"Convert\" version=\"opset1\">"),
            std::string::npos)
      << fixed;
  EXPECT_NE(fixed.find("<edge from-layer=\"0\" from-port=\"0\" to-layer=\"4\" to-port=\"0\"/>"), std::string::npos);
  EXPECT_NE(fixed.find("<edge from-layer=\"4\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/>"), std::string::npos);
  EXPECT_EQ(fixed.find("<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\""), std::string::npos) << "rerouted";
  lint = cl("lint --show all " + shell_quote(out.string()));
  EXPECT_EQ(lint.exit_code, 0) << lint.out;
  EXPECT_EQ(lint.out.find("[C002]"), std::string::npos) << lint.out;
  // Both branches of the fixed model run in the reference executor.
  auto run_r = cl("run --random 2 " + shell_quote(out.string()));
  EXPECT_EQ(run_r.exit_code, 0) << run_r.out;
}
