// A persistent pool of worker threads that runs the blocks of a CPU kernel
// launch: ParallelFor hands out chunks of block ids to the workers and the
// calling thread, and returns when every id has run.
#ifndef RUNTIME_CPU_THREAD_POOL_H_
#define RUNTIME_CPU_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace tile_ir::runtime::cpu {

class ThreadPool {
 public:
  // `num_threads` counts the calling thread, which works too: a pool of 1 has
  // no workers and runs everything inline.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(i) once for every i in [0, n), spread over the pool's threads,
  // and returns when all calls have returned. n == 1 runs inline. Calls from
  // several threads at once take turns; fn must not call ParallelFor on the
  // same pool.
  void ParallelFor(int64_t n, absl::FunctionRef<void(int64_t)> fn);

 private:
  struct Job {
    absl::FunctionRef<void(int64_t)> fn;
    int64_t n;
    int64_t chunk;
    std::atomic<int64_t> next{0};
  };
  void WorkerLoop();
  static void RunChunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex launch_mu_;  // one ParallelFor at a time
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  Job* job_ = nullptr;       // guarded by mu_
  uint64_t generation_ = 0;  // guarded by mu_; bumped per job
  int busy_workers_ = 0;     // guarded by mu_
  bool stop_ = false;        // guarded by mu_
};

// The thread count for CPU launches: $TILE_NUM_THREADS when set (a positive
// integer, else an error naming the variable), otherwise
// std::thread::hardware_concurrency() (at least 1).
absl::StatusOr<int> DefaultThreadCount();

}  // namespace tile_ir::runtime::cpu

#endif  // RUNTIME_CPU_THREAD_POOL_H_
