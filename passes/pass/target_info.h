// What a code-generation target tells the generic lowering passes about
// itself (docs/LOWERING.md). Generic passes never test a target's name: they
// ask its TargetInfo, which the pass manager hands every pass of a run
// (PassManagerOptions::target). Each target (targets/target.h) owns one.
#ifndef PASSES_PASS_TARGET_INFO_H_
#define PASSES_PASS_TARGET_INFO_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tile_ir/dtype.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// The tile operations whose support a target declares per dtype.
enum class TileOpKind { kCopy, kGemm, kFill, kReduce, kAtomicAdd, kCumsum };
std::string_view TileOpKindName(TileOpKind kind);

class FreshNames;

// What lower-tile-ops gives a target's instruction-choice hook.
struct GemmLoweringRequest {
  const Gemm* gemm = nullptr;
  const KernelNode* kernel = nullptr;
  // Names for the loops and buffers a lowering declares: unique in the kernel
  // being lowered, including what lower-tile-ops declared before (a kernel
  // declares each name once).
  FreshNames* names = nullptr;
};

class TargetInfo {
 public:
  virtual ~TargetInfo() = default;

  // The canonical target name ("cuda:sm_90a"), for messages.
  virtual std::string name() const = 0;
  // The exact architecture ("sm_90a", "gfx90a", the host CPU's name).
  virtual std::string arch() const = 0;
  // Threads that execute in lock step (32 on NVIDIA, 64 on CDNA, 1 on the CPU).
  virtual int warp_size() const = 0;
  // How many threads really execute one block: the launch's thread count on
  // GPUs; 1 where a block runs on one core and the kernel's parallel loops
  // become vectorizable loops (the CPU).
  virtual int64_t ThreadsExecutingBlock(const Launch& launch) const = 0;
  virtual int64_t max_shared_memory_bytes() const = 0;
  // Widest vector load or store, in bytes.
  virtual int max_vector_bytes() const = 0;
  // Whether copies to shared memory can run asynchronously, so that software
  // pipelining over multi-buffered shared tiles pays off.
  virtual bool has_async_copy() const = 0;

  // OK when the target can lower `op` on elements of `dtype`; otherwise an
  // Unimplemented error naming the operation, the target and the missing
  // capability ("cpu target: gemm on f8e4m3 needs fp8 arithmetic, which ...").
  virtual absl::Status CheckTileOp(TileOpKind op, DataType dtype) const = 0;

  // Instruction choice for gemm: a thread-level statement implementing the
  // request, or nullopt to use the generic FMA loops of lower-tile-ops.
  virtual absl::StatusOr<std::optional<Stmt>> LowerGemm(const GemmLoweringRequest& request) const {
    return std::optional<Stmt>();
  }

  // The fragment layout (thread, register) that the target's gemm instructions
  // need for the accumulator of `gemm`, one of `kernel`'s (whose launch gives the
  // threads, and whose other gemms may share its operand tiles), or nullopt when
  // any layout will do (layout-inference then picks its generic one).
  virtual std::optional<Layout> FragmentLayoutForGemm(const Gemm& gemm,
                                                      const KernelNode& kernel) const {
    return std::nullopt;
  }

  // The fragment layout (thread, register) in which the target's gemm instructions read the A
  // operand of `gemm` from registers when A is a fragment, or nullopt when they cannot (the
  // generic lowering then stages A in shared memory). layout-inference gives it to a fragment
  // A that no accumulator or element-wise statement has laid out already; a fragment laid out
  // otherwise is read from registers only where its layout coincides with this one.
  virtual std::optional<Layout> RegisterOperandLayoutForGemm(const Gemm& gemm,
                                                             const KernelNode& kernel) const {
    return std::nullopt;
  }

  // The asynchronous form of copying `bytes` contiguous bytes from the element `src` names
  // (global memory) to the element `dst` names (shared memory), both addresses proved
  // aligned to `bytes`: a statement that issues the copy, whose data lands when a later
  // async_wait returns (its call is registered with IntrinsicInfo::async_copy). nullopt
  // keeps the synchronous store. Only asked when has_async_copy().
  // `dst` and `src` are BufferLoads naming the first elements. With `copy_if` (a scalar
  // bool), the copy writes zeros to `dst` where it is false and does not read `src` (a
  // ragged row's guard); targets that cannot zero-fill return nullopt for it.
  virtual std::optional<Stmt> AsyncCopy(const Expr& dst, const Expr& src, int bytes,
                                        const Expr& copy_if = nullptr) const {
    return std::nullopt;
  }

  // The shared buffers of `kernel` that the target's instructions need placed at a coarser
  // alignment than plan-shared-memory's 16 bytes, with that alignment in bytes (CUDA: the
  // operand tiles wgmma reads by address bits start on 1024). None by default.
  virtual std::vector<std::pair<const BufferNode*, int64_t>> SharedBufferAlignments(
      const KernelNode& kernel) const {
    return {};
  }

  // The largest power of two by whose divisibility the runtimes specialize the dynamic dims of
  // a call of `kernel` (tile-level IR; passes/transforms/specialize_divisibility.h: `require K %
  // 16 == 0` compiled in, K left symbolic). A target whose passes gain from proved divisibility
  // in such a kernel asks for it; 1, the default, compiles one binary for every shape.
  virtual int64_t dim_divisibility_specialization(const KernelNode& kernel) const { return 1; }

  // Blocks of fewer threads miss the target's fastest lowering, so the default-config
  // heuristics (runtime/jit/autotuner.h's TargetPreferences) prefer candidates of at least this
  // many. 0, the default: no preference.
  virtual int64_t min_block_threads_preferred() const { return 0; }
  // Whether `lowered` (a kernel after the target's pipeline) took the path that
  // min_block_threads_preferred is for (CUDA: warp-specialize split it). True by default.
  virtual bool OnFastestPath(const KernelNode& lowered) const { return true; }
  // Where a block's tiles live in memory behind a cache rather than in on-chip storage the
  // lowering budgets itself (the CPU: shared tiles are copies and fragments are arrays, one
  // block per core at a time), the bytes of cache one block's tiles should fit: the
  // default-config heuristics then prefer the largest tiles that do, since every step of a
  // block pays for its copies and accumulator reloads. 0, the default: no such preference.
  virtual int64_t block_cache_bytes() const { return 0; }
  // How many blocks run at once where the target runs them on host threads (the CPU: one per
  // hardware thread), so that the same heuristics keep that many; 0 where the device schedules
  // blocks itself.
  virtual int64_t concurrent_blocks() const { return 0; }
  // How many 32-bit registers one thread has for its fragments' elements and everything else
  // (CUDA: 255): a fragment whose share per thread is larger lives in slow local memory, which
  // thread-binding says in a remark. 0, the default: no such limit (the CPU's fragments are
  // arrays anyway).
  virtual int64_t max_registers_per_thread() const { return 0; }
};

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_TARGET_INFO_H_
