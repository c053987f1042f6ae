// The thread pool runs every id exactly once, on several threads, inline for
// one id, and survives many launches and concurrent callers.
#include "runtime/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tile_ir::runtime::cpu {
namespace {

TEST(ThreadPoolTest, RunsEveryIdExactlyOnce) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.num_threads(), 4);
  for (int64_t n : {0, 1, 2, 3, 7, 64, 1000, 12345}) {
    std::vector<std::atomic<int>> hits(n);
    pool.ParallelFor(n, [&](int64_t i) { hits[i].fetch_add(1); });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPoolTest, UsesSeveralThreadsAndRunsOneIdInline) {
  ThreadPool pool(3);
  std::mutex mu;
  std::set<std::thread::id> threads;
  // Slow enough that the workers wake up before the caller finishes alone.
  pool.ParallelFor(300, [&](int64_t) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_GT(threads.size(), 1u);
  std::thread::id ran_on;
  pool.ParallelFor(1, [&](int64_t) { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(ThreadPoolTest, SingleThreadPoolRunsInline) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.num_threads(), 1);
  std::vector<int64_t> order;
  pool.ParallelFor(5, [&](int64_t i) { order.push_back(i); });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(ThreadPoolTest, ManyLaunchesAndConcurrentCallers) {
  ThreadPool pool(4);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 3; ++c) {
    callers.emplace_back([&] {
      for (int launch = 0; launch < 200; ++launch) {
        pool.ParallelFor(17, [&](int64_t i) { total.fetch_add(i + 1); });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 3 * 200 * (17 * 18 / 2));
}

TEST(ThreadPoolTest, ThreadCountFromTheEnvironment) {
  setenv("TILE_NUM_THREADS", "3", 1);
  absl::StatusOr<int> threads = DefaultThreadCount();
  ASSERT_TRUE(threads.ok()) << threads.status();
  EXPECT_EQ(*threads, 3);
  setenv("TILE_NUM_THREADS", "zero", 1);
  threads = DefaultThreadCount();
  ASSERT_FALSE(threads.ok());
  EXPECT_EQ(threads.status().message(),
            "TILE_NUM_THREADS='zero' is not a thread count (an integer from 1 to 4096)");
  unsetenv("TILE_NUM_THREADS");
  threads = DefaultThreadCount();
  ASSERT_TRUE(threads.ok());
  EXPECT_GE(*threads, 1);
}

}  // namespace
}  // namespace tile_ir::runtime::cpu
