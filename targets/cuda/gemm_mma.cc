// When a gemm fits mma.sync m16n8k16, and the accumulator layout and call that say so.
#include "targets/cuda/gemm_mma.h"

#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/gemm_operands.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda {
namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kMmaM = 16;
constexpr int64_t kMmaN = 8;
constexpr int64_t kMmaK = 16;
// ldmatrix reads 16 aligned bytes per row, so padded rows must start 16-byte aligned.
constexpr int64_t kLdmatrixRowAlignmentBytes = 16;

bool IsMmaInput(DataType dtype) { return dtype == kF16 || dtype == kBF16; }

// The gemm's shape and warp grid on mma.sync m16n8k16.
struct MmaPlan {
  int64_t m;
  int64_t n;
  int64_t k;
  int64_t warps_m;
  int64_t warps_n;
  int64_t lda;  // row strides of the stored A and B tiles, in elements
  int64_t ldb;
  // A is a fragment tl::gemm_rs reads from registers (warps along M only, not transposed).
  bool a_in_registers = false;
};

std::optional<MmaPlan> PlanMma(const Gemm& gemm, int64_t threads) {
  DataType input = gemm.a.buffer->dtype;
  if (!IsMmaInput(input) || gemm.b.buffer->dtype != input) return std::nullopt;
  // A fragment A is seen as the dense tile it would be staged in; its plan is the same either
  // way, so the accumulator's layout does not depend on where A is read from.
  const bool a_fragment = gemm.a.buffer->scope == MemoryScope::kFragment;
  std::optional<passes::GemmOperands> operands =
      passes::MatchGemmOperands(gemm, [&](const Region& region) {
        return a_fragment && &region == &gemm.a
                   ? passes::AsWholeFragmentMatrix(region)
                   : passes::AsSharedMatrix(region, kLdmatrixRowAlignmentBytes);
      });
  if (!operands || operands->k % kMmaK != 0) return std::nullopt;
  if (threads <= 0 || threads % kWarpSize != 0) return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> warps =
      passes::SplitWarps(gemm.policy, threads / kWarpSize, operands->m, operands->n, kMmaM, kMmaN);
  if (!warps) return std::nullopt;
  const bool a_in_registers = a_fragment && !gemm.transpose_a && warps->second == 1;
  return MmaPlan{operands->m,   operands->n,    operands->k,    warps->first,
                 warps->second, operands->a.ld, operands->b.ld, a_in_registers};
}

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, std::move(a), Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, std::move(a), Int(b)); }

Layout AccumulatorLayout(const MmaPlan& plan) {
  int64_t warp_m = plan.m / plan.warps_m;
  int64_t warp_n = plan.n / plan.warps_n;
  int64_t tiles_n = warp_n / kMmaN;
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr i = layout.inputs[0];
  Expr j = layout.inputs[1];
  Expr warp = Add(Mul(Div(i, warp_m), plan.warps_n), Div(j, warp_n));
  Expr lane = Add(Mul(Mod(i, 8), 4), Div(Mod(j, 8), 2));
  Expr tile = Add(Mul(Div(Mod(i, warp_m), kMmaM), tiles_n), Div(Mod(j, warp_n), kMmaN));
  Expr in_tile = Add(Mul(Div(Mod(i, kMmaM), 8), 2), Mod(j, 2));
  layout.outputs = {Add(Mul(warp, kWarpSize), lane), Add(Mul(tile, 4), in_tile)};
  return layout;
}

// A register operand M x K is laid out as the accumulator of an M x K gemm on the same warps.
Layout RegisterALayout(const MmaPlan& plan) {
  MmaPlan as_accumulator = plan;
  as_accumulator.n = plan.k;
  return AccumulatorLayout(as_accumulator);
}

}  // namespace

absl::Status RegisterGemmMmaIntrinsic() {
  absl::Status shared_a =
      RegisterCudaIntrinsic(kGemmSsIntrinsic, 13, 10,
                            "tile gemm on tensor cores: A, B in shared memory, the "
                            "accumulator fragment in registers (device/gemm_mma.cuh)");
  if (!shared_a.ok()) return shared_a;
  return RegisterCudaIntrinsic(kGemmRsIntrinsic, 12, 9,
                               "tile gemm on tensor cores with A in registers: A a 16-bit "
                               "fragment laid out as an accumulator, B in shared memory, the "
                               "accumulator fragment in registers (device/gemm_mma.cuh)");
}

std::optional<Layout> MmaAccumulatorLayout(const Gemm& gemm, int64_t threads) {
  std::optional<MmaPlan> plan = PlanMma(gemm, threads);
  if (!plan) return std::nullopt;
  return AccumulatorLayout(*plan);
}

std::optional<Layout> MmaRegisterALayout(const Gemm& gemm, int64_t threads) {
  std::optional<MmaPlan> plan = PlanMma(gemm, threads);
  if (!plan || !plan->a_in_registers) return std::nullopt;
  return RegisterALayout(*plan);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToMma(const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  std::optional<MmaPlan> plan = PlanMma(gemm, passes::LaunchThreads(*request.kernel));
  if (!plan ||
      !passes::HasFragmentLayout(*gemm.c.buffer, AccumulatorLayout(*plan), plan->m, plan->n)) {
    return std::optional<Stmt>();
  }
  if (gemm.a.buffer->scope == MemoryScope::kFragment) {
    // A fragment A laid out otherwise (not converted in place from an accumulator of this
    // shape) is left to the generic lowering, which stages it in shared memory, says so in a
    // remark, and asks again with A there.
    if (!plan->a_in_registers ||
        !passes::HasFragmentLayout(*gemm.a.buffer, RegisterALayout(*plan), plan->m, plan->k)) {
      return std::optional<Stmt>();
    }
    return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmRsIntrinsic, plan->m, plan->n,
                                                    plan->k, plan->warps_m, plan->warps_n,
                                                    {Int(plan->ldb)}));
  }
  return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmSsIntrinsic, plan->m, plan->n,
                                                  plan->k, plan->warps_m, plan->warps_n,
                                                  {Int(plan->lda), Int(plan->ldb)}));
}

}  // namespace tile_ir::cuda
