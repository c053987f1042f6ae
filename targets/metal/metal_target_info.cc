// The Metal TargetInfo, its pipeline string and its registration.
#include "targets/metal/metal_target_info.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "targets/metal/gemm_simdgroup.h"

namespace tile_ir::metal {

int64_t MetalTargetInfo::ThreadsExecutingBlock(const Launch& launch) const {
  int64_t threads = 1;
  for (int64_t extent : launch.threads) threads *= extent;
  return threads;
}

absl::Status MetalTargetInfo::CheckTileOp(passes::TileOpKind op, DataType dtype) const {
  auto refuse = [&](const std::string& capability) {
    return absl::UnimplementedError(absl::StrCat(
        "metal target (", kMetalArch, "): ", std::string(passes::TileOpKindName(op)), " on ",
        dtype.ToString(), " needs ", capability, ", which this target does not have"));
  };
  bool arithmetic = op == passes::TileOpKind::kGemm || op == passes::TileOpKind::kReduce ||
                    op == passes::TileOpKind::kAtomicAdd || op == passes::TileOpKind::kCumsum;
  if (dtype.is_void()) return refuse("a value type");
  if (dtype.scalar() == ScalarType::kF64) return refuse("64-bit floats");
  if (dtype.scalar() == ScalarType::kF8E4M3 || dtype.scalar() == ScalarType::kF8E5M2) {
    return refuse("fp8 types");
  }
  if (arithmetic && dtype.is_bool()) return refuse("arithmetic on bool elements");
  if (op == passes::TileOpKind::kGemm && dtype.scalar() == ScalarType::kI4) {
    return refuse("packed 4-bit integer matrix arithmetic");
  }
  if (op == passes::TileOpKind::kAtomicAdd && dtype != kF32 && dtype != kI32 && dtype != kU32) {
    return refuse(
        "an atomic add of that type (Metal has atomic_float, atomic_int and atomic_uint only)");
  }
  return absl::OkStatus();
}

std::optional<Layout> MetalTargetInfo::FragmentLayoutForGemm(const Gemm& gemm,
                                                             const KernelNode& kernel) const {
  return SimdgroupAccumulatorLayout(gemm, ThreadsExecutingBlock(kernel.launch));
}

absl::StatusOr<std::optional<Stmt>> MetalTargetInfo::LowerGemm(
    const passes::GemmLoweringRequest& request) const {
  return LowerGemmToSimdgroup(request);
}

std::string DefaultMetalPipeline() {
  return "simplify,longest-blocks-first,rasterize-blocks,unswitch-selects,layout-inference,"
         "pipeline-planning,inject-software-pipeline,"
         "lower-tile-ops,bound-predication,thread-binding,vectorize,plan-shared-memory,"
         "insert-barriers,simplify,remove-dead-code";
}

}  // namespace tile_ir::metal
