// Child processes of the runtime adapters (diff's runtimes, lint's live target checks): a shell command run in its
// own process group under a time limit and a memory limit, so that a runtime that hangs or grows on a hostile model
// is stopped without taking condlint with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace condlint::diff {

struct ProcResult {
  int exit_code = -1;  // -1: did not start or was killed
  int signal = 0;      // the signal that ended it (0: none)
  bool timed_out = false;
  bool over_memory = false;  // killed because its resident memory passed the limit
  std::string err;           // stdout and stderr (cut at 2,000 bytes)
};

// Runs `cmd` through /bin/sh in its own process group; stdout and stderr go to `log`. Kills the group after
// `timeout_ms`, or when the resident memory of the shell's process (the runtime itself when the command starts with
// `exec`) passes `max_rss_bytes` (0: no memory limit). With a `progress` file, the time limit counts from the last
// time that file grew (a batch that writes a line per model gets `timeout_ms` per model).
ProcResult run_shell(const std::string& cmd, const std::filesystem::path& log, int64_t timeout_ms,
                     int64_t max_rss_bytes = 0, const std::filesystem::path& progress = {});

// One argument for /bin/sh: single-quoted, with embedded quotes escaped.
std::string shell_quote(const std::string& s);

}  // namespace condlint::diff
