// The one correspondence between the IR's enums and the tile_ir.v1 schema's, used in both
// directions by proto_convert. UNSPECIFIED has no IR counterpart (ThreadAxis::kNone aside).
#ifndef TILE_IR_PROTO_ENUMS_H_
#define TILE_IR_PROTO_ENUMS_H_

#include <cstddef>
#include <optional>

#include "tile_ir/buffer.h"
#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/stmt.h"

namespace tile_ir {

template <typename IrEnum, typename ProtoEnum>
struct EnumMapping {
  IrEnum ir;
  ProtoEnum proto;
};

inline constexpr EnumMapping<ScalarType, v1::ScalarType> kScalarTypeMappings[] = {
    {ScalarType::kVoid, v1::SCALAR_TYPE_VOID},     {ScalarType::kBool, v1::SCALAR_TYPE_BOOL},
    {ScalarType::kI4, v1::SCALAR_TYPE_I4},         {ScalarType::kI8, v1::SCALAR_TYPE_I8},
    {ScalarType::kI16, v1::SCALAR_TYPE_I16},       {ScalarType::kI32, v1::SCALAR_TYPE_I32},
    {ScalarType::kI64, v1::SCALAR_TYPE_I64},       {ScalarType::kU8, v1::SCALAR_TYPE_U8},
    {ScalarType::kF8E4M3, v1::SCALAR_TYPE_F8E4M3}, {ScalarType::kF8E5M2, v1::SCALAR_TYPE_F8E5M2},
    {ScalarType::kF16, v1::SCALAR_TYPE_F16},       {ScalarType::kBF16, v1::SCALAR_TYPE_BF16},
    {ScalarType::kF32, v1::SCALAR_TYPE_F32},       {ScalarType::kF64, v1::SCALAR_TYPE_F64},
    {ScalarType::kU16, v1::SCALAR_TYPE_U16},       {ScalarType::kU32, v1::SCALAR_TYPE_U32},
    {ScalarType::kU64, v1::SCALAR_TYPE_U64},
};

inline constexpr EnumMapping<MemoryScope, v1::MemoryScope> kMemoryScopeMappings[] = {
    {MemoryScope::kGlobal, v1::MEMORY_SCOPE_GLOBAL},
    {MemoryScope::kShared, v1::MEMORY_SCOPE_SHARED},
    {MemoryScope::kFragment, v1::MEMORY_SCOPE_FRAGMENT},
    {MemoryScope::kLocal, v1::MEMORY_SCOPE_LOCAL},
};

inline constexpr EnumMapping<SwizzleOrder, v1::SwizzleOrder> kSwizzleOrderMappings[] = {
    {SwizzleOrder::kRowMajor, v1::SWIZZLE_ORDER_ROW_MAJOR},
    {SwizzleOrder::kColumnMajor, v1::SWIZZLE_ORDER_COLUMN_MAJOR},
};

inline constexpr EnumMapping<UnaryOp, v1::UnaryOp> kUnaryOpMappings[] = {
    {UnaryOp::kNeg, v1::UNARY_OP_NEG},
    {UnaryOp::kNot, v1::UNARY_OP_NOT},
};

inline constexpr EnumMapping<BinaryOp, v1::BinaryOp> kBinaryOpMappings[] = {
    {BinaryOp::kAdd, v1::BINARY_OP_ADD},
    {BinaryOp::kSub, v1::BINARY_OP_SUB},
    {BinaryOp::kMul, v1::BINARY_OP_MUL},
    {BinaryOp::kDiv, v1::BINARY_OP_DIV},
    {BinaryOp::kMod, v1::BINARY_OP_MOD},
    {BinaryOp::kFloorDiv, v1::BINARY_OP_FLOOR_DIV},
    {BinaryOp::kFloorMod, v1::BINARY_OP_FLOOR_MOD},
    {BinaryOp::kCeilDiv, v1::BINARY_OP_CEIL_DIV},
    {BinaryOp::kMin, v1::BINARY_OP_MIN},
    {BinaryOp::kMax, v1::BINARY_OP_MAX},
    {BinaryOp::kEq, v1::BINARY_OP_EQ},
    {BinaryOp::kNe, v1::BINARY_OP_NE},
    {BinaryOp::kLt, v1::BINARY_OP_LT},
    {BinaryOp::kLe, v1::BINARY_OP_LE},
    {BinaryOp::kGt, v1::BINARY_OP_GT},
    {BinaryOp::kGe, v1::BINARY_OP_GE},
    {BinaryOp::kAnd, v1::BINARY_OP_AND},
    {BinaryOp::kOr, v1::BINARY_OP_OR},
    {BinaryOp::kXor, v1::BINARY_OP_XOR},
    {BinaryOp::kBitAnd, v1::BINARY_OP_BIT_AND},
    {BinaryOp::kBitOr, v1::BINARY_OP_BIT_OR},
    {BinaryOp::kShl, v1::BINARY_OP_SHL},
    {BinaryOp::kShr, v1::BINARY_OP_SHR},
};

inline constexpr EnumMapping<ForKind, v1::ForKind> kForKindMappings[] = {
    {ForKind::kSerial, v1::FOR_KIND_SERIAL},
    {ForKind::kParallel, v1::FOR_KIND_PARALLEL},
    {ForKind::kPipelined, v1::FOR_KIND_PIPELINED},
    {ForKind::kUnrolled, v1::FOR_KIND_UNROLLED},
    {ForKind::kVectorized, v1::FOR_KIND_VECTORIZED},
    {ForKind::kThreadBound, v1::FOR_KIND_THREAD_BOUND},
};

// ThreadAxis::kNone is written as THREAD_AXIS_UNSPECIFIED: only thread-bound loops have an axis.
inline constexpr EnumMapping<ThreadAxis, v1::ThreadAxis> kThreadAxisMappings[] = {
    {ThreadAxis::kX, v1::THREAD_AXIS_X},
    {ThreadAxis::kY, v1::THREAD_AXIS_Y},
    {ThreadAxis::kZ, v1::THREAD_AXIS_Z},
};

inline constexpr EnumMapping<BarrierScope, v1::BarrierScope> kBarrierScopeMappings[] = {
    {BarrierScope::kBlock, v1::BARRIER_SCOPE_BLOCK},
    {BarrierScope::kWarp, v1::BARRIER_SCOPE_WARP},
};

inline constexpr EnumMapping<WarpPolicy, v1::WarpPolicy> kWarpPolicyMappings[] = {
    {WarpPolicy::kSquare, v1::WARP_POLICY_SQUARE},
    {WarpPolicy::kFullRow, v1::WARP_POLICY_FULL_ROW},
    {WarpPolicy::kFullCol, v1::WARP_POLICY_FULL_COL},
};

inline constexpr EnumMapping<ReduceKind, v1::ReduceKind> kReduceKindMappings[] = {
    {ReduceKind::kSum, v1::REDUCE_KIND_SUM},
    {ReduceKind::kMax, v1::REDUCE_KIND_MAX},
    {ReduceKind::kMin, v1::REDUCE_KIND_MIN},
    {ReduceKind::kAbsMax, v1::REDUCE_KIND_ABS_MAX},
    {ReduceKind::kAbsSum, v1::REDUCE_KIND_ABS_SUM},
    {ReduceKind::kProd, v1::REDUCE_KIND_PROD},
    {ReduceKind::kBitAnd, v1::REDUCE_KIND_BIT_AND},
    {ReduceKind::kBitOr, v1::REDUCE_KIND_BIT_OR},
    {ReduceKind::kBitXor, v1::REDUCE_KIND_BIT_XOR},
};

// The schema value of an IR value; UNSPECIFIED (0) when the table has none.
template <typename IrEnum, typename ProtoEnum, size_t N>
ProtoEnum ToProtoEnum(const EnumMapping<IrEnum, ProtoEnum> (&mappings)[N], IrEnum value) {
  for (const auto& mapping : mappings) {
    if (mapping.ir == value) return mapping.proto;
  }
  return static_cast<ProtoEnum>(0);
}

// The IR value of a schema value; nullopt for UNSPECIFIED and for values this build does not
// know (proto3 enums keep unknown numbers).
template <typename IrEnum, typename ProtoEnum, size_t N>
std::optional<IrEnum> FromProtoEnum(const EnumMapping<IrEnum, ProtoEnum> (&mappings)[N],
                                    int value) {
  for (const auto& mapping : mappings) {
    if (static_cast<int>(mapping.proto) == value) return mapping.ir;
  }
  return std::nullopt;
}

}  // namespace tile_ir

#endif  // TILE_IR_PROTO_ENUMS_H_
