// Decoding attention over a paged KV cache, as flash decoding (and TileLang's flash_decoding
// example) splits it: one query token per sequence; K and V live in pages of PAGE_SIZE tokens
// that a block table maps each sequence's positions to, anywhere in the cache; the keys of a
// sequence are split among SPLITS blocks that each write a partial output and its log-sum-exp,
// and a combine kernel weighs the partials into the output. A block takes one K/V head with the
// query heads that share it (grouped-query attention), so their queries share each page load.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
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
using dsl::copy;
using dsl::E;
using dsl::exp;
using dsl::exp2_ftz;
using dsl::fill;
using dsl::gemm;
using dsl::if_then;
using dsl::KernelBuilder;
using dsl::log;
using dsl::parallel;
using dsl::pipelined;
using dsl::reduce_max;
using dsl::reduce_sum;
using dsl::select;
using dsl::serial;
using dsl::Tensor;

constexpr int kDim = 128;
constexpr int kPageSize = 16;
constexpr int kPagesPerTile = 4;  // a key tile gathers this many pages
constexpr int kBlockN = kPageSize * kPagesPerTile;
constexpr int kSplits = 4;
// Query rows per block: the group of query heads sharing a K/V head, padded to an mma's rows.
constexpr int kBlockH = 16;
constexpr int kCombineHeads = 8;  // the combine's heads per block

const char kSplitName[] = "decode_paged_d128";
const char kCombineName[] = "decode_combine_d128";

// The partial results both kernels name: per split, O [batch, splits, heads, dim] (the heads of
// one split adjacent, as the combine loads them) and LSE [batch, heads, splits].
struct Partials {
  Tensor o;
  Tensor lse;
};

Partials PartialParams(KernelBuilder& k, E BATCH, E HEADS) {
  return {k.Param("O_partial", kF32, {BATCH, kSplits, HEADS, kDim}),
          k.Param("LSE_partial", kF32, {BATCH, HEADS, kSplits})};
}

absl::StatusOr<Kernel> BuildSplitDecode() {
  KernelBuilder k(kSplitName);
  E BATCH = k.Dim("BATCH"), HEADS = k.Dim("HEADS"), KV_HEADS = k.Dim("KV_HEADS");
  E NUM_PAGES = k.Dim("NUM_PAGES"), MAX_PAGES = k.Dim("MAX_PAGES");
  Tensor Q = k.Param("Q", kF16, {BATCH, HEADS, kDim});
  Tensor K_pages = k.Param("K_pages", kF16, {NUM_PAGES, KV_HEADS, kPageSize, kDim});
  Tensor V_pages = k.Param("V_pages", kF16, {NUM_PAGES, KV_HEADS, kPageSize, kDim});
  Tensor block_table = k.Param("block_table", kI32, {BATCH, MAX_PAGES});
  Tensor seq_lens = k.Param("seq_lens", kI32, {BATCH});
  Partials partial = PartialParams(k, BATCH, HEADS);
  std::vector<E> blocks = k.Launch({kSplits, KV_HEADS, BATCH}, {128});
  k.Require(HEADS % KV_HEADS == 0 && HEADS / KV_HEADS <= kBlockH);
  E split = blocks[0], kv_head = blocks[1], b = blocks[2];
  E group = HEADS / KV_HEADS;
  Tensor Q_s = alloc_shared("Q_s", {kBlockH, kDim}, kF16);
  Tensor K_s = alloc_shared("K_s", {kBlockN, kDim}, kF16);
  Tensor V_s = alloc_shared("V_s", {kBlockN, kDim}, kF16);
  Tensor S = alloc_fragment("S", {kBlockH, kBlockN}, kF32);
  Tensor P = alloc_fragment("P", {kBlockH, kBlockN}, kF16);
  Tensor acc_o = alloc_fragment("acc_o", {kBlockH, kDim}, kF32);
  Tensor row_max = alloc_fragment("row_max", {kBlockH}, kF32);
  Tensor prev_max = alloc_fragment("prev_max", {kBlockH}, kF32);
  Tensor rescale = alloc_fragment("rescale", {kBlockH}, kF32);
  Tensor tile_sum = alloc_fragment("tile_sum", {kBlockH}, kF32);
  Tensor row_sum = alloc_fragment("row_sum", {kBlockH}, kF32);
  const double sm_scale = 1.0 / std::sqrt(static_cast<double>(kDim));
  const double scale = std::numbers::log2e * sm_scale;

  // The sequence's keys, never more than its block table holds; its key tiles split evenly.
  E seq_len = dsl::min(seq_lens(b), MAX_PAGES * kPageSize);
  E tiles = dsl::min(ceildiv(seq_len, kBlockN), ceildiv(MAX_PAGES, kPagesPerTile));
  E per_split = ceildiv(tiles, kSplits);
  E first = split * per_split;
  E count = dsl::max(dsl::min(per_split, tiles - first), 0);
  // Rows past the group read other heads' queries (or zeros past HEADS) and are never written.
  copy(Q.tile({b, kv_head * group, 0}), Q_s);
  clear(acc_o);
  clear(row_sum);
  fill(row_max, -INFINITY);
  pipelined(count, 2, [&](E step) {
    E kt = first + step;
    // Gather the tile's pages; a position past the table reads its last entry, masked below.
    serial(kPagesPerTile, [&](E p) {
      E page = block_table(b, dsl::min(kt * kPagesPerTile + p, MAX_PAGES - 1));
      copy(K_pages.tile({page, kv_head, 0, 0}), K_s.tile({p * kPageSize, 0}, {kPageSize, kDim}));
    });
    parallel(kBlockH, kBlockN,
             [&](E i, E j) { S(i, j) = select(kt * kBlockN + j < seq_len, 0.0f, -INFINITY); });
    gemm(Q_s, K_s, S, {.transpose_b = true, .policy = WarpPolicy::kFullRow});
    copy(row_max, prev_max);
    reduce_max(S, row_max, 1, /*clear=*/false);
    // Each tile of a split holds at least one key of the sequence, so row_max is finite.
    parallel(kBlockH,
             [&](E i) { rescale(i) = exp2_ftz(prev_max(i) * scale - row_max(i) * scale); });
    parallel(kBlockH, kDim, [&](E i, E j) { acc_o(i, j) = acc_o(i, j) * rescale(i); });
    parallel(kBlockH, kBlockN,
             [&](E i, E j) { S(i, j) = exp2_ftz(S(i, j) * scale - row_max(i) * scale); });
    reduce_sum(S, tile_sum, 1);
    parallel(kBlockH, [&](E i) { row_sum(i) = row_sum(i) * rescale(i) + tile_sum(i); });
    parallel(kBlockH, kBlockN, [&](E i, E j) { P(i, j) = cast(kF16, S(i, j)); });
    serial(kPagesPerTile, [&](E p) {
      E page = block_table(b, dsl::min(kt * kPagesPerTile + p, MAX_PAGES - 1));
      copy(V_pages.tile({page, kv_head, 0, 0}), V_s.tile({p * kPageSize, 0}, {kPageSize, kDim}));
    });
    gemm(P, V_s, acc_o, {.policy = WarpPolicy::kFullRow});
  });
  // A split without keys (a short sequence) writes O 0 and LSE -inf: weight 0 in the combine.
  parallel(kBlockH, kDim, [&](E i, E j) {
    if_then(i < group, [&] {
      partial.o(b, split, kv_head * group + i, j) =
          select(row_sum(i) > 0.0f, acc_o(i, j) / row_sum(i), 0.0f);
    });
  });
  parallel(kBlockH, [&](E i) {
    if_then(i < group, [&] {
      partial.lse(b, kv_head * group + i, split) =
          select(row_sum(i) > 0.0f, log(row_sum(i)) + row_max(i) * sm_scale, -INFINITY);
    });
  });
  return k.Finish();
}

absl::StatusOr<Kernel> BuildCombine() {
  KernelBuilder k(kCombineName);
  E BATCH = k.Dim("BATCH"), HEADS = k.Dim("HEADS");
  Partials partial = PartialParams(k, BATCH, HEADS);
  Tensor O = k.Param("O", kF16, {BATCH, HEADS, kDim});
  std::vector<E> blocks = k.Launch({ceildiv(HEADS, kCombineHeads), BATCH}, {128});
  E bx = blocks[0], b = blocks[1];
  Tensor lse = alloc_fragment("lse", {kCombineHeads, kSplits}, kF32);
  Tensor lse_max = alloc_fragment("lse_max", {kCombineHeads}, kF32);
  Tensor weight = alloc_fragment("weight", {kCombineHeads, kSplits}, kF32);
  Tensor weight_s = alloc_shared("weight_s", {kCombineHeads, kSplits}, kF32);
  Tensor weight_sum = alloc_fragment("weight_sum", {kCombineHeads}, kF32);
  Tensor part = alloc_fragment("part", {kCombineHeads, kDim}, kF32);
  Tensor acc = alloc_fragment("acc", {kCombineHeads, kDim}, kF32);
  Tensor out = alloc_fragment("out", {kCombineHeads, kDim}, kF16);
  copy(partial.lse.tile({b, bx * kCombineHeads, 0}), lse);
  reduce_max(lse, lse_max, 1);
  // Every sequence has a key, so some split's LSE is finite and the largest weight is 1.
  parallel(kCombineHeads, kSplits, [&](E i, E s) { weight(i, s) = exp(lse(i, s) - lse_max(i)); });
  reduce_sum(weight, weight_sum, 1);
  copy(weight, weight_s);
  clear(acc);
  serial(kSplits, [&](E s) {
    copy(partial.o.tile({b, s, bx * kCombineHeads, 0}), part);
    parallel(kCombineHeads, kDim,
             [&](E i, E j) { acc(i, j) = acc(i, j) + weight_s(i, s) * part(i, j); });
  });
  parallel(kCombineHeads, kDim,
           [&](E i, E j) { out(i, j) = cast(kF16, acc(i, j) / weight_sum(i)); });
  copy(out, O.tile({b, bx * kCombineHeads, 0}));
  return k.Finish();
}

// A block table of distinct pages in random order (pages of a sequence are not contiguous).
std::vector<double> RandomBlockTable(const Shapes& dims, std::mt19937_64& rng) {
  const int64_t pages = dims.at("NUM_PAGES");
  std::vector<double> order(pages);
  std::iota(order.begin(), order.end(), 0.0);
  for (int64_t i = pages - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  std::vector<double> table(dims.at("BATCH") * dims.at("MAX_PAGES"));
  for (size_t i = 0; i < table.size(); ++i) table[i] = order[i % pages];
  return table;
}

// Sequence lengths with a one-token sequence and one that fills its table; the rest random.
std::vector<double> DecodeLengths(const Shapes& dims, std::mt19937_64& rng) {
  const int64_t batch = dims.at("BATCH"), longest = dims.at("MAX_PAGES") * kPageSize;
  std::vector<double> lengths(batch);
  for (int64_t b = 0; b < batch; ++b) {
    lengths[b] = b == 0 ? 1 : b == 1 ? longest : 1 + static_cast<double>(rng() % longest);
  }
  for (int64_t i = batch - 1; i > 0; --i) std::swap(lengths[i], lengths[rng() % (i + 1)]);
  return lengths;
}

void DecodeReference(RefTensors& t, const Shapes& dims) {
  const int64_t batch = dims.at("BATCH"), heads = dims.at("HEADS"), kv_heads = dims.at("KV_HEADS");
  const int64_t max_pages = dims.at("MAX_PAGES");
  const std::vector<double>& table = t.at("block_table").data;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t keys =
        std::min<int64_t>(static_cast<int64_t>(t.at("seq_lens").data[b]), max_pages * kPageSize);
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t kv_head = h / (heads / kv_heads);
      std::vector<double> k(keys * kDim), v(keys * kDim);
      for (int64_t j = 0; j < keys; ++j) {
        const auto page = static_cast<int64_t>(table[b * max_pages + j / kPageSize]);
        const int64_t at = ((page * kv_heads + kv_head) * kPageSize + j % kPageSize) * kDim;
        std::copy_n(&t.at("K_pages").data[at], kDim, &k[j * kDim]);
        std::copy_n(&t.at("V_pages").data[at], kDim, &v[j * kDim]);
      }
      const int64_t row = (b * heads + h) * kDim;
      HeadRows rows{&t.at("Q").data[row], k.data(), v.data(), 1, keys, kDim, false};
      AttentionForwardHead(rows, &t.at("O").data[row], nullptr);
    }
  }
}

void CombineReference(RefTensors& t, const Shapes& dims) {
  const int64_t batch = dims.at("BATCH"), heads = dims.at("HEADS");
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const double* lse = &t.at("LSE_partial").data[(b * heads + h) * kSplits];
      const double max = *std::max_element(lse, lse + kSplits);
      double total = 0;
      std::vector<double> sum(kDim, 0.0);
      for (int s = 0; s < kSplits; ++s) {
        const double weight = std::exp(lse[s] - max);
        total += weight;
        const double* o = &t.at("O_partial").data[((b * kSplits + s) * heads + h) * kDim];
        for (int d = 0; d < kDim; ++d) sum[d] += weight * o[d];
      }
      for (int d = 0; d < kDim; ++d) t.at("O").data[(b * heads + h) * kDim + d] = sum[d] / total;
    }
  }
}

OpCase MakeCombineOp() {
  OpCase op;
  op.name = kCombineName;
  op.description =
      "flash decoding's combine, head dim 128: O fp16 [batch, heads, dim] from 4 splits' fp32 "
      "partial outputs [batch, splits, heads, dim] weighted by their log-sum-exps "
      "[batch, heads, splits]; 8 heads per block";
  op.build = BuildCombine;
  op.default_shapes = {{"BATCH", 2}, {"HEADS", 16}};
  op.ragged_shapes = {{"BATCH", 3}, {"HEADS", 6}};
  op.outputs = {"O"};
  op.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    CombineReference(t, dims);
  };
  // An fp32 weighted mean of 4 values (a few fp32 ulps), rounded once to fp16.
  op.atol = 1e-5;
  op.rtol = kF16OutputRtol;
  op.flops = [](const Shapes& d) { return 2.0 * kSplits * d.at("BATCH") * d.at("HEADS") * kDim; };
  op.bytes = [](const Shapes& d) {
    return d.at("BATCH") * d.at("HEADS") * (kSplits * (kDim + 1) * 4.0 + kDim * 2.0);
  };
  return op;
}

OpCase MakeDecodeOp() {
  OpCase op;
  op.name = kSplitName;
  op.description =
      "flash decoding over a paged KV cache, head dim 128: one fp16 query token per sequence "
      "(Q, O [batch, heads, dim]); K, V fp16 pages [num_pages, kv_heads, 16, dim] that "
      "block_table [batch, max_pages] maps each sequence's positions to; seq_lens [batch] keys "
      "each; a block takes one K/V head with its group of query heads (up to 16), 64-key tiles "
      "of 4 pages, 4 splits per sequence, then decode_combine_d128";
  op.build = BuildSplitDecode;
  op.build_stages = []() -> absl::StatusOr<std::vector<Kernel>> {
    absl::StatusOr<Kernel> split = BuildSplitDecode();
    if (!split.ok()) return split.status();
    absl::StatusOr<Kernel> combine = BuildCombine();
    if (!combine.ok()) return combine.status();
    return std::vector<Kernel>{*split, *combine};
  };
  op.scratch = {"O_partial", "LSE_partial"};
  // 4 query heads per K/V head (the 32 / 8) at default shapes, 6 over 1 ragged.
  op.default_shapes = {
      {"BATCH", 2}, {"HEADS", 8}, {"KV_HEADS", 2}, {"NUM_PAGES", 20}, {"MAX_PAGES", 8}};
  op.ragged_shapes = {
      {"BATCH", 3}, {"HEADS", 6}, {"KV_HEADS", 1}, {"NUM_PAGES", 25}, {"MAX_PAGES", 7}};
  op.inits = {{"block_table",
               {.kind = InputInit::Kind::kGenerated,
                .generate = RandomBlockTable,
                .about = "distinct pages in random order"}},
              {"seq_lens",
               {.kind = InputInit::Kind::kGenerated,
                .generate = DecodeLengths,
                .about = "1, max_pages * 16, the rest random in between"}}};
  op.outputs = {"O"};
  op.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    DecodeReference(t, dims);
  };
  // As the forward's (flash_attn_d128): O a convex combination of V rows with P rounded to
  // fp16, the split partials combined in fp32, then one fp16 rounding.
  op.atol = 2e-3;
  op.rtol = 2e-3;
  // At full tables (every sequence max_pages * 16 keys): q.k and p.v per key and query head.
  op.flops = [](const Shapes& d) {
    return 4.0 * d.at("BATCH") * d.at("HEADS") * d.at("MAX_PAGES") * kPageSize * kDim;
  };
  op.bytes = [](const Shapes& d) {
    return 2.0 * 2.0 * d.at("BATCH") * d.at("KV_HEADS") * d.at("MAX_PAGES") * kPageSize * kDim;
  };
  return op;
}

}  // namespace

std::vector<OpCase> DecodeOps() { return {MakeCombineOp(), MakeDecodeOp()}; }

}  // namespace tile_ir::ops
