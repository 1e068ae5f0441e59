// What a signal must not leave behind besides the report temporaries (output.hpp): the temporary folders a command
// made (live target checks, diff's work folder) and the process groups of its child processes (the runtimes). On
// SIGINT, SIGTERM and SIGHUP, and when a mapped file shrinks (SIGBUS), the handlers of output.cpp and mapped_file.cpp
// kill every registered group and remove every registered folder before the process ends. Both tables are fixed
// arrays of atomics, so the handler only reads atomics and makes async-signal-safe system calls.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace condlint::io {

// A registration, released by its destructor (the folder is then no longer removed by a signal: its owner removes
// it on the normal way out). Slots are limited (64 each); past that a registration is inert and says so by !held().
class CleanupSlot {
 public:
  CleanupSlot() = default;
  ~CleanupSlot();
  CleanupSlot(CleanupSlot&& o) noexcept;
  CleanupSlot& operator=(CleanupSlot&& o) noexcept;
  CleanupSlot(const CleanupSlot&) = delete;
  CleanupSlot& operator=(const CleanupSlot&) = delete;
  bool held() const { return slot_ >= 0; }

 private:
  friend CleanupSlot register_temp_dir(const std::string&);
  friend CleanupSlot register_child_group(pid_t);
  int kind_ = 0;  // 1: a folder, 2: a process group
  int slot_ = -1;
};

// A folder to remove, with everything in it, if a signal ends the process.
CleanupSlot register_temp_dir(const std::string& path);
// A process group to kill (SIGKILL) if a signal ends the process.
CleanupSlot register_child_group(pid_t pgid);

// Kills every registered process group and removes every registered folder; async-signal-safe.
void release_for_exit() noexcept;

}  // namespace condlint::io
