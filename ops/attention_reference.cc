// Straight from the definitions, in float64: scores, softmax, then the chain rule through it.
#include "ops/attention_reference.h"

#include <algorithm>
#include <cmath>

namespace tile_ir::ops {
namespace {

// The softmax probabilities of one head, [queries, keys], zero where a query may not look.
std::vector<double> Probabilities(const HeadRows& h, std::vector<double>* lse) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(h.dim));
  std::vector<double> p(h.queries * h.keys, 0.0);
  for (int64_t i = 0; i < h.queries; ++i) {
    const int64_t seen = h.causal ? std::min(i + 1, h.keys) : h.keys;
    double* row = &p[i * h.keys];
    double max = -INFINITY;
    for (int64_t j = 0; j < seen; ++j) {
      double dot = 0;
      for (int d = 0; d < h.dim; ++d) dot += h.q[i * h.dim + d] * h.k[j * h.dim + d];
      row[j] = dot * scale;
      max = std::max(max, row[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < seen; ++j) {
      row[j] = std::exp(row[j] - max);
      sum += row[j];
    }
    for (int64_t j = 0; j < seen; ++j) row[j] /= sum;
    if (lse) (*lse)[i] = max + std::log(sum);
  }
  return p;
}

}  // namespace

void AttentionForwardHead(const HeadRows& h, double* o, double* lse) {
  std::vector<double> row_lse(h.queries);
  std::vector<double> p = Probabilities(h, &row_lse);
  for (int64_t i = 0; i < h.queries; ++i) {
    for (int d = 0; d < h.dim; ++d) {
      double out = 0;
      for (int64_t j = 0; j < h.keys; ++j) out += p[i * h.keys + j] * h.v[j * h.dim + d];
      o[i * h.dim + d] = out;
    }
    if (lse) lse[i] = row_lse[i];
  }
}

void AttentionBackwardHead(const HeadRows& h, const double* d_o, double* dq, double* dk,
                           double* dv) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(h.dim));
  std::vector<double> p = Probabilities(h, nullptr);
  std::fill(dq, dq + h.queries * h.dim, 0.0);
  std::fill(dk, dk + h.keys * h.dim, 0.0);
  std::fill(dv, dv + h.keys * h.dim, 0.0);
  for (int64_t i = 0; i < h.queries; ++i) {
    // dP = dO v^T; dS = P (dP - rowsum(P dP)), the softmax's Jacobian applied.
    std::vector<double> dp(h.keys, 0.0);
    double expected = 0;
    for (int64_t j = 0; j < h.keys; ++j) {
      for (int d = 0; d < h.dim; ++d) dp[j] += d_o[i * h.dim + d] * h.v[j * h.dim + d];
      expected += p[i * h.keys + j] * dp[j];
    }
    for (int64_t j = 0; j < h.keys; ++j) {
      const double pij = p[i * h.keys + j];
      if (pij == 0) continue;
      const double ds = pij * (dp[j] - expected) * scale;
      for (int d = 0; d < h.dim; ++d) {
        dq[i * h.dim + d] += ds * h.k[j * h.dim + d];
        dk[j * h.dim + d] += ds * h.q[i * h.dim + d];
        dv[j * h.dim + d] += pij * d_o[i * h.dim + d];
      }
    }
  }
}

std::vector<double> GatherRows(const std::vector<double>& data, int64_t offset, int64_t count,
                               int64_t stride, int dim) {
  std::vector<double> rows(count * dim);
  for (int64_t r = 0; r < count; ++r) {
    std::copy_n(data.begin() + offset + r * stride, dim, rows.begin() + r * dim);
  }
  return rows;
}

void ScatterRows(const std::vector<double>& rows, int64_t offset, int64_t stride, int dim,
                 std::vector<double>& data) {
  const int64_t count = static_cast<int64_t>(rows.size()) / dim;
  for (int64_t r = 0; r < count; ++r) {
    std::copy_n(rows.begin() + r * dim, dim, data.begin() + offset + r * stride);
  }
}

}  // namespace tile_ir::ops
