// The attention kernels that more than one operator launches: the forward (whose log-sum-exp
// the backward reads) and the backward's stages, built by name so that an operator of several
// kernels (ops::OpCase::build_stages) and each stage's own operator build the same kernel.
#ifndef OPS_ATTENTION_KERNELS_H_
#define OPS_ATTENTION_KERNELS_H_

#include <string>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::ops {

// The tile of queries one block takes, the tile of keys it streams, and its threads: 64 x 64
// with one warpgroup, or TileLang's configuration for Hopper (128 x 128, two warpgroups).
struct AttentionTiles {
  int block_m = 64;
  int block_n = 64;
  int threads = 128;
};

struct ForwardVariant {
  int dim = 64;
  bool causal = false;
  AttentionTiles tiles;
  // Also writes LSE [batch, heads, seq], fp32: the natural log of each query's sum of
  // exp(q.k / sqrt(dim)), which lets the backward recompute the probabilities without a softmax.
  bool lse = false;
  // Grouped-query attention: K and V have KV_HEADS heads, each shared by HEADS / KV_HEADS
  // consecutive query heads (any ratio the shapes give; KV_HEADS = HEADS is plain attention).
  bool grouped = false;
};

// FlashAttention forward over fp16 [batch, heads, seq, dim] Q, K, V and O.
absl::StatusOr<Kernel> BuildFlashAttentionForward(const std::string& name, ForwardVariant variant);

// Operator names, shared by the operators and the stages that launch their kernels.
std::string ForwardName(int dim, bool causal, bool lse);
std::string BackwardPreprocessName(int dim);
std::string BackwardPostprocessName(int dim);

// The backward's preprocess: Delta = rowsum(dO * O) in fp32, and dQ_acc zeroed for the atomics.
absl::StatusOr<Kernel> BuildBackwardPreprocess(int dim);
// The backward's postprocess: dQ (fp16) from the fp32 dQ_acc.
absl::StatusOr<Kernel> BuildBackwardPostprocess(int dim);

}  // namespace tile_ir::ops

#endif  // OPS_ATTENTION_KERNELS_H_
