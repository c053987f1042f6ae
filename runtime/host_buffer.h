// Tensors in host memory of any IR dtype, with element access through
// double, for filling inputs, poisoning outputs and comparing with float64
// references. Exposes itself as a DLPack DLTensor.
#ifndef RUNTIME_HOST_BUFFER_H_
#define RUNTIME_HOST_BUFFER_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tile_ir/dtype.h"

namespace tile_ir::runtime {

// DLPack 0.6 (the version installed here) has no codes for bool and fp8; these
// are the codes DLPack 1.1 assigned, so tensors from newer producers (PyTorch's
// torch.float8_e4m3fn, torch.bool) map onto ours unchanged.
inline constexpr uint8_t kDLPackBoolCode = 6;
inline constexpr uint8_t kDLPackFloat8E4M3FNCode = 10;
inline constexpr uint8_t kDLPackFloat8E5M2Code = 12;

class HostBuffer {
 public:
  // Dense row-major, 64-byte aligned, zero-filled. i4 packs two elements per
  // byte (the element with the even index in the low nibble). `dtype` must be
  // a scalar type other than void and `shape` non-negative; Create checks that.
  HostBuffer(DataType dtype, std::vector<int64_t> shape);
  // Like the constructor, with an error for a vector or void dtype, a negative
  // dimension, a size that overflows, or memory that cannot be allocated.
  static absl::StatusOr<std::unique_ptr<HostBuffer>> Create(DataType dtype,
                                                            std::vector<int64_t> shape);

  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const { return num_elements_; }
  int64_t size_bytes() const { return size_bytes_; }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }

  // Element i (row-major) converted to double (bool reads 0 or 1).
  double Get(int64_t i) const;
  // Sets element i, rounding to nearest even for float dtypes; integer dtypes
  // round to nearest even, then saturate to the type's range (NaN becomes 0);
  // bool stores whether the value is non-zero (NaN counts as zero).
  void Set(int64_t i, double value);
  // Fills every byte with `byte` (0xFF makes every float element NaN).
  void Poison(uint8_t byte = 0xFF);

  // A DLTensor viewing this buffer (kDLCPU, compact: strides is null); valid
  // while the buffer lives.
  DLTensor* AsDLTensor();

 private:
  struct FreeDeleter {
    void operator()(uint8_t* p) const;
  };
  DataType dtype_;
  std::vector<int64_t> shape_;
  int64_t num_elements_ = 0;
  int64_t size_bytes_ = 0;
  std::unique_ptr<uint8_t[], FreeDeleter> data_;
  DLTensor tensor_{};
};

// The DLPack dtype of an IR dtype (lanes included); false for void.
bool ToDLDataType(DataType dtype, DLDataType* out);
// The bytes a tensor of `num_elements` elements of `dtype` occupies (i4 rounds up).
int64_t StorageBytes(DataType dtype, int64_t num_elements);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_HOST_BUFFER_H_
