// FlashAttention forward, as TileLang's example writes it: one block per
// (query tile, head, batch); K and V tiles stream through shared memory in a
// pipelined loop; scores accumulate in fp32 fragments with an online softmax
// (running row max, rescaled running sum and output), and P goes back to fp16
// for the second gemm. Q, K, V and O are fp16 [batch, heads, seq, dim].
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "frontends/cpp/dsl.h"
#include "ops/families.h"

namespace tile_ir::ops {
namespace {

using dsl::alloc_fragment;
using dsl::alloc_shared;
using dsl::cast;
using dsl::ceildiv;
using dsl::clear;
using dsl::copy;
using dsl::E;
using dsl::exp2_ftz;
using dsl::fill;
using dsl::gemm;
using dsl::KernelBuilder;
using dsl::parallel;
using dsl::pipelined;
using dsl::reduce_max;
using dsl::reduce_sum;
using dsl::select;
using dsl::Tensor;

// The tile of queries one block takes, the tile of keys it streams, and its threads: 64 x 64
// with one warpgroup, or TileLang's configuration for Hopper (128 x 128, two warpgroups).
struct AttentionTiles {
  int block_m = 64;
  int block_n = 64;
  int threads = 128;
};

absl::StatusOr<Kernel> BuildFlashAttention(const std::string& name, int dim, bool causal,
                                           AttentionTiles tiles) {
  const int kBlockM = tiles.block_m, kBlockN = tiles.block_n;
  KernelBuilder k(name);
  E BATCH = k.Dim("BATCH"), HEADS = k.Dim("HEADS"), SEQ = k.Dim("SEQ");
  std::vector<E> shape = {BATCH, HEADS, SEQ, dim};
  Tensor Q = k.Param("Q", kF16, shape);
  Tensor K = k.Param("K", kF16, shape);
  Tensor V = k.Param("V", kF16, shape);
  Tensor O = k.Param("O", kF16, shape);
  std::vector<E> blocks = k.Launch({ceildiv(SEQ, kBlockM), HEADS, BATCH}, {tiles.threads});
  E bx = blocks[0], by = blocks[1], bz = blocks[2];
  Tensor Q_s = alloc_shared("Q_s", {kBlockM, dim}, kF16);
  Tensor K_s = alloc_shared("K_s", {kBlockN, dim}, kF16);
  Tensor V_s = alloc_shared("V_s", {kBlockN, dim}, kF16);
  Tensor O_s = alloc_shared("O_s", {kBlockM, dim}, kF16);
  Tensor S = alloc_fragment("S", {kBlockM, kBlockN}, kF32);
  Tensor P = alloc_fragment("P", {kBlockM, kBlockN}, kF16);
  Tensor acc_o = alloc_fragment("acc_o", {kBlockM, dim}, kF32);
  Tensor row_max = alloc_fragment("row_max", {kBlockM}, kF32);
  Tensor prev_max = alloc_fragment("prev_max", {kBlockM}, kF32);
  Tensor rescale = alloc_fragment("rescale", {kBlockM}, kF32);
  Tensor tile_sum = alloc_fragment("tile_sum", {kBlockM}, kF32);
  Tensor row_sum = alloc_fragment("row_sum", {kBlockM}, kF32);
  // softmax(q.k / sqrt(dim)) through exp2: fold log2(e) into the score scale. exp2_ftz, since
  // a probability below 2^-126 adds nothing to a row sum of at least 1, and the flushing form
  // is one instruction where exp2 is five on CUDA (H200, run 16: the warp-specialized b128
  // kernel runs 571 TFLOP/s with it, 387 with exp2).
  const double scale = std::numbers::log2e / std::sqrt(static_cast<double>(dim));

  copy(Q.tile({bz, by, bx * kBlockM, 0}), Q_s);
  clear(acc_o);
  clear(row_sum);
  fill(row_max, -INFINITY);
  // A causal query tile sees no key past its own last row.
  E key_tiles = causal ? dsl::min(ceildiv(SEQ, kBlockN), ceildiv((bx + 1) * kBlockM, kBlockN))
                       : ceildiv(SEQ, kBlockN);
  pipelined(key_tiles, 2, [&](E kt) {
    copy(K.tile({bz, by, kt * kBlockN, 0}), K_s);
    // The mask is the gemm's starting value: 0 where a query may see a key,
    // -inf elsewhere (keys past SEQ read as zeros and must not count).
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      E key = kt * kBlockN + j;
      E visible = causal ? key < SEQ && bx * kBlockM + i >= key : key < SEQ;
      S(i, j) = select(visible, 0.0f, -INFINITY);
    });
    gemm(Q_s, K_s, S, {.transpose_b = true, .policy = WarpPolicy::kFullRow});
    copy(row_max, prev_max);
    reduce_max(S, row_max, 1, /*clear=*/false);
    // Key 0 is visible to every query, so row_max is finite after the first tile.
    parallel(kBlockM, [&](E i) { rescale(i) = exp2_ftz(prev_max(i) * scale - row_max(i) * scale); });
    parallel(kBlockM, dim, [&](E i, E j) { acc_o(i, j) = acc_o(i, j) * rescale(i); });
    parallel(kBlockM, kBlockN,
             [&](E i, E j) { S(i, j) = exp2_ftz(S(i, j) * scale - row_max(i) * scale); });
    reduce_sum(S, tile_sum, 1);
    parallel(kBlockM, [&](E i) { row_sum(i) = row_sum(i) * rescale(i) + tile_sum(i); });
    parallel(kBlockM, kBlockN, [&](E i, E j) { P(i, j) = cast(kF16, S(i, j)); });
    copy(V.tile({bz, by, kt * kBlockN, 0}), V_s);
    gemm(P, V_s, acc_o, {.policy = WarpPolicy::kFullRow});
  });
  parallel(kBlockM, dim, [&](E i, E j) { O_s(i, j) = cast(kF16, acc_o(i, j) / row_sum(i)); });
  copy(O_s, O.tile({bz, by, bx * kBlockM, 0}));
  return k.Finish();
}

void AttentionReference(RefTensors& t, const Shapes& dims, int dim, bool causal) {
  const int64_t batch = dims.at("BATCH"), heads = dims.at("HEADS"), seq = dims.at("SEQ");
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  std::vector<double> p(seq);
  for (int64_t bh = 0; bh < batch * heads; ++bh) {
    const double* q = &t.at("Q").data[bh * seq * dim];
    const double* k = &t.at("K").data[bh * seq * dim];
    const double* v = &t.at("V").data[bh * seq * dim];
    double* o = &t.at("O").data[bh * seq * dim];
    for (int64_t i = 0; i < seq; ++i) {
      const int64_t keys = causal ? i + 1 : seq;
      double max = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (int d = 0; d < dim; ++d) dot += q[i * dim + d] * k[j * dim + d];
        p[j] = dot * scale;
        max = std::max(max, p[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < keys; ++j) {
        p[j] = std::exp(p[j] - max);
        sum += p[j];
      }
      for (int d = 0; d < dim; ++d) {
        double out = 0;
        for (int64_t j = 0; j < keys; ++j) out += p[j] * v[j * dim + d];
        o[i * dim + d] = out / sum;
      }
    }
  }
}

OpCase MakeAttentionOp(int dim, bool causal, AttentionTiles tiles = {}) {
  std::string name = "flash_attn_d" + std::to_string(dim) +
                     (tiles.block_m == 64 ? "" : "_b" + std::to_string(tiles.block_m)) +
                     (causal ? "_causal" : "");
  std::string tile_text = std::to_string(tiles.block_m) + "x" + std::to_string(tiles.block_n) +
                          " tiles, " + std::to_string(tiles.threads) + " threads";
  OpCase op;
  op.name = name;
  op.description = std::string(causal ? "causal" : "full") + " FlashAttention forward, head dim " +
                   std::to_string(dim) +
                   ", fp16 [batch, heads, seq, dim] in and out, fp32 online softmax; " + tile_text;
  op.build = [name, dim, causal, tiles] { return BuildFlashAttention(name, dim, causal, tiles); };
  op.default_shapes = {{"BATCH", 1}, {"HEADS", 2}, {"SEQ", 256}};
  op.ragged_shapes = {{"BATCH", 2}, {"HEADS", 1}, {"SEQ", 177}};
  op.outputs = {"O"};
  op.reference = [dim, causal](RefTensors& t, const Shapes& dims,
                               const std::map<std::string, double>&) {
    AttentionReference(t, dims, dim, causal);
  };
  // O is a convex combination of V rows. Rounding P to fp16 for the second
  // gemm moves each weight by at most 2^-11 of itself, so O by at most 2^-11
  // times the weighted mean of |V|: below 1 for V in [-1, 1] and, with N(0, 1)
  // V, near E|V| = 0.8 (the scores q.k / sqrt(dim) are N(0, 1) too, so no key
  // dominates). The fp16 output rounding adds 2^-11 |O|: 1e-3 in all, doubled.
  op.atol = 2e-3;
  op.rtol = 2e-3;
  const double work = causal ? 0.5 : 1.0;
  op.flops = [dim, work](const Shapes& d) {
    double s = d.at("SEQ");
    return 4.0 * work * d.at("BATCH") * d.at("HEADS") * s * s * dim;
  };
  op.bytes = [dim](const Shapes& d) {
    return 4.0 * 2.0 * d.at("BATCH") * d.at("HEADS") * d.at("SEQ") * dim;
  };
  return op;
}

}  // namespace

std::vector<OpCase> AttentionOps() {
  // TileLang's attention example on Hopper (examples/flash_attention, 128 x 128 blocks, 256
  // threads) beside the 64 x 64 one.
  const AttentionTiles tilelang_hopper{128, 128, 256};
  return {MakeAttentionOp(64, false),
          MakeAttentionOp(64, true),
          MakeAttentionOp(128, false),
          MakeAttentionOp(128, true),
          MakeAttentionOp(128, false, tilelang_hopper),
          MakeAttentionOp(128, true, tilelang_hopper)};
}

}  // namespace tile_ir::ops
