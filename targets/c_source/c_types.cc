// Literals and conversions of emitted C++ source, in the dialect's spellings.
#include "targets/c_source/c_types.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"

namespace tile_ir::c_source {
namespace {

CExpr Call(const std::string& function, const CExpr& arg) {
  return Primary(absl::StrCat(function, "(", arg.text, ")"));
}

CExpr StaticCast(const std::string& type, const CExpr& arg) {
  return Primary(absl::StrCat("static_cast<", type, ">(", arg.text, ")"));
}

// The shortest decimal text that reads back as `value` in the type (float or
// double), always with a '.' or an exponent so that C++ reads a float.
std::string ShortestDecimal(double value, bool single) {
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    bool same = single ? std::strtof(buffer, nullptr) == static_cast<float>(value)
                       : std::strtod(buffer, nullptr) == value;
    if (same) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// An f32 or f64 literal (inf and NaN through the device library).
CExpr WideFloatLiteral(double value, bool single) {
  const char* type = single ? "float" : "double";
  if (std::isnan(value)) return Primary(absl::StrCat("tl::quiet_nan<", type, ">()"));
  if (std::isinf(value)) {
    std::string inf = absl::StrCat("tl::infinity<", type, ">()");
    return value < 0 ? CExpr{"-" + inf, kPrecUnary} : Primary(inf);
  }
  std::string text = ShortestDecimal(value, single) + (single ? "f" : "");
  return CExpr{text, text[0] == '-' ? kPrecUnary : kPrecPrimary};
}

// Exact widening of f16, bf16 and fp8 to f32.
CExpr NarrowToF32(const Dialect& dialect, const CExpr& value, ScalarType from) {
  return Call(dialect.WidenToF32(from), value);
}

// A float value of type `from` (f32 or f64, or narrower) as `to`, rounded to nearest even.
CExpr FloatToFloat(const Dialect& dialect, const CExpr& value, ScalarType from, ScalarType to) {
  if (IsNarrowFloat(from)) {
    if (IsFp8(to) && (from == ScalarType::kF16 || from == ScalarType::kBF16)) {
      // fp8 types convert from f16 and bf16 rounding once.
      return Call(dialect.ValueType(to), value);
    }
    CExpr wide = NarrowToF32(dialect, value, from);
    return to == ScalarType::kF32 ? wide : FloatToFloat(dialect, wide, ScalarType::kF32, to);
  }
  switch (to) {
    case ScalarType::kF32: return StaticCast("float", value);
    case ScalarType::kF64: return StaticCast("double", value);
    default: return Call(dialect.NarrowFrom(from, to), value);
  }
}

}  // namespace

int64_t StorageBytes(ScalarType type, int64_t elements) {
  if (type == ScalarType::kI4) return (elements + 1) / 2;
  return elements * (DataType(type).bits() / 8);
}

bool IsNarrowInt(ScalarType type) {
  return type == ScalarType::kI8 || type == ScalarType::kI16 || type == ScalarType::kU8 ||
         type == ScalarType::kU16;
}

bool IsFp8(ScalarType type) { return type == ScalarType::kF8E4M3 || type == ScalarType::kF8E5M2; }

bool IsNarrowFloat(ScalarType type) {
  return type == ScalarType::kF16 || type == ScalarType::kBF16 || IsFp8(type);
}

CExpr IntLiteral(const Dialect& dialect, int64_t value, ScalarType type) {
  switch (type) {
    case ScalarType::kBool: return Primary(value != 0 ? "true" : "false");
    case ScalarType::kI64:
      if (value == std::numeric_limits<int64_t>::min()) {
        return CExpr{absl::StrCat("(-9223372036854775807", dialect.i64_suffix(), " - 1)"),
                     kPrecPrimary};
      }
      return CExpr{absl::StrCat(value, dialect.i64_suffix()),
                   value < 0 ? kPrecUnary : kPrecPrimary};
    case ScalarType::kI32:
      if (value == std::numeric_limits<int32_t>::min()) {
        return CExpr{"(-2147483647 - 1)", kPrecPrimary};
      }
      return CExpr{absl::StrCat(value), value < 0 ? kPrecUnary : kPrecPrimary};
    default: return StaticCast(dialect.ValueType(type), Primary(absl::StrCat(value)));
  }
}

CExpr FloatLiteral(const Dialect& dialect, double value, ScalarType type) {
  if (type == ScalarType::kF64) return WideFloatLiteral(value, false);
  if (type == ScalarType::kF32) return WideFloatLiteral(value, true);
  // Narrow floats convert from an f32 literal when that holds the value
  // exactly (every value of theirs does), else round once from f64.
  // Without f64, the f32 literal nearest the value rounds again (a dialect note).
  bool exact_in_f32 = std::isnan(value) || !dialect.has_f64() ||
                      static_cast<double>(static_cast<float>(value)) == value;
  ScalarType source = exact_in_f32 ? ScalarType::kF32 : ScalarType::kF64;
  return FloatToFloat(dialect, WideFloatLiteral(value, exact_in_f32), source, type);
}

CExpr Convert(const Dialect& dialect, const CExpr& value, ScalarType from, ScalarType to) {
  if (from == to) return value;
  DataType from_type(from);
  DataType to_type(to);
  if (to == ScalarType::kBool) {
    if (IsNarrowFloat(from)) {
      return Convert(dialect, NarrowToF32(dialect, value, from), ScalarType::kF32, to);
    }
    // As in C: any non-zero value, NaN included, is true.
    return CExpr{absl::StrCat(Operand(value, kPrecEquality + 1), " != 0"), kPrecEquality};
  }
  if (from_type.is_float() && to_type.is_float()) return FloatToFloat(dialect, value, from, to);
  if (from_type.is_float()) {
    CExpr wide = IsNarrowFloat(from) ? NarrowToF32(dialect, value, from) : value;
    if (to == ScalarType::kI4) return Call("tl::saturate_to_i4", wide);
    return Call(absl::StrCat("tl::saturate_cast<", dialect.ValueType(to), ">"), wide);
  }
  // From an integer or bool.
  if (to == ScalarType::kF32 || to == ScalarType::kF64) {
    return StaticCast(dialect.ValueType(to), value);
  }
  if (to_type.is_float()) {
    // Through f64, exact for every integer type but i64 and u64, then one rounding
    // (through f32 where the dialect has no f64: exact up to 2^24).
    if (!dialect.has_f64()) {
      return FloatToFloat(dialect, StaticCast("float", value), ScalarType::kF32, to);
    }
    return FloatToFloat(dialect, StaticCast("double", value), ScalarType::kF64, to);
  }
  if (to == ScalarType::kI4) return Call("tl::wrap_i4", value);
  // Narrowing wraps (C++20 defines it as modular), widening extends by the source's sign.
  return StaticCast(dialect.ValueType(to), value);
}

}  // namespace tile_ir::c_source
