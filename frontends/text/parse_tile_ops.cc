// The tile operations of the text form: copy, atomic_add, fill, gemm, reduce
// and cumsum, whose options are always spelled out in a fixed order.
#include <limits>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser_impl.h"
#include "tile_ir/version.h"

namespace tile_ir::text {

bool Parser::ParseOptionName(std::string_view name, bool first) {
  if (!first && !Expect(TokenKind::kComma, "','")) return false;
  return ExpectWord(name) && Expect(TokenKind::kAssign, "'='");
}

bool Parser::ParseBoolOption(std::string_view name, bool first, bool* value) {
  return ParseOptionName(name, first) && ParseBool(value);
}

bool Parser::ParseDimOption(int* dim) {
  int64_t value = 0;
  if (!Expect(TokenKind::kLBrace, "'{'") || !ParseOptionName("dim", true) ||
      !ParseInteger(std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), "a dimension",
                    &value)) {
    return false;
  }
  *dim = static_cast<int>(value);
  return true;
}

Stmt Parser::ParseMoveOp() {
  SourceLoc loc = LocOf(current_);
  std::string_view op = current_.text;
  Advance();
  Region dst;
  if (op == "fill") {
    if (!ParseRegion(&dst) || !Expect(TokenKind::kAssign, "'='")) return nullptr;
    ParsedExpr value = ParseExpr();
    if (!value || !EndStatement(&loc)) return nullptr;
    return Fill::Make(std::move(dst), std::move(value.expr), std::move(loc));
  }
  Region src;
  if (!ParseRegion(&src) || !Expect(TokenKind::kArrow, "'->'") || !ParseRegion(&dst) ||
      !EndStatement(&loc)) {
    return nullptr;
  }
  if (op == "copy") return Copy::Make(std::move(src), std::move(dst), std::move(loc));
  return AtomicAdd::Make(std::move(src), std::move(dst), std::move(loc));
}

Stmt Parser::ParseGemm() {
  SourceLoc loc = LocOf(current_);
  Advance();
  Region a;
  Region b;
  Region c;
  bool transpose_a = false;
  bool transpose_b = false;
  bool clear_accum = false;
  if (!ParseRegion(&a) || !Expect(TokenKind::kComma, "','") || !ParseRegion(&b) ||
      !Expect(TokenKind::kArrow, "'->'") || !ParseRegion(&c) ||
      !Expect(TokenKind::kLBrace, "'{'") || !ParseBoolOption("transpose_a", true, &transpose_a) ||
      !ParseBoolOption("transpose_b", false, &transpose_b) || !ParseOptionName("policy", false)) {
    return nullptr;
  }
  WarpPolicy policy = WarpPolicy::kSquare;
  bool known_policy = false;
  for (WarpPolicy candidate : {WarpPolicy::kSquare, WarpPolicy::kFullRow, WarpPolicy::kFullCol}) {
    if (AtWord(WarpPolicyName(candidate))) {
      policy = candidate;
      known_policy = true;
    }
  }
  if (!known_policy) {
    FailExpected("a warp policy ('square', 'full_row' or 'full_col')");
    return nullptr;
  }
  Advance();
  if (!ParseBoolOption("clear_accum", false, &clear_accum) || !Expect(TokenKind::kRBrace, "'}'") ||
      !EndStatement(&loc)) {
    return nullptr;
  }
  return Gemm::Make(std::move(a), std::move(b), std::move(c), transpose_a, transpose_b, policy,
                    clear_accum, std::move(loc));
}

Stmt Parser::ParseScanOp() {
  SourceLoc loc = LocOf(current_);
  bool is_reduce = current_.text == "reduce";
  Advance();
  ReduceKind kind = ReduceKind::kSum;
  if (is_reduce) {
    bool known_kind = false;
    for (ReduceKind candidate : {ReduceKind::kSum, ReduceKind::kMax, ReduceKind::kMin,
                                 ReduceKind::kAbsMax, ReduceKind::kAbsSum, ReduceKind::kProd,
                                 ReduceKind::kBitAnd, ReduceKind::kBitOr, ReduceKind::kBitXor}) {
      if (AtWord(ReduceKindName(candidate))) {
        kind = candidate;
        known_kind = true;
      }
    }
    if (!known_kind) {
      FailExpected(
          "a reduction ('sum', 'max', 'min', 'absmax', 'abssum', 'prod', 'bitand', 'bitor' or "
          "'bitxor')");
      return nullptr;
    }
    if (int64_t needed = IntroducedInIrVersion(kind); needed > ir_version_) {
      Fail(current_,
           absl::StrCat("the reduction '", std::string(ReduceKindName(kind)), "' needs ir_version ",
                        needed, ", but the module declares ir_version ", ir_version_));
      return nullptr;
    }
    Advance();
  }
  Region src;
  Region dst;
  int dim = 0;
  bool flag = false;
  if (!ParseRegion(&src) || !Expect(TokenKind::kArrow, "'->'") || !ParseRegion(&dst) ||
      !ParseDimOption(&dim) || !ParseBoolOption(is_reduce ? "clear" : "reverse", false, &flag) ||
      !Expect(TokenKind::kRBrace, "'}'") || !EndStatement(&loc)) {
    return nullptr;
  }
  if (is_reduce) {
    return Reduce::Make(kind, std::move(src), std::move(dst), dim, flag, std::move(loc));
  }
  return Cumsum::Make(std::move(src), std::move(dst), dim, flag, std::move(loc));
}

}  // namespace tile_ir::text
