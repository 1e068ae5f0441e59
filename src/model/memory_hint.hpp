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

// Allocations that die young, kept apart. A loader parses a file into messages that it frees as it walks them,
// while what it builds from them lives on. An allocator that serves both from the same pages can give no page back
// for other sizes while one long-lived block sits in it, so the walk would free much and reuse little. While a
// YoungAllocations is open, the hook serves this thread from pages of their own (the same ones for every load on
// the thread); close() goes back to the usual ones (what was allocated stays valid); the destructor, on the same
// thread, hands the pages the load emptied back for any size. Without a hook (tests, sanitizer builds) it does
// nothing.
struct YoungAllocationHooks {
  bool (*open)();     // starts serving this thread apart; false: not done
  void (*close)();    // this thread is served as before
  void (*release)();  // the pages kept apart that are empty now serve any size again
};
void set_young_allocation_hooks(const YoungAllocationHooks& hooks);

class YoungAllocations {
 public:
  YoungAllocations();
  ~YoungAllocations();
  void close();
  YoungAllocations(const YoungAllocations&) = delete;
  YoungAllocations& operator=(const YoungAllocations&) = delete;

 private:
  bool opened_ = false;  // the hook took it: release() is owed
  bool open_ = false;
};

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
