// When a gemm fits MFMA 32x32x8, and the accumulator layout and call that say so.
#include "targets/hip/gemm_mfma.h"

#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/gemm_operands.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::hip {
namespace {

constexpr int64_t kWaveSize = 64;
constexpr int64_t kMfmaM = 32;
constexpr int64_t kMfmaN = 32;
constexpr int64_t kMfmaK = 8;

bool IsMfmaInput(DataType dtype) { return dtype == kF16 || dtype == kBF16; }

// The gemm's shape and wave grid on MFMA 32x32x8.
struct MfmaPlan {
  int64_t m;
  int64_t n;
  int64_t k;
  int64_t warps_m;
  int64_t warps_n;
  // A is a fragment tl::gemm_mfma_rs reads from registers (waves along M only, not transposed,
  // K whole 32-wide accumulator tiles of A).
  bool a_in_registers = false;
};

std::optional<MfmaPlan> PlanMfma(const Gemm& gemm, int64_t threads) {
  DataType input = gemm.a.buffer->dtype;
  if (!IsMfmaInput(input) || gemm.b.buffer->dtype != input) return std::nullopt;
  // The device library reads dense LDS tiles only. A fragment A is seen as the dense tile
  // the generic lowering stages it in where it cannot be read from registers, so that the
  // accumulator's layout does not depend on where A is read from.
  const bool a_fragment = gemm.a.buffer->scope == MemoryScope::kFragment;
  std::optional<passes::GemmOperands> operands =
      passes::MatchGemmOperands(gemm, [&](const Region& region) {
        return a_fragment && &region == &gemm.a
                   ? passes::AsWholeFragmentMatrix(region)
                   : passes::AsSharedMatrix(region, /*padded_row_alignment_bytes=*/0);
      });
  if (!operands || operands->k % kMfmaK != 0) return std::nullopt;
  if (threads <= 0 || threads % kWaveSize != 0) return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> waves = passes::SplitWarps(
      gemm.policy, threads / kWaveSize, operands->m, operands->n, kMfmaM, kMfmaN);
  if (!waves) return std::nullopt;
  const bool a_in_registers =
      a_fragment && !gemm.transpose_a && waves->second == 1 && operands->k % kMfmaM == 0;
  return MfmaPlan{operands->m,  operands->n,   operands->k,
                  waves->first, waves->second, a_in_registers};
}

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, std::move(a), Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, std::move(a), Int(b)); }

Layout AccumulatorLayout(const MfmaPlan& plan) {
  int64_t wave_m = plan.m / plan.warps_m;
  int64_t wave_n = plan.n / plan.warps_n;
  int64_t tiles_n = wave_n / kMfmaN;
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr i = layout.inputs[0];
  Expr j = layout.inputs[1];
  Expr wave = Add(Mul(Div(i, wave_m), plan.warps_n), Div(j, wave_n));
  // The ISA's D operand of the swapped instruction (D = C^T): lane i + 32 * ((j / 4) % 2),
  // item 4 * (j / 8) + j % 4 in a 32x32 tile.
  Expr lane = Add(Mod(i, 32), Mul(Mod(Div(Mod(j, kMfmaN), 4), 2), 32));
  Expr tile = Add(Mul(Div(Mod(i, wave_m), kMfmaM), tiles_n), Div(Mod(j, wave_n), kMfmaN));
  Expr item = Add(Mul(Div(Mod(j, kMfmaN), 8), 4), Mod(j, 4));
  layout.outputs = {Add(Mul(wave, kWaveSize), lane), Add(Mul(tile, 16), item)};
  return layout;
}

// A register operand M x K is laid out as the accumulator of an M x K gemm on the same waves.
Layout RegisterALayout(const MfmaPlan& plan) {
  MfmaPlan as_accumulator = plan;
  as_accumulator.n = plan.k;
  return AccumulatorLayout(as_accumulator);
}

}  // namespace

absl::Status RegisterGemmMfmaIntrinsic() {
  absl::Status lds_a = c_source::RegisterLibraryIntrinsic(
      "hip.", kGemmMfmaIntrinsic, 11, 8,
      "tile gemm on matrix cores (MFMA 32x32x8): A, B in LDS, the accumulator fragment in "
      "registers (device/gemm_mfma.h)");
  if (!lds_a.ok()) return lds_a;
  return c_source::RegisterLibraryIntrinsic(
      "hip.", kGemmMfmaRegisterAIntrinsic, 11, 8,
      "tile gemm on matrix cores (MFMA 32x32x8) with A in registers: A a 16-bit fragment laid "
      "out as an accumulator, B in LDS, the accumulator fragment in registers "
      "(device/gemm_mfma.h)");
}

std::optional<Layout> MfmaAccumulatorLayout(const Gemm& gemm, int64_t threads) {
  std::optional<MfmaPlan> plan = PlanMfma(gemm, threads);
  if (!plan) return std::nullopt;
  return AccumulatorLayout(*plan);
}

std::optional<Layout> MfmaRegisterALayout(const Gemm& gemm, int64_t threads) {
  std::optional<MfmaPlan> plan = PlanMfma(gemm, threads);
  if (!plan || !plan->a_in_registers) return std::nullopt;
  return RegisterALayout(*plan);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToMfma(const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  std::optional<MfmaPlan> plan = PlanMfma(gemm, passes::LaunchThreads(*request.kernel));
  if (!plan ||
      !passes::HasFragmentLayout(*gemm.c.buffer, AccumulatorLayout(*plan), plan->m, plan->n)) {
    return std::optional<Stmt>();
  }
  if (gemm.a.buffer->scope == MemoryScope::kFragment) {
    // A laid out otherwise is left to the generic lowering, which stages it in LDS with a
    // remark and asks again with A there.
    if (!plan->a_in_registers ||
        !passes::HasFragmentLayout(*gemm.a.buffer, RegisterALayout(*plan), plan->m, plan->k)) {
      return std::optional<Stmt>();
    }
    return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmMfmaRegisterAIntrinsic, plan->m,
                                                    plan->n, plan->k, plan->warps_m,
                                                    plan->warps_n));
  }
  return std::optional<Stmt>(passes::TileGemmCall(gemm, kGemmMfmaIntrinsic, plan->m, plan->n,
                                                  plan->k, plan->warps_m, plan->warps_n));
}

}  // namespace tile_ir::hip
