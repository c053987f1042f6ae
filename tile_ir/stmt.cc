#include "tile_ir/stmt.h"

namespace tile_ir {

std::string_view StmtKindName(StmtKind kind) {
  switch (kind) {
#define TILE_IR_STMT_NAME(Name) \
  case StmtKind::k##Name: return #Name;
    TILE_IR_FOR_EACH_STMT(TILE_IR_STMT_NAME)
#undef TILE_IR_STMT_NAME
  }
  return "?";
}

std::string_view ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kPipelined: return "pipelined";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kThreadBound: return "thread_bound";
  }
  return "?";
}

std::string_view ThreadAxisName(ThreadAxis axis) {
  switch (axis) {
    case ThreadAxis::kNone: return "none";
    case ThreadAxis::kX: return "x";
    case ThreadAxis::kY: return "y";
    case ThreadAxis::kZ: return "z";
  }
  return "?";
}

std::string_view BarrierScopeName(BarrierScope scope) {
  switch (scope) {
    case BarrierScope::kBlock: return "block";
    case BarrierScope::kWarp: return "warp";
  }
  return "?";
}

std::string_view WarpPolicyName(WarpPolicy policy) {
  switch (policy) {
    case WarpPolicy::kSquare: return "square";
    case WarpPolicy::kFullRow: return "full_row";
    case WarpPolicy::kFullCol: return "full_col";
  }
  return "?";
}

std::string_view ReduceKindName(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum: return "sum";
    case ReduceKind::kMax: return "max";
    case ReduceKind::kMin: return "min";
    case ReduceKind::kAbsMax: return "absmax";
    case ReduceKind::kAbsSum: return "abssum";
    case ReduceKind::kProd: return "prod";
    case ReduceKind::kBitAnd: return "bitand";
    case ReduceKind::kBitOr: return "bitor";
    case ReduceKind::kBitXor: return "bitxor";
  }
  return "?";
}

Stmt Seq::Make(std::vector<Stmt> stmts, SourceLoc loc) {
  return std::make_shared<const Seq>(std::move(stmts), std::move(loc));
}

std::vector<Stmt> Seq::StmtsOf(const Stmt& stmt) {
  if (const Seq* seq = As<Seq>(stmt)) return seq->stmts;
  return {stmt};
}

Stmt For::Make(VarRef var, Expr min, Expr extent, ForKind kind, Stmt body, SourceLoc loc,
               PipelineInfo pipeline, ThreadAxis thread_axis) {
  return std::make_shared<const For>(std::move(var), std::move(min), std::move(extent), kind,
                                     std::move(pipeline), thread_axis, std::move(body),
                                     std::move(loc));
}

Stmt If::Make(Expr cond, Stmt then_body, Stmt else_body, SourceLoc loc) {
  return std::make_shared<const If>(std::move(cond), std::move(then_body), std::move(else_body),
                                    std::move(loc));
}

Stmt Let::Make(VarRef var, Expr value, SourceLoc loc) {
  return std::make_shared<const Let>(std::move(var), std::move(value), std::move(loc));
}

Stmt Allocate::Make(Buffer buffer, SourceLoc loc, std::optional<int64_t> shared_offset) {
  return std::make_shared<const Allocate>(std::move(buffer), std::move(loc), shared_offset);
}

Stmt Store::Make(Buffer buffer, std::vector<Expr> indices, Expr value, SourceLoc loc) {
  return std::make_shared<const Store>(std::move(buffer), std::move(indices), std::move(value),
                                       std::move(loc));
}

Stmt Barrier::Make(BarrierScope scope, SourceLoc loc) {
  return std::make_shared<const Barrier>(scope, std::move(loc));
}

Stmt Evaluate::Make(Expr value, SourceLoc loc) {
  return std::make_shared<const Evaluate>(std::move(value), std::move(loc));
}

Stmt Evaluate::MakeVoidCall(std::string name, std::vector<Expr> args, SourceLoc loc) {
  return Make(Call::Make(kVoid, std::move(name), std::move(args)), std::move(loc));
}

const Call* Evaluate::CallOf(const Stmt& s) {
  const Evaluate* eval = As<Evaluate>(s);
  return eval != nullptr ? As<Call>(eval->value) : nullptr;
}

bool Evaluate::IsCallTo(const Stmt& s, std::string_view name) {
  const Call* call = CallOf(s);
  return call != nullptr && call->name == name;
}

Stmt Copy::Make(Region src, Region dst, SourceLoc loc) {
  return std::make_shared<const Copy>(std::move(src), std::move(dst), std::move(loc));
}

Stmt Gemm::Make(Region a, Region b, Region c, bool transpose_a, bool transpose_b, WarpPolicy policy,
                bool clear_accum, SourceLoc loc) {
  return std::make_shared<const Gemm>(std::move(a), std::move(b), std::move(c), transpose_a,
                                      transpose_b, policy, clear_accum, std::move(loc));
}

Stmt Fill::Make(Region dst, Expr value, SourceLoc loc) {
  return std::make_shared<const Fill>(std::move(dst), std::move(value), std::move(loc));
}

Stmt Reduce::Make(ReduceKind kind, Region src, Region dst, int dim, bool clear, SourceLoc loc) {
  return std::make_shared<const Reduce>(kind, std::move(src), std::move(dst), dim, clear,
                                        std::move(loc));
}

Stmt AtomicAdd::Make(Region src, Region dst, SourceLoc loc) {
  return std::make_shared<const AtomicAdd>(std::move(src), std::move(dst), std::move(loc));
}

Stmt Cumsum::Make(Region src, Region dst, int dim, bool reverse, SourceLoc loc) {
  return std::make_shared<const Cumsum>(std::move(src), std::move(dst), dim, reverse,
                                        std::move(loc));
}

}  // namespace tile_ir
