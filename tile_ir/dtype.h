// Element types of the tile IR and their vector forms.
//
// A DataType is a scalar element type plus a lane count; lanes > 1 only appears
// after vectorization. The spelling ("f32", "bf16x8") is the one used by the
// text form and the error messages.
#ifndef TILE_IR_DTYPE_H_
#define TILE_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tile_ir {

enum class ScalarType : uint8_t {
  kVoid,  // only as the type of an intrinsic call evaluated for its effect
  kBool,
  kI4,  // packed two per byte in memory
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,  // u16, u32 and u64: ir_version 7
  kU32,
  kU64,
  kF8E4M3,
  kF8E5M2,
  kF16,
  kBF16,
  kF32,
  kF64,
};

class DataType {
 public:
  constexpr DataType() = default;
  constexpr DataType(ScalarType scalar, int lanes = 1) : scalar_(scalar), lanes_(lanes) {}

  constexpr ScalarType scalar() const { return scalar_; }
  constexpr int lanes() const { return lanes_; }
  constexpr bool is_vector() const { return lanes_ > 1; }
  constexpr DataType element() const { return DataType(scalar_); }
  constexpr DataType with_lanes(int lanes) const { return DataType(scalar_, lanes); }

  bool is_void() const { return scalar_ == ScalarType::kVoid; }
  bool is_bool() const { return scalar_ == ScalarType::kBool; }
  // Signed or unsigned integer (not bool).
  bool is_int() const;
  bool is_unsigned() const;
  bool is_float() const;
  // Width of one element in bits (i4 is 4, bool is 8 as stored in memory).
  int bits() const;

  std::string ToString() const;
  // Parses "f32", "bf16x8", ...; nullopt on anything else.
  static std::optional<DataType> Parse(std::string_view text);

  friend constexpr bool operator==(DataType a, DataType b) {
    return a.scalar_ == b.scalar_ && a.lanes_ == b.lanes_;
  }
  friend constexpr bool operator!=(DataType a, DataType b) { return !(a == b); }

 private:
  ScalarType scalar_ = ScalarType::kI32;
  int lanes_ = 1;
};

inline constexpr DataType kVoid{ScalarType::kVoid};
inline constexpr DataType kBool{ScalarType::kBool};
inline constexpr DataType kI4{ScalarType::kI4};
inline constexpr DataType kI8{ScalarType::kI8};
inline constexpr DataType kI16{ScalarType::kI16};
inline constexpr DataType kI32{ScalarType::kI32};
inline constexpr DataType kI64{ScalarType::kI64};
inline constexpr DataType kU8{ScalarType::kU8};
inline constexpr DataType kU16{ScalarType::kU16};
inline constexpr DataType kU32{ScalarType::kU32};
inline constexpr DataType kU64{ScalarType::kU64};
inline constexpr DataType kF8E4M3{ScalarType::kF8E4M3};
inline constexpr DataType kF8E5M2{ScalarType::kF8E5M2};
inline constexpr DataType kF16{ScalarType::kF16};
inline constexpr DataType kBF16{ScalarType::kBF16};
inline constexpr DataType kF32{ScalarType::kF32};
inline constexpr DataType kF64{ScalarType::kF64};

// Spelling of a scalar type ("f32"); the inverse of DataType::Parse for lanes == 1.
std::string_view ScalarTypeName(ScalarType type);
// The names a value's dtype may take (every scalar type but void), in declaration order.
std::vector<std::string> ValueScalarTypeNames();

}  // namespace tile_ir

#endif  // TILE_IR_DTYPE_H_
