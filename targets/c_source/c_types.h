// C++ spellings of the IR's types, literals and casts in emitted source, the
// dialect naming the types and the narrow-float conversions.
//
// Registers: bool is bool, i4 the i8 type holding a value in [-8, 7], i8, i16,
// i32, i64, u8, f16, bf16 and fp8 the dialect's types. Memory: the same types,
// except i4, packed two per byte in the u8 type.
#ifndef TARGETS_C_SOURCE_C_TYPES_H_
#define TARGETS_C_SOURCE_C_TYPES_H_

#include <cstdint>
#include <string>

#include "targets/c_source/c_expr.h"
#include "targets/c_source/dialect.h"
#include "tile_ir/dtype.h"

namespace tile_ir::c_source {

// Bytes that `elements` elements occupy in memory (i4: half a byte each).
int64_t StorageBytes(ScalarType type, int64_t elements);

// i8, i16 and u8: C++ computes on them in int, so results wrap back by a cast.
bool IsNarrowInt(ScalarType type);
bool IsFp8(ScalarType type);
// f16, bf16 and fp8: floats that widen exactly to f32.
bool IsNarrowFloat(ScalarType type);

CExpr IntLiteral(const Dialect& dialect, int64_t value, ScalarType type);
CExpr FloatLiteral(const Dialect& dialect, double value, ScalarType type);

// The IR's cast from `from` to `to` (tile_ir/expr.h; the targets' codegen
// headers list the rounding and saturation).
CExpr Convert(const Dialect& dialect, const CExpr& value, ScalarType from, ScalarType to);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_C_TYPES_H_
