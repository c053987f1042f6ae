// Statements, blocks and regions of the text form (docs/TEXT_FORMAT.md,
// "Statements").
#include <limits>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "frontends/text/parser_impl.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir::text {
namespace {

constexpr int64_t kIntMin = std::numeric_limits<int>::min();
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

}  // namespace

Stmt Parser::ParseBlock(std::vector<ShapeRequirement>* requirements) {
  Token open = current_;
  StmtLevel level(this);
  Nesting nesting(this);
  if (!level.ok() || !nesting.ok() || !Expect(TokenKind::kLBrace, "'{'")) return nullptr;
  names_.Enter();
  std::vector<Stmt> stmts;
  while (!Accept(TokenKind::kRBrace)) {
    if (At(TokenKind::kEnd)) {
      FailExpected("a statement or '}'");
      return nullptr;
    }
    if (requirements != nullptr && stmts.empty() && AtRequirement()) {
      if (!ParseRequirement(requirements)) return nullptr;
      continue;
    }
    Stmt stmt = ParseStatement();
    if (!stmt) return nullptr;
    stmts.push_back(std::move(stmt));
  }
  names_.Exit();
  return Seq::Make(std::move(stmts), LocOf(open));
}

bool Parser::AtRequirement() const {
  return AtWord("require") && lookahead_.kind != TokenKind::kLBracket &&
         lookahead_.kind != TokenKind::kAssign;
}

bool Parser::ParseRequirement(std::vector<ShapeRequirement>* requirements) {
  Token at = current_;
  if (ir_version_ < kShapeRequirementsIrVersion) {
    return Fail(at, absl::StrCat("shape requirements ('require') need ir_version ",
                                 kShapeRequirementsIrVersion,
                                 ", but the module declares ir_version ", ir_version_));
  }
  Advance();
  ShapeRequirement requirement;
  requirement.loc = LocOf(at);
  ParsedExpr condition = ParseExpr();
  if (!condition || !EndStatement(&requirement.loc)) return false;
  requirement.condition = condition.expr;
  requirements->push_back(std::move(requirement));
  return true;
}

Stmt Parser::ParseStatement() {
  if (At(TokenKind::kLBrace)) return ParseBlock();
  if (AtRequirement()) {
    Fail(current_,
         "a shape requirement ('require ...;') states what a kernel's launch must satisfy: it "
         "belongs at the top of the kernel's body, before any statement");
    return nullptr;
  }
  StmtLevel level(this);
  if (!level.ok()) return nullptr;
  if (!At(TokenKind::kIdentifier)) {
    FailExpected("a statement");
    return nullptr;
  }
  std::string_view word = current_.text;
  if (word == "alloc") return ParseAllocate();
  if (word == "let") return ParseLet();
  if (word == "for") return ParseFor();
  if (word == "if") return ParseIf();
  if (word == "barrier") return ParseBarrier();
  if (word == "eval") return ParseEvaluate();
  if (word == "copy" || word == "atomic_add" || word == "fill") return ParseMoveOp();
  if (word == "gemm") return ParseGemm();
  if (word == "reduce" || word == "cumsum") return ParseScanOp();
  if (IsKeywordInVersion(word, ir_version_)) {
    Fail(current_, absl::StrCat("expected a statement, found keyword '", std::string(word), "'"));
    return nullptr;
  }
  return ParseStore();
}

bool Parser::ParseLocSuffix(SourceLoc* loc) {
  if (!AtWord("loc")) return true;
  Advance();
  if (!Expect(TokenKind::kLParen, "'('")) return false;
  if (!At(TokenKind::kString)) return FailExpected("a file name as a string");
  if (!CheckUtf8String(current_)) return false;
  std::string file = current_.value;
  Advance();
  int64_t line = 0;
  int64_t col = 0;
  if (!Expect(TokenKind::kColon, "':'") || !ParseInteger(1, kIntMax, "a line number", &line) ||
      !Expect(TokenKind::kColon, "':'") || !ParseInteger(0, kIntMax, "a column number", &col) ||
      !Expect(TokenKind::kRParen, "')'")) {
    return false;
  }
  *loc = SourceLoc{std::move(file), static_cast<int>(line), static_cast<int>(col)};
  return true;
}

bool Parser::EndStatement(SourceLoc* loc) {
  return ParseLocSuffix(loc) && Expect(TokenKind::kSemicolon, "';'");
}

Stmt Parser::ParseAllocate() {
  SourceLoc loc = LocOf(current_);
  Advance();
  Token name;
  if (!ParseNewName(&name) || !Expect(TokenKind::kColon, "':'")) return nullptr;
  std::optional<MemoryScope> scope;
  if (At(TokenKind::kIdentifier)) scope = ParseMemoryScope(current_.text);
  if (!scope) {
    FailExpected("a memory scope ('shared', 'fragment', 'local' or 'global')");
    return nullptr;
  }
  Advance();
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides;
  std::optional<Layout> layout;
  if (!ParseBufferType(&dtype, &shape, &strides)) return nullptr;
  if (AtWord("layout")) {
    layout.emplace();
    if (!ParseLayout(&*layout)) return nullptr;
  }
  std::optional<int64_t> shared_offset;
  if (AtWord("offset")) {
    Advance();
    int64_t value = 0;
    if (!Expect(TokenKind::kLParen, "'('") ||
        !ParseInteger(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                      "a byte offset", &value) ||
        !Expect(TokenKind::kRParen, "')'")) {
      return nullptr;
    }
    shared_offset = value;
  }
  if (!EndStatement(&loc)) return nullptr;
  Buffer buffer = BufferNode::Make(std::string(name.text), dtype, std::move(shape), *scope,
                                   std::move(strides), std::move(layout));
  if (!Declare(name, nullptr, buffer)) return nullptr;
  return Allocate::Make(std::move(buffer), std::move(loc), shared_offset);
}

bool Parser::ParseBufferType(DataType* dtype, std::vector<Expr>* shape,
                             std::vector<Expr>* strides) {
  int depth = 0;
  if (!ParseDataType(dtype) || !Expect(TokenKind::kLBracket, "'['") ||
      !ParseExprList(TokenKind::kRBracket, shape, &depth)) {
    return false;
  }
  if (!AtWord("strides")) return true;
  Advance();
  return Expect(TokenKind::kLBracket, "'['") &&
         ParseExprList(TokenKind::kRBracket, strides, &depth);
}

bool Parser::ParseLayout(Layout* layout) {
  Advance();
  if (!Expect(TokenKind::kLParen, "'('") || !Expect(TokenKind::kLParen, "'('")) return false;
  // The inputs are a namespace of their own, and the outputs see nothing else.
  NameScope inputs;
  if (!Accept(TokenKind::kRParen)) {
    do {
      Token name;
      if (!ParseNewName(&name)) return false;
      VarRef input = Var::Make(std::string(name.text), kI32);
      if (!inputs.Declare(name.text, Binding{input, nullptr, name.line, name.col})) {
        return Fail(
            name, absl::StrCat("the layout declares the input '", ShownText(name.text), "' twice"));
      }
      layout->inputs.push_back(std::move(input));
    } while (Accept(TokenKind::kComma));
    if (!Expect(TokenKind::kRParen, "',' or ')'")) return false;
  }
  // `replicate(r: 4)`: each element on 4 threads, r (visible in the outputs) telling them apart.
  if (AtWord("replicate")) {
    Token word = current_;
    if (ir_version_ < kReplicatedLayoutIrVersion) {
      return Fail(word, absl::StrCat("a replicated layout needs ir_version ",
                                     kReplicatedLayoutIrVersion,
                                     ", but the module declares ir_version ", ir_version_));
    }
    Advance();
    Token name;
    if (!Expect(TokenKind::kLParen, "'('") || !ParseNewName(&name)) return false;
    VarRef replica = Var::Make(std::string(name.text), kI32);
    if (!inputs.Declare(name.text, Binding{replica, nullptr, name.line, name.col})) {
      return Fail(name, absl::StrCat("the layout declares '", ShownText(name.text),
                                     "' as both an input and its replica"));
    }
    int64_t count = 0;
    if (!Expect(TokenKind::kColon, "':'") ||
        !ParseInteger(1, kIntMax, "the replica count (at least 1)", &count) ||
        !Expect(TokenKind::kRParen, "')'")) {
      return false;
    }
    layout->replica = std::move(replica);
    layout->replicate = count;
  }
  if (!Expect(TokenKind::kArrow, "'->'") || !Expect(TokenKind::kLParen, "'('")) return false;
  std::swap(names_, inputs);
  int depth = 0;
  bool parsed = ParseExprList(TokenKind::kRParen, &layout->outputs, &depth);
  std::swap(names_, inputs);
  return parsed && Expect(TokenKind::kRParen, "')'");
}

Stmt Parser::ParseLet() {
  SourceLoc loc = LocOf(current_);
  Advance();
  Token name;
  DataType dtype;
  if (!ParseNewName(&name) || !Expect(TokenKind::kColon, "':'") || !ParseDataType(&dtype) ||
      !Expect(TokenKind::kAssign, "'='")) {
    return nullptr;
  }
  ParsedExpr value = ParseExpr();
  if (!value || !EndStatement(&loc)) return nullptr;
  VarRef var = Var::Make(std::string(name.text), dtype);
  if (!Declare(name, var, nullptr)) return nullptr;
  return Let::Make(std::move(var), std::move(value.expr), std::move(loc));
}

Stmt Parser::ParseFor() {
  SourceLoc loc = LocOf(current_);
  Advance();
  Token name;
  DataType dtype = kI32;
  if (!ParseNewName(&name)) return nullptr;
  if (Accept(TokenKind::kColon) && !ParseDataType(&dtype)) return nullptr;
  if (!ExpectWord("in")) return nullptr;
  ParsedExpr min = ParseExpr();
  if (!min || !Expect(TokenKind::kPlusColon, "'+:'")) return nullptr;
  ParsedExpr extent = ParseExpr();
  ForKind kind = ForKind::kSerial;
  PipelineInfo pipeline;
  ThreadAxis axis = ThreadAxis::kNone;
  if (!extent || !ParseForKind(&kind, &pipeline, &axis) || !ParseLocSuffix(&loc)) return nullptr;
  VarRef var = Var::Make(std::string(name.text), dtype);
  names_.Enter();
  if (!Declare(name, var, nullptr)) return nullptr;
  Stmt body = ParseBlock();
  if (!body) return nullptr;
  names_.Exit();
  return For::Make(std::move(var), std::move(min.expr), std::move(extent.expr), kind,
                   std::move(body), std::move(loc), std::move(pipeline), axis);
}

bool Parser::ParseForKind(ForKind* kind, PipelineInfo* pipeline, ThreadAxis* axis) {
  constexpr std::string_view kKinds =
      "a loop kind (serial, parallel, pipelined, unrolled, vectorized or thread_bound)";
  if (!At(TokenKind::kIdentifier)) return FailExpected(kKinds);
  std::string_view word = current_.text;
  for (ForKind simple :
       {ForKind::kSerial, ForKind::kParallel, ForKind::kUnrolled, ForKind::kVectorized}) {
    if (word == ForKindName(simple)) {
      *kind = simple;
      Advance();
      return true;
    }
  }
  if (word == "thread_bound") {
    *kind = ForKind::kThreadBound;
    Advance();
    if (!Expect(TokenKind::kLParen, "'('")) return false;
    for (ThreadAxis candidate : {ThreadAxis::kX, ThreadAxis::kY, ThreadAxis::kZ}) {
      if (AtWord(ThreadAxisName(candidate))) *axis = candidate;
    }
    if (*axis == ThreadAxis::kNone) return FailExpected("a thread axis ('x', 'y' or 'z')");
    Advance();
    return Expect(TokenKind::kRParen, "')'");
  }
  if (word != "pipelined") return FailExpected(kKinds);
  *kind = ForKind::kPipelined;
  Advance();
  int64_t num_stages = 0;
  if (!Expect(TokenKind::kLParen, "'('") || !ExpectWord("num_stages") ||
      !Expect(TokenKind::kAssign, "'='") ||
      !ParseInteger(kIntMin, kIntMax, "a number of stages", &num_stages)) {
    return false;
  }
  pipeline->num_stages = static_cast<int>(num_stages);
  if (Accept(TokenKind::kComma)) {
    if (!ExpectWord("order") || !Expect(TokenKind::kAssign, "'='") ||
        !ParseIntList(&pipeline->order) || !Expect(TokenKind::kComma, "','") ||
        !ExpectWord("stage") || !Expect(TokenKind::kAssign, "'='") ||
        !ParseIntList(&pipeline->stage)) {
      return false;
    }
  }
  return Expect(TokenKind::kRParen, "')'");
}

bool Parser::ParseIntList(std::vector<int>* values) {
  if (!Expect(TokenKind::kLBracket, "'['")) return false;
  if (Accept(TokenKind::kRBracket)) return true;
  do {
    int64_t value = 0;
    if (!ParseInteger(kIntMin, kIntMax, "an integer", &value)) return false;
    values->push_back(static_cast<int>(value));
  } while (Accept(TokenKind::kComma));
  return Expect(TokenKind::kRBracket, "',' or ']'");
}

Stmt Parser::ParseIf() {
  SourceLoc loc = LocOf(current_);
  Advance();
  if (!Expect(TokenKind::kLParen, "'('")) return nullptr;
  ParsedExpr cond = ParseExpr();
  if (!cond || !Expect(TokenKind::kRParen, "')'") || !ParseLocSuffix(&loc)) return nullptr;
  Stmt then_body = ParseBlock();
  if (!then_body) return nullptr;
  Stmt else_body;
  if (AtWord("else")) {
    Advance();
    else_body = ParseBlock();
    if (!else_body) return nullptr;
  }
  return If::Make(std::move(cond.expr), std::move(then_body), std::move(else_body), std::move(loc));
}

Stmt Parser::ParseStore() {
  SourceLoc loc = LocOf(current_);
  Buffer buffer;
  std::vector<Expr> indices;
  int depth = 0;
  if (!ParseBufferName(&buffer) || !Expect(TokenKind::kLBracket, "'['") ||
      !ParseExprList(TokenKind::kRBracket, &indices, &depth) ||
      !Expect(TokenKind::kAssign, "'='")) {
    return nullptr;
  }
  ParsedExpr value = ParseExpr();
  if (!value || !EndStatement(&loc)) return nullptr;
  return Store::Make(std::move(buffer), std::move(indices), std::move(value.expr), std::move(loc));
}

Stmt Parser::ParseBarrier() {
  SourceLoc loc = LocOf(current_);
  Advance();
  if (!Expect(TokenKind::kLParen, "'('")) return nullptr;
  BarrierScope scope;
  if (AtWord("block")) {
    scope = BarrierScope::kBlock;
  } else if (AtWord("warp")) {
    scope = BarrierScope::kWarp;
  } else {
    FailExpected("'block' or 'warp'");
    return nullptr;
  }
  Advance();
  if (!Expect(TokenKind::kRParen, "')'") || !EndStatement(&loc)) return nullptr;
  return Barrier::Make(scope, std::move(loc));
}

Stmt Parser::ParseEvaluate() {
  SourceLoc loc = LocOf(current_);
  Advance();
  ParsedExpr value = ParseExpr();
  if (!value || !EndStatement(&loc)) return nullptr;
  return Evaluate::Make(std::move(value.expr), std::move(loc));
}

bool Parser::ParseBufferName(Buffer* buffer) {
  if (!At(TokenKind::kIdentifier) || IsKeywordInVersion(current_.text, ir_version_)) {
    return FailExpected("a buffer name");
  }
  const Binding* binding = names_.Find(current_.text);
  if (binding == nullptr) return FailUndefined(current_);
  if (!binding->buffer) {
    return Fail(current_,
                absl::StrCat("expected a buffer, found variable '", ShownText(current_.text), "'"));
  }
  *buffer = binding->buffer;
  Advance();
  return true;
}

bool Parser::ParseRegion(Region* region) {
  if (!ParseBufferName(&region->buffer)) return false;
  if (!Accept(TokenKind::kLBracket)) {
    *region = Region::Full(region->buffer);
    return true;
  }
  if (Accept(TokenKind::kRBracket)) return true;
  do {
    ParsedExpr min = ParseExpr();
    if (!min || !Expect(TokenKind::kPlusColon, "'+:'")) return false;
    ParsedExpr extent = ParseExpr();
    if (!extent) return false;
    region->ranges.push_back(Range{std::move(min.expr), std::move(extent.expr)});
  } while (Accept(TokenKind::kComma));
  return Expect(TokenKind::kRBracket, "',' or ']'");
}

}  // namespace tile_ir::text
