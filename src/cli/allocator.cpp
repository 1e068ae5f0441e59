// Linked into the condlint executable and the benchmarks when mimalloc is available (never into sanitizer or
// fuzz builds, which bring their own allocator). A lint builds millions of small objects (ports, dims, names,
// protobuf messages) and frees them once; mimalloc's thread-local free lists cut the allocator's share of a big
// lint by about a third against glibc's malloc.
//
// First-touch page faults are the other cost: the kernel zeroes every fresh page, and on these VMs that costs
// about as much as parsing the file. When a loader announces a large model (model/memory_hint.hpp), the hook
// below gives mimalloc one region of that size and has a second thread fault it in (MADV_POPULATE_WRITE)
// while the loader parses and builds on the first; pages the loader reaches first it simply faults itself.
// For hints of 48 MiB or more; all regions of a process together are capped at 2 GiB and a quarter of the RAM.
// The region asks for transparent huge pages (fewer faults); mimalloc's own segments keep small pages, since
// a huge-page fault on the loader's thread can stall for compaction on a busy machine.
// CONDLINT_NO_PREFAULT=1 turns pre-faulting off.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include <mimalloc.h>

#include "model/memory_hint.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace {

constexpr size_t kMin = size_t(48) << 20;    // smaller models fault their pages faster than a thread starts
constexpr size_t kAlign = size_t(32) << 20;  // mimalloc's segment size
constexpr size_t kStep = size_t(2) << 20;    // one huge page per madvise

std::atomic<bool> g_stop{false};
std::atomic<size_t> g_given{0};  // bytes of all regions handed out so far (capped)

void prefault_hook(size_t bytes) {
  if (bytes == 0) {
    g_stop.store(true, std::memory_order_relaxed);
    return;
  }
  if (bytes < kMin) return;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t cap = size_t(2) << 30;
  if (pages > 0 && page > 0) cap = std::min(cap, static_cast<size_t>(pages) * static_cast<size_t>(page) / 4);
  const size_t given = g_given.load();
  if (given >= cap) return;
  const size_t size = std::min(bytes, cap - given) / kAlign * kAlign;  // down: pages nobody uses still count as RSS
  if (size < kMin) return;
  g_given.fetch_add(size);
  // mimalloc wants its arenas aligned to its segment size: map one alignment more and start at a boundary.
  void* raw = mmap(nullptr, size + kAlign, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return;
  char* start = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kAlign - 1) / kAlign * kAlign);
  // Huge pages for this region only: it is faulted in by the helper thread, so when the kernel has to compact
  // memory to find huge pages, that thread waits, not the loader.
  (void)madvise(start, size, MADV_HUGEPAGE);
  if (!mi_manage_os_memory(start, size, /*is_committed=*/true, /*is_large=*/false, /*is_zero=*/true, -1)) {
    munmap(raw, size + kAlign);
    return;
  }
  g_stop.store(false, std::memory_order_relaxed);
  try {
    std::thread([start, size] {
      for (size_t off = 0; off < size && !g_stop.load(std::memory_order_relaxed); off += kStep)
        if (madvise(start + off, std::min(kStep, size - off), MADV_POPULATE_WRITE) != 0) break;
    }).detach();
  } catch (...) {
    // No thread: the loader faults its pages itself, as without the hint.
  }
}

// Young allocations (model/memory_hint.hpp) come from a mimalloc heap of their own: its pages hold nothing that
// outlives the walk, so each one the walk empties goes back to the thread's segments, for any size. One such heap
// per thread, kept for every load: a heap made and deleted per model left its emptied pages in the thread's
// default heap, about 1 MiB per model of a zoo (mimalloc deletes a thread's heaps when the thread ends).
thread_local mi_heap_t* t_young = nullptr;
thread_local mi_heap_t* t_previous = nullptr;

bool young_open() {
  if (!t_young) t_young = mi_heap_new();
  if (!t_young || t_previous) return false;  // no heap, or already open on this thread
  t_previous = mi_heap_set_default(t_young);
  return true;
}

void young_close() {
  if (t_previous) mi_heap_set_default(t_previous);
  t_previous = nullptr;
}

void young_release() {
  if (t_young) mi_heap_collect(t_young, false);  // pages the load emptied go back for any size
}

[[gnu::constructor(101)]] void condlint_tune_allocator() {
  condlint::set_young_allocation_hooks({&young_open, &young_close, &young_release});
  if (const char* e = std::getenv("CONDLINT_NO_PREFAULT"); e && *e && *e != '0') return;
  condlint::set_memory_hint_hook(&prefault_hook);
}

}  // namespace
