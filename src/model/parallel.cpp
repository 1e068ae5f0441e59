#include "model/parallel.hpp"

#include <cstdlib>

namespace condlint {

namespace {

bool initially_enabled() {
  if (const char* e = std::getenv("CONDLINT_THREADS"); e && std::atoi(e) == 1) return false;
  return std::thread::hardware_concurrency() >= 2;
}

std::atomic<bool> g_enabled{initially_enabled()};

}  // namespace

void set_parallel(bool on) { g_enabled.store(on && initially_enabled()); }
bool parallel_enabled() { return g_enabled.load(std::memory_order_relaxed); }

}  // namespace condlint
