// Host tensors: aligned storage, element access through double and the
// DLPack view.
#include "runtime/host_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/dtype_convert.h"

namespace tile_ir::runtime {
namespace {

constexpr int64_t kAlignment = 64;

template <typename T>
T Load(const uint8_t* data, int64_t i) {
  T value;
  std::memcpy(&value, data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

template <typename T>
void Store(uint8_t* data, int64_t i, T value) {
  std::memcpy(data + i * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
}

// Round half to even, then clamp to [lo, hi]; NaN becomes 0.
int64_t SaturateToInt(double value, int64_t lo, int64_t hi) {
  if (std::isnan(value)) return 0;
  double rounded = std::nearbyint(value);  // the default environment rounds half to even
  if (rounded <= static_cast<double>(lo)) return lo;
  // hi as a double may round up (2^63 for int64), so compare with >=.
  if (rounded >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(rounded);
}

// u64's top, 2^64 - 1, is past int64: saturate in uint64 (2^64 as a double is the first value
// past it).
uint64_t SaturateToU64(double value) {
  if (std::isnan(value)) return 0;
  double rounded = std::nearbyint(value);
  if (rounded <= 0) return 0;
  if (rounded >= 18446744073709551616.0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(rounded);
}

}  // namespace

void HostBuffer::FreeDeleter::operator()(uint8_t* p) const { std::free(p); }

int64_t StorageBytes(DataType dtype, int64_t num_elements) {
  int64_t bits = static_cast<int64_t>(dtype.bits()) * dtype.lanes();
  return (num_elements * bits + 7) / 8;
}

bool ToDLDataType(DataType dtype, DLDataType* out) {
  uint8_t code = 0;
  switch (dtype.scalar()) {
    case ScalarType::kVoid: return false;
    case ScalarType::kBool: code = kDLPackBoolCode; break;
    case ScalarType::kI4:
    case ScalarType::kI8:
    case ScalarType::kI16:
    case ScalarType::kI32:
    case ScalarType::kI64: code = kDLInt; break;
    case ScalarType::kU8:
    case ScalarType::kU16:
    case ScalarType::kU32:
    case ScalarType::kU64: code = kDLUInt; break;
    case ScalarType::kF8E4M3: code = kDLPackFloat8E4M3FNCode; break;
    case ScalarType::kF8E5M2: code = kDLPackFloat8E5M2Code; break;
    case ScalarType::kBF16: code = kDLBfloat; break;
    case ScalarType::kF16:
    case ScalarType::kF32:
    case ScalarType::kF64: code = kDLFloat; break;
  }
  out->code = code;
  out->bits = static_cast<uint8_t>(dtype.bits());
  out->lanes = static_cast<uint16_t>(dtype.lanes());
  return true;
}

HostBuffer::HostBuffer(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  num_elements_ = 1;
  for (int64_t extent : shape_) num_elements_ *= extent;
  size_bytes_ = StorageBytes(dtype_, num_elements_);
  // aligned_alloc wants a multiple of the alignment; a zero-size buffer still
  // gets a valid, aligned pointer.
  int64_t allocated =
      std::max<int64_t>(kAlignment, (size_bytes_ + kAlignment - 1) / kAlignment * kAlignment);
  data_.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlignment, allocated)));
  if (data_) std::memset(data_.get(), 0, allocated);
}

absl::StatusOr<std::unique_ptr<HostBuffer>> HostBuffer::Create(DataType dtype,
                                                               std::vector<int64_t> shape) {
  if (dtype.is_void() || dtype.is_vector()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a host buffer holds scalar elements; got dtype ", dtype.ToString()));
  }
  // Keep the byte count (and element index arithmetic) far from int64 overflow.
  constexpr int64_t kMaxElements = int64_t{1} << 56;
  int64_t elements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", d, " of a host buffer is negative (", shape[d], ")"));
    }
    if (shape[d] != 0 && elements > kMaxElements / shape[d]) {
      return absl::InvalidArgumentError("a host buffer of this shape is too large to address");
    }
    elements *= shape[d];
  }
  auto buffer = std::make_unique<HostBuffer>(dtype, std::move(shape));
  if (buffer->data() == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", buffer->size_bytes(),
                                                     " bytes for a ", dtype.ToString(), " buffer"));
  }
  return buffer;
}

double HostBuffer::Get(int64_t i) const {
  const uint8_t* p = data_.get();
  switch (dtype_.scalar()) {
    case ScalarType::kBool: return p[i] != 0 ? 1.0 : 0.0;
    case ScalarType::kI4: {
      uint8_t nibble = (i % 2 == 0) ? (p[i / 2] & 0x0F) : (p[i / 2] >> 4);
      return nibble >= 8 ? nibble - 16 : nibble;
    }
    case ScalarType::kI8: return Load<int8_t>(p, i);
    case ScalarType::kI16: return Load<int16_t>(p, i);
    case ScalarType::kI32: return Load<int32_t>(p, i);
    case ScalarType::kI64: return static_cast<double>(Load<int64_t>(p, i));
    case ScalarType::kU8: return p[i];
    case ScalarType::kU16: return Load<uint16_t>(p, i);
    case ScalarType::kU32: return Load<uint32_t>(p, i);
    case ScalarType::kU64: return static_cast<double>(Load<uint64_t>(p, i));
    case ScalarType::kF8E4M3: return F8E4M3ToFloat(p[i]);
    case ScalarType::kF8E5M2: return F8E5M2ToFloat(p[i]);
    case ScalarType::kF16: return HalfToFloat(Load<uint16_t>(p, i));
    case ScalarType::kBF16: return BFloat16ToFloat(Load<uint16_t>(p, i));
    case ScalarType::kF32: return Load<float>(p, i);
    case ScalarType::kF64: return Load<double>(p, i);
    case ScalarType::kVoid: return 0;
  }
  return 0;
}

void HostBuffer::Set(int64_t i, double value) {
  uint8_t* p = data_.get();
  switch (dtype_.scalar()) {
    case ScalarType::kBool: p[i] = (value != 0 && !std::isnan(value)) ? 1 : 0; return;
    case ScalarType::kI4: {
      uint8_t nibble = static_cast<uint8_t>(SaturateToInt(value, -8, 7) & 0x0F);
      uint8_t& byte = p[i / 2];
      byte = (i % 2 == 0) ? ((byte & 0xF0) | nibble) : ((byte & 0x0F) | (nibble << 4));
      return;
    }
    case ScalarType::kI8: Store(p, i, static_cast<int8_t>(SaturateToInt(value, -128, 127))); return;
    case ScalarType::kI16:
      Store(p, i, static_cast<int16_t>(SaturateToInt(value, -32768, 32767)));
      return;
    case ScalarType::kI32:
      Store(p, i,
            static_cast<int32_t>(SaturateToInt(value, std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max())));
      return;
    case ScalarType::kI64:
      Store(p, i,
            SaturateToInt(value, std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()));
      return;
    case ScalarType::kU8: p[i] = static_cast<uint8_t>(SaturateToInt(value, 0, 255)); return;
    case ScalarType::kU16:
      Store(p, i, static_cast<uint16_t>(SaturateToInt(value, 0, 65535)));
      return;
    case ScalarType::kU32:
      Store(p, i,
            static_cast<uint32_t>(SaturateToInt(value, 0, std::numeric_limits<uint32_t>::max())));
      return;
    case ScalarType::kU64: Store(p, i, SaturateToU64(value)); return;
    case ScalarType::kF8E4M3: p[i] = DoubleToF8E4M3(value); return;
    case ScalarType::kF8E5M2: p[i] = DoubleToF8E5M2(value); return;
    case ScalarType::kF16: Store(p, i, DoubleToHalf(value)); return;
    case ScalarType::kBF16: Store(p, i, DoubleToBFloat16(value)); return;
    case ScalarType::kF32: Store(p, i, static_cast<float>(value)); return;
    case ScalarType::kF64: Store(p, i, value); return;
    case ScalarType::kVoid: return;
  }
}

void HostBuffer::Poison(uint8_t byte) { std::memset(data_.get(), byte, size_bytes_); }

DLTensor* HostBuffer::AsDLTensor() {
  tensor_.data = data_.get();
  tensor_.device = DLDevice{kDLCPU, 0};
  tensor_.ndim = static_cast<int32_t>(shape_.size());
  ToDLDataType(dtype_, &tensor_.dtype);
  tensor_.shape = shape_.data();
  tensor_.strides = nullptr;
  tensor_.byte_offset = 0;
  return &tensor_;
}

}  // namespace tile_ir::runtime
