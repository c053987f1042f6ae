// The HIP TargetInfo, its pipeline string and its registration.
#include "targets/hip/hip_target_info.h"

#include <memory>
#include <mutex>

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

HipTargetInfo::HipTargetInfo(std::string arch, std::string registered_name)
    : arch_(std::move(arch)), registered_name_(std::move(registered_name)) {}

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

absl::StatusOr<std::optional<Stmt>> HipTargetInfo::LowerGemm(
    const passes::GemmLoweringRequest& request) const {
  return LowerGemmToMfma(request);
}

std::string HipTargetInfo::DefaultPipeline() const { return DefaultHipPipeline(name()); }

std::string DefaultHipPipeline(std::string_view target_name) {
  std::string t(target_name);
  return absl::StrCat("simplify,rasterize-blocks,layout-inference{target=", t,
                      "},pipeline-planning{target=", t, "},inject-software-pipeline{target=", t,
                      "},lower-tile-ops{target=", t,
                      "},bound-predication,thread-binding{target=", t, "},vectorize{target=", t,
                      "},plan-shared-memory{target=", t, "},insert-barriers{target=", t,
                      "},simplify,remove-dead-code");
}

absl::Status RegisterHipTarget(std::string arch) {
  absl::Status known = CheckHipArch(arch);
  if (!known.ok()) return known;
  RegisterGemmMfmaIntrinsic().IgnoreError();  // fails only if another component took the name
  static std::once_flag once;
  std::call_once(once, [] {
    for (const std::string& each : KnownHipArchs()) {
      // AlreadyExists (registered by another component first) keeps that one.
      passes::RegisterTarget(std::make_shared<HipTargetInfo>(each, "hip:" + each)).IgnoreError();
    }
  });
  // Only the first registration of plain "hip" takes effect.
  passes::RegisterTarget(std::make_shared<HipTargetInfo>(std::move(arch))).IgnoreError();
  return absl::OkStatus();
}

}  // namespace tile_ir::hip
