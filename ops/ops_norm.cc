// Row normalizations. LayerNorm makes three pipelined passes over a band of
// rows (mean, then variance around it, then the normalized output), which
// stays accurate where a one-pass sum of squares would cancel; RMSNorm needs
// two. Statistics are per-row fp32 fragments; eps is a scalar parameter.
#include <cmath>
#include <functional>
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
using dsl::KernelBuilder;
using dsl::let;
using dsl::parallel;
using dsl::pipelined;
using dsl::reduce_sum;
using dsl::rsqrt;
using dsl::select;
using dsl::Tensor;

constexpr int kBlockM = 32, kBlockN = 128;
constexpr double kEps = 1e-5;

// Y = (X - mean) / sqrt(var + eps) * Gamma + Beta over each row, in `dtype`.
absl::StatusOr<Kernel> BuildLayerNorm(const std::string& name, DataType dtype) {
  KernelBuilder k(name);
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", dtype, {M, N});
  Tensor Gamma = k.Param("Gamma", dtype, {N});
  Tensor Beta = k.Param("Beta", dtype, {N});
  Tensor Y = k.Param("Y", dtype, {M, N});
  E eps = k.Scalar("eps", kF32);
  E bx = k.Launch({ceildiv(M, kBlockM)}, {128})[0];
  // One tile per pass: a tile that two loops share cannot be multi-buffered by either.
  Tensor X_s = alloc_shared("X_s", {kBlockM, kBlockN}, dtype);
  Tensor X_s2 = alloc_shared("X_s2", {kBlockM, kBlockN}, dtype);
  Tensor X_s3 = alloc_shared("X_s3", {kBlockM, kBlockN}, dtype);
  Tensor G_s = alloc_shared("G_s", {kBlockN}, dtype);
  Tensor B_s = alloc_shared("B_s", {kBlockN}, dtype);
  Tensor X_l = alloc_fragment("X_l", {kBlockM, kBlockN}, kF32);
  Tensor Y_l = alloc_fragment("Y_l", {kBlockM, kBlockN}, dtype);
  Tensor mean = alloc_fragment("mean", {kBlockM}, kF32);
  Tensor rstd = alloc_fragment("rstd", {kBlockM}, kF32);
  E n = cast(kF32, N);
  clear(mean);
  // Columns past N read as 0, so the plain sum needs no mask.
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s);
    parallel(kBlockM, kBlockN, [&](E i, E j) { X_l(i, j) = cast(kF32, X_s(i, j)); });
    reduce_sum(X_l, mean, 1, /*clear=*/false);
  });
  parallel(kBlockM, [&](E i) { mean(i) = mean(i) / n; });
  clear(rstd);
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s2);
    // Here they must be masked: a padded 0 would add mean^2.
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      E d = let("d", cast(kF32, X_s2(i, j)) - mean(i));
      X_l(i, j) = select(ko * kBlockN + j < N, d * d, 0);
    });
    reduce_sum(X_l, rstd, 1, /*clear=*/false);
  });
  parallel(kBlockM, [&](E i) { rstd(i) = rsqrt(rstd(i) / n + eps); });
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s3);
    copy(Gamma.tile({ko * kBlockN}), G_s);
    copy(Beta.tile({ko * kBlockN}), B_s);
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      E normalized = (cast(kF32, X_s3(i, j)) - mean(i)) * rstd(i);
      Y_l(i, j) = cast(dtype, normalized * cast(kF32, G_s(j)) + cast(kF32, B_s(j)));
    });
    copy(Y_l, Y.tile({bx * kBlockM, ko * kBlockN}));
  });
  return k.Finish();
}

// Y = X / sqrt(mean(X^2) + eps) * Weight over each row, fp16 in and out.
absl::StatusOr<Kernel> BuildRmsNorm() {
  KernelBuilder k("rmsnorm_f16");
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", kF16, {M, N});
  Tensor Weight = k.Param("Weight", kF16, {N});
  Tensor Y = k.Param("Y", kF16, {M, N});
  E eps = k.Scalar("eps", kF32);
  E bx = k.Launch({ceildiv(M, kBlockM)}, {128})[0];
  // One tile per pass: a tile that two loops share cannot be multi-buffered by either.
  Tensor X_s = alloc_shared("X_s", {kBlockM, kBlockN}, kF16);
  Tensor X_s2 = alloc_shared("X_s2", {kBlockM, kBlockN}, kF16);
  Tensor W_s = alloc_shared("W_s", {kBlockN}, kF16);
  Tensor X_l = alloc_fragment("X_l", {kBlockM, kBlockN}, kF32);
  Tensor Y_l = alloc_fragment("Y_l", {kBlockM, kBlockN}, kF16);
  Tensor rstd = alloc_fragment("rstd", {kBlockM}, kF32);
  clear(rstd);
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s);
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      E x = cast(kF32, X_s(i, j));
      X_l(i, j) = x * x;
    });
    reduce_sum(X_l, rstd, 1, /*clear=*/false);
  });
  parallel(kBlockM, [&](E i) { rstd(i) = rsqrt(rstd(i) / cast(kF32, N) + eps); });
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s2);
    copy(Weight.tile({ko * kBlockN}), W_s);
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      Y_l(i, j) = cast(kF16, cast(kF32, X_s2(i, j)) * rstd(i) * cast(kF32, W_s(j)));
    });
    copy(Y_l, Y.tile({bx * kBlockM, ko * kBlockN}));
  });
  return k.Finish();
}

void LayerNormReference(RefTensors& t, const Shapes& dims, double eps) {
  const int64_t M = dims.at("M"), N = dims.at("N");
  const std::vector<double>& x = t.at("X").data;
  const std::vector<double>& gamma = t.at("Gamma").data;
  const std::vector<double>& beta = t.at("Beta").data;
  std::vector<double>& y = t.at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    const double* row = &x[i * N];
    double mean = 0, var = 0;
    for (int64_t j = 0; j < N; ++j) mean += row[j];
    mean /= N;
    for (int64_t j = 0; j < N; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= N;
    double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = (row[j] - mean) * rstd * gamma[j] + beta[j];
  }
}

void RmsNormReference(RefTensors& t, const Shapes& dims, double eps) {
  const int64_t M = dims.at("M"), N = dims.at("N");
  const std::vector<double>& x = t.at("X").data;
  const std::vector<double>& w = t.at("Weight").data;
  std::vector<double>& y = t.at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    const double* row = &x[i * N];
    double squares = 0;
    for (int64_t j = 0; j < N; ++j) squares += row[j] * row[j];
    double rstd = 1.0 / std::sqrt(squares / N + eps);
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = row[j] * rstd * w[j];
  }
}

OpCase MakeNormOp(std::string name, std::string description,
                  std::function<absl::StatusOr<Kernel>()> build) {
  OpCase op;
  op.name = std::move(name);
  op.description = std::move(description);
  op.build = std::move(build);
  op.default_shapes = {{"M", 256}, {"N", 1024}};
  op.ragged_shapes = {{"M", 100}, {"N", 777}};
  op.scalars = {{"eps", kEps}};
  op.outputs = {"Y"};
  return op;
}

}  // namespace

std::vector<OpCase> NormOps() {
  std::vector<OpCase> ops;
  for (DataType dtype : {kF32, kBF16}) {
    std::string name = "layernorm_" + dtype.ToString();
    OpCase op = MakeNormOp(name,
                           "row LayerNorm, " + dtype.ToString() +
                               " in and out, fp32 statistics, three passes over 32x128 tiles",
                           [name, dtype] { return BuildLayerNorm(name, dtype); });
    // Shifted inputs: a one-pass E[x^2] - E[x]^2 would lose digits here.
    op.inits = {{"X", {InputInit::Kind::kUniform, 2, 4}},
                {"Gamma", {InputInit::Kind::kUniform, 0.5, 1.5}}};
    op.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>& s) {
      LayerNormReference(t, dims, s.at("eps"));
    };
    if (dtype == kF32) {
      // The mean sums N values near 3 to ~3000, where fp32 spacing is 2.4e-4:
      // a sequential sum of N = 1024 errs by up to ~1e-2, the mean by 1e-5,
      // and Y by that times rstd * gamma (~2.6). Tree-shaped sums do better.
      // N(0, 1) inputs sum to ~30 only, so their larger gammas (up to ~4.5)
      // still leave Y's error well below atol.
      op.atol = 5e-5;
      op.rtol = 1e-5;
    } else {
      // bf16 output rounding; atol for outputs near zero.
      op.atol = 1e-4;
      op.rtol = kBF16OutputRtol;
    }
    const double bytes = ElementBytes(dtype);
    op.flops = [](const Shapes& d) { return 8.0 * d.at("M") * d.at("N"); };
    // Three reads of X, one write of Y.
    op.bytes = [bytes](const Shapes& d) { return 4.0 * bytes * d.at("M") * d.at("N"); };
    ops.push_back(std::move(op));
  }

  OpCase rms = MakeNormOp("rmsnorm_f16",
                          "row RMSNorm with a weight vector, fp16 in and out, fp32 statistics, "
                          "two passes over 32x128 tiles",
                          BuildRmsNorm);
  rms.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>& s) {
    RmsNormReference(t, dims, s.at("eps"));
  };
  // fp16 output rounding; atol for outputs near zero.
  rms.atol = 1e-5;
  rms.rtol = kF16OutputRtol;
  rms.flops = [](const Shapes& d) { return 4.0 * d.at("M") * d.at("N"); };
  rms.bytes = [](const Shapes& d) { return 6.0 * d.at("M") * d.at("N"); };
  ops.push_back(std::move(rms));
  return ops;
}

}  // namespace tile_ir::ops
