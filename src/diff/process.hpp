// Child processes of the runtime adapters (diff's runtimes, lint's live target checks): a shell command run in its
// own process group, in a folder of its own, under a time limit, a memory limit and limits on what it writes, so that
// a runtime that hangs, grows or floods its output on a hostile model is stopped without taking condlint with it.
// The child dies with condlint: its group is killed on SIGINT, SIGTERM and SIGHUP (io/cleanup), and the kernel
// kills it when condlint itself dies (PR_SET_PDEATHSIG).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace condlint::diff {

// What is kept of a child's standard output and standard error together: the first bytes (the rest is read and
// dropped, so a child that prints gigabytes costs condlint no memory).
inline constexpr size_t kChildTextBytes = 2000;

struct ProcResult {
  int exit_code = -1;  // -1: did not start or was killed
  int signal = 0;      // the signal that ended it (0: none)
  bool timed_out = false;
  bool over_memory = false;      // killed because its resident memory passed the limit
  bool over_output = false;      // killed because the progress file passed its limit
  std::string err;               // stdout and stderr (the first kChildTextBytes, then "...")
  int64_t text_bytes = 0;        // how many bytes it printed in all
};

struct ProcLimits {
  int64_t timeout_ms = 60'000;
  int64_t max_rss_bytes = 0;  // resident memory of the shell's process (the runtime with `exec`); 0: none
  // With a progress file, the time limit counts from the last time that file grew (a batch that writes a line per
  // model gets timeout_ms per model), and the child is stopped when the file passes max_progress_bytes (0: none).
  std::filesystem::path progress;
  int64_t max_progress_bytes = 0;
  // The largest file the child may write (RLIMIT_FSIZE: past it the write fails and the child gets SIGXFSZ); 0: none.
  int64_t max_file_bytes = 0;
  std::filesystem::path cwd;  // the child's working folder ("" : condlint's)
};

// Runs `cmd` through /bin/sh in its own process group, standard input /dev/null, standard output and error read
// through a pipe (the first kChildTextBytes kept). Kills the group when a limit is passed.
ProcResult run_shell(const std::string& cmd, const ProcLimits& limits);

// One argument for /bin/sh: single-quoted, with embedded quotes escaped.
std::string shell_quote(const std::string& s);

}  // namespace condlint::diff
