// How element-wise expressions carry a tile's padding (padded_reductions_internal.h).
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "passes/analysis/padded_reductions_internal.h"

namespace tile_ir::passes::padding {
namespace {

bool Padded(const PadValue& v) { return v.kind == PadKind::kZero || v.kind == PadKind::kNonzero; }
bool ZeroThere(const PadValue& v) {
  return v.kind == PadKind::kAllZero || v.kind == PadKind::kZero;
}
PadValue Nonzero(const PadValue& a, const PadValue& b) {
  return {PadKind::kNonzero, Padded(a) ? a.origin : b.origin};
}

// Intrinsics whose value at 0 is 0, so zero padding stays zero through them.
bool KeepsZero(std::string_view name) {
  static const auto* names = new absl::flat_hash_set<std::string_view>{
      "sqrt", "tanh", "erf", "sin", "floor", "ceil", "abs"};
  return names->contains(name);
}

// Intrinsics whose value at 0 is not 0 (exp(0) = 1, log(0) = -inf).
bool MovesZero(std::string_view name) {
  static const auto* names = new absl::flat_hash_set<std::string_view>{
      "exp", "exp2", "exp2_ftz", "log", "log2", "rsqrt", "cos", "pow"};
  return names->contains(name);
}

PadValue OfLoad(const BufferLoad& load, const Var* var, const PaddingState& state) {
  if (load.buffer->scope == MemoryScope::kGlobal) return {};  // not covered: see the header
  auto tile = state.find(load.buffer.get());
  if (tile == state.end()) return {};
  for (size_t d = 0; d < load.indices.size(); ++d) {
    if (As<Var>(load.indices[d]) != var) continue;
    auto padding = tile->second.find(static_cast<int>(d));
    if (padding == tile->second.end()) continue;
    return {padding->second.zero ? PadKind::kZero : PadKind::kNonzero, &padding->second};
  }
  return {};
}

bool Mentions(const Expr& e, const Var* var, const LetValues& lets) {
  if (e == nullptr) return false;
  switch (e->kind()) {
    case ExprKind::kVar: {
      if (As<Var>(e) == var) return true;
      auto let = lets.find(As<Var>(e));
      return let != lets.end() && Mentions(let->second, var, lets);
    }
    case ExprKind::kUnary: return Mentions(As<Unary>(e)->a, var, lets);
    case ExprKind::kCast: return Mentions(As<Cast>(e)->value, var, lets);
    case ExprKind::kBinary:
      return Mentions(As<Binary>(e)->a, var, lets) || Mentions(As<Binary>(e)->b, var, lets);
    case ExprKind::kSelect: {
      const Select& node = *As<Select>(e);
      return Mentions(node.cond, var, lets) || Mentions(node.true_value, var, lets) ||
             Mentions(node.false_value, var, lets);
    }
    case ExprKind::kBufferLoad:
      for (const Expr& index : As<BufferLoad>(e)->indices) {
        if (Mentions(index, var, lets)) return true;
      }
      return false;
    case ExprKind::kCall:
      for (const Expr& arg : As<Call>(e)->args) {
        if (Mentions(arg, var, lets)) return true;
      }
      return false;
    default: return false;
  }
}

// a + b, a - b and the like: zero where both are. Where one is padded and the other is not, the
// other decides: an element of its own at each position (an accumulator A[i, j] += x * x holds
// earlier tiles' sums there) is data, no padding; a value the same along `var` (m[i] in
// x - m[i], a constant) lands on every padded element, which a sum then counts.
PadValue BothZero(const PadValue& a, const PadValue& b, bool a_varies, bool b_varies) {
  if (!Padded(a) && !Padded(b)) return {};
  if (ZeroThere(a) && ZeroThere(b)) return Padded(a) ? a : b;
  if (a.kind == PadKind::kNone && a_varies) return {};
  if (b.kind == PadKind::kNone && b_varies) return {};
  return Nonzero(a, b);
}

PadValue OfBinary(const Binary& node, const Var* var, const PaddingState& state,
                  const LetValues& lets) {
  PadValue a = PadAlong(node.a, var, state, lets);
  PadValue b = PadAlong(node.b, var, state, lets);
  if (IsComparison(node.op) || IsLogical(node.op)) return {};
  switch (node.op) {
    case BinaryOp::kMul:
    case BinaryOp::kBitAnd:
      if (a.kind == PadKind::kAllZero || b.kind == PadKind::kAllZero) return {PadKind::kAllZero};
      if (a.kind == PadKind::kZero) return a;
      if (b.kind == PadKind::kZero) return b;
      return Padded(a) || Padded(b) ? Nonzero(a, b) : PadValue{};
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kCeilDiv:
    case BinaryOp::kShl:
    case BinaryOp::kShr:
      // 0 / x, 0 % x and 0 << x are 0; x / 0 is not.
      if (ZeroThere(a) && !Padded(b)) return a;
      return Padded(a) || Padded(b) ? Nonzero(a, b) : PadValue{};
    default:  // +, -, min, max, |, ^
      return BothZero(a, b, Mentions(node.a, var, lets), Mentions(node.b, var, lets));
  }
}

PadValue OfCall(const Call& node, const Var* var, const PaddingState& state,
                const LetValues& lets) {
  if (node.name == "fma" && node.args.size() == 3) {
    PadValue a = PadAlong(node.args[0], var, state, lets);
    PadValue b = PadAlong(node.args[1], var, state, lets);
    PadValue product = ZeroThere(a)             ? a
                       : ZeroThere(b)           ? b
                       : Padded(a) || Padded(b) ? Nonzero(a, b)
                                                : PadValue{};
    return BothZero(product, PadAlong(node.args[2], var, state, lets),
                    Mentions(node.args[0], var, lets) || Mentions(node.args[1], var, lets),
                    Mentions(node.args[2], var, lets));
  }
  if (node.args.size() != 1) return {};
  PadValue arg = PadAlong(node.args[0], var, state, lets);
  if (KeepsZero(node.name)) return arg;
  if (MovesZero(node.name) && Padded(arg)) return {PadKind::kNonzero, arg.origin};
  return {};
}

}  // namespace

PadValue PadAlong(const Expr& e, const Var* var, const PaddingState& state, const LetValues& lets) {
  switch (e->kind()) {
    case ExprKind::kIntImm:
      return As<IntImm>(e)->value == 0 ? PadValue{PadKind::kAllZero} : PadValue{};
    case ExprKind::kFloatImm:
      return As<FloatImm>(e)->value == 0 ? PadValue{PadKind::kAllZero} : PadValue{};
    case ExprKind::kVar: {
      auto let = lets.find(As<Var>(e));
      return let == lets.end() ? PadValue{} : PadAlong(let->second, var, state, lets);
    }
    case ExprKind::kUnary: {
      const Unary& node = *As<Unary>(e);
      return node.op == UnaryOp::kNeg ? PadAlong(node.a, var, state, lets) : PadValue{};
    }
    case ExprKind::kCast: return PadAlong(As<Cast>(e)->value, var, state, lets);
    case ExprKind::kBinary: return OfBinary(*As<Binary>(e), var, state, lets);
    case ExprKind::kBufferLoad: return OfLoad(*As<BufferLoad>(e), var, state);
    case ExprKind::kCall: return OfCall(*As<Call>(e), var, state, lets);
    // A select is how the language masks (docs/TEXT_FORMAT.md "Edges"); we do not try to prove
    // that its condition tests the right index, so it clears the padding.
    default: return {};
  }
}

}  // namespace tile_ir::passes::padding
