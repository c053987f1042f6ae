#include "runtime/argument_signature.h"

#include <cstring>

namespace tile_ir::runtime {
namespace {

// A scalar's value bit for bit: a double's bits, or an int64's (told apart by is_integer).
uint64_t Bits(const KernelArg& arg) {
  if (arg.is_integer) return static_cast<uint64_t>(arg.integer);
  uint64_t bits;
  std::memcpy(&bits, &arg.scalar, sizeof bits);
  return bits;
}

}  // namespace

void ArgumentSignature::Record(const std::vector<KernelArg>& args) {
  Clear();
  for (const KernelArg& arg : args) {
    Entry entry;
    if (arg.tensor == nullptr) {
      entry.is_integer = arg.is_integer;
      entry.scalar_bits = Bits(arg);
      entries_.push_back(entry);
      continue;
    }
    const DLTensor& t = *arg.tensor;
    entry.is_tensor = true;
    entry.device_type = StoredDeviceType(t);
    entry.device_id = t.device.device_id;
    entry.dtype = t.dtype;
    entry.ndim = t.ndim;
    entry.has_strides = t.strides != nullptr;
    entry.byte_offset = t.byte_offset;
    entry.extents_at = extents_.size();
    for (int32_t d = 0; d < t.ndim && t.shape != nullptr; ++d) extents_.push_back(t.shape[d]);
    for (int32_t d = 0; d < t.ndim && t.strides != nullptr; ++d) {
      extents_.push_back(t.strides[d]);
    }
    entries_.push_back(entry);
  }
  recorded_ = true;
}

bool ArgumentSignature::Matches(const std::vector<KernelArg>& args) const {
  if (!recorded_ || args.size() != entries_.size()) return false;
  for (size_t i = 0; i < args.size(); ++i) {
    const Entry& entry = entries_[i];
    const KernelArg& arg = args[i];
    if ((arg.tensor != nullptr) != entry.is_tensor) return false;
    if (!entry.is_tensor) {
      if (arg.is_integer != entry.is_integer || Bits(arg) != entry.scalar_bits) return false;
      continue;
    }
    const DLTensor& t = *arg.tensor;
    if (StoredDeviceType(t) != entry.device_type || t.device.device_id != entry.device_id ||
        t.dtype.code != entry.dtype.code || t.dtype.bits != entry.dtype.bits ||
        t.dtype.lanes != entry.dtype.lanes || t.ndim != entry.ndim ||
        (t.strides != nullptr) != entry.has_strides || t.byte_offset != entry.byte_offset ||
        (t.ndim > 0 && t.shape == nullptr)) {
      return false;
    }
    const int64_t* expected = extents_.data() + entry.extents_at;
    for (int32_t d = 0; d < t.ndim; ++d) {
      if (t.shape[d] != expected[d]) return false;
    }
    for (int32_t d = 0; d < t.ndim && entry.has_strides; ++d) {
      if (t.strides[d] != expected[t.ndim + d]) return false;
    }
  }
  return true;
}

void ArgumentSignature::Clear() {
  recorded_ = false;
  entries_.clear();
  extents_.clear();
}

}  // namespace tile_ir::runtime
