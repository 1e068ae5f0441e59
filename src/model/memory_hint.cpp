#include "model/memory_hint.hpp"

#include <atomic>

namespace condlint {

namespace {
std::atomic<MemoryHintHook> g_hook{nullptr};
}

void set_memory_hint_hook(MemoryHintHook hook) { g_hook.store(hook); }

namespace {
std::atomic<bool> g_young_set{false};
YoungAllocationHooks g_young{};  // written once, before g_young_set, at start-up
}  // namespace

void set_young_allocation_hooks(const YoungAllocationHooks& hooks) {
  g_young = hooks;
  g_young_set.store(true);
}

YoungAllocations::YoungAllocations() {
  if (g_young_set.load() && g_young.open) opened_ = open_ = g_young.open();
}

void YoungAllocations::close() {
  if (open_) g_young.close();
  open_ = false;
}

YoungAllocations::~YoungAllocations() {
  close();
  if (opened_) g_young.release();
}

MemoryHint::MemoryHint(size_t expected_bytes) {
  if (auto* h = g_hook.load(); h && expected_bytes > 0) {
    h(expected_bytes);
    active_ = true;
  }
}

MemoryHint::~MemoryHint() {
  if (auto* h = g_hook.load(); h && active_) h(0);
}

}  // namespace condlint
