// Matrix-vector products: TileLang's split-K GEMV, where the threads of a block split each
// row's K between them and combine their partial sums with atomic adds into a shared-memory
// vector before one copy out. It keeps the barriers around shared-memory atomics honest.
#include <string>
#include <vector>

#include "frontends/cpp/dsl.h"
#include "ops/families.h"

namespace tile_ir::ops {
namespace {

using dsl::alloc_fragment;
using dsl::alloc_shared;
using dsl::call;
using dsl::cast;
using dsl::ceildiv;
using dsl::copy;
using dsl::E;
using dsl::evaluate;
using dsl::fill;
using dsl::KernelBuilder;
using dsl::parallel;
using dsl::serial;
using dsl::Tensor;

// 32 rows a block, each row's K split over 8 threads (256 threads), each taking 8 consecutive
// elements (16 bytes of f16) of every 64-element step of K.
constexpr int kBlockN = 32, kSplitK = 8, kTileK = 8, kBlockK = kSplitK * kTileK;

absl::StatusOr<Kernel> BuildGemvSplitK() {
  KernelBuilder k("gemv_splitk_f16");
  E N = k.Dim("N"), K = k.Dim("K");
  Tensor A = k.Param("A", kF16, {K});
  Tensor B = k.Param("B", kF16, {N, K});
  Tensor C = k.Param("C", kF32, {N});
  E bn = k.Launch({ceildiv(N, kBlockN)}, {kBlockN * kSplitK})[0];
  Tensor C_s = alloc_shared("C_s", {kBlockN}, kF32);
  Tensor partial = alloc_fragment("partial", {kBlockN, kSplitK}, kF32);
  fill(C_s, 0.0);
  fill(partial, 0.0);
  serial(ceildiv(K, kBlockK), [&](E bk) {
    parallel(kBlockN, kSplitK, [&](E i, E t) {
      serial(kTileK, [&](E j) {
        E col = bk * kBlockK + t * kTileK + j;
        partial(i, t) = partial(i, t) + cast(kF32, B(bn * kBlockN + i, col)) * cast(kF32, A(col));
      });
    });
  });
  parallel(kBlockN, kSplitK,
           [&](E i, E t) { evaluate(call("atomic_add_at", {C_s(i), partial(i, t)})); });
  copy(C_s, C.tile({bn * kBlockN}));
  return k.Finish();
}

OpCase MakeGemvSplitKOp() {
  OpCase op;
  op.name = "gemv_splitk_f16";
  op.description =
      "C[n] = sum_k B[n, k] A[k], f16 in, fp32 out; K split over 8 threads a row, partial sums "
      "combined by shared-memory atomic adds";
  op.build = BuildGemvSplitK;
  op.default_shapes = {{"N", 4096}, {"K", 4096}};
  op.ragged_shapes = {{"N", 1000}, {"K", 777}};
  op.outputs = {"C"};
  op.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    const int64_t N = dims.at("N"), K = dims.at("K");
    const std::vector<double>& a = t.at("A").data;
    const std::vector<double>& b = t.at("B").data;
    std::vector<double>& c = t.at("C").data;
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t kk = 0; kk < K; ++kk) acc += b[n * K + kk] * a[kk];
      c[n] = acc;
    }
  };
  // Products of f16 inputs are exact in fp32; each of the K additions rounds by at most 2^-24
  // of a partial sum, which grows like sqrt(K) times an input's spread (about 64 at K = 4096
  // for unit-variance inputs): a random walk of K such errors is ~2.5e-4. A lost partial sum
  // (the race this op guards against) is off by about sqrt(K / 8), far beyond atol.
  op.atol = 2e-3;
  op.rtol = 1e-5;
  op.flops = [](const Shapes& d) { return 2.0 * d.at("N") * d.at("K"); };
  op.bytes = [](const Shapes& d) {
    return ElementBytes(kF16) * (double(d.at("N")) * d.at("K") + d.at("K")) +
           ElementBytes(kF32) * d.at("N");
  };
  return op;
}

}  // namespace

std::vector<OpCase> GemvOps() { return {MakeGemvSplitKOp()}; }

}  // namespace tile_ir::ops
