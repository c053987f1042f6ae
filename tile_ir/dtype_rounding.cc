// RoundToDtype: one rounding to a binary float format, or a clamp to an integer range.
#include "tile_ir/dtype_rounding.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace tile_ir {
namespace {

// Rounds to a binary float format with `mantissa_bits` stored fraction bits,
// smallest normal exponent `min_exponent` (below it the spacing stays fixed:
// subnormals) and largest finite value `max_finite` (beyond it: infinity).
double RoundToFormat(double x, int mantissa_bits, int min_exponent, double max_finite) {
  if (x == 0 || !std::isfinite(x)) return x;
  int exponent = std::max(std::ilogb(x), min_exponent);
  double quantum = std::ldexp(1.0, exponent - mantissa_bits);
  // nearbyint rounds ties to even in the default rounding mode.
  double rounded = std::nearbyint(x / quantum) * quantum;
  if (std::abs(rounded) > max_finite) return std::copysign(INFINITY, x);
  return rounded;
}

double ClampToInt(double x, double lo, double hi) { return std::clamp(std::nearbyint(x), lo, hi); }

}  // namespace

double RoundToDtype(double value, DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kF64:
      return value;
    case ScalarType::kF32:
      return RoundToFormat(value, 23, -126, FLT_MAX);
    case ScalarType::kF16:
      return RoundToFormat(value, 10, -14, 65504.0);
    case ScalarType::kBF16:
      return RoundToFormat(value, 7, -126, 0x1.FEp127);
    case ScalarType::kF8E4M3:
      return RoundToFormat(value, 3, -6, 448.0);
    case ScalarType::kF8E5M2:
      return RoundToFormat(value, 2, -14, 57344.0);
    case ScalarType::kBool:
      return value != 0 ? 1.0 : 0.0;
    case ScalarType::kI4:
      return ClampToInt(value, -8, 7);
    case ScalarType::kI8:
      return ClampToInt(value, -128, 127);
    case ScalarType::kI16:
      return ClampToInt(value, -32768, 32767);
    case ScalarType::kI32:
      return ClampToInt(value, INT32_MIN, INT32_MAX);
    case ScalarType::kI64:
      return std::nearbyint(value);
    case ScalarType::kU8:
      return ClampToInt(value, 0, 255);
    case ScalarType::kU16: return ClampToInt(value, 0, 65535);
    case ScalarType::kU32: return ClampToInt(value, 0, UINT32_MAX);
    case ScalarType::kU64:
      // Unbounded above as i64 is: a double cannot tell 2^64 - 1 from 2^64.
      return std::max(0.0, std::nearbyint(value));
    case ScalarType::kVoid:
      break;
  }
  return value;
}

}  // namespace tile_ir
