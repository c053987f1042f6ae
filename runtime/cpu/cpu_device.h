// The CPU device: its target is the CPU target (targets/cpu, which compiles
// kernels to object code for the host), it links that object code with ORC,
// and runs the blocks on a persistent thread pool.
#ifndef RUNTIME_CPU_CPU_DEVICE_H_
#define RUNTIME_CPU_CPU_DEVICE_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"

namespace tile_ir::runtime {

struct CpuDeviceOptions {
  // Threads that run blocks, the launching thread included; 0 means
  // DefaultThreadCount() ($TILE_NUM_THREADS or the hardware's).
  int num_threads = 0;
};

// Fails only on a bad $TILE_NUM_THREADS.
absl::StatusOr<std::unique_ptr<Device>> OpenCpuDevice(const CpuDeviceOptions& options = {});

// The device for a target string: "cpu" alone (InvalidArgument for an
// architecture or options: it compiles for the host CPU).
absl::StatusOr<std::unique_ptr<Device>> OpenCpuTarget(std::string_view target);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_CPU_CPU_DEVICE_H_
