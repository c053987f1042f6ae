// Whole-row kernels: one block of 128 threads per row, the row of N elements held in register
// fragments (`fragment f32[1, N]`), so each element is read from global memory once and
// written once, as TileLang's examples/norm/rms_norm.py does. N sizes the fragments, so it is
// compiled in as a constant (runtime/jit/specialization_plan.h); M stays symbolic. Layout
// inference spreads the row over the block's lanes in runs of 16 bytes, the reductions finish
// with shuffles and one shared slot per warp, and the copies become 16-byte accesses.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "frontends/cpp/dsl.h"
#include "ops/families.h"

namespace tile_ir::ops {
namespace {

using dsl::alloc_fragment;
using dsl::cast;
using dsl::copy;
using dsl::E;
using dsl::exp2;
using dsl::KernelBuilder;
using dsl::parallel;
using dsl::reduce_max;
using dsl::reduce_sum;
using dsl::rsqrt;
using dsl::Tensor;

constexpr int kThreads = 128;
constexpr double kEps = 1e-6;
constexpr double kLog2E = std::numbers::log2e;

// TileLang's RMSNorm (tilelang_peer's program): Y = X / sqrt(mean(X^2) + eps), f16 in and out.
absl::StatusOr<Kernel> BuildRmsNormRow() {
  KernelBuilder k("rmsnorm_row_f16");
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", kF16, {M, N});
  Tensor Y = k.Param("Y", kF16, {M, N});
  E eps = k.Scalar("eps", kF32);
  E bx = k.Launch({M}, {kThreads})[0];
  Tensor X_l = alloc_fragment("X_l", {1, N}, kF16);
  Tensor X_f = alloc_fragment("X_f", {1, N}, kF32);
  Tensor X_sq = alloc_fragment("X_sq", {1, N}, kF32);
  Tensor rstd = alloc_fragment("rstd", {1}, kF32);
  copy(X.tile({bx, 0}), X_l);
  parallel(1, N, [&](E i, E j) { X_f(i, j) = cast(kF32, X_l(i, j)); });
  parallel(1, N, [&](E i, E j) { X_sq(i, j) = X_f(i, j) * X_f(i, j); });
  reduce_sum(X_sq, rstd, 1);
  parallel(1, [&](E i) { rstd(i) = rsqrt(rstd(i) / cast(kF32, N) + eps); });
  parallel(1, N, [&](E i, E j) { X_l(i, j) = cast(kF16, X_f(i, j) * rstd(i)); });
  copy(X_l, Y.tile({bx, 0}));
  return k.Finish();
}

// Row softmax with the row in registers: max, exp2 of the log2(e)-scaled difference, sum.
absl::StatusOr<Kernel> BuildSoftmaxRow() {
  KernelBuilder k("softmax_row_f16");
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", kF16, {M, N});
  Tensor Y = k.Param("Y", kF16, {M, N});
  E bx = k.Launch({M}, {kThreads})[0];
  Tensor X_l = alloc_fragment("X_l", {1, N}, kF16);
  Tensor S = alloc_fragment("S", {1, N}, kF32);
  Tensor row_max = alloc_fragment("row_max", {1}, kF32);
  Tensor row_sum = alloc_fragment("row_sum", {1}, kF32);
  copy(X.tile({bx, 0}), X_l);
  parallel(1, N, [&](E i, E j) { S(i, j) = cast(kF32, X_l(i, j)); });
  reduce_max(S, row_max, 1);
  parallel(1, N, [&](E i, E j) { S(i, j) = exp2((S(i, j) - row_max(i)) * kLog2E); });
  reduce_sum(S, row_sum, 1);
  parallel(1, [&](E i) { row_sum(i) = 1.0f / row_sum(i); });
  parallel(1, N, [&](E i, E j) { X_l(i, j) = cast(kF16, S(i, j) * row_sum(i)); });
  copy(X_l, Y.tile({bx, 0}));
  return k.Finish();
}

// Row LayerNorm with the row in registers: the mean, then the variance of the centred row
// (two passes over registers, not over memory), then (x - mean) * rstd * gamma + beta.
absl::StatusOr<Kernel> BuildLayerNormRow() {
  KernelBuilder k("layernorm_row_bf16");
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", kBF16, {M, N});
  Tensor Gamma = k.Param("Gamma", kBF16, {N});
  Tensor Beta = k.Param("Beta", kBF16, {N});
  Tensor Y = k.Param("Y", kBF16, {M, N});
  E eps = k.Scalar("eps", kF32);
  E bx = k.Launch({M}, {kThreads})[0];
  Tensor X_l = alloc_fragment("X_l", {1, N}, kBF16);
  Tensor X_f = alloc_fragment("X_f", {1, N}, kF32);
  Tensor D_sq = alloc_fragment("D_sq", {1, N}, kF32);
  Tensor mean = alloc_fragment("mean", {1}, kF32);
  Tensor rstd = alloc_fragment("rstd", {1}, kF32);
  copy(X.tile({bx, 0}), X_l);
  parallel(1, N, [&](E i, E j) { X_f(i, j) = cast(kF32, X_l(i, j)); });
  reduce_sum(X_f, mean, 1);
  parallel(1, [&](E i) { mean(i) = mean(i) / cast(kF32, N); });
  parallel(1, N, [&](E i, E j) {
    E d = X_f(i, j) - mean(i);
    D_sq(i, j) = d * d;
  });
  reduce_sum(D_sq, rstd, 1);
  parallel(1, [&](E i) { rstd(i) = rsqrt(rstd(i) / cast(kF32, N) + eps); });
  parallel(1, N, [&](E i, E j) {
    X_l(i, j) = cast(kBF16, (X_f(i, j) - mean(i)) * rstd(i) * cast(kF32, Gamma(j)) +
                                cast(kF32, Beta(j)));
  });
  copy(X_l, Y.tile({bx, 0}));
  return k.Finish();
}

void RmsNormRowReference(RefTensors& t, const Shapes& dims, double eps) {
  const int64_t M = dims.at("M"), N = dims.at("N");
  const std::vector<double>& x = t.at("X").data;
  std::vector<double>& y = t.at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    double squares = 0;
    for (int64_t j = 0; j < N; ++j) squares += x[i * N + j] * x[i * N + j];
    double rstd = 1.0 / std::sqrt(squares / N + eps);
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = x[i * N + j] * rstd;
  }
}

void SoftmaxRowReference(RefTensors& t, const Shapes& dims) {
  const int64_t M = dims.at("M"), N = dims.at("N");
  const std::vector<double>& x = t.at("X").data;
  std::vector<double>& y = t.at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    double max = -INFINITY, sum = 0;
    for (int64_t j = 0; j < N; ++j) max = std::max(max, x[i * N + j]);
    for (int64_t j = 0; j < N; ++j) sum += std::exp(x[i * N + j] - max);
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = std::exp(x[i * N + j] - max) / sum;
  }
}

void LayerNormRowReference(RefTensors& t, const Shapes& dims, double eps) {
  const int64_t M = dims.at("M"), N = dims.at("N");
  const std::vector<double>& x = t.at("X").data;
  const std::vector<double>& gamma = t.at("Gamma").data;
  const std::vector<double>& beta = t.at("Beta").data;
  std::vector<double>& y = t.at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < N; ++j) mean += x[i * N + j];
    mean /= N;
    for (int64_t j = 0; j < N; ++j) var += (x[i * N + j] - mean) * (x[i * N + j] - mean);
    double rstd = 1.0 / std::sqrt(var / N + eps);
    for (int64_t j = 0; j < N; ++j) {
      y[i * N + j] = (x[i * N + j] - mean) * rstd * gamma[j] + beta[j];
    }
  }
}

OpCase MakeRowOp(std::string name, std::string description,
                 std::function<absl::StatusOr<Kernel>()> build) {
  OpCase op;
  op.name = std::move(name);
  op.description = std::move(description);
  op.build = std::move(build);
  op.default_shapes = {{"M", 256}, {"N", 1024}};
  // N odd: no vector runs, rows that do not split evenly over the lanes.
  op.ragged_shapes = {{"M", 100}, {"N", 777}};
  op.outputs = {"Y"};
  // One read of X, one write of Y.
  op.bytes = [](const Shapes& d) { return 2.0 * 2.0 * d.at("M") * d.at("N"); };
  return op;
}

}  // namespace

std::vector<OpCase> RowOps() {
  std::vector<OpCase> ops;
  OpCase rms = MakeRowOp("rmsnorm_row_f16",
                         "row RMSNorm without weight (TileLang's example), fp16 in and out, "
                         "fp32 statistics, the whole row in registers",
                         BuildRmsNormRow);
  rms.scalars = {{"eps", kEps}};
  rms.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>& s) {
    RmsNormRowReference(t, dims, s.at("eps"));
  };
  rms.atol = 1e-5;
  rms.rtol = kF16OutputRtol;
  rms.flops = [](const Shapes& d) { return 3.0 * d.at("M") * d.at("N"); };
  ops.push_back(std::move(rms));

  OpCase softmax = MakeRowOp("softmax_row_f16",
                             "row softmax, fp16 in and out, fp32 math, the whole row in registers",
                             BuildSoftmaxRow);
  // exp(x) overflows fp32 beyond x = 88: only the max subtraction keeps these finite.
  softmax.inits = {{"X", {InputInit::Kind::kUniform, -100, 100}}};
  softmax.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    SoftmaxRowReference(t, dims);
  };
  // fp16 output rounding; atol covers fp16's subnormal spacing (6e-8).
  softmax.atol = 1e-7;
  softmax.rtol = kF16OutputRtol;
  softmax.flops = [](const Shapes& d) { return 5.0 * d.at("M") * d.at("N"); };
  ops.push_back(std::move(softmax));

  OpCase layernorm =
      MakeRowOp("layernorm_row_bf16",
                "row LayerNorm, bf16 in and out, fp32 statistics, the whole row in registers",
                BuildLayerNormRow);
  layernorm.scalars = {{"eps", 1e-5}};
  // Shifted inputs: a one-pass E[x^2] - E[x]^2 would lose digits here.
  layernorm.inits = {{"X", {InputInit::Kind::kUniform, 2, 4}},
                     {"Gamma", {InputInit::Kind::kUniform, 0.5, 1.5}}};
  layernorm.reference = [](RefTensors& t, const Shapes& dims,
                           const std::map<std::string, double>& s) {
    LayerNormRowReference(t, dims, s.at("eps"));
  };
  // bf16 output rounding; atol for outputs near zero.
  layernorm.atol = 1e-4;
  layernorm.rtol = kBF16OutputRtol;
  layernorm.flops = [](const Shapes& d) { return 8.0 * d.at("M") * d.at("N"); };
  // One read of X, one write of Y (gamma and beta are N elements each).
  ops.push_back(std::move(layernorm));
  return ops;
}

}  // namespace tile_ir::ops
