// Expression checks of the verifier, one function per node kind, driven by an
// explicit stack so that no expression can overflow the verifier's own stack.
#include "tile_ir/verifier_expr.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tile_ir/buffer.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::verifier {
namespace {

bool IsNumeric(DataType t) { return t.is_int() || t.is_float(); }

// Calls fn(child) for each operand in order, null ones included.
template <typename Fn>
void ForEachOperand(const ExprNode& node, Fn&& fn) {
  switch (node.kind()) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
      return;
    case ExprKind::kUnary:
      fn(static_cast<const Unary&>(node).a);
      return;
    case ExprKind::kBinary: {
      const auto& b = static_cast<const Binary&>(node);
      fn(b.a);
      fn(b.b);
      return;
    }
    case ExprKind::kCast:
      fn(static_cast<const Cast&>(node).value);
      return;
    case ExprKind::kSelect: {
      const auto& s = static_cast<const Select&>(node);
      fn(s.cond);
      fn(s.true_value);
      fn(s.false_value);
      return;
    }
    case ExprKind::kBufferLoad:
      for (const Expr& index : static_cast<const BufferLoad&>(node).indices) fn(index);
      return;
    case ExprKind::kCall:
      for (const Expr& arg : static_cast<const Call&>(node).args) fn(arg);
      return;
    case ExprKind::kRamp: {
      const auto& r = static_cast<const Ramp&>(node);
      fn(r.base);
      fn(r.stride);
      return;
    }
    case ExprKind::kBroadcast:
      fn(static_cast<const Broadcast&>(node).value);
      return;
  }
}

bool HasMissingOperand(const ExprNode& node) {
  bool missing = false;
  ForEachOperand(node, [&](const Expr& e) { missing = missing || e == nullptr; });
  return missing;
}

// The values an integer or bool type can hold; nullopt for i64, which holds every int64_t. An
// IntImm of u64 holds 0 to INT64_MAX (tile_ir.proto).
std::optional<std::pair<int64_t, int64_t>> IntRange(DataType t) {
  switch (t.scalar()) {
    case ScalarType::kBool:
      return std::make_pair(0, 1);
    case ScalarType::kI4:
      return std::make_pair(-8, 7);
    case ScalarType::kI8:
      return std::make_pair(-128, 127);
    case ScalarType::kI16:
      return std::make_pair(-32768, 32767);
    case ScalarType::kI32:
      return std::make_pair(INT32_MIN, INT32_MAX);
    case ScalarType::kU8:
      return std::make_pair(0, 255);
    case ScalarType::kU16: return std::make_pair(0, 65535);
    case ScalarType::kU32: return std::make_pair(int64_t{0}, int64_t{UINT32_MAX});
    case ScalarType::kU64: return std::make_pair(int64_t{0}, INT64_MAX);
    default:
      return std::nullopt;
  }
}

std::string ExprKindName(const ExprNode& node) {
  switch (node.kind()) {
    case ExprKind::kUnary:
      return std::string(UnaryOpName(static_cast<const Unary&>(node).op));
    case ExprKind::kBinary:
      return std::string(BinaryOpName(static_cast<const Binary&>(node).op));
    case ExprKind::kCast:
      return "cast";
    case ExprKind::kSelect:
      return "select";
    case ExprKind::kBufferLoad:
      return "load";
    case ExprKind::kCall:
      return "call";
    case ExprKind::kRamp:
      return "ramp";
    case ExprKind::kBroadcast:
      return "broadcast";
    default:
      return "expression";
  }
}

// Checks one node given its operands' types; the operands are checked on their own.
class NodeChecker {
 public:
  NodeChecker(const NameScope& scope, const Site& site, DiagnosticSink& sink)
      : scope_(scope), site_(site), sink_(sink) {}

  void Check(const ExprNode& node) {
    if (node.dtype().lanes() < 1) {
      return Error(absl::StrCat(ExprKindName(node), " has ", node.dtype().lanes(), " lanes"));
    }
    if (HasMissingOperand(node)) {
      return Error(absl::StrCat(ExprKindName(node), " has a missing operand"));
    }
    switch (node.kind()) {
#define TILE_IR_CHECK_NODE(Name) \
  case ExprKind::k##Name:        \
    return Check##Name(static_cast<const Name&>(node));
      TILE_IR_FOR_EACH_EXPR(TILE_IR_CHECK_NODE)
#undef TILE_IR_CHECK_NODE
    }
  }

 private:
  void Error(absl::string_view message) { sink_.Report(site_, message); }

  // Reports a node whose stored type is not the one its operands give.
  void ExpectType(const ExprNode& node, DataType expected) {
    if (node.dtype() == expected) return;
    Error(absl::StrCat(ExprKindName(node), " has type ", node.dtype().ToString(),
                       ", but its operands give ", expected.ToString()));
  }

  void CheckIntImm(const IntImm& node) {
    DataType t = node.dtype();
    if (!t.is_int() && !t.is_bool()) {
      return Error(absl::StrCat("integer constant ", node.value, " has type ", t.ToString(),
                                "; it needs an integer or bool type"));
    }
    if (t.is_vector()) {
      return Error(absl::StrCat("constant of type ", t.ToString(),
                                " must be scalar (a vector constant is a broadcast)"));
    }
    std::optional<std::pair<int64_t, int64_t>> range = IntRange(t);
    if (range && (node.value < range->first || node.value > range->second)) {
      Error(absl::StrCat("constant ", node.value, " does not fit ", t.ToString(), " (range [",
                         range->first, ", ", range->second, "])"));
    }
  }

  void CheckFloatImm(const FloatImm& node) {
    DataType t = node.dtype();
    if (!t.is_float()) {
      return Error(absl::StrCat("float constant ", node.value, " has type ", t.ToString(),
                                "; it needs a float type"));
    }
    if (t.is_vector()) {
      Error(absl::StrCat("constant of type ", t.ToString(),
                         " must be scalar (a vector constant is a broadcast)"));
    }
  }

  void CheckVar(const Var& node) {
    if (node.dtype().is_void()) Error(absl::StrCat("variable '", node.name, "' has type void"));
    if (!scope_.HasVar(&node)) Error(scope_.UndefinedVarMessage(node));
  }

  void CheckUnary(const Unary& node) {
    DataType t = node.a->dtype();
    if (node.op == UnaryOp::kNeg) {
      if (!IsNumeric(t))
        return Error(absl::StrCat("neg needs a numeric operand, not ", t.ToString()));
      return ExpectType(node, t);
    }
    if (!t.is_bool()) return Error(absl::StrCat("not needs a bool operand, not ", t.ToString()));
    ExpectType(node, t);
  }

  void CheckBinary(const Binary& node) {
    DataType a = node.a->dtype();
    DataType b = node.b->dtype();
    std::string op(BinaryOpName(node.op));
    if (a != b) {
      return Error(absl::StrCat("operands of ", op, " have different types: ", a.ToString(),
                                " and ", b.ToString()));
    }
    absl::string_view needs;
    switch (node.op) {
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
        if (!a.is_bool()) needs = "bool";
        break;
      case BinaryOp::kEq:
      case BinaryOp::kNe:
        if (!IsNumeric(a) && !a.is_bool()) needs = "numeric or bool";
        break;
      case BinaryOp::kMod:
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod:
      case BinaryOp::kCeilDiv:
      case BinaryOp::kXor:
      case BinaryOp::kBitAnd:
      case BinaryOp::kBitOr:
      case BinaryOp::kShl:
      case BinaryOp::kShr:
        if (!a.is_int()) needs = "integer";
        break;
      default:
        if (!IsNumeric(a)) needs = "numeric";
        break;
    }
    if (!needs.empty()) {
      return Error(absl::StrCat(op, " needs ", needs, " operands, not ", a.ToString()));
    }
    bool yields_bool = IsComparison(node.op) || IsLogical(node.op);
    ExpectType(node, yields_bool ? kBool.with_lanes(a.lanes()) : a);
  }

  void CheckCast(const Cast& node) {
    DataType from = node.value->dtype();
    if (from.is_void()) return Error("cast from void");
    if (node.dtype().is_void()) return Error("cast to void");
    if (from.lanes() != node.dtype().lanes()) {
      Error(absl::StrCat("cast from ", from.ToString(), " to ", node.dtype().ToString(),
                         " changes the number of lanes"));
    }
  }

  void CheckSelect(const Select& node) {
    DataType cond = node.cond->dtype();
    DataType t = node.true_value->dtype();
    DataType f = node.false_value->dtype();
    if (!cond.is_bool()) {
      return Error(absl::StrCat("select condition must be bool, not ", cond.ToString()));
    }
    if (t != f) {
      return Error(absl::StrCat("select values have different types: ", t.ToString(), " and ",
                                f.ToString()));
    }
    if (cond.lanes() != 1 && cond.lanes() != t.lanes()) {
      return Error(absl::StrCat("select condition has ", cond.lanes(),
                                " lanes but the values have ", t.lanes()));
    }
    ExpectType(node, t);
  }

  void CheckBufferLoad(const BufferLoad& node) {
    if (!node.buffer) return Error("load has no buffer");
    const BufferNode& buffer = *node.buffer;
    if (!scope_.HasBuffer(&buffer)) Error(scope_.UndefinedBufferMessage(buffer));
    if (static_cast<int>(node.indices.size()) != buffer.rank()) {
      return Error(absl::StrCat("load from '", buffer.name, "' has ", node.indices.size(),
                                " indices, but the buffer has rank ", buffer.rank()));
    }
    int lanes = node.indices.empty() ? 1 : node.indices.back()->dtype().lanes();
    for (size_t i = 0; i < node.indices.size(); ++i) {
      DataType index = node.indices[i]->dtype();
      if (!index.is_int()) {
        return Error(absl::StrCat("index ", i, " of the load from '", buffer.name,
                                  "' must be an integer, not ", index.ToString()));
      }
      if (index.lanes() != 1 && index.lanes() != lanes) {
        return Error(absl::StrCat("index ", i, " of the load from '", buffer.name, "' has ",
                                  index.lanes(), " lanes, but the load has ", lanes));
      }
    }
    ExpectType(node, buffer.dtype.with_lanes(lanes));
  }

  void CheckCall(const Call& node) {
    const IntrinsicInfo* info = FindIntrinsic(node.name);
    if (!info) return Error(absl::StrCat("unknown intrinsic '", node.name, "'"));
    if (static_cast<int>(node.args.size()) != info->num_args) {
      return Error(absl::StrCat("intrinsic '", node.name, "' takes ", info->num_args,
                                " arguments, but is given ", node.args.size()));
    }
    for (size_t i = 0; info->float_only && i < node.args.size(); ++i) {
      DataType arg = node.args[i]->dtype();
      if (!arg.is_float()) {
        return Error(absl::StrCat("intrinsic '", node.name,
                                  "' needs float arguments, but argument ", i, " is ",
                                  arg.ToString()));
      }
    }
    // An atomic update's first argument names the element to update (intrinsics.h).
    if (IsAtomicUpdate(node.name)) {
      if (node.args[0]->kind() != ExprKind::kBufferLoad) {
        return Error(absl::StrCat("the first argument of '", node.name,
                                  "' must be a load naming the element to update"));
      }
      if (node.args[1]->dtype() != node.args[0]->dtype()) {
        return Error(absl::StrCat("'", node.name, "' combines a ",
                                  node.args[1]->dtype().ToString(), " value with a ",
                                  node.args[0]->dtype().ToString(), " element"));
      }
      if (node.name != kAtomicAddAt && node.args[0]->dtype().is_bool()) {
        return Error(absl::StrCat("'", node.name, "' needs a numeric element, not bool"));
      }
    }
    if (info->result == IntrinsicInfo::ResultType::kDeclared) return CheckReinterpret(node);
    DataType expected = IntrinsicResultType(*info, node.args);
    if (node.dtype() != expected) {
      Error(absl::StrCat("call of '", node.name, "' has type ", node.dtype().ToString(),
                         ", but the intrinsic yields ", expected.ToString(), " here"));
    }
  }

  // reinterpret<T>(v): the same bits, so the same width and lanes.
  void CheckReinterpret(const Call& node) {
    DataType from = node.args[0]->dtype();
    DataType to = node.dtype();
    if (from.is_void() || to.is_void()) return Error("reinterpret from or to void");
    // A bool is 0 or 1: most bit patterns of a byte are no bool.
    if (from.is_bool() || to.is_bool()) return Error("reinterpret from or to bool; use cast");
    if (from.bits() != to.bits() || from.lanes() != to.lanes()) {
      Error(absl::StrCat("reinterpret from ", from.ToString(), " (", from.bits(), " bits) to ",
                         to.ToString(), " (", to.bits(),
                         " bits) changes the width; it needs types of equal width (use cast to "
                         "convert values)"));
    }
  }

  void CheckRamp(const Ramp& node) {
    DataType base = node.base->dtype();
    DataType stride = node.stride->dtype();
    if (node.lanes < 2) return Error(absl::StrCat("ramp needs at least 2 lanes, not ", node.lanes));
    if (!base.is_int() || base.is_vector() || base != stride) {
      return Error(absl::StrCat("ramp base and stride must be integer scalars of one type, not ",
                                base.ToString(), " and ", stride.ToString()));
    }
    ExpectType(node, base.with_lanes(node.lanes));
  }

  void CheckBroadcast(const Broadcast& node) {
    DataType value = node.value->dtype();
    if (node.lanes < 2) {
      return Error(absl::StrCat("broadcast needs at least 2 lanes, not ", node.lanes));
    }
    if (value.is_void() || value.is_vector()) {
      return Error(
          absl::StrCat("broadcast value must be a non-void scalar, not ", value.ToString()));
    }
    ExpectType(node, value.with_lanes(node.lanes));
  }

  const NameScope& scope_;
  const Site& site_;
  DiagnosticSink& sink_;
};

}  // namespace

bool CheckExpr(const Expr& expr, absl::string_view role, const NameScope& scope, const Site& site,
               DiagnosticSink& sink) {
  if (!expr) {
    sink.Report(site, absl::StrCat("missing ", role));
    return false;
  }
  NodeChecker checker(scope, site, sink);
  // Post-order walk: a node is checked, and its height known, once its operands
  // are done. Shared subtrees are visited once.
  absl::flat_hash_map<const ExprNode*, int> heights;
  struct Pending {
    const ExprNode* node;
    bool operands_pushed;
  };
  std::vector<Pending> stack = {{expr.get(), false}};
  while (!stack.empty()) {
    Pending current = stack.back();
    if (heights.contains(current.node)) {
      stack.pop_back();
      continue;
    }
    if (!current.operands_pushed) {
      stack.back().operands_pushed = true;
      std::vector<const ExprNode*> operands;
      ForEachOperand(*current.node, [&](const Expr& e) {
        if (e && !heights.contains(e.get())) operands.push_back(e.get());
      });
      // Reversed so that operands are checked left to right.
      for (auto it = operands.rbegin(); it != operands.rend(); ++it) stack.push_back({*it, false});
      continue;
    }
    stack.pop_back();
    int height = 1;
    ForEachOperand(*current.node, [&](const Expr& e) {
      if (e) height = std::max(height, heights.at(e.get()) + 1);
    });
    heights.emplace(current.node, height);
    checker.Check(*current.node);
  }
  if (heights.at(expr.get()) > kMaxExprDepth) {
    sink.Report(site, absl::StrCat("expression nested too deeply: the ", role, " has ",
                                   heights.at(expr.get()), " levels, at most ", kMaxExprDepth,
                                   " are allowed"));
  }
  return true;
}

void ExpectIntegerScalar(const Expr& expr, absl::string_view role, const Site& site,
                         DiagnosticSink& sink) {
  DataType t = expr->dtype();
  if (t.is_int() && !t.is_vector()) return;
  sink.Report(site, absl::StrCat(role, " must be an integer scalar, not ", t.ToString()));
}

bool CheckIntegerExpr(const Expr& expr, absl::string_view role, const NameScope& scope,
                      const Site& site, DiagnosticSink& sink) {
  if (!CheckExpr(expr, role, scope, site, sink)) return false;
  ExpectIntegerScalar(expr, role, site, sink);
  return true;
}

}  // namespace tile_ir::verifier
