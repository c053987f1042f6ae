// Clusters of two blocks for warp-specialize ({cluster=2}): which copy both blocks of a pair read
// the same tile of (cluster_pairs.h).
#include "targets/cuda/passes/cluster_pairs.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/analysis/fragment_threads.h"
#include "targets/cuda/tensor_maps.h"

namespace tile_ir::cuda {

PairedCopy CopyForPairs(const KernelNode& kernel, const std::vector<Stmt>& top, const For& loop,
                        const std::vector<Stmt>& copies) {
  PairedCopy result;
  auto refuse = [&](std::string why) {
    result.why_not = std::move(why);
    return result;
  };
  // The pairs are checked block by block: the grid and the loop must be constants.
  std::vector<int64_t> extents;
  int64_t blocks = 1;
  for (const GridAxis& axis : kernel.launch.grid) {
    std::optional<int64_t> extent = AsConstInt(axis.extent);
    if (!extent)
      return refuse("its grid is sized at run time (static shapes let the pairs be checked)");
    extents.push_back(*extent);
    blocks *= *extent;
  }
  if (extents[0] % 2 != 0) {
    return refuse(
        absl::StrCat("its grid's x extent ", extents[0], " is odd, so blocks do not pair"));
  }
  const std::optional<int64_t> first = AsConstInt(loop.min);
  const std::optional<int64_t> trips = AsConstInt(loop.extent);
  if (!first || !trips) return refuse("its pipelined loop's trip count is not constant");
  // Blocks times iterations: a 128x256 gemm at 8192^3 is 2048 x 128 = 2^18; beyond 2^20 the
  // check (a few evaluations each) would cost the compile seconds.
  constexpr int64_t kMaxEvaluations = int64_t{1} << 20;
  if (blocks * std::max<int64_t>(*trips, 1) > kMaxEvaluations) {
    return refuse("its grid and loop are too large to check pair by pair");
  }
  // A tile of an even number of 128-byte atom columns splits between the two blocks.
  std::vector<size_t> candidates;
  for (size_t p = 0; p < copies.size(); ++p) {
    const BufferNode& dst = *As<Copy>(copies[p])->dst.buffer;
    const int64_t row_bytes = *AsConstInt(dst.shape[1]) * (dst.dtype.bits() / 8);
    if (row_bytes % (2 * kTmaSwizzleBytes) == 0) candidates.push_back(p);
  }
  if (candidates.empty()) {
    return refuse(absl::StrCat("no copied tile has an even number of ", kTmaSwizzleBytes,
                               "-byte columns for each block of a pair to load half of"));
  }
  // Blocks (x, ...) and (x + 1, ...), x even, must read the same tile of the copy's tensor at
  // every iteration: its region's first element is evaluated for both, through the top-level
  // lets (the rasterization's) in front of the loop.
  std::vector<bool> same(copies.size(), true);
  std::vector<int64_t> index(extents.size(), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    for (size_t d = 0, rest = b; d < extents.size(); ++d) {
      index[d] = static_cast<int64_t>(rest % extents[d]);
      rest /= extents[d];
    }
    if (index[0] % 2 != 0) continue;
    passes::IntEnv env[2];
    for (int member = 0; member < 2; ++member) {
      for (size_t d = 0; d < extents.size(); ++d) {
        env[member][kernel.launch.grid[d].var.get()] = index[d] + (d == 0 ? member : 0);
      }
      for (const Stmt& s : top) {
        if (s.get() == &loop) break;
        const Let* let = As<Let>(s);
        if (let == nullptr) continue;
        if (std::optional<int64_t> value = passes::EvaluateInt(let->value, env[member])) {
          env[member][let->var.get()] = *value;
        }
      }
    }
    for (int64_t k = *first; k < *first + *trips; ++k) {
      for (size_t p : candidates) {
        if (!same[p]) continue;
        for (const Range& range : As<Copy>(copies[p])->src.ranges) {
          env[0][loop.var.get()] = k;
          env[1][loop.var.get()] = k;
          std::optional<int64_t> mine = passes::EvaluateInt(range.min, env[0]);
          std::optional<int64_t> peer = passes::EvaluateInt(range.min, env[1]);
          if (!mine || !peer || *mine != *peer) same[p] = false;
        }
      }
    }
  }
  // The shared tile with the most bytes: the traffic a pair halves.
  int64_t best_bytes = 0;
  for (size_t p : candidates) {
    if (!same[p]) continue;
    const BufferNode& dst = *As<Copy>(copies[p])->dst.buffer;
    const int64_t bytes =
        *AsConstInt(dst.shape[0]) * *AsConstInt(dst.shape[1]) * (dst.dtype.bits() / 8);
    if (bytes > best_bytes) {
      best_bytes = bytes;
      result.copy = p;
    }
  }
  if (!result.copy) {
    return refuse(
        "no copy reads the same tile in both blocks of each pair along x (a rasterized "
        "gemm's B does)");
  }
  return result;
}

}  // namespace tile_ir::cuda
