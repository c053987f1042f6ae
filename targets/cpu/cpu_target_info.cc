// The CPU TargetInfo and its registration.
#include "targets/cpu/cpu_target_info.h"

#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "targets/cpu/cpu_gemm_lowering.h"
#include "targets/cpu/host_cpu.h"

namespace tile_ir::cpu {

std::string CpuTargetInfo::arch() const { return HostCpuName(); }

int CpuTargetInfo::max_vector_bytes() const { return HostVectorBytes(); }

absl::Status CpuTargetInfo::CheckTileOp(passes::TileOpKind op, DataType dtype) const {
  bool arithmetic = op == passes::TileOpKind::kGemm || op == passes::TileOpKind::kReduce ||
                    op == passes::TileOpKind::kAtomicAdd || op == passes::TileOpKind::kCumsum;
  if (dtype.is_void() || (arithmetic && dtype.is_bool())) {
    return absl::UnimplementedError(
        absl::StrCat("cpu target: ", std::string(passes::TileOpKindName(op)), " on ",
                     dtype.ToString(), " needs arithmetic on ", dtype.ToString(),
                     " elements, which the CPU target does not define"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Stmt>> CpuTargetInfo::LowerGemm(
    const passes::GemmLoweringRequest& request) const {
  return LowerCpuGemm(request, max_vector_bytes());
}

std::string CpuTargetInfo::DefaultPipeline() const { return DefaultCpuPipeline(); }

std::string DefaultCpuPipeline() {
  return "simplify,rasterize-blocks,layout-inference{target=cpu},pipeline-planning{target=cpu},"
         "inject-software-pipeline{target=cpu},lower-tile-ops{target=cpu},bound-predication,"
         "thread-binding{target=cpu},vectorize{target=cpu},plan-shared-memory{target=cpu},"
         "insert-barriers{target=cpu},simplify,remove-dead-code";
}

void RegisterCpuTarget() {
  static std::once_flag once;
  // AlreadyExists (another component registered "cpu" first) leaves that
  // registration in place, which is all a caller needs.
  std::call_once(once, [] { (void)passes::RegisterTarget(std::make_shared<CpuTargetInfo>()); });
}

}  // namespace tile_ir::cpu
