// A compiled kernel as the bytes of a cache entry, and back: the lowered
// module's text (the launch signature), the entry, the dynamic shared memory
// and the binary under its format ("cubin", "object"). A disk hit turns the
// bytes back into the CompiledKernel the device loads, with no lowering and no
// compiling. Needs no GPU and no LLVM.
#ifndef RUNTIME_JIT_ARTIFACT_H_
#define RUNTIME_JIT_ARTIFACT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "targets/target.h"

namespace tile_ir::runtime::jit {

// Sections "lowered", "entry", "shared_bytes", then the binary named by its
// format (cache_entry.h's PackSections). What else the compile kept (the
// source, the PTX) is for inspection and not stored.
std::string PackCompiledKernel(const targets::CompiledKernel& compiled);

// The lowered text names the target's intrinsics (cuda.gemm_ss,
// cuda.cp_async_*), which the linked target families make known first
// (targets::LinkedTargets(): the binary links one of //targets:linked_targets*).
// DataLoss for bytes that are not such an artifact.
absl::StatusOr<targets::CompiledKernel> UnpackCompiledKernel(std::string_view artifact,
                                                             std::string_view kernel_name);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_ARTIFACT_H_
