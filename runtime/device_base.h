// The interface every device implements: compile a module's kernel into
// something it can launch, and launch it with DLPack arguments. device.h adds
// OpenDevice, which knows every implementation; implementations (runtime/cpu)
// depend only on this header.
#ifndef RUNTIME_DEVICE_BASE_H_
#define RUNTIME_DEVICE_BASE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/kernel_args.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime {

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  virtual const KernelNode& signature() const = 0;
  // Checks the arguments (see kernel_args.h), runs the kernel and waits for
  // it. Safe to call from several threads at once.
  virtual absl::Status Launch(const std::vector<KernelArg>& args) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  // "cpu", "cuda", ...
  virtual std::string name() const = 0;
  // A readable description ("cpu: znver3, 2 threads").
  virtual std::string description() const = 0;
  // Compiles `kernel_name` of a tile-level module for this device. The loaded
  // kernel does not refer to `module` afterwards.
  virtual absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(const Module& module,
                                                             std::string_view kernel_name) = 0;
};

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DEVICE_BASE_H_
