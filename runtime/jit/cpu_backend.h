// The CPU target's JIT backend: a compile lowers the kernel with the CPU
// pipeline, generates and optimizes LLVM IR for the host CPU and emits an
// object file; the cached artifact is that object code with the lowered
// module's text (the launch signature), so a disk hit only links the object
// into ORC, with no lowering, code generation or optimization. Links LLVM.
#ifndef RUNTIME_JIT_CPU_BACKEND_H_
#define RUNTIME_JIT_CPU_BACKEND_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/jit/jit_backend.h"

namespace tile_ir::runtime::jit {

// Over a CPU device of OpenCpuDevice() ($TILE_NUM_THREADS threads). The
// target is "cpu" alone; an architecture or options are refused, naming what
// the family takes.
absl::StatusOr<std::unique_ptr<JitBackend>> OpenCpuJitBackend(std::string_view target = "cpu");

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_CPU_BACKEND_H_
