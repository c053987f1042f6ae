// Internal to the CPU code generator: the state of building one kernel's block
// function with LLVM's IRBuilder. Its methods are split by node family over
// emit_kernel.cc (function setup, buffers), emit_types.cc (types, casts),
// emit_expr.cc, emit_arith.cc, emit_memory.cc, emit_call.cc and emit_stmt.cc.
#ifndef TARGETS_CPU_KERNEL_EMITTER_H_
#define TARGETS_CPU_KERNEL_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "targets/cpu/guard_facts.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// How values are represented:
//   registers: bool is i1, i4 is i4, u8 is i8 (with unsigned operations), f16
//     is half, f32/f64 as usual; bf16 and fp8 are f32 holding a value of the
//     type (rounded after every operation); a vector of N lanes is <N x T>.
//   memory: bool is a byte (0 or 1), i4 is packed two per byte (element k in
//     the low nibble of byte k/2 when k is even, the high one when odd), bf16
//     and fp8 are their bits (i16, i8).
class KernelEmitter {
 public:
  KernelEmitter(const KernelNode& kernel, llvm::Module& module, std::string cpu,
                std::string features);

  // Adds `<kernel>_block` to the module, or returns the first error.
  absl::Status Emit();

 private:
  struct BufferInfo {
    llvm::Value* base;                  // ptr
    std::vector<llvm::Value*> strides;  // i64, in elements
  };
  // Lanes of a vector access as one offset (contiguous) or one offset per lane.
  struct ElementAddress {
    llvm::Value* offset;  // i64, or <N x i64> when !contiguous and lanes > 1
    bool contiguous;
    int lanes;
  };

  // emit_kernel.cc
  void EmitPrologue(llvm::Function* function);
  std::vector<llvm::Value*> EmitStrides(const BufferNode& buffer);
  void EmitAllocate(const Allocate& node);
  llvm::Value* SharedPoolSlice(int64_t offset);
  // Records the first error, located at the statement being emitted, and
  // returns a placeholder of `type` so that emission can unwind normally.
  llvm::Value* Fail(const std::string& message, llvm::Type* type = nullptr);

  // emit_types.cc
  llvm::Type* RegisterType(DataType type);
  llvm::Type* MemoryType(ScalarType type);
  llvm::Value* FromMemory(llvm::Value* value, DataType type);
  llvm::Value* ToMemory(llvm::Value* value, DataType type);
  llvm::Value* EmitCast(llvm::Value* value, DataType from, DataType to);
  // Exact widening of a float type other than f64 to f32, and rounding back.
  llvm::Value* FloatToF32(llvm::Value* value, DataType from);
  llvm::Value* F32ToFloat(llvm::Value* value, DataType to);
  llvm::Value* IntToI64(llvm::Value* value, DataType from);

  // emit_expr.cc
  llvm::Value* EmitExpr(const Expr& expr);
  llvm::Value* EmitRamp(const Ramp& ramp);
  llvm::Value* EmitSelect(const Select& select);
  // select(cond, on_true(), on_false()) evaluating only the arm a lane needs,
  // for arms that read memory or have effects (bound predication guards
  // out-of-range loads this way): a branch on a scalar condition, lane masks
  // for a vector one.
  llvm::Value* EmitGuardedSelect(llvm::Value* cond, const std::function<llvm::Value*()>& on_true,
                                 const std::function<llvm::Value*()>& on_false);
  // fn() when cond (an i1) holds, else zero of `type`.
  llvm::Value* EmitIf(llvm::Value* cond, llvm::Type* type, const std::function<llvm::Value*()>& fn);
  // Whether evaluating expr reads memory or has effects.
  bool NeedsGuard(const Expr& expr);

  // emit_arith.cc
  llvm::Value* EmitBinary(const Binary& binary);
  llvm::Value* EmitBinaryOp(BinaryOp op, llvm::Value* a, llvm::Value* b, DataType type);
  llvm::Value* EmitIntDivision(BinaryOp op, llvm::Value* a, llvm::Value* b, DataType type);

  // emit_memory.cc
  // The base and strides of a declared buffer (a placeholder, after an error,
  // for one that is not).
  BufferInfo& buffer_info(const BufferNode& buffer);
  ElementAddress EmitAddress(const BufferNode& buffer, const std::vector<Expr>& indices, int lanes);
  // Offset arithmetic (nsw), skipping the multiplications by 1 and additions
  // of 0 that row-major strides produce, so that the raw IR stays readable.
  llvm::Value* OffsetAdd(llvm::Value* a, llvm::Value* b);
  llvm::Value* OffsetMul(llvm::Value* a, llvm::Value* b);
  llvm::Value* ElementPointer(const BufferNode& buffer, llvm::Value* offset);
  llvm::Value* LaneOffset(const ElementAddress& address, int lane);
  llvm::Value* EmitLoad(const BufferLoad& load);
  llvm::Value* EmitPackedLoad(const BufferNode& buffer, const ElementAddress& address,
                              llvm::Value* mask);
  void EmitStore(const Store& store);
  void EmitPackedStore(const BufferNode& buffer, llvm::Value* offset, llvm::Value* value);

  // emit_call.cc
  llvm::Value* EmitCall(const Call& call);
  llvm::Value* EmitMath(const std::string& name, const std::vector<llvm::Value*>& args);
  // libm's `name` (with an f suffix for f32) of arg, a scalar, or each lane of a vector.
  llvm::Value* EmitLibmCall(const std::string& name, llvm::Value* arg);
  // atomic_add_at, atomic_max_at and atomic_min_at.
  llvm::Value* EmitAtomicUpdate(const Call& call);
  llvm::Value* EmitScalarAtomicUpdate(BinaryOp op, const BufferNode& buffer, llvm::Value* offset,
                                      llvm::Value* value);
  llvm::Value* EmitCompareExchangeLoop(llvm::Value* pointer, llvm::Type* type,
                                       const std::function<llvm::Value*(llvm::Value*)>& update);

  // emit_stmt.cc
  void EmitStmt(const Stmt& stmt);
  void EmitFor(const For& loop);
  void EmitIfStmt(const If& node);
  llvm::MDNode* LoopMetadata(const For& loop);

  const KernelNode& kernel_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> builder_;
  const std::string cpu_;
  const std::string features_;
  llvm::Function* function_ = nullptr;
  // Holds only allocas until Emit() ends it with a branch to the body.
  llvm::BasicBlock* entry_ = nullptr;
  absl::flat_hash_map<const Var*, llvm::Value*> vars_;
  // Node-based: BufferInfo references stay valid while more buffers are added.
  absl::node_hash_map<const BufferNode*, BufferInfo> buffers_;
  absl::flat_hash_map<const ExprNode*, bool> needs_guard_;
  // Active lanes while a guarded vector select evaluates one of its arms.
  llvm::Value* lane_mask_ = nullptr;
  // The scalar conditions of the guarded select arms and if statements being
  // emitted: they hold wherever the code being emitted runs.
  GuardFacts guard_facts_;
  // The shared tiles that plan-shared-memory placed, as one pool.
  llvm::AllocaInst* shared_pool_ = nullptr;
  int64_t shared_pool_bytes_ = 0;
  int64_t frame_bytes_ = 0;
  const StmtNode* current_stmt_ = nullptr;
  absl::Status error_;
};

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_KERNEL_EMITTER_H_
