// Statement nodes of the tile IR: structured control flow, memory access, and
// the tile operations users write (copy, gemm, fill, reduce, atomic_add,
// cumsum), which lowering passes turn into loops over the thread level.
//
// Let and Allocate are declarations: they bind their variable or buffer for
// the rest of the enclosing Seq (or the kernel body), like declarations in C.
#ifndef TILE_IR_STMT_H_
#define TILE_IR_STMT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/node_list.h"
#include "tile_ir/source_loc.h"

namespace tile_ir {

enum class StmtKind : uint8_t {
#define TILE_IR_STMT_KIND(Name) k##Name,
  TILE_IR_FOR_EACH_STMT(TILE_IR_STMT_KIND)
#undef TILE_IR_STMT_KIND
};

std::string_view StmtKindName(StmtKind kind);

class StmtNode {
 public:
  StmtNode(StmtKind kind, SourceLoc loc) : kind_(kind), loc_(std::move(loc)) {}
  virtual ~StmtNode() = default;
  StmtNode(const StmtNode&) = delete;
  StmtNode& operator=(const StmtNode&) = delete;

  StmtKind kind() const { return kind_; }
  const SourceLoc& loc() const { return loc_; }

 private:
  const StmtKind kind_;
  const SourceLoc loc_;
};

using Stmt = std::shared_ptr<const StmtNode>;

template <typename T>
const T* As(const Stmt& s) {
  return s && s->kind() == T::kKind ? static_cast<const T*>(s.get()) : nullptr;
}

class Seq final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kSeq;
  Seq(std::vector<Stmt> stmts, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)), stmts(std::move(stmts)) {}
  static Stmt Make(std::vector<Stmt> stmts, SourceLoc loc = {});
  // A Seq's statements, or the one statement that is not a Seq.
  static std::vector<Stmt> StmtsOf(const Stmt& stmt);
  const std::vector<Stmt> stmts;
};

enum class ForKind : uint8_t {
  kSerial,
  kParallel,   // element-wise; mapped to threads by layout inference and thread binding
  kPipelined,  // software-pipelined over shared-memory stages
  kUnrolled,
  kVectorized,
  kThreadBound,  // the loop variable is a thread index (see ThreadAxis)
};

std::string_view ForKindName(ForKind kind);

enum class ThreadAxis : uint8_t { kNone, kX, kY, kZ };
std::string_view ThreadAxisName(ThreadAxis axis);

// For pipelined loops. order and stage are either empty (the planner decides)
// or give, per statement of the loop body, its issue order and its stage.
struct PipelineInfo {
  int num_stages = 0;
  std::vector<int> order;
  std::vector<int> stage;

  friend bool operator==(const PipelineInfo&, const PipelineInfo&) = default;
};

class For final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kFor;
  For(VarRef var, Expr min, Expr extent, ForKind kind, PipelineInfo pipeline,
      ThreadAxis thread_axis, Stmt body, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)),
        var(std::move(var)),
        min(std::move(min)),
        extent(std::move(extent)),
        for_kind(kind),
        pipeline(std::move(pipeline)),
        thread_axis(thread_axis),
        body(std::move(body)) {}
  static Stmt Make(VarRef var, Expr min, Expr extent, ForKind kind, Stmt body, SourceLoc loc = {},
                   PipelineInfo pipeline = {}, ThreadAxis thread_axis = ThreadAxis::kNone);
  const VarRef var;
  const Expr min;
  const Expr extent;
  const ForKind for_kind;
  const PipelineInfo pipeline;   // meaningful for kPipelined only
  const ThreadAxis thread_axis;  // meaningful for kThreadBound only
  const Stmt body;
};

class If final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kIf;
  If(Expr cond, Stmt then_body, Stmt else_body, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)),
        cond(std::move(cond)),
        then_body(std::move(then_body)),
        else_body(std::move(else_body)) {}
  static Stmt Make(Expr cond, Stmt then_body, Stmt else_body = nullptr, SourceLoc loc = {});
  const Expr cond;
  const Stmt then_body;
  const Stmt else_body;  // may be null
};

// Binds var to value for the rest of the enclosing block.
class Let final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kLet;
  Let(VarRef var, Expr value, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)), var(std::move(var)), value(std::move(value)) {}
  static Stmt Make(VarRef var, Expr value, SourceLoc loc = {});
  const VarRef var;
  const Expr value;
};

// Declares a shared, fragment or local buffer for the rest of the enclosing block.
// A shared buffer may carry its byte offset in the kernel's one shared-memory pool
// (set by plan-shared-memory); absent, the target places it.
class Allocate final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAllocate;
  Allocate(Buffer buffer, SourceLoc loc, std::optional<int64_t> shared_offset = std::nullopt)
      : StmtNode(kKind, std::move(loc)), buffer(std::move(buffer)), shared_offset(shared_offset) {}
  static Stmt Make(Buffer buffer, SourceLoc loc = {},
                   std::optional<int64_t> shared_offset = std::nullopt);
  const Buffer buffer;
  const std::optional<int64_t> shared_offset;
};

class Store final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kStore;
  Store(Buffer buffer, std::vector<Expr> indices, Expr value, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)),
        buffer(std::move(buffer)),
        indices(std::move(indices)),
        value(std::move(value)) {}
  static Stmt Make(Buffer buffer, std::vector<Expr> indices, Expr value, SourceLoc loc = {});
  const Buffer buffer;
  const std::vector<Expr> indices;
  const Expr value;
};

enum class BarrierScope : uint8_t { kBlock, kWarp };
std::string_view BarrierScopeName(BarrierScope scope);

class Barrier final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kBarrier;
  Barrier(BarrierScope scope, SourceLoc loc) : StmtNode(kKind, std::move(loc)), scope(scope) {}
  static Stmt Make(BarrierScope scope = BarrierScope::kBlock, SourceLoc loc = {});
  const BarrierScope scope;
};

// Evaluates an expression (an intrinsic call) for its effect.
class Evaluate final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kEvaluate;
  Evaluate(Expr value, SourceLoc loc) : StmtNode(kKind, std::move(loc)), value(std::move(value)) {}
  static Stmt Make(Expr value, SourceLoc loc = {});
  // The call of a void intrinsic, as a statement.
  static Stmt MakeVoidCall(std::string name, std::vector<Expr> args, SourceLoc loc = {});
  // The call statement `s` evaluates, or nullptr when it is no Evaluate of a Call.
  static const Call* CallOf(const Stmt& s);
  // Whether `s` evaluates a call of the intrinsic `name`.
  static bool IsCallTo(const Stmt& s, std::string_view name);
  const Expr value;
};

// Tile copy between any two scopes; the regions have the same extents once
// unit dimensions are dropped.
class Copy final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kCopy;
  Copy(Region src, Region dst, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)), src(std::move(src)), dst(std::move(dst)) {}
  static Stmt Make(Region src, Region dst, SourceLoc loc = {});
  const Region src;
  const Region dst;
};

// How the warps of a block split a gemm's output tile.
enum class WarpPolicy : uint8_t { kSquare, kFullRow, kFullCol };
std::string_view WarpPolicyName(WarpPolicy policy);

// C (+)= op(A) * op(B) with op = transpose when the flag is set. C is a
// fragment accumulator; clear_accum zeroes it first.
class Gemm final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kGemm;
  Gemm(Region a, Region b, Region c, bool transpose_a, bool transpose_b, WarpPolicy policy,
       bool clear_accum, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)),
        a(std::move(a)),
        b(std::move(b)),
        c(std::move(c)),
        transpose_a(transpose_a),
        transpose_b(transpose_b),
        policy(policy),
        clear_accum(clear_accum) {}
  static Stmt Make(Region a, Region b, Region c, bool transpose_a = false, bool transpose_b = false,
                   WarpPolicy policy = WarpPolicy::kSquare, bool clear_accum = false,
                   SourceLoc loc = {});
  const Region a;
  const Region b;
  const Region c;
  const bool transpose_a;
  const bool transpose_b;
  const WarpPolicy policy;
  const bool clear_accum;
};

class Fill final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kFill;
  Fill(Region dst, Expr value, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)), dst(std::move(dst)), value(std::move(value)) {}
  static Stmt Make(Region dst, Expr value, SourceLoc loc = {});
  const Region dst;
  const Expr value;
};

// kAbsMax and kAbsSum combine magnitudes; kBitAnd, kBitOr and kBitXor take integers. The
// kinds after kAbsMax came in ir_version 6 (version.h).
enum class ReduceKind : uint8_t {
  kSum,
  kMax,
  kMin,
  kAbsMax,
  kAbsSum,
  kProd,
  kBitAnd,
  kBitOr,
  kBitXor,
};
std::string_view ReduceKindName(ReduceKind kind);

// Reduces src over dimension dim into dst (src's shape without dim). With
// clear, dst is overwritten; otherwise dst's old value joins the reduction.
class Reduce final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kReduce;
  Reduce(ReduceKind reduce_kind, Region src, Region dst, int dim, bool clear, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)),
        reduce_kind(reduce_kind),
        src(std::move(src)),
        dst(std::move(dst)),
        dim(dim),
        clear(clear) {}
  static Stmt Make(ReduceKind kind, Region src, Region dst, int dim, bool clear = true,
                   SourceLoc loc = {});
  const ReduceKind reduce_kind;
  const Region src;
  const Region dst;
  const int dim;
  const bool clear;
};

// dst[i] += src[i] atomically, element by element.
class AtomicAdd final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAtomicAdd;
  AtomicAdd(Region src, Region dst, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)), src(std::move(src)), dst(std::move(dst)) {}
  static Stmt Make(Region src, Region dst, SourceLoc loc = {});
  const Region src;
  const Region dst;
};

// Inclusive prefix sum of src along dim into dst (same shape); reverse scans
// from the end.
class Cumsum final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kCumsum;
  Cumsum(Region src, Region dst, int dim, bool reverse, SourceLoc loc)
      : StmtNode(kKind, std::move(loc)),
        src(std::move(src)),
        dst(std::move(dst)),
        dim(dim),
        reverse(reverse) {}
  static Stmt Make(Region src, Region dst, int dim, bool reverse = false, SourceLoc loc = {});
  const Region src;
  const Region dst;
  const int dim;
  const bool reverse;
};

}  // namespace tile_ir

#endif  // TILE_IR_STMT_H_
