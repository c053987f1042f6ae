// The CUDA target's JIT backend: a compile lowers for the GPU's exact
// architecture, emits CUDA C++ and compiles it with NVRTC; the cached
// artifact is the cubin with the lowered module's text (the launch
// signature), so a disk hit only loads the cubin into the driver. The key
// covers the architecture, the NVRTC and driver versions and the device
// library's fingerprint. No LLVM: the GPU machine's binaries link this one.
#ifndef RUNTIME_JIT_CUDA_BACKEND_H_
#define RUNTIME_JIT_CUDA_BACKEND_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/jit/jit_backend.h"
#include "targets/target.h"

namespace tile_ir::runtime::jit {

// "cuda" (GPU 0, its own architecture) or "cuda:<arch>", with options
// ("cuda{gemm=wgmma}"); Unavailable without a driver or a GPU.
absl::StatusOr<std::unique_ptr<JitBackend>> OpenCudaJitBackend(std::string_view target);

// The cached artifact of a compiled kernel (the lowered module's text, the
// entry, the dynamic shared bytes, the cubin), and back. The lowered text
// names the CUDA intrinsics (cuda.gemm_ss, cuda.cp_async_*), which the linked
// target families make known. Neither needs a GPU.
std::string PackCudaArtifact(const targets::CompiledKernel& compiled);
absl::StatusOr<targets::CompiledKernel> UnpackCudaArtifact(std::string_view artifact,
                                                           std::string_view kernel_name);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_CUDA_BACKEND_H_
