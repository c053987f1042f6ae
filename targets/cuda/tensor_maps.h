// TMA tile loads and the tensor maps they read. A warp-specialized kernel's producer issues
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
#ifndef TARGETS_CUDA_TENSOR_MAPS_H_
#define TARGETS_CUDA_TENSOR_MAPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// dst, tensor, barrier, one coordinate per dimension of the tensor, ROWS, COLS.
inline constexpr int kTmaLoadFixedArgs = 5;
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

// "cuda.tma_load_<rank>d".
std::string TmaLoadIntrinsic(int rank);
// The tensor rank of a call to a TMA load intrinsic, or 0 for any other call.
int TmaLoadRank(const Call& call);

// Registers cuda.tma_load_2d to cuda.tma_load_5d (idempotent).
void RegisterTmaIntrinsics();

// The tensor maps the TMA load calls of a thread-level kernel read, each distinct (tensor,
// box) once in the order of its first call: the kernel's parameters after its dimensions. An
// error names a call whose tensor is not a dense buffer parameter of the call's rank or whose
// box the TMA cannot load.
absl::StatusOr<std::vector<TensorMapUse>> CollectTensorMaps(const KernelNode& kernel);

// The use one TMA load call reads (its arguments checked as CollectTensorMaps does).
absl::StatusOr<TensorMapUse> TensorMapOf(const Call& call, const KernelNode& kernel);

// The name of the kernel parameter holding tensor map `index`.
std::string TensorMapParamName(int index);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_TENSOR_MAPS_H_
