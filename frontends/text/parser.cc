// ParseModule: token plumbing, error reporting, and the module and kernel
// levels of the grammar (docs/TEXT_FORMAT.md).
#include "frontends/text/parser.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/text/parser_impl.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir::text {

absl::StatusOr<Module> ParseModule(std::string_view text, std::string_view filename) {
  return Parser(text, filename).ParseModule();
}

absl::StatusOr<Module> ParsePrintedModule(std::string_view text, std::string_view filename) {
  return Parser(text, filename, /*positions_are_locations=*/false).ParseModule();
}

Parser::Parser(std::string_view text, std::string_view filename, bool positions_are_locations)
    : filename_(filename.empty() ? "<input>" : filename),
      positions_are_locations_(positions_are_locations),
      lexer_(text) {
  current_ = lexer_.Next();
  lookahead_ = lexer_.Next();
}

bool Parser::Nesting::ok() {
  if (parser_->nesting_ <= kMaxSyntaxNesting) return true;
  return parser_->Fail(parser_->current_,
                       absl::StrCat("parentheses, unary operators and blocks nest more than ",
                                    kMaxSyntaxNesting, " deep"));
}

bool Parser::ExprLevel::ok() {
  // The expression that follows has its root one deeper than the nodes around it.
  if (parser_->stmt_depth_ + parser_->expr_depth_ + 1 <= kMaxNestingDepth) return true;
  return parser_->Fail(parser_->current_, NestingTooDeepMessage());
}

bool Parser::StmtLevel::ok() {
  if (parser_->stmt_depth_ <= kMaxNestingDepth) return true;
  return parser_->Fail(parser_->current_, NestingTooDeepMessage());
}

void Parser::Advance() {
  current_ = std::move(lookahead_);
  lookahead_ = lexer_.Next();
}

bool Parser::AtWord(std::string_view word) const {
  return current_.kind == TokenKind::kIdentifier && current_.text == word;
}

bool Parser::Accept(TokenKind kind) {
  if (!At(kind)) return false;
  Advance();
  return true;
}

bool Parser::Expect(TokenKind kind, std::string_view what) {
  if (Accept(kind)) return true;
  return FailExpected(what);
}

bool Parser::ExpectWord(std::string_view word) {
  if (AtWord(word)) {
    Advance();
    return true;
  }
  return FailExpected(absl::StrCat("'", std::string(word), "'"));
}

bool Parser::Fail(const Token& token, std::string_view message) {
  if (!error_.ok()) return false;
  std::string_view text = token.kind == TokenKind::kError ? token.value : message;
  error_ = absl::InvalidArgumentError(
      absl::StrCat(filename_, ":", token.line, ":", token.col, ": error: ", std::string(text)));
  return false;
}

bool Parser::FailExpected(std::string_view what) {
  return Fail(current_,
              absl::StrCat("expected ", std::string(what), ", found ", DescribeToken(current_)));
}

SourceLoc Parser::LocOf(const Token& token) const {
  if (!positions_are_locations_) return SourceLoc{};
  return SourceLoc{filename_, token.line, token.col};
}

absl::StatusOr<Module> Parser::ParseModule() {
  Module module;
  Token version_token;
  int64_t version = 0;
  if (!ExpectWord("ir_version")) return error_;
  version_token = current_;
  if (!ParseInteger(0, std::numeric_limits<int64_t>::max(), "an ir_version number", &version)) {
    return error_;
  }
  if (version < 1 || version > kIrVersion) {
    Fail(version_token, absl::StrCat("ir_version ", version, " is not supported: this build reads ",
                                     "versions 1 to ", kIrVersion));
    return error_;
  }
  module.ir_version = version;
  ir_version_ = version;
  if (!Expect(TokenKind::kSemicolon, "';'") || !ExpectWord("producer")) return error_;
  for (std::string* field : {&module.producer, &module.producer_version}) {
    if (!At(TokenKind::kString)) {
      FailExpected(field == &module.producer ? "the producer's name as a string"
                                             : "the producer's version as a string");
      return error_;
    }
    if (!CheckUtf8String(current_)) return error_;
    *field = current_.value;
    Advance();
  }
  if (!Expect(TokenKind::kSemicolon, "';'")) return error_;
  while (!At(TokenKind::kEnd)) {
    if (!AtWord("kernel")) {
      FailExpected("'kernel' or end of input");
      return error_;
    }
    Kernel kernel = ParseKernel();
    if (!kernel) return error_;
    module.kernels.push_back(std::move(kernel));
  }
  return module;
}

Kernel Parser::ParseKernel() {
  Token kernel_token = current_;
  if (!ExpectWord("kernel")) return nullptr;
  // Keywords are fine here: nothing else can follow `kernel`.
  if (!At(TokenKind::kIdentifier)) {
    FailExpected("a kernel name");
    return nullptr;
  }
  Token name = current_;
  Advance();
  auto [earlier, is_new] =
      kernel_names_.try_emplace(std::string(name.text), std::make_pair(name.line, name.col));
  if (!is_new) {
    Fail(name, absl::StrCat("kernel '", ShownText(name.text), "' is defined twice (first at ",
                            earlier->second.first, ":", earlier->second.second, ")"));
    return nullptr;
  }
  names_ = NameScope();
  names_.Enter();
  std::vector<VarRef> dims;
  std::vector<Param> params;
  Launch launch;
  SourceLoc loc = LocOf(kernel_token);
  if (At(TokenKind::kLess) && !ParseDims(&dims)) return nullptr;
  if (!ParseParams(&params) || !ParseLaunch(&launch) || !ParseLocSuffix(&loc)) return nullptr;
  std::vector<ShapeRequirement> requirements;
  Stmt body = ParseBlock(&requirements);
  if (!body) return nullptr;
  names_.Exit();
  return KernelNode::Make(std::string(name.text), std::move(dims), std::move(params),
                          std::move(launch), std::move(body), std::move(loc),
                          std::move(requirements));
}

bool Parser::ParseDims(std::vector<VarRef>* dims) {
  if (!Expect(TokenKind::kLess, "'<'")) return false;
  do {
    Token name;
    DataType dtype;
    if (!ParseNewName(&name) || !Expect(TokenKind::kColon, "':'") || !ParseDataType(&dtype)) {
      return false;
    }
    VarRef dim = Var::Make(std::string(name.text), dtype);
    if (!Declare(name, dim, nullptr)) return false;
    dims->push_back(std::move(dim));
  } while (Accept(TokenKind::kComma));
  return Expect(TokenKind::kGreater, "',' or '>'");
}

void Parser::PrepareScalarParams() {
  // The tokens of the parameter list, up to its ')'.
  std::vector<Token> tokens = {current_, lookahead_};
  Lexer scan = lexer_;
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    TokenKind kind = tokens[i].kind;
    if (kind == TokenKind::kEnd || kind == TokenKind::kError) break;
    if (kind == TokenKind::kLParen || kind == TokenKind::kLBracket) ++depth;
    if ((kind == TokenKind::kRParen || kind == TokenKind::kRBracket) && --depth < 0) break;
    if (i + 1 == tokens.size()) tokens.push_back(scan.Next());
  }
  // At depth 0, `NAME: DTYPE` followed by ',' or ')' is a scalar parameter.
  depth = 0;
  for (size_t i = 0; i + 3 < tokens.size(); ++i) {
    TokenKind kind = tokens[i].kind;
    if (kind == TokenKind::kLParen || kind == TokenKind::kLBracket) ++depth;
    if (kind == TokenKind::kRParen || kind == TokenKind::kRBracket) --depth;
    if (depth != 0 || kind != TokenKind::kIdentifier || tokens[i + 1].kind != TokenKind::kColon ||
        tokens[i + 2].kind != TokenKind::kIdentifier ||
        (tokens[i + 3].kind != TokenKind::kComma && tokens[i + 3].kind != TokenKind::kRParen)) {
      continue;
    }
    std::optional<DataType> dtype = DataType::Parse(tokens[i + 2].text);
    std::string name(tokens[i].text);
    if (dtype && !pending_scalars_.contains(name)) {
      pending_scalars_.emplace(name, Var::Make(name, *dtype));
    }
  }
}

bool Parser::ParseParams(std::vector<Param>* params) {
  if (!Expect(TokenKind::kLParen, "'('")) return false;
  if (Accept(TokenKind::kRParen)) return true;
  PrepareScalarParams();
  do {
    Token name;
    DataType dtype;
    if (!ParseNewName(&name) || !Expect(TokenKind::kColon, "':'")) return false;
    Param param;
    if (At(TokenKind::kIdentifier) && lookahead_.kind == TokenKind::kLBracket) {
      std::vector<Expr> shape;
      std::vector<Expr> strides;
      if (!ParseBufferType(&dtype, &shape, &strides)) return false;
      param.buffer = BufferNode::Make(std::string(name.text), dtype, std::move(shape),
                                      MemoryScope::kGlobal, std::move(strides));
    } else {
      if (!ParseDataType(&dtype)) return false;
      auto pending = pending_scalars_.find(std::string(name.text));
      param.scalar = pending != pending_scalars_.end() && pending->second->dtype() == dtype
                         ? pending->second
                         : Var::Make(std::string(name.text), dtype);
    }
    if (!Declare(name, param.scalar, param.buffer)) return false;
    params->push_back(std::move(param));
  } while (Accept(TokenKind::kComma));
  pending_scalars_.clear();
  return Expect(TokenKind::kRParen, "',' or ')'");
}

bool Parser::ParseLaunch(Launch* launch) {
  if (!ExpectWord("grid") || !Expect(TokenKind::kLParen, "'('")) return false;
  if (!Accept(TokenKind::kRParen)) {
    do {
      Token name;
      if (!ParseNewName(&name) || !Expect(TokenKind::kColon, "':'")) return false;
      ParsedExpr extent = ParseExpr();
      if (!extent) return false;
      VarRef var = Var::Make(std::string(name.text), kI32);
      if (!Declare(name, var, nullptr)) return false;
      launch->grid.push_back(GridAxis{std::move(var), std::move(extent.expr)});
    } while (Accept(TokenKind::kComma));
    if (!Expect(TokenKind::kRParen, "',' or ')'")) return false;
  }
  if (!ExpectWord("threads") || !ParseIntTuple(&launch->threads)) return false;
  if (AtWord("cluster")) {
    Advance();
    if (!ParseIntTuple(&launch->cluster)) return false;
  }
  if (AtWord("swizzle")) {
    Advance();
    BlockSwizzle swizzle;
    if (!ParseSwizzle(&swizzle)) return false;
    launch->swizzle = swizzle;
  }
  return true;
}

bool Parser::ParseIntTuple(std::vector<int64_t>* values) {
  if (!Expect(TokenKind::kLParen, "'('")) return false;
  if (Accept(TokenKind::kRParen)) return true;
  do {
    int64_t value = 0;
    if (!ParseInteger(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                      "an integer", &value)) {
      return false;
    }
    values->push_back(value);
  } while (Accept(TokenKind::kComma));
  return Expect(TokenKind::kRParen, "',' or ')'");
}

bool Parser::ParseSwizzle(BlockSwizzle* swizzle) {
  int64_t panel = 0;
  if (!Expect(TokenKind::kLParen, "'('") || !ExpectWord("panel") ||
      !Expect(TokenKind::kAssign, "'='") ||
      !ParseInteger(std::numeric_limits<int>::min(), std::numeric_limits<int>::max(),
                    "a panel size", &panel) ||
      !Expect(TokenKind::kComma, "','") || !ExpectWord("order") ||
      !Expect(TokenKind::kAssign, "'='")) {
    return false;
  }
  swizzle->panel_size = static_cast<int>(panel);
  if (AtWord("row")) {
    swizzle->order = SwizzleOrder::kRowMajor;
  } else if (AtWord("column")) {
    swizzle->order = SwizzleOrder::kColumnMajor;
  } else {
    return FailExpected("'row' or 'column'");
  }
  Advance();
  return Expect(TokenKind::kRParen, "')'");
}

bool Parser::ParseNewName(Token* token) {
  if (!At(TokenKind::kIdentifier)) return FailExpected("a name");
  if (IsKeywordInVersion(current_.text, ir_version_)) {
    return Fail(current_,
                absl::StrCat("expected a name, found keyword '", std::string(current_.text), "'"));
  }
  *token = current_;
  Advance();
  return true;
}

bool Parser::Declare(const Token& token, VarRef var, Buffer buffer) {
  Binding binding{std::move(var), std::move(buffer), token.line, token.col};
  if (names_.Declare(token.text, std::move(binding))) return true;
  const Binding* earlier = names_.FindDeclared(token.text);
  return Fail(token, absl::StrCat("redeclaration of '", ShownText(token.text),
                                  "' (first declared at ", earlier->line, ":", earlier->col,
                                  "; names are declared once per kernel)"));
}

bool Parser::FailUndefined(const Token& name) {
  if (const Binding* earlier = names_.FindDeclared(name.text)) {
    return Fail(name, absl::StrCat("use of '", ShownText(name.text),
                                   "' outside the block that declares it (at ", earlier->line, ":",
                                   earlier->col, ")"));
  }
  return Fail(name, absl::StrCat("use of undefined name '", ShownText(name.text), "'"));
}

bool Parser::ParseDataType(DataType* dtype) {
  std::optional<DataType> parsed;
  if (At(TokenKind::kIdentifier)) parsed = DataType::Parse(current_.text);
  if (!parsed && At(TokenKind::kIdentifier)) return FailUnknownDataType(current_);
  if (!parsed) return FailExpected("a dtype");
  if (!CheckDeclaredVersionHas(*parsed, current_)) return false;
  *dtype = *parsed;
  Advance();
  return true;
}

// TileLang's dtype names, for the hint on one written in a .tile file.
constexpr std::pair<const char*, const char*> kTileLangDataTypes[] = {
    {"float32", "f32"}, {"float16", "f16"}, {"bfloat16", "bf16"},      {"float64", "f64"},
    {"int8", "i8"},     {"int16", "i16"},   {"int32", "i32"},          {"int64", "i64"},
    {"uint8", "u8"},    {"int4", "i4"},     {"float8_e4m3", "f8e4m3"}, {"float8_e5m2", "f8e5m2"},
    {"uint16", "u16"},  {"uint32", "u32"},  {"uint64", "u64"},
};

bool Parser::CheckDeclaredVersionHas(DataType dtype, const Token& where) {
  const int64_t needed = IntroducedInIrVersion(dtype.scalar());
  if (needed <= ir_version_) return true;
  return Fail(where, absl::StrCat("the type ", dtype.element().ToString(), " needs ir_version ",
                                  needed, ", but the module declares ir_version ", ir_version_));
}

bool Parser::FailUnknownDataType(const Token& name) {
  const std::string names = absl::StrCat(absl::StrJoin(ValueScalarTypeNames(), ", "),
                                         ", each with xN for N lanes (f32x4)");
  for (const auto& [tilelang, ours] : kTileLangDataTypes) {
    if (name.text != tilelang) continue;
    return Fail(name, absl::StrCat("unknown dtype '", ShownText(name.text), "'; did you mean ",
                                   ours, " (TileLang's ", tilelang, ")? The dtypes are ", names));
  }
  return Fail(name,
              absl::StrCat("unknown dtype '", ShownText(name.text), "'; the dtypes are ", names));
}

bool Parser::CheckUtf8String(const Token& token) {
  for (size_t pos = 0; pos < token.value.size();) {
    size_t length = Utf8SequenceLength(token.value, pos);
    if (length == 0) {
      return Fail(token,
                  "a string here must be valid UTF-8 (the protobuf form stores it as a "
                  "string field); \\xHH escapes may only spell UTF-8 sequences");
    }
    pos += length;
  }
  return true;
}

}  // namespace tile_ir::text
