// Child processes of the runtime adapters: process.hpp.
#include "diff/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>

#include "io/cleanup.hpp"

namespace condlint::diff {

namespace {

// Resident bytes of a process (/proc/PID/statm's second field, in pages); -1 when it cannot be read.
int64_t resident_bytes(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/statm");
  int64_t size = 0, resident = -1;
  if (!(f >> size >> resident)) return -1;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

// Reads what the pipe holds now: the first kChildTextBytes into `keep`, the rest counted and dropped. False at the
// end of the pipe (every writer closed it).
bool drain(int fd, std::string& keep, int64_t& total) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      total += n;
      if (keep.size() < kChildTextBytes)
        keep.append(buf, std::min<size_t>(static_cast<size_t>(n), kChildTextBytes - keep.size()));
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  }
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

ProcResult run_shell(const std::string& cmd, const ProcLimits& limits) {
  ProcResult r;
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.err = "pipe failed";
    return r;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    r.err = "fork failed";
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Dies with condlint, whatever ends it (the signal handlers kill the group; SIGKILL of condlint does not run them).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (limits.max_file_bytes > 0) {
      const rlimit fs{static_cast<rlim_t>(limits.max_file_bytes), static_cast<rlim_t>(limits.max_file_bytes)};
      setrlimit(RLIMIT_FSIZE, &fs);
    }
    if (!limits.cwd.empty() && chdir(limits.cwd.c_str()) != 0) _exit(127);
    // The handlers condlint installed are not the child's: a runtime ends as its signals say.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGBUS, SIGPIPE, SIGXFSZ}) signal(sig, SIG_DFL);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  const io::CleanupSlot group = io::register_child_group(pid);
  ::close(pipefd[1]);
  const int out = pipefd[0];
  fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK);
  bool open_pipe = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.timeout_ms);
  std::uintmax_t progress_size = 0;
  int status = 0;
  int wait_ms = 1;
  for (;;) {
    if (open_pipe) open_pipe = drain(out, r.err, r.text_bytes);
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      kill(-pid, SIGKILL);
      r.err = "waitpid failed";
      ::close(out);
      return r;
    }
    if (!limits.progress.empty()) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(limits.progress, ec);
      if (!ec && size > progress_size) {
        progress_size = size;
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.timeout_ms);
      }
    }
    const bool late = std::chrono::steady_clock::now() > deadline;
    const bool big = limits.max_rss_bytes > 0 && resident_bytes(pid) > limits.max_rss_bytes;
    const bool flood = limits.max_progress_bytes > 0 && progress_size > static_cast<std::uintmax_t>(limits.max_progress_bytes);
    if (late || big || flood) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = late;
      r.over_memory = !late && big;
      r.over_output = !late && !big;
      break;
    }
    // Wait for output or for a little while (at most 20 ms, so the limits are looked at often).
    pollfd p{out, POLLIN, 0};
    ::poll(open_pipe ? &p : nullptr, open_pipe ? 1 : 0, wait_ms);
    if (wait_ms < 20) wait_ms *= 2;
  }
  // The group's other processes go with the shell.
  kill(-pid, SIGKILL);
  if (open_pipe) {
    // What the child printed last, without waiting for a grandchild that keeps the pipe open.
    drain(out, r.err, r.text_bytes);
  }
  ::close(out);
  if (!r.timed_out && !r.over_memory && !r.over_output) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  while (!r.err.empty() && (r.err.back() == '\n' || r.err.back() == '\r')) r.err.pop_back();
  if (r.text_bytes > static_cast<int64_t>(kChildTextBytes)) r.err += "... (" + std::to_string(r.text_bytes) + " bytes in all, cut)";
  return r;
}

}  // namespace condlint::diff
