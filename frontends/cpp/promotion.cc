#include "frontends/cpp/promotion.h"

#include <cmath>

namespace tile_ir::dsl {
namespace {

// TVM's type codes: f16, f32 and f64 are "float"; bf16 and the float8 formats have codes of
// their own, ranked in this order below it.
enum class Family { kFloat, kBFloat16, kFloat8, kInt, kUInt, kBool };

Family FamilyOf(DataType t) {
  switch (t.scalar()) {
    case ScalarType::kF16:
    case ScalarType::kF32:
    case ScalarType::kF64:
      return Family::kFloat;
    case ScalarType::kBF16:
      return Family::kBFloat16;
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
      return Family::kFloat8;
    case ScalarType::kBool:
      return Family::kBool;
    default:
      return t.is_unsigned() ? Family::kUInt : Family::kInt;
  }
}

DataType Wider(DataType a, DataType b) { return a.bits() >= b.bits() ? a : b; }

}  // namespace

std::optional<DataType> CommonType(DataType a, DataType b) {
  if (a == b) return a;
  if (a.lanes() != b.lanes() || a.is_void() || b.is_void()) return std::nullopt;
  Family fa = FamilyOf(a), fb = FamilyOf(b);
  for (Family family : {Family::kFloat, Family::kBFloat16, Family::kFloat8}) {
    if (fa == family && fb == family) {
      if (family == Family::kFloat) return Wider(a, b);
      return std::nullopt;
    }
    if (fa == family) return a;
    if (fb == family) return b;
  }
  if (fa == Family::kBool) return b;
  if (fb == Family::kBool) return a;
  if (fa == fb || a.bits() != b.bits()) return Wider(a, b);
  return fa == Family::kUInt ? a : b;
}

Expr ConvertTo(const Expr& e, DataType dtype) {
  if (e->dtype() == dtype) return e;
  if (!dtype.is_vector()) {
    if (const auto* i = As<IntImm>(e)) {
      if (dtype.is_float()) return Float(static_cast<double>(i->value), dtype);
      if (dtype.is_bool()) return Bool(i->value != 0);
      return Int(i->value, dtype);
    }
    if (const auto* f = As<FloatImm>(e)) {
      if (dtype.is_float()) return Float(f->value, dtype);
      if (dtype.is_bool()) return Bool(f->value != 0);
      if (std::isfinite(f->value)) return Int(static_cast<int64_t>(std::trunc(f->value)), dtype);
    }
  }
  return Cast::Make(dtype, e);
}

}  // namespace tile_ir::dsl
