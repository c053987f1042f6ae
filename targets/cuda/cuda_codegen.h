// Code generation for thread-level modules on CUDA: readable CUDA C++, one
// `extern "C" __global__` function per kernel, that includes the device
// library "tl/common.cuh" (device_headers.h) and compiles with NVRTC
// (nvrtc_compiler.h) or nvcc. cuda_lowering.h adds the lowering from the tile
// level. The walk over the IR is targets/c_source's, with the CUDA dialect
// (cuda_dialect.h). Nothing here needs CUDA at run time.
//
// Semantics the generated code gives the IR (beyond tile_ir/expr.h), as the
// CPU target's (targets/cpu/cpu_codegen.h) wherever CUDA allows:
//   - i32/i64 +, -, * overflow and integer division by zero are undefined, as
//     in C; i8, i16, u8 and i4 wrap.
//   - float -> int casts truncate, saturate and give 0 for NaN; int -> f16,
//     bf16 and fp8 go through f64 then round once; conversions round to
//     nearest even, to fp8 saturating to the largest finite value.
//   - f16 and bf16 arithmetic round after each operation (cuda_fp16/cuda_bf16
//     operators); fp8 computes in f32 and rounds after each operation;
//     math intrinsics on them compute in f32 (fma rounds once).
//   - float min/max return the operand that is not NaN; comparisons are
//     ordered, except != which is true for NaN.
//   - select is C++'s conditional operator and &&/|| short-circuit, so a
//     guarded load (bound predication) never touches memory out of bounds.
//   - i4 is packed two per byte, element k in the low nibble of byte k/2 for
//     even k; a store to shared or global memory changes its nibble by an
//     atomic compare-and-swap, since other threads may store the other one.
//   - atomic_add_at is atomicAdd for f32, f64, i32, i64 (as unsigned 64-bit),
//     f16 and bf16, a compare-and-swap loop on the enclosing 32-bit word for
//     i8, i16, u8 and fp8, and a plain update on a thread's local array.
//   - atomic_max_at and atomic_min_at are atomicMax/atomicMin for i32 and a
//     compare-and-swap loop for the other types but i4 and fp8 (refused),
//     ordered as tl::max and tl::min.
//   - shifts take the amount modulo the width (b & (bits - 1)); reinterpret is
//     tl::bit_cast.
//   - async_commit and async_wait(n) are cp.async.commit_group and
//     cp.async.wait_group n.
//   - a vector statement computes all its lanes, then stores them; contiguous
//     accesses whose alignment is proved (the calling convention's 16 bytes
//     for global buffers, offset(N) for shared ones) move 4, 8 or 16 bytes at
//     once, others go element by element.
#ifndef TARGETS_CUDA_CUDA_CODEGEN_H_
#define TARGETS_CUDA_CUDA_CODEGEN_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "targets/cuda/shared_memory.h"  // SharedMemoryBytes
#include "tile_ir/module.h"

namespace tile_ir::cuda {

struct CudaCodegenOptions {
  // The architecture the source is for ("sm_80", "sm_90a"); it names the
  // source in its header comment.
  std::string arch = "sm_90a";
  // Emit only this kernel; empty: every kernel of the module.
  std::string kernel;
  // Paste the device library (device_headers.h) into the source instead of
  // including "tl/common.cuh", so that `nvcc -c` compiles the source as it is,
  // outside this tree (c_source::InlineIncludes).
  bool embed_library = false;
};

// The CUDA C++ source of a thread-level module (docs/LOWERING.md, "The CUDA
// calling convention"). Errors name the kernel, the node and its location:
// the contract of c_source::CheckThreadLevel, constructs without a CUDA form, and
// NotFound for an options.kernel the module does not have.
absl::StatusOr<std::string> EmitCudaSource(const Module& lowered,
                                           const CudaCodegenOptions& options = {});

// The extern "C" symbol EmitCudaSource gives the kernel named `kernel`: its name where that is
// a usable CUDA symbol, else one derived from it ("main" -> "tl_main_kernel"; c_names.h).
std::string CudaKernelSymbol(const Module& lowered, std::string_view kernel);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_CODEGEN_H_
