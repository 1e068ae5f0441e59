#include "model/memory_hint.hpp"

#include <atomic>

namespace condlint {

namespace {
std::atomic<MemoryHintHook> g_hook{nullptr};
}

void set_memory_hint_hook(MemoryHintHook hook) { g_hook.store(hook); }

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
