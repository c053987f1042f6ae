// The HIP TargetInfo, its pipeline string and its registration.
#include "targets/hip/hip_target_info.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/hip/gemm_mfma.h"

namespace tile_ir::hip {
namespace {

bool IsFp8(DataType dtype) {
  return dtype.scalar() == ScalarType::kF8E4M3 || dtype.scalar() == ScalarType::kF8E5M2;
}

}  // namespace

const std::vector<std::string>& KnownHipArchs() {
  static const std::vector<std::string>* archs = new std::vector<std::string>{"gfx90a", "gfx940"};
  return *archs;
}

absl::Status CheckHipArch(std::string_view arch) {
  for (const std::string& known : KnownHipArchs()) {
    if (known == arch) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown HIP architecture '", std::string(arch),
                   "'; known: ", absl::StrJoin(KnownHipArchs(), ", ")));
}

int64_t HipTargetInfo::ThreadsExecutingBlock(const Launch& launch) const {
  int64_t threads = 1;
  for (int64_t extent : launch.threads) threads *= extent;
  return threads;
}

absl::Status HipTargetInfo::CheckTileOp(passes::TileOpKind op, DataType dtype) const {
  auto refuse = [&](const std::string& capability) {
    return absl::UnimplementedError(
        absl::StrCat("hip target (", arch_, "): ", std::string(passes::TileOpKindName(op)), " on ",
                     dtype.ToString(), " needs ", capability, ", which this target does not have"));
  };
  bool arithmetic = op == passes::TileOpKind::kGemm || op == passes::TileOpKind::kReduce ||
                    op == passes::TileOpKind::kAtomicAdd || op == passes::TileOpKind::kCumsum;
  if (dtype.is_void()) return refuse("a value type");
  if (IsFp8(dtype)) {
    return refuse(arch_ == "gfx90a"
                      ? "fp8 types (gfx90a has no fp8 instructions, HIP 5.2 no fp8 types)"
                      : "fp8 types (HIP 5.2's headers have none)");
  }
  if (arithmetic && dtype.is_bool()) return refuse("arithmetic on bool elements");
  if (op == passes::TileOpKind::kGemm && dtype.scalar() == ScalarType::kI4) {
    return refuse("packed 4-bit integer matrix arithmetic");
  }
  if (op == passes::TileOpKind::kAtomicAdd && dtype.scalar() == ScalarType::kI4) {
    return refuse("atomic read-modify-write of packed 4-bit elements");
  }
  return absl::OkStatus();
}

std::optional<Layout> HipTargetInfo::FragmentLayoutForGemm(const Gemm& gemm,
                                                           const KernelNode& kernel) const {
  return MfmaAccumulatorLayout(gemm, ThreadsExecutingBlock(kernel.launch));
}

std::optional<Layout> HipTargetInfo::RegisterOperandLayoutForGemm(const Gemm& gemm,
                                                                  const KernelNode& kernel) const {
  return MfmaRegisterALayout(gemm, ThreadsExecutingBlock(kernel.launch));
}

absl::StatusOr<std::optional<Stmt>> HipTargetInfo::LowerGemm(
    const passes::GemmLoweringRequest& request) const {
  return LowerGemmToMfma(request);
}

std::string DefaultHipPipeline() {
  return "simplify,longest-blocks-first,rasterize-blocks,unswitch-selects,layout-inference,"
         "pipeline-planning,inject-software-pipeline,"
         "lower-tile-ops,bound-predication,thread-binding,vectorize,plan-shared-memory,"
         "insert-barriers,simplify,remove-dead-code";
}

}  // namespace tile_ir::hip
