// What the Metal target tells the generic lowering passes about itself
// (docs/LOWERING.md): Apple GPUs of the Metal 3.1 family (macOS 14 / iOS 17:
// bfloat), simdgroups of 32, 32 KiB of threadgroup memory, synchronous
// copies, simdgroup_matrix gemm where shapes allow, and the capabilities it
// declares: no f64, no fp8, atomic adds on f32 and i32 only.
#ifndef TARGETS_METAL_METAL_TARGET_INFO_H_
#define TARGETS_METAL_METAL_TARGET_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"

namespace tile_ir::metal {

// The language version the emitted source needs, its one "architecture".
inline constexpr char kMetalArch[] = "msl3.1";

class MetalTargetInfo final : public passes::TargetInfo {
 public:
  std::string name() const override { return "metal"; }
  std::string arch() const override { return kMetalArch; }
  // simdgroups: 32 threads on Apple GPUs.
  int warp_size() const override { return 32; }
  int64_t ThreadsExecutingBlock(const Launch& launch) const override;
  // maxThreadgroupMemoryLength: 32 KiB on every Apple GPU family.
  int64_t max_shared_memory_bytes() const override { return 32 * 1024; }
  int max_vector_bytes() const override { return 16; }
  bool has_async_copy() const override { return false; }
  // Refuses every operation on f64 (no doubles in Metal) and fp8 (no type);
  // gemm on integers other than through FMA loops is fine, but gemm on i4
  // (packed nibbles) and arithmetic on bool are refused; atomic_add needs
  // f32 or i32 (Metal's atomic types).
  absl::Status CheckTileOp(passes::TileOpKind op, DataType dtype) const override;
  std::optional<Layout> FragmentLayoutForGemm(const Gemm& gemm,
                                              const KernelNode& kernel) const override;
  absl::StatusOr<std::optional<Stmt>> LowerGemm(
      const passes::GemmLoweringRequest& request) const override;
};

// The pass pipeline that lowers a tile-level module for Metal.
std::string DefaultMetalPipeline();

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_METAL_TARGET_INFO_H_
