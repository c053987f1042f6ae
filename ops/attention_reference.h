// Float64 attention of one head, the reference every attention operator's check reduces to:
// softmax(q k^T / sqrt(dim)) v with its log-sum-exp, and the gradients of that output. Layouts
// (batch-head-major, packed sequences, paged caches) gather their rows into the contiguous
// row-major arrays these take.
#ifndef OPS_ATTENTION_REFERENCE_H_
#define OPS_ATTENTION_REFERENCE_H_

#include <cstdint>
#include <vector>

namespace tile_ir::ops {

// One head: `queries` rows of q, `keys` rows of k and v, each `dim` wide. Causal: query i sees
// keys 0..i only (queries and keys then count the same positions).
struct HeadRows {
  const double* q;
  const double* k;
  const double* v;
  int64_t queries;
  int64_t keys;
  int dim;
  bool causal;
};

// o [queries, dim]; lse [queries] (natural log of the row's sum of exp(score)), when not null.
void AttentionForwardHead(const HeadRows& head, double* o, double* lse);

// The gradients of o = attention(q, k, v) under the output gradient d_o [queries, dim]:
// dq [queries, dim], dk and dv [keys, dim].
void AttentionBackwardHead(const HeadRows& head, const double* d_o, double* dq, double* dk,
                           double* dv);

// `count` rows of `dim` elements, row r starting at data[offset + r * stride]: one head's rows
// of a packed or strided layout, made contiguous.
std::vector<double> GatherRows(const std::vector<double>& data, int64_t offset, int64_t count,
                               int64_t stride, int dim);
// The inverse: writes contiguous `rows` back to where GatherRows would read them.
void ScatterRows(const std::vector<double>& rows, int64_t offset, int64_t stride, int dim,
                 std::vector<double>& data);

}  // namespace tile_ir::ops

#endif  // OPS_ATTENTION_REFERENCE_H_
