// Helpers for the CPU target's tests: reading and compiling the hand-written
// thread-level kernels of testdata/targets/cpu, running grids of blocks, and
// buffers that fault on any access past their ends.
#ifndef TARGETS_CPU_CPU_TEST_UTIL_H_
#define TARGETS_CPU_CPU_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "targets/cpu/cpu_codegen.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu::test_util {

// testdata/targets/cpu/<name>, parsed.
absl::StatusOr<Module> ParseTestdata(const std::string& name);

// testdata/targets/cpu/<name>, parsed and compiled with CompileLoweredForCpu.
absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileTestdata(const std::string& name);

// Compiles testdata files for a test and keeps their code alive.
class KernelLoader {
 public:
  // The block function of `kernel` in testdata/targets/cpu/<file>, or null
  // (with a test failure recorded) when it does not compile.
  BlockFn Load(const std::string& file, const std::string& kernel);

 private:
  std::vector<std::unique_ptr<CpuExecutable>> executables_;
};

// Runs block (bx, by, bz) of `kernel` for every index of the grid, on
// `threads` threads (1: in order, on this thread).
void RunGrid(BlockFn kernel, const std::vector<void*>& args, int grid_x, int grid_y = 1,
             int grid_z = 1, int threads = 1);

// `bytes` of zeroed memory placed against an inaccessible page, so that a read
// or write beyond it (or before it, with kGuardStart) crashes the test.
class GuardedBuffer {
 public:
  enum class Side { kGuardEnd, kGuardStart };
  GuardedBuffer(size_t bytes, Side side);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  void* data() const { return data_; }

 private:
  void* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  void* data_ = nullptr;
};

}  // namespace tile_ir::cpu::test_util

#endif  // TARGETS_CPU_CPU_TEST_UTIL_H_
