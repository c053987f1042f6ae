// IR versions: which version introduced each feature, so that writers stamp the oldest
// version that can represent a module and readers refuse a feature newer than the version a
// file declares.
//
//   1  the first release
//   2  BinaryOp::kXor (`^` in text, BINARY_OP_XOR in the schema)
//   3  shape requirements of kernels (`require K % 32 == 0;`, Kernel.requirements)
//   4  replicated fragment layouts (`layout((i) replicate(r: 4) -> (...))`, Layout.replica)
//   5  bitwise and, or and shifts on integers (`&` `|` `<<` `>>`, BINARY_OP_BIT_AND, BIT_OR, SHL,
//      SHR) and the intrinsics reinterpret, atomic_max_at and atomic_min_at
//   6  the reductions abssum, prod, bitand, bitor and bitxor (REDUCE_KIND_ABS_SUM, PROD, BIT_AND,
//      BIT_OR, BIT_XOR)
//   7  the unsigned integer types u16, u32 and u64 (SCALAR_TYPE_U16, U32, U64)
#ifndef TILE_IR_VERSION_H_
#define TILE_IR_VERSION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tile_ir/expr.h"
#include "tile_ir/stmt.h"

namespace tile_ir {

struct Module;

// The newest IR version this build reads and writes. Readers accept every version from
// kOldestSupportedIrVersion (upgrade.h) to this one; raising it needs an upgrader there.
inline constexpr int64_t kIrVersion = 7;

// The version that introduced kernels' shape requirements (module.h).
inline constexpr int64_t kShapeRequirementsIrVersion = 3;

// The version that introduced replicated fragment layouts (Layout::replica, buffer.h).
inline constexpr int64_t kReplicatedLayoutIrVersion = 4;

// The version that introduced the bitwise and, or and shift operators and the intrinsics
// reinterpret, atomic_max_at and atomic_min_at.
inline constexpr int64_t kBitOperationsIrVersion = 5;

// The version that introduced the reductions abssum, prod, bitand, bitor and bitxor.
inline constexpr int64_t kMoreReductionsIrVersion = 6;

// The version that introduced the unsigned integer types u16, u32 and u64.
inline constexpr int64_t kWideUnsignedIrVersion = 7;

// The version that introduced `op`; a module using it cannot be written as an older one.
int64_t IntroducedInIrVersion(BinaryOp op);
// The version that introduced the built-in intrinsic `name` (intrinsics.h); 1 for the first
// release's and for targets' own, which only their lowering introduces.
int64_t IntroducedInIrVersion(std::string_view intrinsic);
// The version that introduced the reduction `kind`.
int64_t IntroducedInIrVersion(ReduceKind kind);
// The version that introduced the element type `type` (the lanes of a vector add nothing).
int64_t IntroducedInIrVersion(ScalarType type);

// The oldest version that can represent `module`: the newest version among the features it
// uses, 1 when it uses none that came later. Writers stamp this rather than kIrVersion, so a
// module that needs nothing new stays readable by older toolkits and prints the same text
// after kIrVersion is raised.
int64_t RequiredIrVersion(const Module& module);

// A feature a module uses, with the version that introduced it, for messages.
struct IrFeature {
  int64_t introduced_in;
  // What and where: "the xor operator '^' in kernel 'k' at f.tile:3:5".
  std::string description;
};

// The first feature of `module`, in kernel order, that ir_version `version` lacks; nullopt
// when `version` has every feature the module uses (RequiredIrVersion(module) <= version).
std::optional<IrFeature> FirstFeatureNewerThan(const Module& module, int64_t version);

}  // namespace tile_ir

#endif  // TILE_IR_VERSION_H_
