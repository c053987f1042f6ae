// The CUDA target's own intrinsics: IR calls named "cuda.<name>" that the
// code generator emits as calls of the device library (targets/cuda/device),
//
//   eval cuda.<name>(a, B[i, j], ..., 4, 2);  ->  tl::<name><4, 2>(a, &B[i * N + j], ...);
//
// A '.' inside <name> becomes "::" (a namespace of the library). Arguments
// that are buffer loads pass the element's address (a typed pointer; the
// thread's own registers for a fragment), the last num_template_args
// arguments must be integer or bool literals and become template arguments,
// and every other argument passes its value. Lowering passes that introduce
// such calls register them here first (RegisterCudaIntrinsic also registers
// the IR intrinsic, void and impure, so that the verifier and the text
// parser accept it).
#ifndef TARGETS_CUDA_INTRINSICS_H_
#define TARGETS_CUDA_INTRINSICS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

inline constexpr char kCudaIntrinsicPrefix[] = "cuda.";
inline constexpr size_t kCudaIntrinsicPrefixSize = sizeof(kCudaIntrinsicPrefix) - 1;

// Registers `name` (which must start with "cuda.") as a library intrinsic of the C-source
// targets' one table (targets/c_source/library_call.h), which records its template arity. Registering the same name again with the same
// arities is OK (so registration may run in every caller); different
// arities, a name another component registered, or num_template_args outside
// [0, num_args] are errors. `async_copy` marks an asynchronous copy for barrier
// insertion (IntrinsicInfo::async_copy); `core_matrix_operands` and `core_matrix_fence`, when
// given, are registered as its CoreMatrixReads.
absl::Status RegisterCudaIntrinsic(std::string name, int num_args, int num_template_args,
                                   std::string description, bool async_copy = false,
                                   std::vector<int> core_matrix_operands = {},
                                   std::string core_matrix_fence = "");

// How an intrinsic reads shared tiles as the core matrices of PTX's matrix instructions
// (wgmma), which core-matrix-tiles (targets/cuda/passes/core_matrix_tiles.h) lays out for it.
struct CoreMatrixReads {
  // The arguments (indices into the call's arguments) that are BufferLoads naming the first
  // element of a shared matrix tile the call reads in core-matrix order: core-matrix-tiles
  // re-lays each such buffer [..., R, C] as [..., C / E, R, E], E being the elements of 16
  // bytes, and rewrites every access of it.
  std::vector<int> operands;
  // The intrinsic (void, no arguments) that orders this thread's ordinary stores to those
  // tiles before the call's reads (a proxy fence, as wgmma reads shared memory outside the
  // ordinary path); core-matrix-tiles calls it after each statement that stores to such a
  // tile. Empty: none is needed.
  std::string fence;
};

// Records that calls of the intrinsic `name` (any registered intrinsic: the test targets'
// too) read core matrices so (the same again is OK; different reads are an error).
absl::Status RegisterCoreMatrixReads(std::string name, CoreMatrixReads reads);
// nullptr for an intrinsic that reads no core matrices.
const CoreMatrixReads* FindCoreMatrixReads(std::string_view name);

// Registers `name` as a role marker of warp-specialized kernels: a bool intrinsic of no
// arguments, impure (never folded or moved: warp-roles finds it where a pass put it and
// replaces it with a thread-index test), `partitions_threads` when two groups of threads run
// the arms of a branch on it concurrently (tile_ir/intrinsics.h). Registering it again is OK.
void RegisterRoleMarker(std::string name, std::string description, bool partitions_threads);

// Registers the intrinsics of the device library itself (safe to call again):
//   cuda.cp_async_16(dst, src, pred), cuda.cp_async_8(...), cuda.cp_async_4(...):
//     an asynchronous copy of 16, 8 or 4 bytes from the global element src to
//     the shared element dst (both aligned to the size) when pred holds, else
//     zeros into dst without reading src; async_commit/async_wait complete it
//     (registered as async copies, so barriers order them where they land);
//   cuda.fence_proxy_async(): fence.proxy.async.shared::cta on sm_90 and newer (ordinary
//     shared-memory stores before reads of the async proxy, wgmma's), nothing before.
void RegisterCudaLibraryIntrinsics();

// Whether `kernel`'s warpgroups set their own register counts (cuda.setmaxnreg_*, which
// warp-roles emits for the roles of a warp-specialized kernel).
bool SetsWarpgroupRegisters(const KernelNode& kernel);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_INTRINSICS_H_
