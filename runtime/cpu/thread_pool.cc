// The pool's workers sleep on a condition variable between jobs; within a job
// every thread claims chunks of ids from one atomic counter.
#include "runtime/cpu/thread_pool.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tile_ir::runtime::cpu {

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::RunChunks(Job& job) {
  while (true) {
    int64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.n) return;
    int64_t end = std::min(job.n, begin + job.chunk);
    for (int64_t i = begin; i < end; ++i) job.fn(i);
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  while (true) {
    Job* job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || (job_ != nullptr && generation_ != seen); });
      if (stop_) return;
      seen = generation_;
      job = job_;
      ++busy_workers_;
    }
    RunChunks(*job);
    {
      std::lock_guard<std::mutex> lock(mu_);
      --busy_workers_;
    }
    done_cv_.notify_all();
  }
}

void ThreadPool::ParallelFor(int64_t n, absl::FunctionRef<void(int64_t)> fn) {
  if (n <= 0) return;
  if (n == 1 || workers_.empty()) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::lock_guard<std::mutex> launch_lock(launch_mu_);
  // About four chunks per thread balances uneven blocks (ragged edges) without
  // making the shared counter hot.
  int64_t chunk = std::max<int64_t>(1, n / (4 * static_cast<int64_t>(num_threads())));
  Job job{fn, n, chunk};
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    ++generation_;
  }
  work_cv_.notify_all();
  RunChunks(job);
  // Every id is claimed now. Unpublish the job so that late workers do not
  // join, then wait for those still running their last chunk.
  std::unique_lock<std::mutex> lock(mu_);
  job_ = nullptr;
  done_cv_.wait(lock, [&] { return busy_workers_ == 0; });
}

absl::StatusOr<int> DefaultThreadCount() {
  if (const char* env = std::getenv("TILE_NUM_THREADS"); env != nullptr) {
    int threads = 0;
    if (!absl::SimpleAtoi(env, &threads) || threads < 1 || threads > 4096) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TILE_NUM_THREADS='", env, "' is not a thread count (an integer from 1 to 4096)"));
    }
    return threads;
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace tile_ir::runtime::cpu
