// TMA tile loads and stores and the tensor maps they name. A warp-specialized kernel's producer
// issues
//
//   eval cuda.tma_load_2d(T_s[slot, 0, 0], A[0, 0], ws_full[slot], row, col, ROWS, COLS);
//   eval cuda.tma_load_4d(T_s[slot, 0, 0], K[0, 0, 0, 0], ws_full[slot], b, h, row, col,
//                         ROWS, COLS);
//
// which loads the ROWS x COLS tile at (row, col) of the last two dimensions of the global
// tensor (of rank 2 to 5; the coordinates of the leading dimensions pick one matrix of it)
// into the shared tile T_s (laid out by core-matrix-tiles in 128-byte swizzle atoms) and counts
// its bytes on the mbarrier. The second argument names the tensor (an element load the call
// never makes);
// the device reads it through a tensor map: a CUtensorMap the host encodes at each launch
// from the tensor's address and shape (runtime/cuda/cuda_kernel.cc) and passes as a
// `const __grid_constant__` parameter after the kernel's dimensions. The code generator and
// the runtime both derive the list of those parameters from the lowered kernel alone, here.
//
// With {tma_store=on} its consumers write an output tile the same way in reverse
// (targets/cuda/passes/tma_stores.h):
//
//   eval cuda.tma_store_2d(C_stage[0, 0], C[0, 0], row, col, ROWS, COLS);
//   eval cuda.tma_store_wait_read(C_stage[0, 0]);
//
// stores the ROWS x COLS shared tile C_stage (128-byte swizzled, as a load writes it) to the
// tile at (row, col) of C as one bulk group (elements outside the tensor are not written),
// and the wait returns once this thread's bulk groups have read their shared tiles, so that
// they may be written again.
#ifndef TARGETS_CUDA_TENSOR_MAPS_H_
#define TARGETS_CUDA_TENSOR_MAPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/analysis/divisibility.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// dst, tensor, barrier, one coordinate per dimension of the tensor, ROWS, COLS.
inline constexpr int kTmaLoadFixedArgs = 5;
// src, tensor, one coordinate per dimension of the tensor, ROWS, COLS.
inline constexpr int kTmaStoreFixedArgs = 4;
// cuda.tma_store_wait_read(tile): waits until this thread's TMA stores have read their tiles.
inline constexpr char kTmaStoreWaitReadIntrinsic[] = "cuda.tma_store_wait_read";
// The ranks a tensor map may have.
inline constexpr int kTmaMinRank = 2;
inline constexpr int kTmaMaxRank = 5;
// A box's inner extent is one 128-byte swizzle row (CU_TENSOR_MAP_SWIZZLE_128B's limit).
inline constexpr int64_t kTmaSwizzleBytes = 128;
// The TMA's largest box extent.
inline constexpr int64_t kTmaMaxBoxRows = 256;

// One tensor map: the global tensor (a buffer parameter of rank 2 to 5) and its box, which
// spans one element of each leading dimension.
struct TensorMapUse {
  int param = 0;           // index into KernelNode::params
  int rank = 2;            // the tensor's
  ScalarType element = ScalarType::kF16;
  int64_t box_rows = 0;    // the box extent of the second-to-last dimension (the tile's rows)
  int64_t box_cols = 0;    // the inner box extent in elements: kTmaSwizzleBytes of them

  bool operator==(const TensorMapUse& other) const {
    return param == other.param && box_rows == other.box_rows && box_cols == other.box_cols;
  }
};

// cuTensorMapEncodeTiled's CUtensorMapDataType for a tensor's elements (the TMA moves bits: an
// integer type of the element's width serves types it has no name for), or nullopt for one it
// cannot move.
std::optional<int> TensorMapDataType(ScalarType type);

// "cuda.tma_load_<rank>d".
std::string TmaLoadIntrinsic(int rank);
// "cuda.tma_load_pair_<rank>d": the load of a tile both blocks of a cluster of two read, each
// loading half of it into both (cuda:sm_90a{cluster=2}); its arguments are the load's.
std::string TmaLoadPairIntrinsic(int rank);
// The tensor rank of a call to a TMA load intrinsic (of one block or of a pair), or 0 for any
// other call.
int TmaLoadRank(const Call& call);
// Whether `call` is a TMA load of a pair of blocks.
bool IsTmaLoadPair(const Call& call);
// "cuda.tma_store_<rank>d".
std::string TmaStoreIntrinsic(int rank);
// The tensor rank of a call to a TMA store intrinsic, or 0 for any other call.
int TmaStoreRank(const Call& call);
// The tensor rank of a TMA load or store, or 0 for any other call.
inline int TmaTileRank(const Call& call) {
  const int load = TmaLoadRank(call);
  return load != 0 ? load : TmaStoreRank(call);
}

// Registers cuda.tma_load_2d to cuda.tma_load_5d, cuda.tma_store_2d to cuda.tma_store_5d and
// cuda.tma_store_wait_read (idempotent). A store's tile and the wait's are core-matrix operands
// (CoreMatrixReads, intrinsics.h): core-matrix-tiles lays them out in the 128-byte swizzle the
// TMA reads, and fences the ordinary stores that fill them (fence.proxy.async) before the
// store reads them.
void RegisterTmaIntrinsics();

// Whether the TMA can move the tile of shape `tile` (ROWS, COLS: the shared tile it fills or
// reads) from or to `global`, the region of the tensor it spans: "" when it can, else why not,
// as a clause naming the tensor that follows a caller's "...: ". The one eligibility check of
// warp-specialize (loads), tma-stores (stores) and TensorMapOf (the emitter and the runtime),
// so that a pass never makes a call the emitter refuses. It asks for
//  - a buffer parameter of the kernel in global memory, dense (no strides, no layout), of rank
//    kTmaMinRank to kTmaMaxRank, with elements TensorMapDataType names;
//  - a constant 2-D tile, the region one element of each leading dimension and the tile's
//    shape in the last two (the box a tensor map describes);
//  - at most kTmaMaxBoxRows rows, a multiple of 8 (a swizzle atom's), each a whole number of
//    kTmaSwizzleBytes (the layout core-matrix-tiles gives the shared tile);
//  - a row pitch `divisibility` proves a multiple of 16 bytes (cuTensorMapEncodeTiled's
//    global strides), where the caller has added the kernel's requirements and visited its
//    body (TmaDivisibility).
// Callers add what only they can see: a load's element conversion and wgmma reads, a store's
// fragment source, a call's arguments.
std::string TmaTileWhyNot(const KernelNode& kernel, const Region& global,
                          const std::vector<Expr>& tile, const passes::Divisibility& divisibility);

// What divides the integers of `kernel`, as TmaTileWhyNot asks: its body's lets and its
// `require` lines.
passes::Divisibility TmaDivisibility(const KernelNode& kernel);

// The tensor maps the TMA load and store calls of a thread-level kernel name, each distinct
// (tensor, box) once in the order of its first call: the kernel's parameters after its
// dimensions. An error names a call whose arguments do not fit its intrinsic or whose tile
// TmaTileWhyNot refuses.
absl::StatusOr<std::vector<TensorMapUse>> CollectTensorMaps(const KernelNode& kernel);

// The use one TMA load or store call names (its arguments checked as CollectTensorMaps does).
absl::StatusOr<TensorMapUse> TensorMapOf(const Call& call, const KernelNode& kernel);

// The name of the kernel parameter holding tensor map `index`.
std::string TensorMapParamName(int index);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_TENSOR_MAPS_H_
