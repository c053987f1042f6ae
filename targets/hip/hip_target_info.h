// What the HIP target tells the generic lowering passes about itself
// (docs/LOWERING.md): wavefronts of 64, a block's threads all run, 16-byte
// vector accesses, synchronous copies into 64 KiB of LDS, MFMA gemm, and the
// capabilities it declares per architecture (gfx90a: CDNA2, gfx940: CDNA3).
#ifndef TARGETS_HIP_HIP_TARGET_INFO_H_
#define TARGETS_HIP_HIP_TARGET_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"

namespace tile_ir::hip {

// The architectures this target generates code for, oldest first. gfx942 is
// unknown to Debian's clang 15 hipcc, so it is not offered.
const std::vector<std::string>& KnownHipArchs();
// OK for a known architecture; InvalidArgument listing the known ones otherwise.
absl::Status CheckHipArch(std::string_view arch);

class HipTargetInfo final : public passes::TargetInfo {
 public:
  // `arch` is one of KnownHipArchs().
  explicit HipTargetInfo(std::string arch) : arch_(std::move(arch)), name_("hip:" + arch_) {}

  std::string name() const override { return name_; }
  std::string arch() const override { return arch_; }
  // CDNA wavefronts: 64 lanes in lock step.
  int warp_size() const override { return 64; }
  // CDNA2 and CDNA3 give a lane 512 VGPRs (256 architectural and 256 accumulation).
  int64_t max_registers_per_thread() const override { return 512; }
  int64_t ThreadsExecutingBlock(const Launch& launch) const override;
  // LDS per workgroup: 64 KiB on gfx90a and gfx940.
  int64_t max_shared_memory_bytes() const override { return 64 * 1024; }
  int max_vector_bytes() const override { return 16; }
  // Global-to-LDS copies go through registers (no cp.async counterpart used
  // here), so multi-buffered software pipelines do not pay off.
  bool has_async_copy() const override { return false; }
  // Refuses every operation on fp8 (HIP 5.2 has no fp8 types; gfx90a has no
  // fp8 instructions), gemm on i4 (no packed-nibble matrix arithmetic),
  // arithmetic on bool, and atomic_add on i4.
  absl::Status CheckTileOp(passes::TileOpKind op, DataType dtype) const override;
  // Matrix cores (gemm_mfma.h): the MFMA 32x32x8 accumulator layout, and one
  // tl::gemm_mfma call for a gemm that has it; other gemms take the FMA path.
  std::optional<Layout> FragmentLayoutForGemm(const Gemm& gemm,
                                              const KernelNode& kernel) const override;
  // A fragment A is read from registers by tl::gemm_mfma_rs (MfmaRegisterALayout).
  std::optional<Layout> RegisterOperandLayoutForGemm(const Gemm& gemm,
                                                     const KernelNode& kernel) const override;
  absl::StatusOr<std::optional<Stmt>> LowerGemm(
      const passes::GemmLoweringRequest& request) const override;

 private:
  std::string arch_;
  std::string name_;
};

// The pass pipeline that lowers a tile-level module for HIP (every architecture).
std::string DefaultHipPipeline();

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_TARGET_INFO_H_
