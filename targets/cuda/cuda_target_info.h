// What the CUDA target tells the generic lowering passes about itself
// (docs/LOWERING.md): warps of 32, a block's threads all run, 16-byte vector
// accesses, cp.async copies, and the per-architecture shared-memory limit.
#ifndef TARGETS_CUDA_CUDA_TARGET_INFO_H_
#define TARGETS_CUDA_CUDA_TARGET_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "targets/cuda/gemm_wgmma.h"

namespace tile_ir::cuda {

// The architectures this target generates code for, oldest first.
const std::vector<std::string>& KnownCudaArchs();
// OK for a known architecture; InvalidArgument listing the known ones otherwise.
absl::Status CheckCudaArch(std::string_view arch);

// Which gemms run on wgmma where the architecture has it (sm_90a).
enum class WgmmaUse {
  kNever,             // every tensor-core gemm on mma.sync
  kSwizzledOperands,  // those PlanWgmma accepts whose operand tiles are both 128-byte swizzled
  kWherePossible,     // every gemm PlanWgmma accepts
};

// How sm_90a's warp-specialized kernels are built: the target's options
// (cuda:sm_90a{warp_specialize=...,persistent=...,sms=...,tma_store=...}).
struct WarpSpecialization {
  // warp-specialize gives pipelined copies to a producer warpgroup (the default; {warp_specialize
  // =off} declines).
  bool enabled = false;
  // > 0: each role of a split kernel loops over output tiles in that many blocks (the GPU's SM
  // count: {persistent=on,sms=N}); 0 keeps one tile per block (the default, {persistent=off}).
  int persistent_blocks = 0;
  // The consumers of a split kernel store their output tiles through shared memory with the
  // TMA ({tma_store=on}, the target option's default; tma_stores.h); false keeps plain stores.
  bool tma_stores = false;
  // 2: the blocks of a split kernel run in clusters of two along x that load a tile both read
  // once, half by each, with a TMA multicast ({cluster=2}; warp_specialize.h); 1 (the default)
  // keeps every block on its own.
  int cluster_blocks = 1;
  // The two consumer warpgroups take turns issuing each iteration's first gemm ({pingpong=on};
  // warp_roles.h); off by default.
  bool pingpong = false;
  // A consumer loop that chains two gemms through registers overlaps iteration k's register
  // work with iteration k - 1's second gemm ({overlap=on}, the default; overlap_gemm_chains.h).
  bool overlap_gemm_chains = false;
};

// The fewest compute threads of a block that warp-specialize splits: two consumer warpgroups.
// With one, a producer warpgroup beside it leaves room for a single block per SM instead of
// the two the compute warps alone run, which costs more than the producer saves (H200 run 14:
// 491 against 550 TFLOP/s at 128x128).
inline constexpr int64_t kMinSplitBlockThreads = 256;

class CudaTargetInfo final : public passes::TargetInfo {
 public:
  // `arch` is one of KnownCudaArchs(); `wgmma` says which gemms take wgmma on sm_90a.
  // `name` is the canonical target name the CudaTarget was made from (messages say it);
  // "cuda:<arch>" when empty. `split` applies on sm_90a only.
  explicit CudaTargetInfo(std::string arch, WgmmaUse wgmma = WgmmaUse::kSwizzledOperands,
                          std::string name = "", WarpSpecialization split = {});

  // Whether warp-specialize splits pipelined kernels into a producer warpgroup and consumers:
  // on sm_90a (mbarrier parity waits, setmaxnreg) when the target asked for it.
  bool warp_specializes() const { return arch_ == "sm_90a" && split_.enabled; }
  // The blocks a persistent split kernel launches at most (one per SM), or 0 when split
  // kernels keep one output tile per block.
  int persistent_blocks() const { return warp_specializes() ? split_.persistent_blocks : 0; }
  // Whether a split kernel's consumers store output tiles with the TMA (tma_stores.h).
  bool tma_stores() const { return warp_specializes() && split_.tma_stores; }
  // The blocks per cluster a split kernel asks for (warp_specialize.h): 1 or 2.
  int cluster_blocks() const { return warp_specializes() ? split_.cluster_blocks : 1; }
  // Whether warp-roles makes two consumer warpgroups take turns at their gemms.
  bool pingpong() const { return warp_specializes() && split_.pingpong; }
  // Whether overlap-gemm-chains rotates consumer loops of two chained gemms.
  bool overlaps_gemm_chains() const { return warp_specializes() && split_.overlap_gemm_chains; }

  // 16 for a kernel warp-specialize may split (a top-level pipelined loop that copies from
  // global into shared memory): its TMA loads and stores need row pitches proved a multiple of
  // 16 bytes, which a dim divisible by 16 proves for every element width. One binary per class
  // keeps the Hopper pipeline for dynamic shapes; 1 for other kernels (an elementwise add gains
  // nothing from the classes, and would compile once per class) and other targets.
  int64_t dim_divisibility_specialization(const KernelNode& kernel) const override;

  // kMinSplitBlockThreads where warp-specialize may split; 0 elsewhere.
  int64_t min_block_threads_preferred() const override {
    return warp_specializes() ? kMinSplitBlockThreads : 0;
  }
  // Split by warp-specialize: its roles set their registers (warp-roles' setmaxnreg).
  bool OnFastestPath(const KernelNode& lowered) const override;

  std::string name() const override { return name_; }
  std::string arch() const override { return arch_; }
  int warp_size() const override { return 32; }
  // The product of the launch's thread extents: every thread of a block runs.
  int64_t ThreadsExecutingBlock(const Launch& launch) const override;
  // Dynamic shared memory per block with the opt-in attribute set by the
  // runtime: 227 KiB on sm_90a, 163 KiB on sm_80.
  int64_t max_shared_memory_bytes() const override;
  int max_vector_bytes() const override { return 16; }
  // sm_80 and sm_90a: 255 32-bit registers per thread (thread-binding's local-memory remark).
  int64_t max_registers_per_thread() const override { return 255; }
  bool has_async_copy() const override { return true; }
  // cuda.cp_async_{16,8,4}(dst, src, true).
  std::optional<Stmt> AsyncCopy(const Expr& dst, const Expr& src, int bytes,
                                const Expr& copy_if) const override;
  // wgmma reads its operand tiles by address bits (the 128-byte swizzle repeats every 1024
  // bytes): every tile an intrinsic reads as core matrices starts on kCoreMatrixTileAlignment.
  std::vector<std::pair<const BufferNode*, int64_t>> SharedBufferAlignments(
      const KernelNode& kernel) const override;
  // Refuses gemm on i4 (no packed-nibble arithmetic), gemm on fp8 on sm_80
  // (fp8 matrix instructions arrive with sm_89), arithmetic on bool, and
  // atomic_add on i4 (no atomic form for a nibble).
  absl::Status CheckTileOp(passes::TileOpKind op, DataType dtype) const override;
  // Tensor cores: on sm_90a a gemm that PlanWgmma accepts runs on wgmma (gemm_wgmma.h: its
  // accumulator layout, one tl::gemm_wgmma call); otherwise one that fits mma.sync runs there
  // (gemm_mma.h: its layout, one tl::gemm_ss call); otherwise one that PlanFma accepts (f32 and
  // f64 accumulators among them) runs on the FMA units register-tiled (gemm_fma.h: its layout,
  // one tl::gemm_fma call); other gemms take the generic FMA loops. One decision (WgmmaPlanFor,
  // then MmaAccumulatorLayout, then PlanFma) serves both hooks, so the layout asked for is the
  // one lowered.
  std::optional<Layout> FragmentLayoutForGemm(const Gemm& gemm,
                                              const KernelNode& kernel) const override;
  // A fragment A is read from registers by wgmma (WgmmaRegisterALayout) where the gemm takes
  // wgmma, else by mma.sync (MmaRegisterALayout) where its warps split M only.
  std::optional<Layout> RegisterOperandLayoutForGemm(const Gemm& gemm,
                                                     const KernelNode& kernel) const override;
  absl::StatusOr<std::optional<Stmt>> LowerGemm(
      const passes::GemmLoweringRequest& request) const override;
  // The wgmma plan of `gemm`, one of `kernel`'s, on this target, or nullopt when it takes
  // mma.sync or FMA. Gemms that share an operand tile, directly or through others, decide
  // together (the tile has one layout): all take wgmma, or none.
  std::optional<WgmmaPlan> WgmmaPlanFor(const Gemm& gemm, const KernelNode& kernel) const;

 private:
  std::string arch_;
  WgmmaUse wgmma_;
  std::string name_;
  WarpSpecialization split_;
};

// The pass pipeline that lowers a tile-level module for CUDA (every
// architecture and variant: the pass manager is given the target once).
std::string DefaultCudaPipeline();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_TARGET_INFO_H_
