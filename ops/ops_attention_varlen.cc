// FlashAttention forward over a packed batch of sequences of different lengths (FlashAttention's
// varlen interface): Q, K, V and O hold every sequence's tokens one after another, [total,
// heads, dim], and cu_seqlens [batch + 1] the offset where each sequence starts. The grid has
// one block per query tile of the packed batch, not per tile of the longest sequence: a block
// finds its sequence and tile by walking the offsets (sum over sequences of ceildiv(length, 64)
// is below ceildiv(total, 64) + batch, so only up to `batch` blocks go idle), and key tiles
// stop at the sequence's end, so no padding is computed.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "frontends/cpp/dsl.h"
#include "ops/attention_reference.h"
#include "ops/families.h"

namespace tile_ir::ops {
namespace {

using dsl::alloc_fragment;
using dsl::alloc_shared;
using dsl::cast;
using dsl::ceildiv;
using dsl::clear;
using dsl::E;
using dsl::exp2_ftz;
using dsl::fill;
using dsl::gemm;
using dsl::if_then;
using dsl::KernelBuilder;
using dsl::let;
using dsl::parallel;
using dsl::pipelined;
using dsl::reduce_max;
using dsl::reduce_sum;
using dsl::select;
using dsl::Tensor;

constexpr int kBlockM = 64;
constexpr int kBlockN = 64;

std::string VarlenName(int dim, bool causal) {
  return "flash_attn_varlen_d" + std::to_string(dim) + (causal ? "_causal" : "");
}

absl::StatusOr<Kernel> BuildVarlen(int dim, bool causal) {
  KernelBuilder k(VarlenName(dim, causal));
  E TOTAL = k.Dim("TOTAL"), HEADS = k.Dim("HEADS"), OFFSETS = k.Dim("OFFSETS");
  std::vector<E> shape = {TOTAL, HEADS, dim};
  Tensor Q = k.Param("Q", kF16, shape);
  Tensor K = k.Param("K", kF16, shape);
  Tensor V = k.Param("V", kF16, shape);
  Tensor O = k.Param("O", kF16, shape);
  // batch + 1 entries: cu_seqlens[b] is sequence b's first token, the last one `total`.
  Tensor cu_seqlens = k.Param("cu_seqlens", kI32, {OFFSETS});
  E batch = OFFSETS - 1;
  std::vector<E> blocks = k.Launch({ceildiv(TOTAL, kBlockM) + batch, HEADS}, {128});
  E tile_index = blocks[0], head = blocks[1];
  // This block's sequence (-1: none, an idle block) and query tile within it. In shared memory,
  // not per-thread locals: every thread finds the same values, and a branch on shared values is
  // one the whole block takes (insert-barriers refuses shared exchanges under a per-thread one).
  Tensor seq = alloc_shared("seq", {1}, kI32);
  Tensor tile = alloc_shared("tile", {1}, kI32);
  Tensor tiles_before = alloc_shared("tiles_before", {1}, kI32);
  seq(0) = -1;
  tile(0) = 0;
  tiles_before(0) = 0;
  dsl::serial(batch, [&](E s) {
    E tiles = ceildiv(cu_seqlens(s + 1) - cu_seqlens(s), kBlockM);
    if_then(tile_index >= tiles_before(0) && tile_index < tiles_before(0) + tiles, [&] {
      seq(0) = s;
      tile(0) = tile_index - tiles_before(0);
    });
    tiles_before(0) = tiles_before(0) + tiles;
  });
  Tensor Q_s = alloc_shared("Q_s", {kBlockM, dim}, kF16);
  Tensor K_s = alloc_shared("K_s", {kBlockN, dim}, kF16);
  Tensor V_s = alloc_shared("V_s", {kBlockN, dim}, kF16);
  Tensor S = alloc_fragment("S", {kBlockM, kBlockN}, kF32);
  Tensor P = alloc_fragment("P", {kBlockM, kBlockN}, kF16);
  Tensor acc_o = alloc_fragment("acc_o", {kBlockM, dim}, kF32);
  Tensor row_max = alloc_fragment("row_max", {kBlockM}, kF32);
  Tensor prev_max = alloc_fragment("prev_max", {kBlockM}, kF32);
  Tensor rescale = alloc_fragment("rescale", {kBlockM}, kF32);
  Tensor tile_sum = alloc_fragment("tile_sum", {kBlockM}, kF32);
  Tensor row_sum = alloc_fragment("row_sum", {kBlockM}, kF32);
  const double scale = std::numbers::log2e / std::sqrt(static_cast<double>(dim));

  E b = dsl::max(seq(0), 0);
  E bx = tile(0);
  E start = let("start", cu_seqlens(b));
  E end = let("end", cu_seqlens(b + 1));
  E len = end - start;
  // Token `row` of this sequence as one tile row: its rows are `heads` rows apart in the packed
  // tensor, so the tile is gathered; rows past the sequence read zeros (their index clamped to
  // stay inside the tensor, since the select does not stop the load).
  auto gather = [&](const Tensor& from, const Tensor& to, E first_row, int rows) {
    parallel(rows, dim, [&](E i, E j) {
      E row = first_row + i;
      to(i, j) =
          select(row < len, from(dsl::min(start + row, TOTAL - 1), head, j), cast(kF16, E(0.0f)));
    });
  };
  if_then(seq(0) >= 0, [&] {
    gather(Q, Q_s, bx * kBlockM, kBlockM);
    clear(acc_o);
    clear(row_sum);
    fill(row_max, -INFINITY);
    E key_tiles =
        causal ? dsl::min(ceildiv(end - start, kBlockN), ceildiv((bx + 1) * kBlockM, kBlockN))
               : ceildiv(end - start, kBlockN);
    pipelined(key_tiles, 2, [&](E kt) {
      gather(K, K_s, kt * kBlockN, kBlockN);
      parallel(kBlockM, kBlockN, [&](E i, E j) {
        E key = kt * kBlockN + j;
        E visible = causal ? key < len && bx * kBlockM + i >= key : key < len;
        S(i, j) = select(visible, 0.0f, -INFINITY);
      });
      gemm(Q_s, K_s, S, {.transpose_b = true, .policy = WarpPolicy::kFullRow});
      dsl::copy(row_max, prev_max);
      reduce_max(S, row_max, 1, /*clear=*/false);
      // Key 0 of the sequence is visible to every query, so row_max is finite after tile 0.
      parallel(kBlockM,
               [&](E i) { rescale(i) = exp2_ftz(prev_max(i) * scale - row_max(i) * scale); });
      parallel(kBlockM, dim, [&](E i, E j) { acc_o(i, j) = acc_o(i, j) * rescale(i); });
      parallel(kBlockM, kBlockN,
               [&](E i, E j) { S(i, j) = exp2_ftz(S(i, j) * scale - row_max(i) * scale); });
      reduce_sum(S, tile_sum, 1);
      parallel(kBlockM, [&](E i) { row_sum(i) = row_sum(i) * rescale(i) + tile_sum(i); });
      parallel(kBlockM, kBlockN, [&](E i, E j) { P(i, j) = cast(kF16, S(i, j)); });
      gather(V, V_s, kt * kBlockN, kBlockN);
      gemm(P, V_s, acc_o, {.policy = WarpPolicy::kFullRow});
    });
    parallel(kBlockM, dim, [&](E i, E j) {
      E row = bx * kBlockM + i;
      if_then(row < len, [&] { O(start + row, head, j) = cast(kF16, acc_o(i, j) / row_sum(i)); });
    });
  });
  return k.Finish();
}

// Offsets of the sequences packing `total` tokens: a one-token sequence, one of half the
// tokens beyond one per sequence, the rest spread at random, in random order.
std::vector<double> PackedOffsets(const Shapes& dims, std::mt19937_64& rng) {
  const int64_t batch = dims.at("OFFSETS") - 1, total = dims.at("TOTAL");
  std::vector<int64_t> lengths(batch, 1);
  int64_t left = total - batch;
  if (batch > 1) {
    lengths[1] += left / 2;
    left -= left / 2;
    for (; left > 0; --left) ++lengths[1 + rng() % (batch - 1)];
  }
  for (int64_t i = batch - 1; i > 0; --i) std::swap(lengths[i], lengths[rng() % (i + 1)]);
  std::vector<double> offsets(batch + 1, 0.0);
  for (int64_t b = 0; b < batch; ++b) offsets[b + 1] = offsets[b] + lengths[b];
  return offsets;
}

void VarlenReference(RefTensors& t, const Shapes& dims, int dim, bool causal) {
  const int64_t heads = dims.at("HEADS"), batch = dims.at("OFFSETS") - 1;
  const std::vector<double>& offsets = t.at("cu_seqlens").data;
  for (int64_t b = 0; b < batch; ++b) {
    const auto start = static_cast<int64_t>(offsets[b]);
    const int64_t len = static_cast<int64_t>(offsets[b + 1]) - start;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t at = (start * heads + h) * dim, stride = heads * dim;
      std::vector<double> q = GatherRows(t.at("Q").data, at, len, stride, dim);
      std::vector<double> k = GatherRows(t.at("K").data, at, len, stride, dim);
      std::vector<double> v = GatherRows(t.at("V").data, at, len, stride, dim);
      std::vector<double> o(len * dim);
      AttentionForwardHead({q.data(), k.data(), v.data(), len, len, dim, causal}, o.data(),
                           nullptr);
      ScatterRows(o, at, stride, dim, t.at("O").data);
    }
  }
}

OpCase MakeVarlenOp(int dim, bool causal) {
  OpCase op;
  op.name = VarlenName(dim, causal);
  op.description = std::string(causal ? "causal" : "full") +
                   " FlashAttention forward over a packed batch, head dim " + std::to_string(dim) +
                   ": Q, K, V, O fp16 [total, heads, dim] with cu_seqlens [batch + 1] (i32) "
                   "giving each sequence's first token; one block per query tile of the batch; "
                   "64x64 tiles";
  op.build = [dim, causal] { return BuildVarlen(dim, causal); };
  // 4 sequences in 256 tokens; ragged, 5 in 230.
  op.default_shapes = {{"TOTAL", 256}, {"HEADS", 2}, {"OFFSETS", 5}};
  op.ragged_shapes = {{"TOTAL", 230}, {"HEADS", 1}, {"OFFSETS", 6}};
  op.inits = {{"cu_seqlens",
               {.kind = InputInit::Kind::kGenerated,
                .generate = PackedOffsets,
                .about = "offsets of lengths 1, about half the tokens, and "
                         "random ones"}}};
  op.outputs = {"O"};
  op.reference = [dim, causal](RefTensors& t, const Shapes& dims,
                               const std::map<std::string, double>&) {
    VarlenReference(t, dims, dim, causal);
  };
  // As the padded forward's (flash_attn_d128): the same arithmetic per sequence.
  op.atol = 2e-3;
  op.rtol = 2e-3;
  // The lengths are data: counted as if the tokens were split evenly among the sequences.
  const double work = causal ? 0.5 : 1.0;
  op.flops = [dim, work](const Shapes& d) {
    const double batch = d.at("OFFSETS") - 1, per_sequence = d.at("TOTAL") / batch;
    return 4.0 * work * batch * d.at("HEADS") * per_sequence * per_sequence * dim;
  };
  op.bytes = [dim](const Shapes& d) { return 4.0 * 2.0 * d.at("TOTAL") * d.at("HEADS") * dim; };
  return op;
}

}  // namespace

std::vector<OpCase> VarlenOps() { return {MakeVarlenOp(128, false), MakeVarlenOp(128, true)}; }

}  // namespace tile_ir::ops
