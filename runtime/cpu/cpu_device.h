// The CPU device: kernels compiled by the CPU target (LLVM ORC JIT), their
// blocks run on a persistent thread pool.
#ifndef RUNTIME_CPU_CPU_DEVICE_H_
#define RUNTIME_CPU_CPU_DEVICE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "targets/cpu/cpu_compiler.h"

namespace tile_ir::runtime {

struct CpuDeviceOptions {
  // Threads that run blocks, the launching thread included; 0 means
  // DefaultThreadCount() ($TILE_NUM_THREADS or the hardware's).
  int num_threads = 0;
  tile_ir::cpu::CpuCompileOptions compile;
};

// Fails only on a bad $TILE_NUM_THREADS.
absl::StatusOr<std::unique_ptr<Device>> OpenCpuDevice(const CpuDeviceOptions& options = {});

}  // namespace tile_ir::runtime

#endif  // RUNTIME_CPU_CPU_DEVICE_H_
