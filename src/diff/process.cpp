// Child processes of the runtime adapters: process.hpp.
#include "diff/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

namespace condlint::diff {

namespace {

// Resident bytes of a process (/proc/PID/statm's second field, in pages); -1 when it cannot be read.
int64_t resident_bytes(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/statm");
  int64_t size = 0, resident = -1;
  if (!(f >> size >> resident)) return -1;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

ProcResult run_shell(const std::string& cmd, const std::filesystem::path& log, int64_t timeout_ms,
                     int64_t max_rss_bytes, const std::filesystem::path& progress) {
  ProcResult r;
  const pid_t pid = fork();
  if (pid < 0) {
    r.err = "fork failed";
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::uintmax_t progress_size = 0;
  int status = 0;
  auto sleep = std::chrono::microseconds(200);
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) {
      r.err = "waitpid failed";
      return r;
    }
    if (!progress.empty()) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(progress, ec);
      if (!ec && size > progress_size) {
        progress_size = size;
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
      }
    }
    const bool late = std::chrono::steady_clock::now() > deadline;
    const bool big = max_rss_bytes > 0 && resident_bytes(pid) > max_rss_bytes;
    if (late || big) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = late;
      r.over_memory = !late;
      break;
    }
    std::this_thread::sleep_for(sleep);
    if (sleep < std::chrono::milliseconds(20)) sleep *= 2;
  }
  if (!r.timed_out && !r.over_memory) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  std::ifstream f(log, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(f)), {});
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.size() > 2000) s = s.substr(0, 2000) + "...";
  r.err = s;
  return r;
}

}  // namespace condlint::diff
