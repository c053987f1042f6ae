// Integer expression evaluation: a recursive walk for one-off values, a compiled
// instruction list for the same expression at many points.
#include "passes/analysis/int_eval.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "passes/analysis/arith/int_math.h"

namespace tile_ir::passes {
namespace {

bool IsIntegral(DataType t) { return !t.is_vector() && (t.is_int() || t.is_bool()); }

}  // namespace

std::optional<int64_t> EvaluateInt(const Expr& e, const IntEnv& env) {
  if (!IsIntegral(e->dtype())) return std::nullopt;
  switch (e->kind()) {
    case ExprKind::kIntImm: return As<IntImm>(e)->value;
    case ExprKind::kVar: {
      auto it = env.find(As<Var>(e));
      if (it == env.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::kUnary: {
      const Unary& node = *As<Unary>(e);
      std::optional<int64_t> a = EvaluateInt(node.a, env);
      if (!a) return std::nullopt;
      if (node.op == UnaryOp::kNot) return *a == 0 ? 1 : 0;
      return arith::EvalIntBinary(BinaryOp::kSub, 0, *a, e->dtype());
    }
    case ExprKind::kBinary: {
      const Binary& node = *As<Binary>(e);
      std::optional<int64_t> a = EvaluateInt(node.a, env);
      std::optional<int64_t> b = EvaluateInt(node.b, env);
      if (!a || !b) return std::nullopt;
      return arith::EvalIntBinary(node.op, *a, *b, node.a->dtype());
    }
    case ExprKind::kCast: {
      std::optional<int64_t> value = EvaluateInt(As<Cast>(e)->value, env);
      if (!value) return std::nullopt;
      if (e->dtype().is_bool()) return *value != 0 ? 1 : 0;
      if (!arith::FitsIn(*value, e->dtype())) return std::nullopt;
      return value;
    }
    case ExprKind::kSelect: {
      const Select& node = *As<Select>(e);
      std::optional<int64_t> cond = EvaluateInt(node.cond, env);
      if (!cond) return std::nullopt;
      return EvaluateInt(*cond != 0 ? node.true_value : node.false_value, env);
    }
    default: return std::nullopt;
  }
}

IntProgram::IntProgram(const Expr& e, absl::Span<const Var* const> slots, const IntEnv& bound) {
  Emit(e, slots, bound, 0);
}

// `depth` is the stack height before `e`'s value is pushed.
void IntProgram::Emit(const Expr& e, absl::Span<const Var* const> slots, const IntEnv& bound,
                      int depth) {
  max_depth_ = std::max(max_depth_, depth + 1);
  auto push = [&](OpKind kind, int64_t arg = 0, DataType dtype = {}, BinaryOp op = BinaryOp::kAdd) {
    ops_.push_back({kind, op, dtype, arg});
  };
  if (!IsIntegral(e->dtype())) return push(OpKind::kFail);
  switch (e->kind()) {
    case ExprKind::kIntImm: return push(OpKind::kConst, As<IntImm>(e)->value);
    case ExprKind::kVar: {
      const Var* var = As<Var>(e);
      auto slot = std::find(slots.begin(), slots.end(), var);
      if (slot != slots.end()) return push(OpKind::kSlot, slot - slots.begin());
      auto it = bound.find(var);
      if (it == bound.end()) return push(OpKind::kFail);
      return push(OpKind::kConst, it->second);
    }
    case ExprKind::kUnary: {
      const Unary& node = *As<Unary>(e);
      Emit(node.a, slots, bound, depth);
      return push(node.op == UnaryOp::kNot ? OpKind::kNot : OpKind::kNeg, 0, e->dtype());
    }
    case ExprKind::kBinary: {
      const Binary& node = *As<Binary>(e);
      Emit(node.a, slots, bound, depth);
      // Layouts divide by powers of two at every element; shifts and masks skip the division.
      if (node.b->kind() == ExprKind::kIntImm && IsIntegral(node.b->dtype())) {
        const int64_t divisor = As<IntImm>(node.b)->value;
        if (divisor > 0 && (divisor & (divisor - 1)) == 0) {
          const int64_t log2 = __builtin_ctzll(static_cast<uint64_t>(divisor));
          const DataType dtype = node.a->dtype();
          switch (node.op) {
            case BinaryOp::kFloorDiv: return push(OpKind::kFloorDivPow2, log2, dtype);
            case BinaryOp::kFloorMod: return push(OpKind::kFloorModPow2, divisor - 1, dtype);
            case BinaryOp::kDiv: return push(OpKind::kDivPow2, log2, dtype);
            case BinaryOp::kMod: return push(OpKind::kModPow2, log2, dtype);
            default: break;
          }
        }
      }
      Emit(node.b, slots, bound, depth + 1);
      return push(OpKind::kBinary, 0, node.a->dtype(), node.op);
    }
    case ExprKind::kCast: {
      Emit(As<Cast>(e)->value, slots, bound, depth);
      if (e->dtype().is_bool()) return push(OpKind::kToBool);
      return push(OpKind::kCheckFits, 0, e->dtype());
    }
    case ExprKind::kSelect: {
      const Select& node = *As<Select>(e);
      Emit(node.cond, slots, bound, depth);
      const size_t to_false = ops_.size();
      push(OpKind::kJumpIfZero);
      Emit(node.true_value, slots, bound, depth);
      const size_t to_end = ops_.size();
      push(OpKind::kJump);
      ops_[to_false].arg = static_cast<int64_t>(ops_.size());
      Emit(node.false_value, slots, bound, depth);
      ops_[to_end].arg = static_cast<int64_t>(ops_.size());
      return;
    }
    default: return push(OpKind::kFail);
  }
}

std::optional<int64_t> IntProgram::Run(absl::Span<const int64_t> values) const {
  absl::InlinedVector<int64_t, 32> stack(max_depth_);
  int top = -1;  // index of the top value
  const size_t size = ops_.size();
  for (size_t pc = 0; pc < size; ++pc) {
    const Op& op = ops_[pc];
    switch (op.kind) {
      case OpKind::kConst: stack[++top] = op.arg; break;
      case OpKind::kSlot: stack[++top] = values[op.arg]; break;
      case OpKind::kNeg:
        if (!arith::EvalIntBinary(BinaryOp::kSub, 0, stack[top], op.dtype, stack[top])) {
          return std::nullopt;
        }
        break;
      case OpKind::kNot: stack[top] = stack[top] == 0 ? 1 : 0; break;
      case OpKind::kBinary:
        if (!arith::EvalIntBinary(op.op, stack[top - 1], stack[top], op.dtype, stack[top - 1])) {
          return std::nullopt;
        }
        --top;
        break;
      case OpKind::kFloorDivPow2:
        stack[top] >>= op.arg;  // arithmetic: rounds toward -infinity
        if (!arith::FitsIn(stack[top], op.dtype)) return std::nullopt;
        break;
      case OpKind::kFloorModPow2:
        stack[top] &= op.arg;  // two's complement: the floor remainder of a positive divisor
        if (!arith::FitsIn(stack[top], op.dtype)) return std::nullopt;
        break;
      case OpKind::kDivPow2:
      case OpKind::kModPow2: {
        const int64_t a = stack[top];
        // Negative dividends round up: add 2^arg - 1 before the shift.
        const int64_t bias = a < 0 ? (int64_t{1} << op.arg) - 1 : 0;
        const int64_t quotient = (a + bias) >> op.arg;
        stack[top] = op.kind == OpKind::kDivPow2 ? quotient : a - quotient * (int64_t{1} << op.arg);
        if (!arith::FitsIn(stack[top], op.dtype)) return std::nullopt;
        break;
      }
      case OpKind::kToBool: stack[top] = stack[top] != 0 ? 1 : 0; break;
      case OpKind::kCheckFits:
        if (!arith::FitsIn(stack[top], op.dtype)) return std::nullopt;
        break;
      case OpKind::kJumpIfZero:
        if (stack[top--] == 0) pc = static_cast<size_t>(op.arg) - 1;
        break;
      case OpKind::kJump: pc = static_cast<size_t>(op.arg) - 1; break;
      case OpKind::kFail: return std::nullopt;
    }
  }
  return stack[0];
}

}  // namespace tile_ir::passes
