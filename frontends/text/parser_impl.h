// The recursive-descent parser behind ParseModule. Internal to frontends/text:
// parser.cc holds the token plumbing, module and kernel; parse_stmt.cc the
// statements and regions; parse_tile_ops.cc the tile operations; parse_expr.cc
// the expressions and literals.
//
// Every Parse* function reports the first problem into error_ and then returns
// false or a null result; callers stop at once, so only that first error is
// ever reported.
#ifndef FRONTENDS_TEXT_PARSER_IMPL_H_
#define FRONTENDS_TEXT_PARSER_IMPL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontends/text/lexer.h"
#include "frontends/text/name_scope.h"
#include "tile_ir/module.h"

namespace tile_ir::text {

// An expression with the depth of its tree, which the parser bounds so that
// recursive walks over the result cannot overflow the stack.
struct ParsedExpr {
  Expr expr;  // null after an error
  int depth = 0;
  explicit operator bool() const { return expr != nullptr; }
};

class Parser {
 public:
  // `positions_are_locations`: a statement without loc(...) takes its position in the text as
  // its location (ParseModule), or none (ParsePrintedModule).
  Parser(std::string_view text, std::string_view filename, bool positions_are_locations = true);

  absl::StatusOr<Module> ParseModule();

 private:
  // Counts one statement (a block is a Seq) around what is parsed while it lives;
  // the module's nesting depth (tile_ir/nesting_limit.h) adds expressions to it.
  class StmtLevel {
   public:
    explicit StmtLevel(Parser* parser) : parser_(parser) { ++parser_->stmt_depth_; }
    ~StmtLevel() { --parser_->stmt_depth_; }
    StmtLevel(const StmtLevel&) = delete;
    StmtLevel& operator=(const StmtLevel&) = delete;
    // False (with the error reported) when the statement is nested too deep.
    bool ok();

   private:
    Parser* parser_;
  };

  // Counts one expression node around what is parsed while it lives: the
  // operand of a unary operator, the right side of a binary one, the arguments
  // of a call, the indices of a load. Refusing early, before the tree is built,
  // bounds the recursion of `-(-(-...))` and `f(f(f(...)))` by the module's
  // limit rather than by kMaxSyntaxNesting.
  class ExprLevel {
   public:
    explicit ExprLevel(Parser* parser) : parser_(parser) { ++parser_->expr_depth_; }
    ~ExprLevel() { --parser_->expr_depth_; }
    ExprLevel(const ExprLevel&) = delete;
    ExprLevel& operator=(const ExprLevel&) = delete;
    // False (with the error reported) when what follows is nested too deep.
    bool ok();

   private:
    Parser* parser_;
  };

  // Counts one level of syntactic nesting for as long as it lives.
  class Nesting {
   public:
    explicit Nesting(Parser* parser) : parser_(parser) { ++parser_->nesting_; }
    ~Nesting() { --parser_->nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    // False (with the error reported) when the nesting is too deep.
    bool ok();

   private:
    Parser* parser_;
  };

  // --- Tokens and errors (parser.cc).
  void Advance();
  bool At(TokenKind kind) const { return current_.kind == kind; }
  bool AtWord(std::string_view word) const;
  // Consumes the token if it matches.
  bool Accept(TokenKind kind);
  // Consumes the token, or reports "expected <what>, found <token>".
  bool Expect(TokenKind kind, std::string_view what);
  bool ExpectWord(std::string_view word);
  // Reports `message` at `token` (a lexical error token reports its own message).
  bool Fail(const Token& token, std::string_view message);
  bool FailExpected(std::string_view what);
  // A dtype that is no dtype, with the valid names and TileLang's spelling advice.
  bool FailUnknownDataType(const Token& name);
  // Fails at `where` when `dtype` is newer than the module's declared ir_version.
  bool CheckDeclaredVersionHas(DataType dtype, const Token& where);
  SourceLoc LocOf(const Token& token) const;
  // Strings end up in protobuf string fields, which hold UTF-8 only.
  bool CheckUtf8String(const Token& token);

  // --- Module and kernel (parser.cc).
  Kernel ParseKernel();
  bool ParseDims(std::vector<VarRef>* dims);
  bool ParseParams(std::vector<Param>* params);
  // A shape may use a scalar parameter declared after it: scans the parameter
  // list ahead and makes those variables (in pending_scalars_) first.
  void PrepareScalarParams();
  bool ParseLaunch(Launch* launch);
  bool ParseIntTuple(std::vector<int64_t>* values);
  bool ParseSwizzle(BlockSwizzle* swizzle);

  // --- Names (parser.cc).
  // A new name: an identifier that is not a keyword; on success *token is it.
  bool ParseNewName(Token* token);
  // Makes the name of `token` visible; an error when the kernel declared it before.
  bool Declare(const Token& token, VarRef var, Buffer buffer);
  // Reports a use of a name that is not visible.
  bool FailUndefined(const Token& name);
  // `DTYPE`, for declarations.
  bool ParseDataType(DataType* dtype);

  // --- Statements and regions (parse_stmt.cc).
  // "{ STMT* }" in a new scope.
  // With `requirements`, the block is a kernel's body: `require EXPR;` lines before its first
  // statement are its shape requirements.
  Stmt ParseBlock(std::vector<ShapeRequirement>* requirements = nullptr);
  // At `require` starting a shape requirement, not a store to a buffer named `require`.
  bool AtRequirement() const;
  bool ParseRequirement(std::vector<ShapeRequirement>* requirements);
  Stmt ParseStatement();
  Stmt ParseAllocate();
  Stmt ParseLet();
  Stmt ParseFor();
  Stmt ParseIf();
  Stmt ParseStore();
  Stmt ParseBarrier();
  Stmt ParseEvaluate();
  bool ParseForKind(ForKind* kind, PipelineInfo* pipeline, ThreadAxis* axis);
  bool ParseIntList(std::vector<int>* values);
  bool ParseBufferType(DataType* dtype, std::vector<Expr>* shape, std::vector<Expr>* strides);
  bool ParseLayout(Layout* layout);
  bool ParseRegion(Region* region);
  // An optional ` loc("FILE":LINE:COL)`; EndStatement adds the ';'.
  bool ParseLocSuffix(SourceLoc* loc);
  bool EndStatement(SourceLoc* loc);
  // A visible buffer by name.
  bool ParseBufferName(Buffer* buffer);

  // --- Tile operations (parse_tile_ops.cc).
  // copy, atomic_add and fill.
  Stmt ParseMoveOp();
  Stmt ParseGemm();
  // reduce and cumsum.
  Stmt ParseScanOp();
  // "{NAME=VALUE, ...}": the options of a tile operation, in their fixed order;
  // `first` says whether a ',' comes before this one.
  bool ParseOptionName(std::string_view name, bool first);
  bool ParseBoolOption(std::string_view name, bool first, bool* value);
  // "{dim=N" of reduce and cumsum.
  bool ParseDimOption(int* dim);

  // --- Expressions and literals (parse_expr.cc).
  ParsedExpr ParseExpr();
  ParsedExpr ParseBinary(int min_level);
  // An operator newer than the module's declared ir_version is an error at its token.
  bool CheckOperatorVersion(BinaryOp op, const Token& at);
  ParsedExpr ParseUnary();
  ParsedExpr ParsePrimary();
  ParsedExpr ParseNameOrCall();
  ParsedExpr ParseCall(const Token& name);
  // The literal at the current token; `minus` is the '-' right before it, if any.
  ParsedExpr ParseLiteral(const Token* minus);
  // Comma-separated until `close`; the depth is the deepest element's.
  bool ParseExprList(TokenKind close, std::vector<Expr>* exprs, int* depth);
  // A node built from children of depth `child_depth`; an error when, inside the
  // statements around it, it is nested deeper than kMaxNestingDepth.
  ParsedExpr Node(Expr expr, int child_depth, const Token& at);
  // Reports the nesting error at `at` unless an expression of depth `depth` in
  // the current statement is within kMaxNestingDepth.
  bool CheckExprDepth(int depth, const Token& at);
  // An integer without a dtype suffix, optionally negative, within [min, max].
  bool ParseInteger(int64_t min, int64_t max, std::string_view what, int64_t* value);
  bool ParseBool(bool* value);

  std::string filename_;
  bool positions_are_locations_ = true;
  // The module's declared ir_version, once its header is parsed.
  int64_t ir_version_ = kIrVersion;
  Lexer lexer_;
  Token current_;
  Token lookahead_;
  absl::Status error_;
  int nesting_ = 0;
  // The nesting depth of the statement being parsed (the kernel body is 1).
  int stmt_depth_ = 0;
  // The expression nodes around the expression being parsed (see ExprLevel).
  int expr_depth_ = 0;
  NameScope names_;
  // The scalar parameters of the list being parsed, by name (see PrepareScalarParams).
  absl::flat_hash_map<std::string, VarRef> pending_scalars_;
  // Kernel names seen so far, with the line and column of each.
  absl::flat_hash_map<std::string, std::pair<int, int>> kernel_names_;
};

}  // namespace tile_ir::text

#endif  // FRONTENDS_TEXT_PARSER_IMPL_H_
