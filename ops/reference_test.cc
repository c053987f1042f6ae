// The float64 references are right, checked against hand-worked cases,
// independent formulations and the invariants of each operator (softmax rows
// sum to 1, normalized rows have mean 0 and variance 1, ...).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ops/op_suite.h"
#include "ops/op_tensors.h"
#include "tile_ir/dtype_rounding.h"

namespace tile_ir::ops {
namespace {

using Adjust = std::function<void(RefTensors&)>;

// The op's reference run on seeded inputs at `dims`, after `adjust` has
// replaced whichever inputs a test wants to control.
absl::StatusOr<RefTensors> RunReference(const std::string& name, const Shapes& dims,
                                        const Adjust& adjust = nullptr, uint64_t seed = 1) {
  const OpCase* op = FindOp(name);
  if (op == nullptr) return absl::NotFoundError(name);
  absl::StatusOr<Kernel> kernel = op->build();
  if (!kernel.ok()) return kernel.status();
  absl::StatusOr<RefTensors> tensors =
      MakeRefTensors(*op, **kernel, dims, seed, InputCase::kOpRanges);
  if (!tensors.ok()) return tensors.status();
  if (adjust) adjust(*tensors);
  op->reference(*tensors, dims, op->scalars);
  return tensors;
}

// The transpose of a row-major rows x cols matrix.
std::vector<double> Transpose(const std::vector<double>& m, int64_t rows, int64_t cols) {
  std::vector<double> t(m.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = m[i * cols + j];
  }
  return t;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(ReferenceTest, GemmOnAHandWorkedCase) {
  absl::StatusOr<RefTensors> t =
      RunReference("gemm_f32", {{"M", 2}, {"N", 2}, {"K", 2}}, [](RefTensors& t) {
        t.at("A").data = {1, 2, 3, 4};
        t.at("B").data = {5, 6, 7, 8};
      });
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->at("C").data, (std::vector<double>{19, 22, 43, 50}));
}

TEST(ReferenceTest, GemmMatchesANaiveTripleLoop) {
  const int64_t M = 3, N = 4, K = 5;
  absl::StatusOr<RefTensors> t = RunReference("gemm_f16", {{"M", M}, {"N", N}, {"K", K}});
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<double>& A = t->at("A").data;
  const std::vector<double>& B = t->at("B").data;
  std::vector<double> C(M * N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      for (int64_t k = 0; k < K; ++k) C[i * N + j] += A[i * K + k] * B[k * N + j];
    }
  }
  ExpectNear(t->at("C").data, C, 1e-12);
}

TEST(ReferenceTest, GemmVariantsReadTheirLayouts) {
  const int64_t M = 3, N = 4, K = 5;
  const Shapes dims = {{"M", M}, {"N", N}, {"K", K}};
  absl::StatusOr<RefTensors> base = RunReference("gemm_f16", dims);
  ASSERT_TRUE(base.ok()) << base.status();
  const std::vector<double>& A = base->at("A").data;
  const std::vector<double>& B = base->at("B").data;
  auto with = [](std::vector<double> a, std::vector<double> b) {
    return [a, b](RefTensors& t) {
      t.at("A").data = a;
      t.at("B").data = b;
    };
  };
  // The 16-bit outputs' references are the exact products too; the harness compares them with
  // the kernel's rounded C under the op's tolerance.
  for (const char* name : {"gemm_f32", "gemm_bf16", "gemm_f16_to_f16", "gemm_bf16_to_bf16"}) {
    absl::StatusOr<RefTensors> t = RunReference(name, dims, with(A, B));
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectNear(t->at("C").data, base->at("C").data, 1e-12);
  }
  absl::StatusOr<RefTensors> tn = RunReference("gemm_f16_tn", dims, with(A, Transpose(B, K, N)));
  ASSERT_TRUE(tn.ok()) << tn.status();
  ExpectNear(tn->at("C").data, base->at("C").data, 1e-12);
  absl::StatusOr<RefTensors> nt = RunReference("gemm_f16_nt", dims, with(Transpose(A, M, K), B));
  ASSERT_TRUE(nt.ok()) << nt.status();
  ExpectNear(nt->at("C").data, base->at("C").data, 1e-12);

  // Batch 1 of the batched GEMM is the plain GEMM of its own slices.
  absl::StatusOr<RefTensors> batched =
      RunReference("batched_gemm_f16", {{"BATCH", 2}, {"M", M}, {"N", N}, {"K", K}});
  ASSERT_TRUE(batched.ok()) << batched.status();
  auto slice = [](const std::vector<double>& v, int64_t size) {
    return std::vector<double>(v.begin() + size, v.begin() + 2 * size);
  };
  absl::StatusOr<RefTensors> second =
      RunReference("gemm_f16", dims,
                   with(slice(batched->at("A").data, M * K), slice(batched->at("B").data, K * N)));
  ASSERT_TRUE(second.ok()) << second.status();
  ExpectNear(slice(batched->at("C").data, M * N), second->at("C").data, 1e-12);
}

TEST(ReferenceTest, W4A16DecodesNibblesAroundEight) {
  // Byte 0x98: low nibble 8 (weight 0) for even k, high nibble 9 (weight +1)
  // for odd k. Byte 0x0F: 15 (+7) for even k, 0 (-8) for odd k.
  absl::StatusOr<RefTensors> t =
      RunReference("gemm_w4a16", {{"M", 1}, {"N", 2}, {"K", 32}}, [](RefTensors& t) {
        std::fill(t.at("A").data.begin(), t.at("A").data.end(), 1.0);
        std::vector<double>& bytes = t.at("B").data;
        std::fill(bytes.begin(), bytes.begin() + 16, 0x98);
        std::fill(bytes.begin() + 16, bytes.end(), 0x0F);
        std::fill(t.at("Scale").data.begin(), t.at("Scale").data.end(), 0.5);
      });
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->at("C").data, (std::vector<double>{16 * 1 * 0.5, 16 * (7 - 8) * 0.5}));
}

TEST(ReferenceTest, W4A16IsAGemmWithFp16DequantizedWeights) {
  const int64_t M = 3, N = 4, K = 96;
  absl::StatusOr<RefTensors> q = RunReference("gemm_w4a16", {{"M", M}, {"N", N}, {"K", K}});
  ASSERT_TRUE(q.ok()) << q.status();
  // Decode with bit operations, independently of the reference's arithmetic.
  std::vector<double> w(N * K);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) {
      auto byte = static_cast<unsigned>(q->at("B").data[n * K / 2 + k / 2]);
      unsigned code = (byte >> (4 * (k & 1))) & 0xF;
      double scale = q->at("Scale").data[n * K / 32 + k / 32];
      w[n * K + k] = RoundToDtype((static_cast<double>(code) - 8) * scale, kF16);
    }
  }
  absl::StatusOr<RefTensors> g =
      RunReference("gemm_f16_tn", {{"M", M}, {"N", N}, {"K", K}}, [&](RefTensors& t) {
        t.at("A").data = q->at("A").data;
        t.at("B").data = w;
      });
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectNear(q->at("C").data, g->at("C").data, 1e-12);
}

TEST(ReferenceTest, ConvOfOnesCountsTheTapsInsideTheImage) {
  absl::StatusOr<RefTensors> t = RunReference(
      "conv2d_nhwc_f16", {{"N", 1}, {"H", 3}, {"W", 3}, {"C", 1}, {"K", 1}}, [](RefTensors& t) {
        std::fill(t.at("X").data.begin(), t.at("X").data.end(), 1.0);
        std::fill(t.at("Weight").data.begin(), t.at("Weight").data.end(), 1.0);
      });
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->at("Y").data, (std::vector<double>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
}

TEST(ReferenceTest, ConvReadsKrscWeightsAndNhwcInput) {
  // The only non-zero weight is output channel 1, tap (r=0, s=2), input
  // channel 1: Y[n, p, q, 1] = X[n, p - 1, q + 1, 1] with zero padding.
  const int64_t N = 2, H = 4, W = 5, C = 2, K = 2;
  absl::StatusOr<RefTensors> t = RunReference(
      "conv2d_nhwc_f16", {{"N", N}, {"H", H}, {"W", W}, {"C", C}, {"K", K}}, [](RefTensors& t) {
        std::vector<double>& f = t.at("Weight").data;
        std::fill(f.begin(), f.end(), 0.0);
        f[((1 * 3 + 0) * 3 + 2) * 2 + 1] = 1.0;
      });
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<double>& X = t->at("X").data;
  const std::vector<double>& Y = t->at("Y").data;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t p = 0; p < H; ++p) {
      for (int64_t q = 0; q < W; ++q) {
        int64_t h = p - 1, w = q + 1;
        bool inside = h >= 0 && w < W;
        double want = inside ? X[((n * H + h) * W + w) * C + 1] : 0.0;
        EXPECT_EQ(Y[((n * H + p) * W + q) * K + 0], 0.0);
        EXPECT_EQ(Y[((n * H + p) * W + q) * K + 1], want) << n << " " << p << " " << q;
      }
    }
  }
}

TEST(ReferenceTest, AddAddsElementwise) {
  absl::StatusOr<RefTensors> t = RunReference("add_f32", {{"M", 3}, {"N", 7}});
  ASSERT_TRUE(t.ok()) << t.status();
  for (size_t i = 0; i < t->at("C").data.size(); ++i) {
    EXPECT_EQ(t->at("C").data[i], t->at("A").data[i] + t->at("B").data[i]);
  }
}

TEST(ReferenceTest, BiasGeluHitsKnownValuesOfTheTanhForm) {
  absl::StatusOr<RefTensors> t =
      RunReference("bias_gelu_f16", {{"M", 2}, {"N", 4}}, [](RefTensors& t) {
        t.at("X").data = {0, 1, -10, 10, -1, 0, 0, 0};
        t.at("Bias").data = {0, 0, 0, 1};
      });
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<double>& y = t->at("Y").data;
  EXPECT_EQ(y[0], 0.0);
  EXPECT_NEAR(y[1], 0.8411919906082768, 1e-15);  // the erf form would give 0.8413447
  EXPECT_NEAR(y[2], 0.0, 1e-15);
  EXPECT_NEAR(y[3], 11.0, 1e-12);
  EXPECT_NEAR(y[4], -0.15880800939172324, 1e-15);
  EXPECT_NEAR(y[7], 0.8411919906082768, 1e-15);  // gelu(0 + bias 1)
}

TEST(ReferenceTest, RowReductionsOfKnownRows) {
  auto rows = [](RefTensors& t) { t.at("X").data = {1, 2, 3, -4, -5, -6}; };
  absl::StatusOr<RefTensors> sum = RunReference("row_sum_f32", {{"M", 2}, {"N", 3}}, rows);
  absl::StatusOr<RefTensors> max = RunReference("row_max_f32", {{"M", 2}, {"N", 3}}, rows);
  ASSERT_TRUE(sum.ok() && max.ok());
  EXPECT_EQ(sum->at("Y").data, (std::vector<double>{6, -15}));
  // A row of negatives keeps its negative maximum (zero padding must not win).
  EXPECT_EQ(max->at("Y").data, (std::vector<double>{3, -4}));
}

TEST(ReferenceTest, SoftmaxRowsArePositiveSumToOneAndIgnoreShifts) {
  const int64_t M = 4, N = 37;
  for (const char* name : {"softmax_f32", "softmax_f16"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<RefTensors> t = RunReference(name, {{"M", M}, {"N", N}});
    ASSERT_TRUE(t.ok()) << t.status();
    const std::vector<double>& x = t->at("X").data;
    const std::vector<double>& y = t->at("Y").data;
    for (int64_t i = 0; i < M; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < N; ++j) {
        EXPECT_GE(y[i * N + j], 0.0);
        sum += y[i * N + j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-12);
    }
    // Inputs far beyond exp's range give the same answer when shifted back.
    std::vector<double> shifted = x;
    for (double& v : shifted) v += 1000;
    absl::StatusOr<RefTensors> s =
        RunReference(name, {{"M", M}, {"N", N}}, [&](RefTensors& t) { t.at("X").data = shifted; });
    ASSERT_TRUE(s.ok()) << s.status();
    ExpectNear(s->at("Y").data, y, 1e-12);
  }
}

// Mean and variance of each row of a rows x cols matrix.
std::vector<std::pair<double, double>> RowMoments(const std::vector<double>& m, int64_t rows,
                                                  int64_t cols) {
  std::vector<std::pair<double, double>> moments;
  for (int64_t i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += m[i * cols + j];
    mean /= cols;
    for (int64_t j = 0; j < cols; ++j) var += std::pow(m[i * cols + j] - mean, 2);
    moments.emplace_back(mean, var / cols);
  }
  return moments;
}

TEST(ReferenceTest, LayerNormRowsHaveTheAffineMoments) {
  const int64_t M = 3, N = 50;
  for (const char* name : {"layernorm_f32", "layernorm_bf16"}) {
    for (double gamma : {1.0, 2.0}) {
      SCOPED_TRACE(std::string(name) + " gamma " + std::to_string(gamma));
      double beta = gamma - 1;
      absl::StatusOr<RefTensors> t = RunReference(name, {{"M", M}, {"N", N}}, [&](RefTensors& t) {
        std::fill(t.at("Gamma").data.begin(), t.at("Gamma").data.end(), gamma);
        std::fill(t.at("Beta").data.begin(), t.at("Beta").data.end(), beta);
      });
      ASSERT_TRUE(t.ok()) << t.status();
      // eps = 1e-5 against a row variance of ~1/3 moves the variance by ~3e-5.
      for (auto [mean, var] : RowMoments(t->at("Y").data, M, N)) {
        EXPECT_NEAR(mean, beta, 1e-12);
        EXPECT_NEAR(var, gamma * gamma, 1e-3 * gamma * gamma);
      }
    }
  }
}

TEST(ReferenceTest, RmsNormRowsHaveUnitMeanSquare) {
  const int64_t M = 3, N = 50;
  absl::StatusOr<RefTensors> t =
      RunReference("rmsnorm_f16", {{"M", M}, {"N", N}}, [](RefTensors& t) {
        std::fill(t.at("Weight").data.begin(), t.at("Weight").data.end(), 1.0);
      });
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<double>& x = t->at("X").data;
  const std::vector<double>& y = t->at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    double squares = 0;
    for (int64_t j = 0; j < N; ++j) squares += y[i * N + j] * y[i * N + j];
    EXPECT_NEAR(squares / N, 1.0, 1e-3);
    // Each row is only rescaled.
    EXPECT_GT(y[i * N] * x[i * N], 0.0);
    EXPECT_NEAR(y[i * N + 1] / x[i * N + 1], y[i * N] / x[i * N], 1e-12);
  }
}

// The whole-row kernels compute what their tiled namesakes do, on the same inputs; the
// RMSNorm without weight leaves rows of unit mean square.
TEST(ReferenceTest, WholeRowReferencesAgreeWithTheTiledOnes) {
  const int64_t M = 3, N = 50;
  const Shapes dims = {{"M", M}, {"N", N}};
  for (auto [row_op, tiled_op] : {std::pair{"softmax_row_f16", "softmax_f16"},
                                  std::pair{"layernorm_row_bf16", "layernorm_bf16"}}) {
    SCOPED_TRACE(row_op);
    absl::StatusOr<RefTensors> row = RunReference(row_op, dims);
    ASSERT_TRUE(row.ok()) << row.status();
    absl::StatusOr<RefTensors> tiled = RunReference(tiled_op, dims, [&](RefTensors& t) {
      for (const auto& [name, tensor] : *row) {
        if (name != "Y") t.at(name).data = tensor.data;
      }
    });
    ASSERT_TRUE(tiled.ok()) << tiled.status();
    const std::vector<double>& a = row->at("Y").data;
    const std::vector<double>& b = tiled->at("Y").data;
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-12 * (1 + std::abs(b[k])));
  }
  absl::StatusOr<RefTensors> rms = RunReference("rmsnorm_row_f16", dims);
  ASSERT_TRUE(rms.ok()) << rms.status();
  const std::vector<double>& x = rms->at("X").data;
  const std::vector<double>& y = rms->at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    double squares = 0;
    for (int64_t j = 0; j < N; ++j) squares += y[i * N + j] * y[i * N + j];
    EXPECT_NEAR(squares / N, 1.0, 1e-4);
    EXPECT_NEAR(y[i * N + 1] / x[i * N + 1], y[i * N] / x[i * N], 1e-12);
  }
}

// Each row's prefix sums: the first element is the row's first, the last the row's sum, and
// successive differences give the row back.
TEST(ReferenceTest, CumsumDifferencesGiveTheRowBack) {
  const int64_t M = 3, N = 50;
  absl::StatusOr<RefTensors> t = RunReference("cumsum_f32", {{"M", M}, {"N", N}});
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<double>& x = t->at("X").data;
  const std::vector<double>& y = t->at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < N; ++j) sum += x[i * N + j];
    EXPECT_NEAR(y[i * N + N - 1], sum, 1e-12);
    EXPECT_EQ(y[i * N], x[i * N]);
    for (int64_t j = 1; j < N; ++j) {
      EXPECT_NEAR(y[i * N + j] - y[i * N + j - 1], x[i * N + j], 1e-12);
    }
  }
}

// softmax(Q K^T / sqrt(dim) + mask) V for one (batch, head), from whole matrices.
std::vector<double> NaiveAttention(const double* q, const double* k, const double* v, int64_t seq,
                                   int dim, bool causal) {
  std::vector<double> out(seq * dim);
  for (int64_t i = 0; i < seq; ++i) {
    std::vector<double> weights(seq, 0.0);
    double total = 0;
    for (int64_t j = 0; j < seq; ++j) {
      if (causal && j > i) continue;
      double dot = 0;
      for (int d = 0; d < dim; ++d) dot += q[i * dim + d] * k[j * dim + d];
      weights[j] = std::exp(dot / std::sqrt(dim));
      total += weights[j];
    }
    for (int64_t j = 0; j < seq; ++j) {
      for (int d = 0; d < dim; ++d) out[i * dim + d] += weights[j] / total * v[j * dim + d];
    }
  }
  return out;
}

TEST(ReferenceTest, AttentionMatchesTheMatrixFormula) {
  const int64_t heads = 2, seq = 5;
  // d128 twice: the 64 x 64 tiles and TileLang's 128 x 128 (one reference for both).
  for (const auto& [dim, tiles] : {std::pair{64, ""}, std::pair{128, ""}, std::pair{128, "_b128"}}) {
    for (bool causal : {false, true}) {
      std::string name =
          "flash_attn_d" + std::to_string(dim) + tiles + (causal ? "_causal" : "");
      SCOPED_TRACE(name);
      absl::StatusOr<RefTensors> t =
          RunReference(name, {{"BATCH", 1}, {"HEADS", heads}, {"SEQ", seq}});
      ASSERT_TRUE(t.ok()) << t.status();
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t at = h * seq * dim;
        std::vector<double> want = NaiveAttention(&t->at("Q").data[at], &t->at("K").data[at],
                                                  &t->at("V").data[at], seq, dim, causal);
        std::vector<double> got(t->at("O").data.begin() + at,
                                t->at("O").data.begin() + at + seq * dim);
        ExpectNear(got, want, 1e-12);
        if (causal) {
          // The first query sees only the first key.
          std::vector<double> v0(t->at("V").data.begin() + at, t->at("V").data.begin() + at + dim);
          ExpectNear(std::vector<double>(got.begin(), got.begin() + dim), v0, 1e-12);
        }
      }
    }
  }
}

// The split-K GEMV is B times the vector A: a hand-worked case, then gemm_f32's reference on the
// same data as an N x K by K x 1 product.
TEST(ReferenceTest, GemvIsAMatrixTimesAVector) {
  absl::StatusOr<RefTensors> small =
      RunReference("gemv_splitk_f16", {{"N", 2}, {"K", 3}}, [](RefTensors& t) {
        t.at("A").data = {1, 2, 3};
        t.at("B").data = {1, 0, -1, 0.5, 0.5, 0.5};
      });
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->at("C").data, (std::vector<double>{-2, 3}));

  absl::StatusOr<RefTensors> gemv = RunReference("gemv_splitk_f16", {{"N", 37}, {"K", 70}});
  ASSERT_TRUE(gemv.ok()) << gemv.status();
  const std::vector<double> a = gemv->at("A").data, b = gemv->at("B").data;
  absl::StatusOr<RefTensors> gemm = RunReference(
      "gemm_f32", {{"M", 37}, {"N", 1}, {"K", 70}}, [&](RefTensors& t) {
        t.at("A").data = b;
        t.at("B").data = a;
      });
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  ExpectNear(gemv->at("C").data, gemm->at("C").data, 1e-12);
}

// A new operator needs a self-test above before it joins this list.
TEST(ReferenceTest, EveryOperatorHasASelfTest) {
  const std::set<std::string> tested = {"gemm_f32",
                                        "gemm_f16",
                                        "gemm_bf16",
                                        "gemm_f16_to_f16",
                                        "gemm_bf16_to_bf16",
                                        "gemm_f16_tn",
                                        "gemm_f16_nt",
                                        "batched_gemm_f16",
                                        "gemm_w4a16",
                                        "conv2d_nhwc_f16",
                                        "add_f32",
                                        "bias_gelu_f16",
                                        "row_sum_f32",
                                        "row_max_f32",
                                        "softmax_f32",
                                        "softmax_f16",
                                        "layernorm_f32",
                                        "layernorm_bf16",
                                        "rmsnorm_f16",
                                        "rmsnorm_row_f16",
                                        "softmax_row_f16",
                                        "layernorm_row_bf16",
                                        "cumsum_f32",
                                        "flash_attn_d64",
                                        "flash_attn_d64_causal",
                                        "flash_attn_d128",
                                        "flash_attn_d128_causal",
                                        "flash_attn_d128_b128",
                                        "flash_attn_d128_b128_causal",
                                        "gemv_splitk_f16",
                                        // Issue 42's, in reference_attention_test.cc.
                                        "flash_attn_d64_lse",
                                        "flash_attn_d64_causal_lse",
                                        "flash_attn_d128_lse",
                                        "flash_attn_d128_causal_lse",
                                        "gqa_fwd_d128",
                                        "flash_attn_bwd_pre_d64",
                                        "flash_attn_bwd_pre_d128",
                                        "flash_attn_bwd_post_d64",
                                        "flash_attn_bwd_post_d128",
                                        "flash_attn_bwd_d64",
                                        "flash_attn_bwd_d64_causal",
                                        "flash_attn_bwd_d128",
                                        "flash_attn_bwd_d128_causal",
                                        "decode_combine_d128",
                                        "decode_paged_d128",
                                        "flash_attn_varlen_d128",
                                        "flash_attn_varlen_d128_causal"};
  for (const OpCase& op : OperatorSuite()) {
    EXPECT_TRUE(tested.contains(op.name)) << op.name << " has no reference self-test";
  }
}

}  // namespace
}  // namespace tile_ir::ops
