// How a loader tells the process it is about to build a large model. The condlint executable installs a hook
// (src/cli/allocator.cpp) that hands the allocator a region of that size and pre-faults it on another core
// while the loader works: on these machines the kernel's first-touch zeroing of fresh pages costs about as
// much as the parse itself (bench/README.md). Without a hook (tests, sanitizer builds) a hint does nothing.
#pragma once

#include <cstddef>

namespace condlint {

// begin: expected bytes of the allocations to come (> 0); the same hook is called with 0 when the load ends.
using MemoryHintHook = void (*)(size_t expected_bytes);
void set_memory_hint_hook(MemoryHintHook hook);

// RAII: hints at construction, signals the end at destruction.
class MemoryHint {
 public:
  explicit MemoryHint(size_t expected_bytes);
  ~MemoryHint();
  MemoryHint(const MemoryHint&) = delete;
  MemoryHint& operator=(const MemoryHint&) = delete;

 private:
  bool active_ = false;
};

}  // namespace condlint
