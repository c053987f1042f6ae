// The CPU device: kernels compiled by the CPU target (LLVM ORC JIT), their
// blocks run on a persistent thread pool.
#ifndef RUNTIME_CPU_CPU_DEVICE_H_
#define RUNTIME_CPU_CPU_DEVICE_H_

#include <memory>
#include <string_view>

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

// The device for a target string: "cpu" alone (InvalidArgument for an
// architecture or options: it compiles for the host CPU).
absl::StatusOr<std::unique_ptr<Device>> OpenCpuTarget(std::string_view target);

// A kernel of an executable compiled elsewhere (the JIT cache links cached
// object code), launched on `device`'s thread pool like the kernels its Load
// gives. `device` must be a CPU device from OpenCpuDevice; InvalidArgument
// otherwise, NotFound when the executable lacks the kernel.
absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadCpuExecutable(
    Device& device, std::unique_ptr<tile_ir::cpu::CpuExecutable> executable,
    std::string_view kernel_name);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_CPU_CPU_DEVICE_H_
