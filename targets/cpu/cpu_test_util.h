// Helpers for the CPU target's tests: reading the hand-written thread-level
// kernels of testdata/targets/cpu, compiling kernels with the CPU target and
// linking its object code as the CPU device does, running grids of blocks, and
// buffers that fault on any access past their ends.
//
// The tests link with runtime/cpu's object linker (a test-only edge from a
// target to the runtime): the code they check is the object code the target
// gives every device, loaded the one way the runtime loads it.
#ifndef TARGETS_CPU_CPU_TEST_UTIL_H_
#define TARGETS_CPU_CPU_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cpu/object_linker.h"
#include "targets/cpu/cpu_codegen.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu::test_util {

using runtime::cpu::LinkedObject;

// testdata/targets/cpu/<name>, parsed.
absl::StatusOr<Module> ParseTestdata(const std::string& name);

// `kernel` of a thread-level module, compiled as it is by the CPU target's
// Compile (no lowering: the tests check hand-written thread-level code) and
// linked. NotFound when the module has no such kernel.
absl::StatusOr<std::unique_ptr<LinkedObject>> CompileLowered(const Module& lowered,
                                                             std::string_view kernel);

// `kernel` of a tile-level module through Target::CompileKernel (the CPU
// pipeline, then Compile), linked: what the CPU device runs.
absl::StatusOr<std::unique_ptr<LinkedObject>> CompileKernel(const Module& module,
                                                            std::string_view kernel);

// Compiles testdata kernels for a test and keeps their code alive.
class KernelLoader {
 public:
  // The block function of `kernel` in testdata/targets/cpu/<file>, or null
  // (with a test failure recorded) when it does not compile.
  BlockFn Load(const std::string& file, const std::string& kernel);

 private:
  std::vector<std::unique_ptr<LinkedObject>> objects_;
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
