// Side-by-side timing for the benchmarks. Two ways of timing one step, both reported:
//  - warm: in this process, repeated; memory freed by the previous repeat is reused (allocator caches, pages
//    already mapped) — the best case;
//  - cold: in a fresh process per repeat (the benchmark runs itself), as a `condlint lint` process runs — every page
//  the step touches
//    is faulted in and zeroed by the kernel, which on these VMs costs about as much as the parse itself. The
//    child's peak RSS growth during the step is the step's memory figure.
// Medians of N; the machines are shared and noisy, so compare figures taken in the same run only.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace condlint::bench {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Cold {
  double ms = -1;      // wall time of the step inside the child
  double rss_mb = -1;  // child's peak RSS minus its resident set before the step: what the step added
};

inline double current_rss_mb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024.0) / 1024.0;
}

// Cold runs: the benchmark executes itself as `SELF --child STEP FILE`; the child reads FILE, then times STEP
// alone and reports on fd 3 its time, its resident set before the step and its peak (VmHWM) after it.
struct ChildReport {
  double ms = -1;
  double base_rss_mb = 0;
  double peak_rss_mb = 0;  // VmHWM of the child's own address space (wait4's ru_maxrss would carry the
                           // parent's peak across fork + exec)
};

inline double peak_rss_mb() {
  double kb = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
    std::fclose(f);
  }
  return kb / 1024.0;
}

inline Cold run_cold(const char* self, const char* step, const std::string& file) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid < 0) return {};
  if (pid == 0) {
    close(fds[0]);
    if (fds[1] != 3) {
      dup2(fds[1], 3);
      close(fds[1]);
    }
    execl(self, self, "--child", step, file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  Cold c;
  ChildReport rep;
  const bool got = read(fds[0], &rep, sizeof rep) == static_cast<ssize_t>(sizeof rep);
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) == pid && got && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    c.ms = rep.ms;
    c.rss_mb = rep.peak_rss_mb - rep.base_rss_mb;
  }
  return c;
}

// In the child: reads the file, runs the named step with its bytes, reports on fd 3, exits without teardown
// (as the CLI does for a single model). Returns only when argv is not a child invocation.
template <class Steps>
void child_main(int argc, char** argv, const Steps& steps) {
  if (argc < 4 || std::string(argv[1]) != "--child") return;
  std::string bytes;
  if (FILE* f = std::fopen(argv[3], "rb")) {
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  } else {
    _exit(2);
  }
  ChildReport rep;
  rep.base_rss_mb = current_rss_mb();
  const auto t0 = std::chrono::steady_clock::now();
  if (!steps(std::string(argv[2]), bytes)) _exit(2);
  rep.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  rep.peak_rss_mb = peak_rss_mb();
  (void)!write(3, &rep, sizeof rep);
  _exit(0);
}

template <class F>
double run_warm(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace condlint::bench
