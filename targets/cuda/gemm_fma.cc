// When a gemm runs on tl::gemm_fma, its thread grid, and the accumulator layout and call that
// say so.
#include "targets/cuda/gemm_fma.h"

#include <cstdlib>
#include <tuple>
#include <utility>

#include "passes/analysis/gemm_operands.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda {
namespace {

// Warp lanes along N: below this many, a warp reads several rows of C's columns at once.
constexpr int64_t kPreferredThreadsN = 8;

bool IsFmaAccumulator(DataType dtype) { return dtype == kF32 || dtype == kF64; }
bool IsFmaInput(DataType dtype) {
  return dtype == kF32 || dtype == kF64 || dtype == kF16 || dtype == kBF16;
}

// The operands of `gemm` for an f32 or f64 accumulator. A fragment operand is seen as the
// dense tile the generic lowering stages it in, so that the accumulator's layout is the same
// before and after. Scalar loads need rows aligned to the element only (pad-shared-rows keeps
// 16 bytes).
std::optional<passes::GemmOperands> MatchOperands(const Gemm& gemm) {
  return passes::MatchGemmOperands(
      gemm,
      [](const Region& region) {
        return region.buffer->scope == MemoryScope::kFragment
                   ? passes::AsWholeFragmentMatrix(region)
                   : passes::AsSharedMatrix(region, region.buffer->dtype.bits() / 8);
      },
      IsFmaAccumulator);
}

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, std::move(a), Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, std::move(a), Int(b)); }

}  // namespace

absl::Status RegisterGemmFmaIntrinsic() {
  return RegisterCudaIntrinsic(kGemmFmaIntrinsic, 13, 10,
                               "register-tiled tile gemm on the FMA units: A, B in shared "
                               "memory, the accumulator fragment in registers "
                               "(device/gemm_fma.cuh)");
}

std::optional<FmaPlan> PlanFma(const Gemm& gemm, int64_t threads) {
  if (!IsFmaInput(gemm.a.buffer->dtype) || !IsFmaInput(gemm.b.buffer->dtype)) return std::nullopt;
  std::optional<passes::GemmOperands> operands = MatchOperands(gemm);
  if (!operands || operands->k <= 0 || threads <= 0) return std::nullopt;
  const int64_t words_per_element = gemm.c.buffer->dtype.bits() / 32;
  std::optional<FmaPlan> best;
  // Smaller is better: TN below 8, the micro-tile's distance from square, TN.
  std::tuple<bool, int64_t, int64_t> best_key;
  for (int64_t tn = 1; tn <= threads; ++tn) {
    const int64_t tm = threads / tn;
    if (threads % tn != 0 || operands->m % tm != 0 || operands->n % tn != 0) continue;
    const int64_t mr = operands->m / tm;
    const int64_t nr = operands->n / tn;
    if (mr * nr * words_per_element > kMaxFmaAccumulatorRegisters) continue;
    std::tuple<bool, int64_t, int64_t> key = {tn < kPreferredThreadsN, std::llabs(mr - nr), tn};
    if (best && key >= best_key) continue;
    best = FmaPlan{operands->m, operands->n, operands->k, tm, tn, operands->a.ld, operands->b.ld};
    best_key = key;
  }
  return best;
}

Layout FmaAccumulatorLayout(const FmaPlan& plan) {
  const int64_t nr = plan.n / plan.threads_n;
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr i = layout.inputs[0];
  Expr j = layout.inputs[1];
  layout.outputs = {Add(Mul(Mod(i, plan.threads_m), plan.threads_n), Mod(j, plan.threads_n)),
                    Add(Mul(Div(i, plan.threads_m), nr), Div(j, plan.threads_n))};
  return layout;
}

std::optional<Layout> FmaAccumulatorLayout(const Gemm& gemm, int64_t threads) {
  std::optional<FmaPlan> plan = PlanFma(gemm, threads);
  if (!plan) return std::nullopt;
  return FmaAccumulatorLayout(*plan);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToFma(const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  std::optional<FmaPlan> plan = PlanFma(gemm, passes::LaunchThreads(*request.kernel));
  // A fragment operand is left to the generic lowering, which stages it in shared memory and
  // asks again with the staged tile.
  if (!plan || gemm.a.buffer->scope == MemoryScope::kFragment ||
      gemm.b.buffer->scope == MemoryScope::kFragment ||
      !passes::HasFragmentLayout(*gemm.c.buffer, FmaAccumulatorLayout(*plan), plan->m, plan->n)) {
    return std::optional<Stmt>();
  }
  return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmFmaIntrinsic, plan->m, plan->n,
                                                  plan->k, plan->threads_m, plan->threads_n,
                                                  {Int(plan->lda), Int(plan->ldb)}));
}

}  // namespace tile_ir::cuda
