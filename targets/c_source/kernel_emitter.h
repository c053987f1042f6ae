// Internal to the C++-source code generators: the state of emitting one
// kernel's function as text in a dialect. Its methods are split by node family over
// emit_kernel.cc (signature, buffers), emit_stmt.cc, emit_expr.cc,
// emit_arith.cc, emit_memory.cc (addresses, loads, stores, vectors) and
// emit_call.cc (intrinsics).
#ifndef TARGETS_C_SOURCE_KERNEL_EMITTER_H_
#define TARGETS_C_SOURCE_KERNEL_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "passes/analysis/divisibility.h"
#include "targets/c_source/c_expr.h"
#include "targets/c_source/c_names.h"
#include "targets/c_source/dialect.h"
#include "tile_ir/module.h"

namespace tile_ir::c_source {

class KernelEmitter : private CallContext {
 public:
  // `symbol`: the kernel's exported name (c_names.h: KernelSymbols).
  KernelEmitter(const KernelNode& kernel, const Dialect& dialect, std::string symbol);

  // The kernel's function, or the first error. The kernel must pass
  // CheckThreadLevel.
  absl::StatusOr<std::string> Emit();

 private:
  // CallContext, for the dialect's EmitTargetCall.
  CExpr Emit(const Expr& expr) override { return EmitExpr(expr); }
  CExpr AddressOf(const BufferLoad& node) override;

  // emit_kernel.cc
  std::string Signature();
  void EmitAllocate(const Allocate& node);
  // Records the first error, located at the statement being emitted, and
  // returns a placeholder so that emission can unwind normally.
  CExpr Fail(const std::string& message) override;
  const KernelNode& kernel() const override { return kernel_; }

  // emit_stmt.cc
  void Line(const std::string& text);
  void EmitStmt(const Stmt& stmt);
  void EmitSeqItems(const Seq& node);
  void EmitBody(const Stmt& stmt);  // a statement as a braced block's contents, indented
  void EmitFor(const For& node);
  void EmitThreadLoop(const For& node);
  void EmitIf(const If& node);
  void EmitLet(const Let& node);
  void EmitEvaluate(const Evaluate& node);
  // Runs `emit_lane` inside an unrolled loop over the lanes of a vector
  // statement, with lane_ naming the loop variable.
  void ForEachLane(int lanes, const std::function<void()>& emit_lane);

  // emit_expr.cc
  CExpr EmitExpr(const Expr& expr);
  CExpr EmitVar(const Var& node);
  CExpr EmitSelect(const Select& node);
  CExpr EmitRamp(const Ramp& node);

  // emit_arith.cc
  CExpr EmitUnary(const Unary& node);
  CExpr EmitBinary(const Binary& node);

  // emit_memory.cc
  // The element offset of `indices` in `buffer` (row-major or by its strides).
  CExpr Offset(const BufferNode& buffer, const std::vector<Expr>& indices);
  CExpr EmitLoad(const BufferLoad& node);
  void EmitStore(const Store& node);
  void EmitVectorStore(const Store& node);
  // Bytes of a vector access of `lanes` elements that one uint4/uint2/unsigned
  // move can make at `indices` (contiguous, aligned, within the dialect's
  // widest move), or 0.
  int VectorMoveBytes(const BufferNode& buffer, const std::vector<Expr>& indices, int lanes);
  // Loads the contiguous vector loads of `value` that VectorMoveBytes allows
  // into arrays, before the lane loop that reads them through vector_loads_.
  void PreloadVectors(const Expr& value);

  // emit_call.cc
  CExpr EmitCall(const Call& node);
  CExpr EmitMath(const Call& node);
  // atomic_add_at, atomic_max_at and atomic_min_at.
  CExpr EmitAtomicUpdate(const Call& node);
  CExpr EmitReinterpret(const Call& node);

  const KernelNode& kernel_;
  const Dialect& dialect_;
  CNames names_;
  std::string symbol_;
  std::string out_;
  int indent_ = 1;
  SourceLoc loc_;  // of the statement being emitted
  absl::Status error_;
  // The lane variable inside the lane loop of a vector statement, else empty.
  std::string lane_;
  std::string lane_name_;
  // The array a vector store computes its lanes into (one name, each in its own block).
  std::string values_name_;
  // What divides the integer lets emitted so far, for the alignment of vector moves.
  passes::Divisibility divisibility_;
  absl::flat_hash_set<const Var*> vector_lets_;
  // Variables the body reads: block and thread indices are declared only when read.
  absl::flat_hash_set<const Var*> used_vars_;
  // Shared buffers: their byte offset in the pool.
  absl::flat_hash_map<const BufferNode*, int64_t> shared_offsets_;
  // Vector loads already moved into an array by PreloadVectors.
  absl::flat_hash_map<const BufferLoad*, std::string> vector_loads_;
};

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_KERNEL_EMITTER_H_
