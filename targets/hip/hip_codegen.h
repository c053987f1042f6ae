// Code generation for thread-level modules on HIP: readable HIP C++, one
// `extern "C" __global__` function per kernel, that includes the device
// library "tl/common.h" (hip_device_headers.h) and compiles with hipcc
// (hipcc_compiler.h). hip_lowering.h adds the lowering from the tile level.
// The walk over the IR is targets/c_source's with the HIP dialect.
//
// Semantics are the CUDA target's (targets/cuda/cuda_codegen.h), except:
//   - bf16 is hip_bfloat16, whose operators compute in f32 and round once;
//     f16 and bf16 fma compute in f32 and round twice (no bf16 fma in HIP 5.2);
//   - fp8 has no form (HIP 5.2 has no fp8 types): kernels using it are refused;
//   - barrier(warp) orders the LDS accesses of a whole wavefront of 64 lanes;
//   - async_commit and async_wait do nothing: copies are synchronous.
#ifndef TARGETS_HIP_HIP_CODEGEN_H_
#define TARGETS_HIP_HIP_CODEGEN_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::hip {

struct HipCodegenOptions {
  // The architecture the source is for ("gfx90a", "gfx940"); it names the
  // source in its header comment.
  std::string arch = "gfx90a";
  // Emit only this kernel; empty: every kernel of the module.
  std::string kernel;
  // Paste the device library (hip_device_headers.h) into the source instead of
  // including "tl/common.h", so that `hipcc --genco` compiles the source as it
  // is, outside this tree (c_source::InlineIncludes).
  bool embed_library = false;
};

// The HIP C++ source of a thread-level module (docs/LOWERING.md, "The HIP
// calling convention"). Errors name the kernel, the node and its location:
// the thread-level contract (c_source::CheckThreadLevel), constructs without
// a HIP form, and NotFound for an options.kernel the module does not have.
absl::StatusOr<std::string> EmitHipSource(const Module& lowered,
                                          const HipCodegenOptions& options = {});

// The extern "C" symbol EmitHipSource gives the kernel named `kernel`: its name where that is
// a usable HIP symbol, else one derived from it ("main" -> "tl_main_kernel"; c_names.h).
std::string HipKernelSymbol(const Module& lowered, std::string_view kernel);

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_CODEGEN_H_
