// parallel_for (src/model/parallel.hpp): every index once, whichever thread takes it; an exception from either
// thread reaches the caller after both stopped; small work stays on the calling thread.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "model/parallel.hpp"

using namespace condlint;

TEST(ParallelFor, EveryIndexExactlyOnce) {
  constexpr size_t n = 10000;
  std::vector<std::atomic<int>> seen(n);
  parallel_for(n, kMinParallelWork, [&](size_t i) { seen[i].fetch_add(1); });
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
}

TEST(ParallelFor, AnExceptionReachesTheCaller) {
  for (size_t thrower : {size_t(0), size_t(1), size_t(4999), size_t(9999)}) {
    std::atomic<size_t> ran{0};
    EXPECT_THROW(parallel_for(10000, kMinParallelWork,
                              [&](size_t i) {
                                ran.fetch_add(1);
                                if (i == thrower) throw std::runtime_error("item failed");
                              }),
                 std::runtime_error)
        << thrower;
    EXPECT_GE(ran.load(), 1u);
  }
}

TEST(ParallelFor, SmallWorkOrParallelismOffStaysOnTheCallingThread) {
  const auto me = std::this_thread::get_id();
  bool elsewhere = false;
  parallel_for(1000, kMinParallelWork - 1, [&](size_t) { elsewhere |= std::this_thread::get_id() != me; });
  EXPECT_FALSE(elsewhere);
  set_parallel(false);
  parallel_for(1000, kMinParallelWork * 10, [&](size_t) { elsewhere |= std::this_thread::get_id() != me; });
  set_parallel(true);
  EXPECT_FALSE(elsewhere);
}
