// Hostile models meet other processes (issue 44): what condlint hands to a runtime's child process (never a model its
// own checks refuse, never a file outside the model's folder, a model list no file name can split), what it reads
// back (bounded while it is read), and what it leaves behind (nothing: no temporary folder, no child, on any exit,
// SIGINT and SIGTERM included). The runtime is a stand-in Node script behind CONDLINT_ORT_ADAPTER, so the tests
// need Node only; no limit under test can be passed by another limit first on a slow machine.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench/onnx_gen.hpp"
#include "diff/live_check.hpp"
#include "diff/model_view.hpp"
#include "diff/process.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace hostile_children_test {

bool have_node() { return run("command -v node >/dev/null").exit_code == 0; }

// A stand-in for ort_run.js --check that records, for each model it is given, the path, its working folder and the
// entries of the model's folder (a link marked '@'), in $FAKE_LOG; then says ok.
constexpr const char* kRecordingAdapter = R"(
const fs = require('fs'); const path = require('path');
const [list, results] = process.argv.slice(3);
fs.appendFileSync(results, JSON.stringify({ version: '0.0.1-fake' }) + '\n');
const models = JSON.parse(fs.readFileSync(list, 'utf8'));
models.forEach((m, i) => {
  const dir = path.dirname(path.resolve(m));
  const entries = fs.readdirSync(dir).sort().map((n) => n + (fs.lstatSync(path.join(dir, n)).isSymbolicLink() ? '@' : ''));
  fs.appendFileSync(process.env.FAKE_LOG, JSON.stringify({ m, cwd: process.cwd(), entries }) + '\n');
  fs.appendFileSync(results, JSON.stringify({ i, ok: true }) + '\n');
});
)";

// An If model whose one initializer keeps its 8 bytes at `location` (external data).
std::string onnx_external(const std::string& location) {
  onnx::ModelProto m = gen::onnx_model_base(13);
  auto* g = m.mutable_graph();
  auto* one = g->mutable_initializer(0);
  one->clear_float_data();
  one->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [k, v] : {std::pair<const char*, std::string>{"location", location}, {"offset", "0"}, {"length", "8"}}) {
    auto* e = one->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  auto* n = gen::onnx_node(g, "If", "If_0", {"c"}, {"y"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    gen::onnx_branch(a->mutable_g(), branch[0] == 't' ? "then" : "else", "x", branch[0] == 't' ? "t_out" : "e_out", 1,
                     branch[0] == 't');
  }
  gen::onnx_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  return m.SerializeAsString();
}

std::vector<nlohmann::json> log_lines(const fs::path& log) {
  std::vector<nlohmann::json> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// `condlint lint ARGS --target onnxruntime` with the recording adapter; its output (stdout and stderr).
CmdResult lint_with_recorder(const fs::path& dir, const std::string& args) {
  write_file(dir / "fake.js", kRecordingAdapter);
  return run("cd " + shell_quote(dir.string()) + " && CONDLINT_ORT_ADAPTER=" + shell_quote((dir / "fake.js").string()) +
             " FAKE_LOG=" + shell_quote((dir / "log.jsonl").string()) + " " + condlint_cmd() + " lint " + args +
             " --target onnxruntime 2>&1");
}

std::vector<std::string> entries_left(const fs::path& dir) {
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) left.push_back(e.path().filename().string());
  return left;
}

}  // namespace hostile_children_test

using namespace hostile_children_test;

TEST(HostileChildren, AModelThatReadsOutsideItsFolderIsNeverGivenToARuntime) {
  if (!have_node()) GTEST_SKIP() << "node is not on PATH (the stand-in runtime needs it)";
  const fs::path root = fresh_dir("child_escape");
  const fs::path dir = root / "model";
  write_file(root / "outside" / "secret.bin", std::string(8, 'S'));
  fs::create_directories(dir);
  fs::create_symlink(root / "outside" / "secret.bin", dir / "link_out.bin");  // a file link out
  fs::create_directory_symlink(root / "outside", dir / "sub");             // a folder link out
  for (const std::string loc : {"link_out.bin", "sub/secret.bin", "../outside/secret.bin"}) {
    write_file(dir / "m.onnx", onnx_external(loc));
    fs::remove(root / "log.jsonl");
    const auto r = lint_with_recorder(root, shell_quote((dir / "m.onnx").string()));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("ONNX014"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("was not given to ONNX Runtime"), std::string::npos) << loc << "\n" << r.out;
    EXPECT_TRUE(log_lines(root / "log.jsonl").empty()) << loc << ": the runtime was given the model";
  }
  // Data that stays inside: given, as a view in a folder of condlint's own, the data a file (not a link), the child's
  // working folder not the user's.
  write_file(dir / "w.bin", std::string(8, '\0'));
  write_file(dir / "m.onnx", onnx_external("w.bin"));
  fs::remove(root / "log.jsonl");
  const auto r = lint_with_recorder(root, shell_quote((dir / "m.onnx").string()));
  const auto lines = log_lines(root / "log.jsonl");
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["entries"], nlohmann::json::array({"m.onnx", "w.bin"})) << lines[0].dump();
  EXPECT_EQ(fs::path(lines[0]["m"].get<std::string>()).parent_path().parent_path(),
            fs::path(lines[0]["cwd"].get<std::string>()))
      << lines[0].dump();
  EXPECT_NE(lines[0]["cwd"].get<std::string>(), root.string());
}

TEST(HostileChildren, ALineBreakInAFileNameCannotSplitTheModelList) {
  if (!have_node()) GTEST_SKIP() << "node is not on PATH (the stand-in runtime needs it)";
  const fs::path root = fresh_dir("child_newline");
  const std::string model = slurp(source_dir() / "corpus/onnx/valid/multi_output.onnx");
  ASSERT_FALSE(model.empty());
  write_file(root / "d" / "x\nvictim.onnx", model);
  write_file(root / "victim.onnx", model);  // what a list split at the line break would name, from the working folder
  const auto r = lint_with_recorder(root, shell_quote((root / "d" / "x\nvictim.onnx").string()));
  const auto lines = log_lines(root / "log.jsonl");
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(fs::path(lines[0]["m"].get<std::string>()).filename(), "model.onnx") << lines[0].dump();
  EXPECT_EQ(lines[0]["entries"], nlohmann::json::array({"model.onnx"}));
  EXPECT_EQ(r.out.find("ORT002"), std::string::npos) << r.out;
}

TEST(HostileChildren, WhatAChildPrintsIsBoundedWhileItIsRead) {
  // 512 MiB on standard output: read and dropped, the first bytes kept.
  diff::ProcLimits pl;
  pl.timeout_ms = 600'000;
  const diff::ProcResult p = diff::run_shell("head -c 536870912 /dev/zero | tr '\\0' x", pl);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.text_bytes, int64_t{536870912});
  EXPECT_LT(p.err.size(), diff::kChildTextBytes + 100);
  EXPECT_NE(p.err.find("536870912 bytes in all, cut"), std::string::npos) << p.err.substr(p.err.size() - 80);
}

TEST(HostileChildren, AVerdictLinePastItsLimitIsCutAndSaid) {
  if (!have_node()) GTEST_SKIP() << "node is not on PATH (the stand-in runtime needs it)";
  const fs::path dir = fresh_dir("child_flood");
  // long.onnx: a 1 MiB verdict line; huge.onnx: 200 MiB of verdict (past the results' limit, and the file limit).
  write_file(dir / "fake.js", R"(
const fs = require('fs');
const [list, results] = process.argv.slice(3);
fs.appendFileSync(results, JSON.stringify({ version: '0.0.1-fake' }) + '\n');
JSON.parse(fs.readFileSync(list, 'utf8')).forEach((m, i) => {
  if (m.includes('huge')) for (let k = 0; k < 200; k++) fs.appendFileSync(results, 'x'.repeat(1 << 20));
  const error = m.includes('long') ? 'x'.repeat(1 << 20) : 'no';
  fs.appendFileSync(results, JSON.stringify({ i, ok: false, stage: 's', error }) + '\n');
});
)");
  for (const char* n : {"a.onnx", "long.onnx", "huge.onnx", "b.onnx"}) write_file(dir / n, "x");
  setenv("CONDLINT_ORT_ADAPTER", (dir / "fake.js").c_str(), 1);
  std::vector<diff::ViewPlan> plans;
  for (const char* n : {"a.onnx", "long.onnx", "huge.onnx", "b.onnx"}) plans.push_back(diff::plan_file((dir / n).string()));
  diff::LiveLimits limits;
  limits.per_model_ms = 600'000;  // only the output limits can stop these
  const diff::LiveCheck lc = diff::check_live("onnxruntime", plans, limits);
  unsetenv("CONDLINT_ORT_ADAPTER");
  ASSERT_TRUE(lc.available) << lc.unavailable;
  EXPECT_EQ(lc.verdicts[0].message, "no");
  EXPECT_EQ(lc.verdicts[1].message, "its verdict line passed 65536 bytes; condlint cut it");
  EXPECT_TRUE(lc.verdicts[2].message.find("its results passed 16 MiB") != std::string::npos ||
              lc.verdicts[2].message.find("a file it wrote passed 64 MiB") != std::string::npos)
      << lc.verdicts[2].message;
  EXPECT_EQ(lc.verdicts[3].message, "no");
}

TEST(HostileChildren, ASignalLeavesNoChildAndNoTemporaryFolder) {
  if (!have_node()) GTEST_SKIP() << "node is not on PATH (the stand-in runtime needs it)";
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path dir = fresh_dir("child_signal");
    const fs::path tmp = dir / "tmp";
    fs::create_directories(tmp);
    // The runtime says who it is, then hangs.
    write_file(dir / "fake.js", R"(
const fs = require('fs');
fs.writeFileSync(process.env.FAKE_PID, String(process.pid));
for (;;) {}
)");
    const std::string model = (source_dir() / "corpus/onnx/valid/multi_output.onnx").string();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      signal(SIGINT, SIG_DFL);  // a shell's background job would ignore it
      setenv("CONDLINT_ORT_ADAPTER", (dir / "fake.js").c_str(), 1);
      setenv("FAKE_PID", (dir / "pid").c_str(), 1);
      setenv("TMPDIR", tmp.c_str(), 1);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      dup2(null, 2);
      execl(condlint_binary(), condlint_binary(), "lint", model.c_str(), "--target", "onnxruntime",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait (without a deadline that a slow machine could pass) until the runtime is up.
    int status = 0;
    bool ended = false;
    while (!fs::exists(dir / "pid") || slurp(dir / "pid").empty()) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        ended = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_FALSE(ended) << "condlint ended before the runtime started: " << status;
    const pid_t child = static_cast<pid_t>(std::stol(slurp(dir / "pid")));
    EXPECT_FALSE(entries_left(tmp).empty()) << "the live check's folder is under TMPDIR";
    kill(pid, sig);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    // The runtime is gone (killed with its group; reaped by init, so wait until it is no longer there).
    bool gone = false;
    for (int k = 0; k < 3000 && !gone; ++k) {
      const std::string stat = slurp("/proc/" + std::to_string(child) + "/stat");
      gone = stat.empty() || stat.find(") Z") != std::string::npos;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(gone) << "the runtime " << child << " outlived condlint";
    if (!gone) kill(child, SIGKILL);
    EXPECT_TRUE(entries_left(tmp).empty()) << entries_left(tmp).front();
  }
}
