// Expressions and literals of the text form: precedence climbing, with left-
// associative chains parsed in a loop and the depth of the built tree bounded.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "frontends/text/parser_impl.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir::text {
namespace {

struct InfixOp {
  BinaryOp op;
  int level;  // tile_ir/text_syntax.h, InfixSyntaxOf
};

std::optional<BinaryOp> InfixOperatorAt(TokenKind kind) {
  switch (kind) {
    case TokenKind::kOrOr: return BinaryOp::kOr;
    case TokenKind::kAndAnd: return BinaryOp::kAnd;
    case TokenKind::kCaret: return BinaryOp::kXor;
    case TokenKind::kAmpersand: return BinaryOp::kBitAnd;
    case TokenKind::kPipe: return BinaryOp::kBitOr;
    case TokenKind::kShiftLeft: return BinaryOp::kShl;
    case TokenKind::kShiftRight: return BinaryOp::kShr;
    case TokenKind::kEqualEqual: return BinaryOp::kEq;
    case TokenKind::kNotEqual: return BinaryOp::kNe;
    case TokenKind::kLess: return BinaryOp::kLt;
    case TokenKind::kLessEqual: return BinaryOp::kLe;
    case TokenKind::kGreater: return BinaryOp::kGt;
    case TokenKind::kGreaterEqual: return BinaryOp::kGe;
    case TokenKind::kPlus: return BinaryOp::kAdd;
    case TokenKind::kMinus: return BinaryOp::kSub;
    case TokenKind::kStar: return BinaryOp::kMul;
    case TokenKind::kSlash: return BinaryOp::kDiv;
    case TokenKind::kPercent: return BinaryOp::kMod;
    default: return std::nullopt;
  }
}

std::optional<InfixOp> InfixAt(TokenKind kind) {
  std::optional<BinaryOp> op = InfixOperatorAt(kind);
  if (!op) return std::nullopt;
  return InfixOp{*op, InfixSyntaxOf(*op)->level};
}

// The binary operators written as calls.
std::optional<BinaryOp> CallLikeBinaryOp(std::string_view name) {
  for (BinaryOp op : {BinaryOp::kMin, BinaryOp::kMax, BinaryOp::kCeilDiv, BinaryOp::kFloorDiv,
                      BinaryOp::kFloorMod}) {
    if (BinaryOpName(op) == name) return op;
  }
  return std::nullopt;
}

bool IsBuiltinCall(std::string_view name) {
  return CallLikeBinaryOp(name) || name == "select" || name == "cast" || name == "ramp" ||
         name == "broadcast";
}

// Smallest and largest value of an integer (or bool) type.
std::pair<int64_t, int64_t> IntRange(DataType dtype) {
  if (dtype.is_bool()) return {0, 1};
  // u64 stops at the largest int64: an IntImm holds its value as one (tile_ir.proto).
  if (dtype.is_unsigned()) {
    if (dtype.bits() >= 64) return {0, std::numeric_limits<int64_t>::max()};
    return {0, (int64_t{1} << dtype.bits()) - 1};
  }
  if (dtype.bits() >= 64) {
    return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
  int64_t half = int64_t{1} << (dtype.bits() - 1);
  return {-half, half - 1};
}

// The signed value of decimal `digits`; nullopt when it does not fit in 64 bits.
std::optional<int64_t> SignedValue(std::string_view digits, bool negative) {
  uint64_t magnitude = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;
  if (magnitude > kMaxMagnitude - (negative ? 0 : 1)) return std::nullopt;
  if (!negative) return static_cast<int64_t>(magnitude);
  // -2^63 has no positive counterpart to negate.
  return magnitude == kMaxMagnitude ? std::numeric_limits<int64_t>::min()
                                    : -static_cast<int64_t>(magnitude);
}

// Edit distance with adjacent transpositions, for "did you mean".
int EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// "; did you mean 'a' or 'b'?" for the registered intrinsics closest to `name`.
std::string IntrinsicSuggestion(std::string_view name) {
  std::vector<std::pair<int, std::string>> close;
  for (std::string& candidate : IntrinsicNames()) {
    int limit = std::min<int>(3, std::max(name.size(), candidate.size()) / 3);
    int distance = EditDistance(name, candidate);
    if (distance <= std::max(limit, 1)) close.emplace_back(distance, std::move(candidate));
  }
  std::sort(close.begin(), close.end());
  if (close.size() > 3) close.resize(3);
  if (close.empty()) return " (see tile_ir/intrinsics.h for the registered ones)";
  std::string text = "; did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i > 0) text += i + 1 == close.size() ? " or " : ", ";
    absl::StrAppend(&text, "'", close[i].second, "'");
  }
  return text + "?";
}

// An intrinsic whose call writes its result type: reinterpret<f32>(x).
bool DeclaresItsType(std::string_view name) {
  const IntrinsicInfo* info = FindIntrinsic(name);
  return info != nullptr && info->result == IntrinsicInfo::ResultType::kDeclared;
}

bool IsNumber(const Token& token) {
  return token.kind == TokenKind::kInt || token.kind == TokenKind::kFloat;
}

}  // namespace

bool Parser::CheckExprDepth(int depth, const Token& at) {
  if (stmt_depth_ + depth <= kMaxNestingDepth) return true;
  return Fail(at, NestingTooDeepMessage());
}

ParsedExpr Parser::Node(Expr expr, int child_depth, const Token& at) {
  int depth = child_depth + 1;
  if (!CheckExprDepth(depth, at)) return {};
  return {std::move(expr), depth};
}

ParsedExpr Parser::ParseExpr() {
  Token start = current_;
  Nesting nesting(this);
  if (!nesting.ok()) return {};
  ParsedExpr expr = ParseBinary(1);
  // Node checks every node but the leaves, which matter in a statement at the limit.
  if (expr && !CheckExprDepth(expr.depth, start)) return {};
  return expr;
}

ParsedExpr Parser::ParseBinary(int min_level) {
  ParsedExpr lhs = ParseUnary();
  while (lhs) {
    std::optional<InfixOp> infix = InfixAt(current_.kind);
    if (!infix || infix->level < min_level) break;
    Token op = current_;
    if (!CheckOperatorVersion(infix->op, op)) return {};
    Advance();
    ExprLevel level(this);
    if (!level.ok()) return {};
    // Operators of one level loop here instead of recursing, so a long chain
    // costs no stack; only a tighter operator on the right recurses.
    ParsedExpr rhs = ParseBinary(infix->level + 1);
    if (!rhs) return {};
    lhs = Node(Binary::Make(infix->op, std::move(lhs.expr), std::move(rhs.expr)),
               std::max(lhs.depth, rhs.depth), op);
  }
  return lhs;
}

bool Parser::CheckOperatorVersion(BinaryOp op, const Token& at) {
  const int64_t needed = IntroducedInIrVersion(op);
  if (needed <= ir_version_) return true;
  return Fail(at, absl::StrCat("'", ShownText(at.text), "' needs ir_version ", needed,
                               ", but the module declares ir_version ", ir_version_));
}

ParsedExpr Parser::ParseUnary() {
  bool is_minus = At(TokenKind::kMinus);
  // A '-' touching a number is part of the literal.
  if (is_minus && IsNumber(lookahead_) && lookahead_.offset == current_.offset + 1) {
    Token minus = current_;
    Advance();
    return ParseLiteral(&minus);
  }
  if (!is_minus && !At(TokenKind::kBang)) return ParsePrimary();
  Token op = current_;
  Nesting nesting(this);
  if (!nesting.ok()) return {};
  Advance();
  ExprLevel level(this);
  if (!level.ok()) return {};
  ParsedExpr operand = ParseUnary();
  if (!operand) return {};
  return Node(Unary::Make(is_minus ? UnaryOp::kNeg : UnaryOp::kNot, std::move(operand.expr)),
              operand.depth, op);
}

ParsedExpr Parser::ParsePrimary() {
  if (At(TokenKind::kInt) || At(TokenKind::kFloat)) return ParseLiteral(nullptr);
  if (At(TokenKind::kIdentifier)) return ParseNameOrCall();
  if (!Accept(TokenKind::kLParen)) {
    FailExpected("an expression");
    return {};
  }
  ParsedExpr inner = ParseExpr();
  if (!inner || !Expect(TokenKind::kRParen, "')'")) return {};
  return inner;
}

ParsedExpr Parser::ParseNameOrCall() {
  Token name = current_;
  if (name.text == "true" || name.text == "false") {
    Advance();
    return {Bool(name.text == "true"), 1};
  }
  if (IsBuiltinCall(name.text) ||
      (!IsKeywordInVersion(name.text, ir_version_) && lookahead_.kind == TokenKind::kLParen) ||
      (lookahead_.kind == TokenKind::kLess && DeclaresItsType(name.text))) {
    Advance();
    return ParseCall(name);
  }
  if (IsKeywordInVersion(name.text, ir_version_)) {
    Fail(name,
         absl::StrCat("expected an expression, found keyword '", std::string(name.text), "'"));
    return {};
  }
  const Binding* binding = names_.Find(name.text);
  if (binding == nullptr) {
    auto pending = pending_scalars_.find(absl::string_view(name.text.data(), name.text.size()));
    if (pending != pending_scalars_.end()) {
      Advance();
      return {pending->second, 1};
    }
    FailUndefined(name);
    return {};
  }
  Advance();
  if (binding->var) return {binding->var, 1};
  Buffer buffer = binding->buffer;
  if (!Expect(TokenKind::kLBracket,
              absl::StrCat("'[' to load from buffer '", ShownText(name.text), "'"))) {
    return {};
  }
  // The indices are inside the load (a load without any is no deeper than itself).
  ExprLevel level(this);
  if (!At(TokenKind::kRBracket) && !level.ok()) return {};
  std::vector<Expr> indices;
  int depth = 0;
  if (!ParseExprList(TokenKind::kRBracket, &indices, &depth)) return {};
  return Node(BufferLoad::Make(std::move(buffer), std::move(indices)), depth, name);
}

ParsedExpr Parser::ParseCall(const Token& name) {
  std::string_view callee = name.text;
  // The arguments are inside the call (a call without any is no deeper than itself).
  ExprLevel level(this);
  const bool no_arguments = At(TokenKind::kLParen) && lookahead_.kind == TokenKind::kRParen;
  if (!no_arguments && !level.ok()) return {};
  if (callee == "cast") {
    DataType dtype;
    if (!Expect(TokenKind::kLess, "'<'") || !ParseDataType(&dtype) ||
        !Expect(TokenKind::kGreater, "'>'") || !Expect(TokenKind::kLParen, "'('")) {
      return {};
    }
    ParsedExpr value = ParseExpr();
    if (!value || !Expect(TokenKind::kRParen, "')'")) return {};
    return Node(Cast::Make(dtype, std::move(value.expr)), value.depth, name);
  }
  // An intrinsic whose type its arguments do not determine writes it: reinterpret<f32>(x).
  const bool declared = !IsBuiltinCall(callee) && DeclaresItsType(callee);
  DataType declared_dtype;
  if (declared && (!Expect(TokenKind::kLess, "'<' and the result type") ||
                   !ParseDataType(&declared_dtype) || !Expect(TokenKind::kGreater, "'>'"))) {
    return {};
  }
  if (!Expect(TokenKind::kLParen, "'('")) return {};
  if (callee == "ramp" || callee == "broadcast") {
    ParsedExpr value = ParseExpr();
    ParsedExpr stride;
    if (!value || !Expect(TokenKind::kComma, "','")) return {};
    if (callee == "ramp") {
      stride = ParseExpr();
      if (!stride || !Expect(TokenKind::kComma, "','")) return {};
    }
    int64_t lanes = 0;
    if (!ParseInteger(1, 1024, "a lane count", &lanes) || !Expect(TokenKind::kRParen, "')'")) {
      return {};
    }
    if (callee == "broadcast") {
      return Node(Broadcast::Make(std::move(value.expr), static_cast<int>(lanes)), value.depth,
                  name);
    }
    return Node(Ramp::Make(std::move(value.expr), std::move(stride.expr), static_cast<int>(lanes)),
                std::max(value.depth, stride.depth), name);
  }
  std::vector<Expr> args;
  int depth = 0;
  if (!ParseExprList(TokenKind::kRParen, &args, &depth)) return {};
  auto check_arity = [&](size_t expected, std::string_view what) {
    if (args.size() == expected) return true;
    return Fail(name,
                absl::StrCat(std::string(what), " '", std::string(callee), "' takes ", expected,
                             expected == 1 ? " argument" : " arguments", ", found ", args.size()));
  };
  if (std::optional<BinaryOp> op = CallLikeBinaryOp(callee)) {
    if (!check_arity(2, "operator")) return {};
    return Node(Binary::Make(*op, std::move(args[0]), std::move(args[1])), depth, name);
  }
  if (callee == "select") {
    if (!check_arity(3, "operator")) return {};
    return Node(Select::Make(std::move(args[0]), std::move(args[1]), std::move(args[2])), depth,
                name);
  }
  const IntrinsicInfo* info = FindIntrinsic(callee);
  if (info == nullptr) {
    Fail(name, absl::StrCat("unknown intrinsic '", std::string(callee), "'",
                            IntrinsicSuggestion(callee)));
    return {};
  }
  if (!check_arity(static_cast<size_t>(std::max(info->num_args, 0)), "intrinsic")) return {};
  if (int64_t needed = IntroducedInIrVersion(callee); needed > ir_version_) {
    Fail(name, absl::StrCat("'", std::string(callee), "' needs ir_version ", needed,
                            ", but the module declares ir_version ", ir_version_));
    return {};
  }
  DataType dtype = declared ? declared_dtype : IntrinsicResultType(*info, args);
  return Node(Call::Make(dtype, std::string(callee), std::move(args)), depth, name);
}

bool Parser::ParseExprList(TokenKind close, std::vector<Expr>* exprs, int* depth) {
  std::string_view close_text = close == TokenKind::kRParen ? "')'" : "']'";
  if (Accept(close)) return true;
  do {
    ParsedExpr expr = ParseExpr();
    if (!expr) return false;
    *depth = std::max(*depth, expr.depth);
    exprs->push_back(std::move(expr.expr));
  } while (Accept(TokenKind::kComma));
  return Expect(close, absl::StrCat("',' or ", std::string(close_text)));
}

ParsedExpr Parser::ParseLiteral(const Token* minus) {
  bool negative = minus != nullptr;
  // Errors point at the literal's first character, its '-' when it has one.
  const Token& token = negative ? *minus : current_;
  bool is_int = current_.kind == TokenKind::kInt;
  std::string_view text = current_.text;
  size_t underscore = text.find('_');
  std::string_view number = text.substr(0, underscore);
  std::string_view suffix =
      underscore == std::string_view::npos ? std::string_view() : text.substr(underscore + 1);
  std::optional<DataType> dtype = is_int ? kI32 : kF32;
  if (!suffix.empty()) dtype = DataType::Parse(suffix);
  std::string shown = ShownText(absl::StrCat(negative ? "-" : "", std::string(text)));
  if (!dtype || dtype->is_void()) {
    Fail(token, absl::StrCat("unknown dtype '", ShownText(suffix), "' in literal '", shown, "'"));
    return {};
  }
  if (!CheckDeclaredVersionHas(*dtype, token)) return {};
  if (is_int) {
    if (dtype->is_float()) {
      Fail(token, absl::StrCat("an integer literal cannot have the float type ", dtype->ToString(),
                               " (write ", negative ? "-" : "", ShownText(number), ".0_",
                               dtype->ToString(), ")"));
      return {};
    }
    std::optional<int64_t> value = SignedValue(number, negative);
    auto [low, high] = IntRange(dtype->element());
    if (!value || *value < low || *value > high) {
      Fail(token, absl::StrCat("integer literal '", shown, "' does not fit in ", dtype->ToString(),
                               " (range ", low, " to ", high, ")"));
      return {};
    }
    Advance();
    return {IntImm::Make(*dtype, *value), 1};
  }
  if (!dtype->is_float()) {
    Fail(token, absl::StrCat("a float literal cannot have the type ", dtype->ToString()));
    return {};
  }
  double value = 0;
  if (number == "inf" || number == "nan") {
    value = number == "inf" ? std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::quiet_NaN();
  } else {
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size()) {
      Fail(token, absl::StrCat("float literal '", shown, "' is out of the range of a double"));
      return {};
    }
  }
  Advance();
  return {FloatImm::Make(*dtype, negative ? -value : value), 1};
}

bool Parser::ParseInteger(int64_t min, int64_t max, std::string_view what, int64_t* value) {
  Token start = current_;
  bool negative = false;
  if (At(TokenKind::kMinus) && lookahead_.kind == TokenKind::kInt &&
      lookahead_.offset == current_.offset + 1) {
    negative = true;
    Advance();
  }
  if (!At(TokenKind::kInt) || current_.text.find('_') != std::string_view::npos) {
    return FailExpected(absl::StrCat(std::string(what), " (an integer without a dtype suffix)"));
  }
  std::optional<int64_t> parsed = SignedValue(current_.text, negative);
  if (!parsed || *parsed < min || *parsed > max) {
    return Fail(
        start, absl::StrCat("expected ", std::string(what), " from ", min, " to ", max, ", found '",
                            negative ? "-" : "", ShownText(current_.text), "'"));
  }
  *value = *parsed;
  Advance();
  return true;
}

bool Parser::ParseBool(bool* value) {
  if (!AtWord("true") && !AtWord("false")) return FailExpected("'true' or 'false'");
  *value = AtWord("true");
  Advance();
  return true;
}

}  // namespace tile_ir::text
