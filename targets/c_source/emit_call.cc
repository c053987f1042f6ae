// Intrinsic calls: the dialect's own calls first (its software-pipeline waits,
// its "<target>." library intrinsics), then atomic adds through the device
// library and math through the dialect's functions.
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/kernel_emitter.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::c_source {
namespace {

// The IR's math intrinsics (tile_ir/intrinsics.h) that dialects map to functions.
bool IsMathIntrinsic(const std::string& name) {
  static const auto* names = new absl::flat_hash_set<std::string>{
      "exp", "exp2",  "exp2_ftz", "log", "log2", "sqrt", "rsqrt", "tanh",
      "erf", "sin",   "cos",      "floor", "ceil", "pow",  "fma",   "abs"};
  return names->contains(name);
}

}  // namespace

CExpr KernelEmitter::EmitCall(const Call& node) {
  if (IsAtomicUpdate(node.name)) return EmitAtomicUpdate(node);
  if (node.name == kReinterpret && node.args.size() == 1) return EmitReinterpret(node);
  if (node.name == kLaneShuffleXor && node.args.size() == 2) {
    // Every device library of this family defines it on its warp's lanes (CUDA's
    // warp_reduce.cuh, HIP's wave_reduce.h, Metal's metal.h).
    return Primary(absl::StrCat("tl::lane_shuffle_xor(", EmitExpr(node.args[0]).text, ", ",
                                EmitExpr(node.args[1]).text, ")"));
  }
  if (std::optional<CExpr> own = dialect_.EmitTargetCall(node, *this)) return *own;
  if (IsMathIntrinsic(node.name)) return EmitMath(node);
  return Fail(absl::StrCat("intrinsic '", node.name, "' has no ", dialect_.language(), " form"));
}

CExpr KernelEmitter::EmitMath(const Call& node) {
  ScalarType type = node.dtype().scalar();
  std::vector<std::string> args;
  for (const Expr& arg : node.args) args.push_back(EmitExpr(arg).text);
  if (node.name == "abs" && DataType(type).is_int()) {
    // The device library's abs wraps like the IR (|-128| of an i8 is -128).
    CExpr call = Primary(absl::StrCat("tl::abs(", absl::StrJoin(args, ", "), ")"));
    return type == ScalarType::kI4 ? Primary(absl::StrCat("tl::wrap_i4(", call.text, ")")) : call;
  }
  std::optional<std::string> function = dialect_.MathFunction(node.name, type);
  if (!function) {
    return Fail(absl::StrCat("intrinsic '", node.name, "' on ", DataType(type).ToString(),
                             " has no ", dialect_.language(), " form"));
  }
  return Primary(absl::StrCat(*function, "(", absl::StrJoin(args, ", "), ")"));
}

CExpr KernelEmitter::EmitAtomicUpdate(const Call& node) {
  const BufferLoad* target = node.args.size() == 2 ? As<BufferLoad>(node.args[0]) : nullptr;
  if (target == nullptr) {
    return Fail(absl::StrCat(node.name, " needs a buffer element and a value"));
  }
  ScalarType type = target->buffer->dtype.scalar();
  const bool add = node.name == kAtomicAddAt;
  // The device libraries' maximum and minimum combine whole bytes of the types they order.
  const bool unsupported = type == ScalarType::kI4 || type == ScalarType::kBool ||
                           (!add && IsFp8(type)) || !dialect_.has_atomic(type, add);
  if (unsupported) {
    return Fail(absl::StrCat(node.name, " on ", DataType(type).ToString(), " has no ",
                             dialect_.language(), " form (no atomic ", add ? "add" : "update",
                             " of that type)"));
  }
  const BinaryOp op = add ? BinaryOp::kAdd
                      : node.name == kAtomicMaxAt ? BinaryOp::kMax
                                                  : BinaryOp::kMin;
  if (target->buffer->scope == MemoryScope::kLocal) {
    // A thread's own array: nothing else writes it.
    Expr combined = Binary::Make(op, node.args[0], node.args[1]);
    CExpr element = EmitLoad(*target);
    return CExpr{absl::StrCat(element.text, " = ", EmitExpr(combined).text), 2};
  }
  CExpr address = AddressOf(*target);
  const char* function = add ? "tl::atomic_add" : op == BinaryOp::kMax ? "tl::atomic_max"
                                                                       : "tl::atomic_min";
  return Primary(
      absl::StrCat(function, "(", address.text, ", ", EmitExpr(node.args[1]).text, ")"));
}

CExpr KernelEmitter::EmitReinterpret(const Call& node) {
  DataType from = node.args[0]->dtype();
  DataType to = node.dtype();
  if (from.is_vector() || from.scalar() == ScalarType::kI4) {
    return Fail(absl::StrCat("reinterpret from ", from.ToString(), " has no ",
                             dialect_.language(), " form (scalars of whole bytes only)"));
  }
  return Primary(dialect_.BitCast(to.scalar(), EmitExpr(node.args[0]).text));
}

}  // namespace tile_ir::c_source
