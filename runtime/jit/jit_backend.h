// What the JIT cache needs from a device to cache its kernels: the context
// its binaries depend on, a compile that also returns the bytes to store,
// and a load from those bytes. runtime/jit/cpu_backend.h (LLVM object code)
// and runtime/jit/cuda_backend.h (cubins) implement it.
#ifndef RUNTIME_JIT_JIT_BACKEND_H_
#define RUNTIME_JIT_JIT_BACKEND_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "runtime/factory_registry.h"
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
  virtual ~JitBackend() = default;
  // The device kernels run on (also for buffers and timing).
  virtual Device& device() = 0;
  // The target it compiles for (canonical name, what the passes were told).
  virtual const targets::Target& target() const = 0;
  // Every field of the context that is not the kernel's own: target, exact
  // architecture, toolkit and driver versions, device library hash, the
  // pipeline and its options, the project version, the compile environment.
  virtual CacheContext BaseContext() const = 0;
  virtual absl::StatusOr<CompiledKernel> Compile(const Module& module,
                                                 std::string_view kernel_name) = 0;
  virtual absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadArtifact(
      std::string_view artifact, std::string_view kernel_name) = 0;
};

// Sets every field of `target.CacheFields()` (target, pipeline, device library, options):
// what the backends' BaseContext starts from, before the fields of the machine.
void AddTargetFields(CacheContext& context, const targets::Target& target);

// The context of one kernel of a module: BaseContext() plus "kernel" and
// "ir_sha256", the hash of the module's canonical text with only that kernel.
CacheContext KernelContext(const JitBackend& backend, const Module& module,
                           std::string_view kernel_name, std::string_view kind = "binary");

// JIT backends by target family, from the same explicit list as the devices:
// LinkedJitBackends() is defined by //runtime:linked_runtime (cpu, cuda) or
// //runtime:linked_runtime_without_llvm (cuda alone). Errors say "unknown JIT
// backend 'cpu'; this program has: cuda".
class JitBackendRegistry : public FactoryRegistry<JitBackend> {
 public:
  JitBackendRegistry() : FactoryRegistry<JitBackend>("JIT backend") {}
};

// The JIT backends this binary links (runtime/linked_runtime.cc). Built on
// first use, thread-safe, never destroyed.
const JitBackendRegistry& LinkedJitBackends();

// The JIT backend for a target string ("cpu", "cuda", "cuda:sm_90a") among
// LinkedJitBackends().
inline absl::StatusOr<std::unique_ptr<JitBackend>> OpenJitBackend(std::string_view target) {
  return LinkedJitBackends().Open(target);
}

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_JIT_BACKEND_H_
