// What the CPU target tells the generic lowering passes about itself
// (docs/LOWERING.md): a block runs on one core, its "threads" become
// iterations of loops that LLVM vectorizes with the host's SIMD registers.
#ifndef TARGETS_CPU_CPU_TARGET_INFO_H_
#define TARGETS_CPU_CPU_TARGET_INFO_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"

namespace tile_ir::cpu {

// Shared and local buffers live in the block function's stack frame (shared
// tiles in one pool laid out by plan-shared-memory), so their total is capped
// well below a worker thread's stack (8 MiB by default on Linux).
inline constexpr int64_t kCpuMaxBlockFrameBytes = int64_t{1} << 20;

class CpuTargetInfo final : public passes::TargetInfo {
 public:
  std::string name() const override { return "cpu"; }
  // The host CPU's LLVM name: code is generated for the machine it runs on.
  std::string arch() const override;
  int warp_size() const override { return 1; }
  int64_t ThreadsExecutingBlock(const Launch& launch) const override { return 1; }
  int64_t max_shared_memory_bytes() const override { return kCpuMaxBlockFrameBytes; }
  int max_vector_bytes() const override;
  bool has_async_copy() const override { return false; }
  int64_t block_cache_bytes() const override;
  int64_t concurrent_blocks() const override;
  // Every tile operation on every dtype lowers to loops of loads, stores,
  // casts and arithmetic, which the code generator supports for all dtypes;
  // only arithmetic on bool (gemm, reduce, atomic_add, cumsum) has no meaning.
  absl::Status CheckTileOp(passes::TileOpKind op, DataType dtype) const override;
  // Register-blocked micro-kernels where they apply (cpu_gemm_lowering.h).
  absl::StatusOr<std::optional<Stmt>> LowerGemm(
      const passes::GemmLoweringRequest& request) const override;
};

// The CPU target's default lowering pipeline string.
std::string DefaultCpuPipeline();

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_TARGET_INFO_H_
