// The CPU TargetInfo and its registration.
#include "targets/cpu/cpu_target_info.h"

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "targets/cpu/cpu_gemm_lowering.h"
#include "targets/cpu/host_cpu.h"

namespace tile_ir::cpu {

std::string CpuTargetInfo::arch() const { return HostCpuName(); }

int CpuTargetInfo::max_vector_bytes() const { return HostVectorBytes(); }

// Half the core's L2: the block's tiles stay there while the output and the operands' next
// rows stream through the other half. Never more than a block's frame may hold.
int64_t CpuTargetInfo::block_cache_bytes() const {
  return std::min<int64_t>(HostL2CacheBytes() / 2, max_shared_memory_bytes());
}

// The CPU device runs one block per thread of its pool, by default one per hardware thread.
int64_t CpuTargetInfo::concurrent_blocks() const {
  return std::max(1u, std::thread::hardware_concurrency());
}

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

std::string DefaultCpuPipeline() {
  return "simplify,rasterize-blocks,unswitch-selects,layout-inference,pipeline-planning,inject-"
         "software-pipeline,"
         "lower-tile-ops,bound-predication,thread-binding,vectorize,plan-shared-memory,"
         "insert-barriers,simplify,remove-dead-code";
}

}  // namespace tile_ir::cpu
