// Arguments of a kernel launch and their checking against the kernel's
// signature: dtype, rank, shape (binding the symbolic dimensions and checking
// that every tensor agrees with them), layout (dense row-major unless the
// parameter declares strides), alignment and device. Each error names the
// kernel and the parameter.
#ifndef RUNTIME_KERNEL_ARGS_H_
#define RUNTIME_KERNEL_ARGS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime {

// One argument: a tensor for a buffer parameter, a number for a scalar one. A scalar is a
// double or, exactly, an int64 (a double holds integers exactly only up to 2^53).
struct KernelArg {
  const DLTensor* tensor = nullptr;
  double scalar = 0;        // converted to the parameter's dtype (integers must be exact)
  bool is_integer = false;  // the scalar is `integer`, not `scalar`
  int64_t integer = 0;      // converted exactly; a float parameter takes the nearest value

  static KernelArg Tensor(const DLTensor* t) { return KernelArg{t, 0, false, 0}; }
  static KernelArg Scalar(double v) { return KernelArg{nullptr, v, false, 0}; }
  static KernelArg Integer(int64_t v) { return KernelArg{nullptr, 0, true, v}; }
};

struct BoundArgs {
  // Value of each symbolic dimension and integer scalar, by variable.
  absl::flat_hash_map<const Var*, int64_t> int_values;
  // Grid extents evaluated (x, y, z; 1 for absent axes), each in [1, 2^31 - 1].
  int64_t grid[3] = {1, 1, 1};
  // One entry per parameter, in order. For a buffer: its data pointer (the
  // tensor's data plus byte_offset). For a scalar: nullptr.
  std::vector<void*> data;
  // One 8-byte slot per parameter, in order: a scalar parameter's value
  // converted to its dtype and stored from the slot's first byte (f16 and
  // bf16 as their 16-bit patterns, f8 as one byte); 0 for buffers.
  std::vector<uint64_t> scalar_storage;
  // Dimension values in kernel.dims order, as int64.
  std::vector<int64_t> dims;
};

// The largest ndim a DLTensor may declare (numpy's limit since 2.0); a larger one is refused
// as malformed before its shape array is read.
inline constexpr int kMaxTensorRank = 64;

// Checks `args` against `kernel` for a device of type `device_type`, in
// parameter order: the argument count; per buffer parameter first the
// DLTensor's own consistency (ndim in [0, kMaxTensorRank], a shape array when
// ndim > 0, no negative extent, a byte span and byte offset that overflow
// neither int64 nor the address space, data when it has elements), then a tensor on that
// device, the dtype, the rank, then each shape entry (a bare dimension binds
// it, the first binding wins and later ones must agree; a constant must
// match); per scalar parameter a value that its dtype holds exactly (integer
// dtypes: a double must be integral, an int64 in range) or after rounding to
// nearest (float dtypes, from a double or an int64). Then every dimension must be bound, other
// shape expressions and declared strides must evaluate to the tensor's (a tensor without strides is
// compact; strides of extent-1 dimensions are not compared), and the grid extents must be at
// least 1. Data pointers must be aligned to max(min_alignment, element size).
absl::StatusOr<BoundArgs> BindArguments(const KernelNode& kernel,
                                        const std::vector<KernelArg>& args,
                                        DLDeviceType device_type, int64_t min_alignment);

// The value of an integer or bool expression over bound variables, with the
// operator semantics of tile_ir/expr.h (truncating / and %, floordiv,
// floormod, ceildiv, min, max, comparisons and logic as 0 or 1, select,
// integer casts). Errors name an unbound variable, a division by zero, a
// result that overflows its type, and any non-integer expression.
absl::StatusOr<int64_t> EvaluateInt(const Expr& expr,
                                    const absl::flat_hash_map<const Var*, int64_t>& values);

// The device type a tensor's producer stored, as an integer: a producer of a
// newer DLPack may store one this header's enum cannot hold (DLPack 1.0's
// kDLHexagon is 16), and loading that as a DLDeviceType is undefined.
int32_t StoredDeviceType(const DLTensor& t);

// The alignment BindArguments asks of a buffer's data pointer:
// max(min_alignment, element size).
int64_t DataAlignment(const BufferNode& buffer, int64_t min_alignment);

// A readable name of a DLPack device type ("cpu", "cuda", ...).
std::string DeviceTypeName(DLDeviceType type);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_KERNEL_ARGS_H_
