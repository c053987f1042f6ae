// Canonical expression printing (docs/TEXT_FORMAT.md, "Expressions").
#include "tile_ir/expr_printer.h"

#include <charconv>
#include <cmath>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "tile_ir/buffer.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/text_syntax.h"

namespace tile_ir {
namespace {

// Above the binary operators' levels (InfixSyntaxOf): unary operators, then calls, literals,
// names and loads, which bind tightest.
constexpr int kUnaryLevel = kTightestInfixLevel + 1;
constexpr int kAtomLevel = kTightestInfixLevel + 2;

int Level(const Expr& expr) {
  if (const auto* binary = As<Binary>(expr)) {
    std::optional<InfixSyntax> infix = InfixSyntaxOf(binary->op);
    return infix ? infix->level : kAtomLevel;
  }
  return expr && expr->kind() == ExprKind::kUnary ? kUnaryLevel : kAtomLevel;
}

bool IsLiteral(const Expr& expr) {
  return expr && (expr->kind() == ExprKind::kIntImm || expr->kind() == ExprKind::kFloatImm);
}

}  // namespace

std::string FormatFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

void ExprPrinter::PrintList(const std::vector<Expr>& exprs) {
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0) out_->append(", ");
    Print(exprs[i]);
  }
}

void ExprPrinter::Print(const Expr& expr, int min_level) {
  bool parenthesize = Level(expr) < min_level;
  if (parenthesize) out_->push_back('(');
  PrintNode(expr);
  if (parenthesize) out_->push_back(')');
}

void ExprPrinter::PrintCall(std::string_view name, const std::vector<Expr>& args) {
  out_->append(name);
  out_->push_back('(');
  PrintList(args);
  out_->push_back(')');
}

void ExprPrinter::PrintLiteral(const Expr& expr) {
  DataType dtype = expr->dtype();
  if (const auto* imm = As<IntImm>(expr)) {
    if (dtype == kBool) {
      out_->append(imm->value != 0 ? "true" : "false");
      return;
    }
    absl::StrAppend(out_, imm->value);
    if (dtype != kI32) absl::StrAppend(out_, "_", dtype.ToString());
    return;
  }
  out_->append(FormatFloat(static_cast<const FloatImm&>(*expr).value));
  if (dtype != kF32) absl::StrAppend(out_, "_", dtype.ToString());
}

void ExprPrinter::PrintNode(const Expr& expr) {
  if (!expr) {
    out_->append("<null>");
    return;
  }
  switch (expr->kind()) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      PrintLiteral(expr);
      return;
    case ExprKind::kVar: {
      const auto& var = static_cast<const Var&>(*expr);
      names_->Append(&var, var.name, out_);
      return;
    }
    case ExprKind::kUnary: {
      const auto& unary = static_cast<const Unary&>(*expr);
      out_->push_back(unary.op == UnaryOp::kNeg ? '-' : '!');
      // "-(3)" keeps a negated literal apart from the literal -3.
      if (unary.op == UnaryOp::kNeg && IsLiteral(unary.a)) {
        out_->push_back('(');
        PrintLiteral(unary.a);
        out_->push_back(')');
      } else {
        Print(unary.a, kUnaryLevel);
      }
      return;
    }
    case ExprKind::kBinary: {
      const auto& binary = static_cast<const Binary&>(*expr);
      std::optional<InfixSyntax> infix = InfixSyntaxOf(binary.op);
      if (!infix) {
        PrintCall(BinaryOpName(binary.op), {binary.a, binary.b});
        return;
      }
      // Left-associative: only a right operand of the same level needs parentheses.
      Print(binary.a, infix->level);
      out_->append(" ");
      out_->append(infix->symbol);
      out_->append(" ");
      Print(binary.b, infix->level + 1);
      return;
    }
    case ExprKind::kCast: {
      const auto& cast = static_cast<const Cast&>(*expr);
      absl::StrAppend(out_, "cast<", cast.dtype().ToString(), ">(");
      Print(cast.value);
      out_->push_back(')');
      return;
    }
    case ExprKind::kSelect: {
      const auto& select = static_cast<const Select&>(*expr);
      PrintCall("select", {select.cond, select.true_value, select.false_value});
      return;
    }
    case ExprKind::kBufferLoad: {
      const auto& load = static_cast<const BufferLoad&>(*expr);
      if (load.buffer) {
        names_->Append(load.buffer.get(), load.buffer->name, out_);
      } else {
        out_->append("<null>");
      }
      out_->push_back('[');
      PrintList(load.indices);
      out_->push_back(']');
      return;
    }
    case ExprKind::kCall: {
      const auto& call = static_cast<const Call&>(*expr);
      const IntrinsicInfo* info = FindIntrinsic(call.name);
      if (info != nullptr && info->result == IntrinsicInfo::ResultType::kDeclared) {
        PrintCall(absl::StrCat(call.name, "<", call.dtype().ToString(), ">"), call.args);
        return;
      }
      PrintCall(call.name, call.args);
      return;
    }
    case ExprKind::kRamp: {
      const auto& ramp = static_cast<const Ramp&>(*expr);
      out_->append("ramp(");
      Print(ramp.base);
      out_->append(", ");
      Print(ramp.stride);
      absl::StrAppend(out_, ", ", ramp.lanes, ")");
      return;
    }
    case ExprKind::kBroadcast: {
      const auto& broadcast = static_cast<const Broadcast&>(*expr);
      out_->append("broadcast(");
      Print(broadcast.value);
      absl::StrAppend(out_, ", ", broadcast.lanes, ")");
      return;
    }
  }
}

}  // namespace tile_ir
