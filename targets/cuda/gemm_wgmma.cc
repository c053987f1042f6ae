// When a gemm fits wgmma.mma_async m64nNk16, and the accumulator layout and call that say so.
#include "targets/cuda/gemm_wgmma.h"

#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/gemm_operands.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/passes/core_matrix_tiles.h"

namespace tile_ir::cuda {
namespace {

constexpr int64_t kWarpgroupThreads = 128;
constexpr int64_t kWgmmaM = 64;
constexpr int64_t kWgmmaK = 16;

// A shared operand region covering its buffer's last two dimensions whole (those before
// of extent 1): rows x cols, stored row-major as far as indices go (any row padding is
// dropped by core-matrix-tiles, so `ld` is the row length).
std::optional<passes::SharedMatrix> AsWholeSharedMatrix(const Region& region) {
  const BufferNode& buffer = *region.buffer;
  if (buffer.scope != MemoryScope::kShared || buffer.layout) return std::nullopt;
  size_t rank = region.ranges.size();
  if (rank < 2 || buffer.shape.size() != rank) return std::nullopt;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (AsConstInt(region.ranges[d].extent) != 1) return std::nullopt;
  }
  if (!buffer.strides.empty() && AsConstInt(buffer.strides[rank - 1]) != 1) return std::nullopt;
  std::optional<int64_t> extents[2];
  for (size_t d = rank - 2; d < rank; ++d) {
    std::optional<int64_t> extent = AsConstInt(region.ranges[d].extent);
    if (!extent || AsConstInt(region.ranges[d].min) != 0 || AsConstInt(buffer.shape[d]) != extent) {
      return std::nullopt;
    }
    extents[d - (rank - 2)] = extent;
  }
  return passes::SharedMatrix{*extents[0], *extents[1], *extents[1]};
}

bool IsWgmmaInput(DataType dtype) { return dtype == kF16 || dtype == kBF16; }

// `b_atom_bytes` > 0: B is N-major and swizzled in atoms of that many bytes per row, so each
// warpgroup's columns must start on an atom (device/gemm_wgmma.cuh).
std::optional<std::pair<int64_t, int64_t>> SplitWarpgroups(WarpPolicy policy, int64_t groups,
                                                           int64_t m, int64_t n,
                                                           int64_t element_bytes,
                                                           int64_t b_atom_bytes) {
  return passes::SplitWarps(policy, groups, m, n, [&](int64_t gm, int64_t gn) {
    return m % (gm * kWgmmaM) == 0 && n % gn == 0 && IsWgmmaWidth(n / gn) &&
           (b_atom_bytes == 0 || gn == 1 || (n / gn) * element_bytes % b_atom_bytes == 0);
  });
}

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, std::move(a), Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, std::move(a), Int(b)); }

}  // namespace

bool IsWgmmaWidth(int64_t n) {
  switch (n) {
    case 8:
    case 16:
    case 32:
    case 64:
    case 96:
    case 128:
    case 192:
    case 256: return true;
    default: return false;
  }
}

std::optional<int64_t> WgmmaRegisterOperandLength(const Call& gemm, int arg) {
  const BufferLoad* operand =
      gemm.args.size() == 11 && arg >= 0 && arg < 11 ? As<BufferLoad>(gemm.args[arg]) : nullptr;
  if (operand == nullptr) return std::nullopt;
  const BufferNode& buffer = *operand->buffer;
  return buffer.rank() == 1 ? AsConstInt(buffer.shape[0]) : std::nullopt;
}

absl::Status RegisterGemmWgmmaIntrinsic() {
  RegisterCudaLibraryIntrinsics();  // cuda.fence_proxy_async
  struct Intrinsic {
    const char* name;
    int num_args;
    int num_template_args;
    const char* description;
    // The shared tiles it reads as core matrices (fenced by cuda.fence_proxy_async).
    std::vector<int> core_matrix_operands;
  };
  const Intrinsic intrinsics[] = {
      {kGemmWgmmaIntrinsic,
       11,
       8,
       "tile gemm on Hopper's warpgroup tensor cores: A, B in shared memory in core-matrix "
       "order, the accumulator fragment in registers (device/gemm_wgmma.cuh)",
       {0, 1}},
      {kGemmWgmmaAsyncIntrinsic,
       11,
       8,
       "cuda.gemm_wgmma returning with its group of instructions in flight and every earlier "
       "one done (device/gemm_wgmma.cuh)",
       {0, 1}},
      {kWgmmaWaitIntrinsic,
       3,
       2,
       "waits until at most arg 1 groups of wgmma are in flight, then hands the arg 2 "
       "accumulators from arg 0 back to the code",
       {}},
      {kGemmWgmmaRegisterAIntrinsic,
       11,
       8,
       "tile gemm on Hopper's warpgroup tensor cores with A in registers: A a 16-bit fragment "
       "laid out as an accumulator, B in shared memory in core-matrix order, the accumulator "
       "fragment in registers (device/gemm_wgmma_rs.cuh)",
       {1}},
      {kGemmWgmmaRegisterAAsyncIntrinsic,
       11,
       8,
       "cuda.gemm_wgmma_rs returning with its group of instructions in flight, waiting for "
       "nothing (device/gemm_wgmma_rs.cuh)",
       {1}},
      {kWgmmaFenceOperandIntrinsic,
       2,
       1,
       "after the wait that retired a cuda.gemm_wgmma_rs_async, hands the arg 1 16-bit A "
       "registers from arg 0 back to the code",
       {}},
  };
  for (const Intrinsic& intrinsic : intrinsics) {
    const bool reads_tiles = !intrinsic.core_matrix_operands.empty();
    absl::Status registered = RegisterCudaIntrinsic(
        intrinsic.name, intrinsic.num_args, intrinsic.num_template_args, intrinsic.description,
        /*async_copy=*/false, intrinsic.core_matrix_operands,
        /*core_matrix_fence=*/reads_tiles ? "cuda.fence_proxy_async" : "");
    if (!registered.ok()) return registered;
  }
  return absl::OkStatus();
}

std::optional<WgmmaPlan> PlanWgmma(const Gemm& gemm, int64_t threads) {
  DataType input = gemm.a.buffer->dtype;
  if (!IsWgmmaInput(input) || gemm.b.buffer->dtype != input) return std::nullopt;
  const bool a_in_registers = gemm.a.buffer->scope == MemoryScope::kFragment;
  // A in registers is K-major (not transposed); B is read from shared memory either way.
  if (a_in_registers && gemm.transpose_a) return std::nullopt;
  std::optional<passes::GemmOperands> operands =
      passes::MatchGemmOperands(gemm, [&](const Region& region) {
        return a_in_registers && &region == &gemm.a ? passes::AsWholeFragmentMatrix(region)
                                                    : AsWholeSharedMatrix(region);
      });
  if (!operands || operands->k % kWgmmaK != 0) return std::nullopt;
  if (threads <= 0 || threads % kWarpgroupThreads != 0) return std::nullopt;
  // The operand tiles as stored: B is [K][N] (N-major) unless transposed.
  const int64_t bytes = input.bits() / 8;
  bool b_n_major_swizzled =
      !gemm.transpose_b && passes::SwizzledCoreMatrixTile(operands->b.cols * bytes);
  bool b_swizzled = passes::SwizzledCoreMatrixTile(operands->b.cols * bytes);
  if (a_in_registers) {
    // Each warpgroup holds whole rows of A: the warpgroups split M only.
    int64_t groups = threads / kWarpgroupThreads;
    if (operands->m % (groups * kWgmmaM) != 0 || !IsWgmmaWidth(operands->n)) return std::nullopt;
    return WgmmaPlan{operands->m, operands->n, operands->k, groups, 1, b_swizzled, true};
  }
  std::optional<std::pair<int64_t, int64_t>> groups =
      SplitWarpgroups(gemm.policy, threads / kWarpgroupThreads, operands->m, operands->n, bytes,
                      b_n_major_swizzled ? passes::kSwizzleRowBytes : 0);
  if (!groups) return std::nullopt;
  bool operands_swizzled = passes::SwizzledCoreMatrixTile(operands->a.cols * bytes) && b_swizzled;
  return WgmmaPlan{operands->m,   operands->n,    operands->k,
                   groups->first, groups->second, operands_swizzled};
}

Layout WgmmaAccumulatorLayout(const WgmmaPlan& plan) {
  int64_t group_m = plan.m / plan.warpgroups_m;
  int64_t group_n = plan.n / plan.warpgroups_n;
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr i = layout.inputs[0];
  Expr j = layout.inputs[1];
  Expr group = Add(Mul(Div(i, group_m), plan.warpgroups_n), Div(j, group_n));
  Expr in_group = Add(Add(Mul(Div(Mod(i, kWgmmaM), 16), 32), Mul(Mod(i, 8), 4)), Div(Mod(j, 8), 2));
  Expr reg =
      Add(Add(Mul(Div(Mod(i, group_m), kWgmmaM), group_n / 2), Mul(Div(Mod(j, group_n), 8), 4)),
          Add(Mul(Div(Mod(i, 16), 8), 2), Mod(j, 2)));
  layout.outputs = {Add(Mul(group, kWarpgroupThreads), in_group), reg};
  return layout;
}

Layout WgmmaRegisterALayout(const WgmmaPlan& plan) {
  WgmmaPlan as_accumulator = plan;
  as_accumulator.n = plan.k;
  as_accumulator.warpgroups_n = 1;
  return WgmmaAccumulatorLayout(as_accumulator);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToWgmma(const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  std::optional<WgmmaPlan> plan = PlanWgmma(gemm, passes::LaunchThreads(*request.kernel));
  if (!plan ||
      !passes::HasFragmentLayout(*gemm.c.buffer, WgmmaAccumulatorLayout(*plan), plan->m, plan->n)) {
    return std::optional<Stmt>();
  }
  if (plan->a_in_registers) {
    // A laid out otherwise (not converted in place from an accumulator) is left to the generic
    // lowering, which stages it in shared memory and comes back with both operands there.
    if (!passes::HasFragmentLayout(*gemm.a.buffer, WgmmaRegisterALayout(*plan), plan->m, plan->k)) {
      return std::optional<Stmt>();
    }
    return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmWgmmaRegisterAIntrinsic, plan->m,
                                                    plan->n, plan->k, plan->warpgroups_m,
                                                    plan->warpgroups_n));
  }
  return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmWgmmaIntrinsic, plan->m, plan->n,
                                                  plan->k, plan->warpgroups_m, plan->warpgroups_n));
}

}  // namespace tile_ir::cuda
