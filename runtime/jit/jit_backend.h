// What the JIT cache compiles and loads through: a device and its target. A
// compile is the target's (Target::CompileKernel) and gives the bytes to store
// besides the loaded kernel; a disk hit hands the stored bytes back to the
// device (Device::LoadCompiled), with no lowering and no compiling. One class
// for every device: the vendor is in the device and the target, not here.
#ifndef RUNTIME_JIT_JIT_BACKEND_H_
#define RUNTIME_JIT_JIT_BACKEND_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "runtime/device_registry.h"
#include "runtime/jit/cache_context.h"
#include "targets/target.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime::jit {

struct CompiledKernel {
  std::unique_ptr<LoadedKernel> kernel;
  std::string artifact;  // what LoadArtifact turns back into `kernel`
};

class JitBackend {
 public:
  explicit JitBackend(std::unique_ptr<Device> device);

  // The device kernels run on (also for buffers and timing).
  Device& device() { return *device_; }
  // The device's target (canonical name, what the passes were told).
  const targets::Target& target() const { return device_->target(); }
  // Every field of the context that is not the kernel's own: the target's
  // (target, pipeline, device library, options), the device's (exact
  // architecture, toolkit and driver versions), the project version and the
  // compile environment.
  const CacheContext& BaseContext() const { return context_; }
  // target().CompileKernel, then the device loads it; the artifact is
  // PackCompiledKernel's (artifact.h).
  absl::StatusOr<CompiledKernel> Compile(const Module& module, std::string_view kernel_name);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadArtifact(std::string_view artifact,
                                                             std::string_view kernel_name);

 private:
  std::unique_ptr<Device> device_;
  CacheContext context_;
};

// The context of one kernel of a module: BaseContext() plus "kernel" and
// "ir_sha256", the hash of the module's canonical text with only that kernel.
CacheContext KernelContext(const JitBackend& backend, const Module& module,
                           std::string_view kernel_name, std::string_view kind = "binary");

// The JIT backend over OpenDevice(target) ("cpu", "cuda", "cuda:sm_90a"), from
// the devices this binary links (LinkedDevices(), runtime/linked_runtime.cc):
// "unknown device 'hip:gfx90a'; this program has: cpu, cuda".
inline absl::StatusOr<std::unique_ptr<JitBackend>> OpenJitBackend(std::string_view target) {
  absl::StatusOr<std::unique_ptr<Device>> device = OpenDevice(target);
  if (!device.ok()) return device.status();
  return std::make_unique<JitBackend>(*std::move(device));
}

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_JIT_BACKEND_H_
