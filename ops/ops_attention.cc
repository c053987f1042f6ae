// FlashAttention forward, as TileLang's example writes it: one block per
// (query tile, head, batch); K and V tiles stream through shared memory in a
// pipelined loop; scores accumulate in fp32 fragments with an online softmax
// (running row max, rescaled running sum and output), and P goes back to fp16
// for the second gemm. Q, K, V and O are fp16 [batch, heads, seq, dim]. Variants
// write the log-sum-exp the backward reads, or share K/V heads among query heads (GQA).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "frontends/cpp/dsl.h"
#include "ops/attention_kernels.h"
#include "ops/attention_reference.h"
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
using dsl::log;
using dsl::parallel;
using dsl::pipelined;
using dsl::reduce_max;
using dsl::reduce_sum;
using dsl::select;
using dsl::Tensor;

}  // namespace

absl::StatusOr<Kernel> BuildFlashAttentionForward(const std::string& name, ForwardVariant variant) {
  const AttentionTiles tiles = variant.tiles;
  const int dim = variant.dim;
  const bool causal = variant.causal;
  const int kBlockM = tiles.block_m, kBlockN = tiles.block_n;
  KernelBuilder k(name);
  E BATCH = k.Dim("BATCH"), HEADS = k.Dim("HEADS");
  E KV_HEADS = variant.grouped ? k.Dim("KV_HEADS") : HEADS;
  E SEQ = k.Dim("SEQ");
  std::vector<E> shape = {BATCH, HEADS, SEQ, dim};
  std::vector<E> kv_shape = {BATCH, KV_HEADS, SEQ, dim};
  Tensor Q = k.Param("Q", kF16, shape);
  Tensor K = k.Param("K", kF16, kv_shape);
  Tensor V = k.Param("V", kF16, kv_shape);
  Tensor O = k.Param("O", kF16, shape);
  Tensor LSE = variant.lse ? k.Param("LSE", kF32, {BATCH, HEADS, SEQ}) : Tensor();
  std::vector<E> blocks = k.Launch({ceildiv(SEQ, kBlockM), HEADS, BATCH}, {tiles.threads});
  if (variant.grouped) k.Require(HEADS % KV_HEADS == 0);
  E bx = blocks[0], by = blocks[1], bz = blocks[2];
  // The K/V head of this query head: consecutive query heads share one.
  E kv_head = variant.grouped ? by / (HEADS / KV_HEADS) : by;
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
    copy(K.tile({bz, kv_head, kt * kBlockN, 0}), K_s);
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
    parallel(kBlockM,
             [&](E i) { rescale(i) = exp2_ftz(prev_max(i) * scale - row_max(i) * scale); });
    parallel(kBlockM, dim, [&](E i, E j) { acc_o(i, j) = acc_o(i, j) * rescale(i); });
    parallel(kBlockM, kBlockN,
             [&](E i, E j) { S(i, j) = exp2_ftz(S(i, j) * scale - row_max(i) * scale); });
    reduce_sum(S, tile_sum, 1);
    parallel(kBlockM, [&](E i) { row_sum(i) = row_sum(i) * rescale(i) + tile_sum(i); });
    parallel(kBlockM, kBlockN, [&](E i, E j) { P(i, j) = cast(kF16, S(i, j)); });
    copy(V.tile({bz, kv_head, kt * kBlockN, 0}), V_s);
    gemm(P, V_s, acc_o, {.policy = WarpPolicy::kFullRow});
  });
  parallel(kBlockM, dim, [&](E i, E j) { O_s(i, j) = cast(kF16, acc_o(i, j) / row_sum(i)); });
  copy(O_s, O.tile({bz, by, bx * kBlockM, 0}));
  if (variant.lse) {
    // In natural-log units of the scaled scores, as FlashAttention's softmax_lse: row_max is a
    // raw q.k, so it takes the 1/sqrt(dim) that `scale` carries in log2 units.
    Tensor lse = alloc_fragment("lse", {kBlockM}, kF32);
    const double sm_scale = 1.0 / std::sqrt(static_cast<double>(dim));
    parallel(kBlockM, [&](E i) { lse(i) = log(row_sum(i)) + row_max(i) * sm_scale; });
    copy(lse, LSE.tile({bz, by, bx * kBlockM}));
  }
  return k.Finish();
}

std::string ForwardName(int dim, bool causal, bool lse) {
  return "flash_attn_d" + std::to_string(dim) + (causal ? "_causal" : "") + (lse ? "_lse" : "");
}

namespace {

// Every (batch, head) of [batch, heads, seq, dim] tensors; K and V heads shared by
// HEADS / KV_HEADS consecutive query heads where the op is grouped.
void AttentionReference(RefTensors& t, const Shapes& dims, int dim, bool causal) {
  const int64_t batch = dims.at("BATCH"), heads = dims.at("HEADS"), seq = dims.at("SEQ");
  const int64_t kv_heads = dims.contains("KV_HEADS") ? dims.at("KV_HEADS") : heads;
  const int64_t head = seq * dim;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t q_at = (b * heads + h) * head;
      const int64_t kv_at = (b * kv_heads + h / (heads / kv_heads)) * head;
      HeadRows rows{&t.at("Q").data[q_at],
                    &t.at("K").data[kv_at],
                    &t.at("V").data[kv_at],
                    seq,
                    seq,
                    dim,
                    causal};
      double* lse = t.contains("LSE") ? &t.at("LSE").data[(b * heads + h) * seq] : nullptr;
      AttentionForwardHead(rows, &t.at("O").data[q_at], lse);
    }
  }
}

std::string TileText(const AttentionTiles& tiles) {
  return std::to_string(tiles.block_m) + "x" + std::to_string(tiles.block_n) + " tiles, " +
         std::to_string(tiles.threads) + " threads";
}

OpCase MakeAttentionOp(std::string name, ForwardVariant variant, std::string description) {
  const int dim = variant.dim;
  const bool causal = variant.causal;
  OpCase op;
  op.name = name;
  op.description = std::move(description) + "; " + TileText(variant.tiles);
  op.build = [name, variant] { return BuildFlashAttentionForward(name, variant); };
  op.default_shapes = {{"BATCH", 1}, {"HEADS", 2}, {"SEQ", 256}};
  op.ragged_shapes = {{"BATCH", 2}, {"HEADS", 1}, {"SEQ", 177}};
  op.outputs = {"O"};
  if (variant.lse) op.outputs.push_back("LSE");
  op.reference = [dim, causal](RefTensors& t, const Shapes& dims,
                               const std::map<std::string, double>&) {
    AttentionReference(t, dims, dim, causal);
  };
  // O is a convex combination of V rows. Rounding P to fp16 for the second
  // gemm moves each weight by at most 2^-11 of itself, so O by at most 2^-11
  // times the weighted mean of |V|: below 1 for V in [-1, 1] and, with N(0, 1)
  // V, near E|V| = 0.8 (the scores q.k / sqrt(dim) are N(0, 1) too, so no key
  // dominates). The fp16 output rounding adds 2^-11 |O|: 1e-3 in all, doubled.
  // LSE (a log of a sum >= 1 plus a row max, from fp32 scores of exact fp16
  // products) errs by a few fp32 ulps of its size, far inside the same bounds.
  op.atol = 2e-3;
  op.rtol = 2e-3;
  const double work = causal ? 0.5 : 1.0;
  op.flops = [dim, work](const Shapes& d) {
    double s = d.at("SEQ");
    return 4.0 * work * d.at("BATCH") * d.at("HEADS") * s * s * dim;
  };
  op.bytes = [dim](const Shapes& d) {
    // Q and O per query head; K and V per K/V head.
    const double kv = d.contains("KV_HEADS") ? d.at("KV_HEADS") : d.at("HEADS");
    return 2.0 * 2.0 * d.at("BATCH") * (d.at("HEADS") + kv) * d.at("SEQ") * dim;
  };
  return op;
}

OpCase MakeForwardOp(int dim, bool causal, AttentionTiles tiles = {}) {
  std::string name = "flash_attn_d" + std::to_string(dim) +
                     (tiles.block_m == 64 ? "" : "_b" + std::to_string(tiles.block_m)) +
                     (causal ? "_causal" : "");
  return MakeAttentionOp(name, {.dim = dim, .causal = causal, .tiles = tiles},
                         std::string(causal ? "causal" : "full") +
                             " FlashAttention forward, head dim " + std::to_string(dim) +
                             ", fp16 [batch, heads, seq, dim] in and out, fp32 online softmax");
}

// The forward the backward runs first: O and its log-sum-exp. Small shapes: the backward's
// checks run it again at theirs.
OpCase MakeForwardLseOp(int dim, bool causal) {
  OpCase op = MakeAttentionOp(
      ForwardName(dim, causal, /*lse=*/true), {.dim = dim, .causal = causal, .lse = true},
      std::string(causal ? "causal" : "full") + " FlashAttention forward, head dim " +
          std::to_string(dim) + ", that also writes LSE [batch, heads, seq] fp32 (the natural " +
          "log-sum-exp of each query's scaled scores, which the backward reads)");
  op.default_shapes = {{"BATCH", 1}, {"HEADS", 1}, {"SEQ", 128}};
  op.ragged_shapes = {{"BATCH", 1}, {"HEADS", 2}, {"SEQ", 100}};
  return op;
}

// Grouped-query attention: the 32 query / 8 K/V head ratio of the peer at default shapes
// (8 over 2), 3 over 1 (multi-query attention) at ragged ones.
OpCase MakeGroupedOp(int dim) {
  OpCase op = MakeAttentionOp(
      "gqa_fwd_d" + std::to_string(dim), {.dim = dim, .grouped = true},
      "grouped-query FlashAttention forward, head dim " + std::to_string(dim) +
          ": Q, O fp16 [batch, heads, seq, dim], K, V fp16 [batch, kv_heads, seq, dim], each K/V "
          "head shared by heads / kv_heads consecutive query heads (any ratio the shapes give)");
  op.default_shapes = {{"BATCH", 1}, {"HEADS", 8}, {"KV_HEADS", 2}, {"SEQ", 128}};
  op.ragged_shapes = {{"BATCH", 2}, {"HEADS", 3}, {"KV_HEADS", 1}, {"SEQ", 100}};
  return op;
}

}  // namespace

std::vector<OpCase> AttentionOps() {
  // TileLang's attention example on Hopper (examples/flash_attention, 128 x 128 blocks, 256
  // threads) beside the 64 x 64 one.
  const AttentionTiles tilelang_hopper{128, 128, 256};
  return {MakeForwardOp(64, false),
          MakeForwardOp(64, true),
          MakeForwardOp(128, false),
          MakeForwardOp(128, true),
          MakeForwardOp(128, false, tilelang_hopper),
          MakeForwardOp(128, true, tilelang_hopper),
          MakeForwardLseOp(64, false),
          MakeForwardLseOp(64, true),
          MakeForwardLseOp(128, false),
          MakeForwardLseOp(128, true),
          MakeGroupedOp(128)};
}

}  // namespace tile_ir::ops
