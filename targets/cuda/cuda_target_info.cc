// The CUDA TargetInfo, its pipeline string and its registration.
#include "targets/cuda/cuda_target_info.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/analysis/pipeline_schedule.h"
#include "passes/utils/loop_body.h"
#include "targets/cuda/gemm_fma.h"
#include "targets/cuda/gemm_mma.h"
#include "targets/cuda/gemm_wgmma.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/passes/core_matrix_tiles.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

bool IsFp8(DataType dtype) {
  return dtype.scalar() == ScalarType::kF8E4M3 || dtype.scalar() == ScalarType::kF8E5M2;
}

// The gemms of a kernel.
class GemmFinder : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<const Gemm*> gemms;

 protected:
  void VisitGemm(const Gemm& node) override {
    gemms.push_back(&node);
    IRVisitor::VisitGemm(node);
  }
};

// `gemm` and the gemms of `kernel` that share an operand tile with it, directly or through
// others: core-matrix-tiles lays a tile out once for all its readers, so they all take wgmma
// or none does.
std::vector<const Gemm*> GemmsSharingTiles(const Gemm& gemm, const KernelNode& kernel) {
  GemmFinder finder;
  finder.Visit(kernel.body);
  std::vector<const Gemm*> group = {&gemm};
  std::vector<const BufferNode*> tiles = {gemm.a.buffer.get(), gemm.b.buffer.get()};
  auto reads_a_tile = [&](const Gemm* other) {
    return std::find(tiles.begin(), tiles.end(), other->a.buffer.get()) != tiles.end() ||
           std::find(tiles.begin(), tiles.end(), other->b.buffer.get()) != tiles.end();
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (const Gemm* other : finder.gemms) {
      if (std::find(group.begin(), group.end(), other) != group.end() || !reads_a_tile(other)) {
        continue;
      }
      group.push_back(other);
      tiles.push_back(other->a.buffer.get());
      tiles.push_back(other->b.buffer.get());
      grew = true;
    }
  }
  return group;
}

}  // namespace

const std::vector<std::string>& KnownCudaArchs() {
  static const std::vector<std::string>* archs = new std::vector<std::string>{"sm_80", "sm_90a"};
  return *archs;
}

absl::Status CheckCudaArch(std::string_view arch) {
  for (const std::string& known : KnownCudaArchs()) {
    if (known == arch) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown CUDA architecture '", std::string(arch),
                   "'; known: ", absl::StrJoin(KnownCudaArchs(), ", ")));
}

CudaTargetInfo::CudaTargetInfo(std::string arch, WgmmaUse wgmma, std::string name,
                               WarpSpecialization split)
    : arch_(std::move(arch)),
      wgmma_(wgmma),
      name_(name.empty() ? "cuda:" + arch_ : name),
      split_(split) {}

std::optional<WgmmaPlan> CudaTargetInfo::WgmmaPlanFor(const Gemm& gemm,
                                                      const KernelNode& kernel) const {
  if (wgmma_ == WgmmaUse::kNever || arch_ != "sm_90a") return std::nullopt;
  const int64_t threads = ThreadsExecutingBlock(kernel.launch);
  auto takes_wgmma = [&](const std::optional<WgmmaPlan>& plan) {
    return plan && (wgmma_ == WgmmaUse::kWherePossible || plan->operands_swizzled);
  };
  std::optional<WgmmaPlan> plan = PlanWgmma(gemm, threads);
  if (!takes_wgmma(plan)) return std::nullopt;
  for (const Gemm* other : GemmsSharingTiles(gemm, kernel)) {
    if (other != &gemm && !takes_wgmma(PlanWgmma(*other, threads))) return std::nullopt;
  }
  return plan;
}

int64_t CudaTargetInfo::ThreadsExecutingBlock(const Launch& launch) const {
  int64_t threads = 1;
  for (int64_t extent : launch.threads) threads *= extent;
  return threads;
}

int64_t CudaTargetInfo::max_shared_memory_bytes() const {
  // cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on H100/H200, 163 KiB on A100.
  return (arch_ == "sm_80" ? 163 : 227) * int64_t{1024};
}

absl::Status CudaTargetInfo::CheckTileOp(passes::TileOpKind op, DataType dtype) const {
  auto refuse = [&](absl::string_view capability) {
    return absl::UnimplementedError(
        absl::StrCat("cuda target (", arch_, "): ", std::string(passes::TileOpKindName(op)), " on ",
                     dtype.ToString(), " needs ", capability, ", which this target does not have"));
  };
  bool arithmetic = op == passes::TileOpKind::kGemm || op == passes::TileOpKind::kReduce ||
                    op == passes::TileOpKind::kAtomicAdd || op == passes::TileOpKind::kCumsum;
  if (dtype.is_void()) return refuse("a value type");
  if (arithmetic && dtype.is_bool()) return refuse("arithmetic on bool elements");
  if (op == passes::TileOpKind::kGemm && dtype.scalar() == ScalarType::kI4) {
    return refuse("packed 4-bit integer matrix arithmetic");
  }
  if (op == passes::TileOpKind::kGemm && IsFp8(dtype) && arch_ == "sm_80") {
    return refuse("fp8 matrix instructions (sm_89 or newer)");
  }
  if (op == passes::TileOpKind::kAtomicAdd && dtype.scalar() == ScalarType::kI4) {
    return refuse("atomic read-modify-write of packed 4-bit elements");
  }
  return absl::OkStatus();
}

std::optional<Layout> CudaTargetInfo::FragmentLayoutForGemm(const Gemm& gemm,
                                                            const KernelNode& kernel) const {
  if (std::optional<WgmmaPlan> plan = WgmmaPlanFor(gemm, kernel)) {
    return WgmmaAccumulatorLayout(*plan);
  }
  const int64_t threads = ThreadsExecutingBlock(kernel.launch);
  if (std::optional<Layout> mma = MmaAccumulatorLayout(gemm, threads)) return mma;
  return FmaAccumulatorLayout(gemm, threads);
}

std::optional<Layout> CudaTargetInfo::RegisterOperandLayoutForGemm(const Gemm& gemm,
                                                                   const KernelNode& kernel) const {
  if (std::optional<WgmmaPlan> plan = WgmmaPlanFor(gemm, kernel)) {
    if (plan->a_in_registers) return WgmmaRegisterALayout(*plan);
    return std::nullopt;
  }
  return MmaRegisterALayout(gemm, ThreadsExecutingBlock(kernel.launch));
}

absl::StatusOr<std::optional<Stmt>> CudaTargetInfo::LowerGemm(
    const passes::GemmLoweringRequest& request) const {
  const Gemm& gemm = *request.gemm;
  const bool takes_wgmma = WgmmaPlanFor(gemm, *request.kernel).has_value();
  if (takes_wgmma) {
    absl::StatusOr<std::optional<Stmt>> wgmma = LowerGemmToWgmma(request);
    // An accumulator laid out otherwise (a layout the user wrote) falls through to mma.sync.
    if (!wgmma.ok() || *wgmma) return wgmma;
  }
  // The FMA gemm exactly where FragmentLayoutForGemm gave its layout: neither tensor-core gemm
  // plans this one.
  if (takes_wgmma || MmaAccumulatorLayout(gemm, ThreadsExecutingBlock(request.kernel->launch))) {
    return LowerGemmToMma(request);
  }
  return LowerGemmToFma(request);
}

std::vector<std::pair<const BufferNode*, int64_t>> CudaTargetInfo::SharedBufferAlignments(
    const KernelNode& kernel) const {
  std::vector<std::pair<const BufferNode*, int64_t>> alignments;
  for (const BufferNode* buffer : passes::CoreMatrixOperandBuffers(kernel)) {
    alignments.emplace_back(buffer, passes::kCoreMatrixTileAlignment);
  }
  return alignments;
}

// cp.async with a source size of 0 where `copy_if` is false: the bytes land as zeros.
std::optional<Stmt> CudaTargetInfo::AsyncCopy(const Expr& dst, const Expr& src, int bytes,
                                              const Expr& copy_if) const {
  if (bytes != 16 && bytes != 8 && bytes != 4) return std::nullopt;
  return Evaluate::Make(Call::Make(kVoid, absl::StrCat("cuda.cp_async_", bytes),
                                   {dst, src, copy_if ? copy_if : Bool(true)}));
}

std::string DefaultCudaPipeline() {
  return "simplify,longest-blocks-first,rasterize-blocks,unswitch-selects,layout-inference,"
         "pipeline-planning,warp-specialize,"
         "inject-software-pipeline,pad-shared-rows,lower-tile-ops,bound-predication,"
         "thread-binding,vectorize,async-copies,core-matrix-tiles,plan-shared-memory,"
         "insert-barriers,warp-roles,overlap-gemm-chains,simplify,remove-dead-code";
}

int64_t CudaTargetInfo::dim_divisibility_specialization(const KernelNode& kernel) const {
  if (!warp_specializes()) return 1;
  // What warp-specialize splits: a pipelined loop at the top level whose body copies from
  // global into shared memory (its TMA loads, and the TMA stores of the consumers after it,
  // are what proved pitches buy), the copies found as warp-specialize finds them.
  for (const Stmt& s : Seq::StmtsOf(kernel.body)) {
    const For* loop = As<For>(s);
    if (loop == nullptr || loop->for_kind != ForKind::kPipelined) continue;
    for (const Stmt& statement : passes::LoopBodyStmts(*loop)) {
      if (passes::IsGlobalToSharedCopy(statement)) return 16;
    }
  }
  return 1;
}

bool CudaTargetInfo::OnFastestPath(const KernelNode& lowered) const {
  return !warp_specializes() || SetsWarpgroupRegisters(lowered);
}

}  // namespace tile_ir::cuda
