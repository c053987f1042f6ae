// C++ spellings of the IR's types, literals and casts in emitted CUDA code.
//
// Registers: bool is bool, i4 a signed char holding a value in [-8, 7], i8
// signed char, i16 short, i32 int, i64 long long, u8 unsigned char, f16
// __half, bf16 __nv_bfloat16, fp8 __nv_fp8_e4m3 / __nv_fp8_e5m2.
// Memory: the same types, except i4, packed two per byte in unsigned chars.
#ifndef TARGETS_CUDA_CUDA_TYPES_H_
#define TARGETS_CUDA_CUDA_TYPES_H_

#include <cstdint>
#include <string>

#include "targets/cuda/c_expr.h"
#include "tile_ir/dtype.h"

namespace tile_ir::cuda {

std::string ValueType(ScalarType type);
// The element type of pointers and arrays of `type`.
std::string MemoryType(ScalarType type);
// Bytes that `elements` elements occupy in memory (i4: half a byte each).
int64_t StorageBytes(ScalarType type, int64_t elements);

// i8, i16 and u8: C++ computes on them in int, so results wrap back by a cast.
bool IsNarrowInt(ScalarType type);
bool IsFp8(ScalarType type);
// f16, bf16 and fp8: floats that widen exactly to f32.
bool IsNarrowFloat(ScalarType type);

CExpr IntLiteral(int64_t value, ScalarType type);
CExpr FloatLiteral(double value, ScalarType type);

// The IR's cast from `from` to `to` (tile_ir/expr.h; targets/cuda/cuda_codegen.h
// lists the rounding and saturation).
CExpr Convert(const CExpr& value, ScalarType from, ScalarType to);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_TYPES_H_
