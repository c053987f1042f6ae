// What a launch's binding depends on besides the tensors' data pointers: each tensor's
// device, dtype, shape, strides and byte offset, and each scalar's value. Two calls with the
// same signature bind to the same grid, dimension values and scalar slots (BindArguments is
// a function of exactly these), so a device may keep the last call's laid-out launch and
// write only the new data pointers into it: the per-call cost that is left when a kernel is
// called again and again on tensors of one shape, as frameworks do.
#ifndef RUNTIME_ARGUMENT_SIGNATURE_H_
#define RUNTIME_ARGUMENT_SIGNATURE_H_

#include <cstdint>
#include <vector>

#include "runtime/kernel_args.h"

namespace tile_ir::runtime {

class ArgumentSignature {
 public:
  // Remembers the signature of `args`.
  void Record(const std::vector<KernelArg>& args);
  // Whether `args` have the remembered signature (false before any Record). Allocates
  // nothing.
  bool Matches(const std::vector<KernelArg>& args) const;
  void Clear();

 private:
  struct Entry {
    bool is_tensor = false;
    bool is_integer = false;   // a scalar given as an int64 (KernelArg::Integer)
    uint64_t scalar_bits = 0;  // a scalar's double or int64, bit for bit
    int32_t device_type = 0;
    int32_t device_id = 0;
    DLDataType dtype{};
    int32_t ndim = 0;
    bool has_strides = false;
    uint64_t byte_offset = 0;
    size_t extents_at = 0;  // where its shape (then its strides) start in extents_
  };
  bool recorded_ = false;
  std::vector<Entry> entries_;
  std::vector<int64_t> extents_;
};

}  // namespace tile_ir::runtime

#endif  // RUNTIME_ARGUMENT_SIGNATURE_H_
