// A second core for the independent steps of one large lint: reading each IR graph, resolving each graph's
// edges, building each conditional's view, running each rule (bench/README.md: "two cores for one large
// model"). Each step's items read the model and write only what they own.
//
// parallel_for(n, work, fn) calls fn(i) once for every i in [0, n): on the calling thread alone when the work
// is small (`work` below kMinParallelWork: a thread costs more than it saves), when the machine has one core,
// or when parallelism is off; otherwise the caller and one helper thread take indices from a shared counter.
// fn must write only what index i owns; the result does not depend on which thread ran which index. An
// exception thrown by fn (std::bad_alloc) is rethrown on the calling thread after both threads stopped.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>

namespace condlint {

// Off when the process lints several files at once (`-j` > 1: the cores are taken) or CONDLINT_THREADS=1.
void set_parallel(bool on);
bool parallel_enabled();

// Below this much work (about one unit per node of the model) a step runs on one thread.
inline constexpr size_t kMinParallelWork = 20000;

template <class F>
void parallel_for(size_t n, size_t work, F&& fn) {
  auto serial = [&] {
    for (size_t i = 0; i < n; ++i) fn(i);
  };
  if (n < 2 || work < kMinParallelWork || !parallel_enabled()) return serial();
  std::atomic<size_t> next{0};
  auto take = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
  };
  std::exception_ptr helper_error;
  std::thread helper;
  try {
    helper = std::thread([&] {
      try {
        take();
      } catch (...) {
        helper_error = std::current_exception();
        next.store(n);  // the caller stops taking too
      }
    });
  } catch (const std::system_error&) {
    return serial();  // no thread to be had: nothing was taken yet
  }
  try {
    take();
  } catch (...) {
    next.store(n);
    helper.join();
    throw;
  }
  helper.join();
  if (helper_error) std::rethrow_exception(helper_error);
}

}  // namespace condlint
