// Row softmax, online and numerically safe: a first pass over the column tiles
// keeps a running row maximum and a sum rescaled whenever the maximum grows;
// a second pass writes exp(x - max) / sum. Exponentials are exp2 of
// log2(e)-scaled arguments, as in TileLang's softmax and attention kernels.
#include <algorithm>
#include <cmath>
#include <numbers>
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
using dsl::copy;
using dsl::E;
using dsl::exp2;
using dsl::fill;
using dsl::KernelBuilder;
using dsl::parallel;
using dsl::pipelined;
using dsl::reduce_max;
using dsl::reduce_sum;
using dsl::select;
using dsl::Tensor;

constexpr int kBlockM = 32, kBlockN = 128;
constexpr double kLog2E = std::numbers::log2e;

// Input and output in `dtype`, all arithmetic in fp32.
absl::StatusOr<Kernel> BuildSoftmax(const std::string& name, DataType dtype) {
  KernelBuilder k(name);
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", dtype, {M, N});
  Tensor Y = k.Param("Y", dtype, {M, N});
  E bx = k.Launch({ceildiv(M, kBlockM)}, {128})[0];
  // One tile per pass: a tile that two loops share cannot be multi-buffered by either.
  Tensor X_s = alloc_shared("X_s", {kBlockM, kBlockN}, dtype);
  Tensor X_s2 = alloc_shared("X_s2", {kBlockM, kBlockN}, dtype);
  Tensor S_l = alloc_fragment("S_l", {kBlockM, kBlockN}, kF32);
  Tensor Y_l = alloc_fragment("Y_l", {kBlockM, kBlockN}, dtype);
  Tensor row_max = alloc_fragment("row_max", {kBlockM}, kF32);
  Tensor prev_max = alloc_fragment("prev_max", {kBlockM}, kF32);
  Tensor rescale = alloc_fragment("rescale", {kBlockM}, kF32);
  Tensor tile_sum = alloc_fragment("tile_sum", {kBlockM}, kF32);
  Tensor row_sum = alloc_fragment("row_sum", {kBlockM}, kF32);
  fill(row_max, -INFINITY);
  fill(row_sum, 0);
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s);
    // Columns past N get -inf: they neither raise the maximum nor add to the sum.
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      S_l(i, j) = select(ko * kBlockN + j < N, cast(kF32, X_s(i, j)), -INFINITY);
    });
    copy(row_max, prev_max);
    reduce_max(S_l, row_max, 1, /*clear=*/false);
    // Every tile holds a column below N, so row_max is finite from the first
    // tile on, and exp2(-inf) = 0 discards the empty sum before it.
    parallel(kBlockM, [&](E i) { rescale(i) = exp2((prev_max(i) - row_max(i)) * kLog2E); });
    parallel(kBlockM, kBlockN,
             [&](E i, E j) { S_l(i, j) = exp2((S_l(i, j) - row_max(i)) * kLog2E); });
    reduce_sum(S_l, tile_sum, 1);
    parallel(kBlockM, [&](E i) { row_sum(i) = row_sum(i) * rescale(i) + tile_sum(i); });
  });
  parallel(kBlockM, [&](E i) { row_sum(i) = 1.0f / row_sum(i); });
  pipelined(ceildiv(N, kBlockN), 2, [&](E ko) {
    copy(X.tile({bx * kBlockM, ko * kBlockN}), X_s2);
    parallel(kBlockM, kBlockN, [&](E i, E j) {
      Y_l(i, j) = cast(dtype, exp2((cast(kF32, X_s2(i, j)) - row_max(i)) * kLog2E) * row_sum(i));
    });
    copy(Y_l, Y.tile({bx * kBlockM, ko * kBlockN}));
  });
  return k.Finish();
}

void SoftmaxReference(RefTensors& t, const Shapes& dims) {
  const int64_t M = dims.at("M"), N = dims.at("N");
  const std::vector<double>& x = t.at("X").data;
  std::vector<double>& y = t.at("Y").data;
  for (int64_t i = 0; i < M; ++i) {
    const double* row = &x[i * N];
    double max = *std::max_element(row, row + N);
    double sum = 0;
    for (int64_t j = 0; j < N; ++j) sum += std::exp(row[j] - max);
    for (int64_t j = 0; j < N; ++j) y[i * N + j] = std::exp(row[j] - max) / sum;
  }
}

OpCase MakeSoftmaxOp(const std::string& name, DataType dtype) {
  OpCase op;
  op.name = name;
  op.description = "row softmax, " + dtype.ToString() +
                   " in and out, fp32 math, online over 128-column tiles of 32 rows";
  op.build = [name, dtype] { return BuildSoftmax(name, dtype); };
  op.default_shapes = {{"M", 256}, {"N", 1024}};
  op.ragged_shapes = {{"M", 100}, {"N", 777}};
  // exp(x) overflows fp32 beyond x = 88: only the max subtraction keeps these finite.
  op.inits = {{"X", {InputInit::Kind::kUniform, -100, 100}}};
  op.outputs = {"Y"};
  op.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    SoftmaxReference(t, dims);
  };
  if (dtype == kF32) {
    // Where outputs matter, |x - max| < 20 errs by 20 * 2^-24 in the
    // exponent; with exp2's few ulps and the sum's rounding, ~2e-6 relative.
    op.atol = 1e-9;
    op.rtol = 1e-5;
  } else {
    // fp16 output rounding; atol covers fp16's subnormal spacing (6e-8).
    op.atol = 1e-7;
    op.rtol = kF16OutputRtol;
  }
  const double bytes = ElementBytes(dtype);
  op.flops = [](const Shapes& d) { return 5.0 * d.at("M") * d.at("N"); };
  // Two reads of X and one write of Y.
  op.bytes = [bytes](const Shapes& d) { return 3.0 * bytes * d.at("M") * d.at("N"); };
  return op;
}

}  // namespace

std::vector<OpCase> SoftmaxOps() {
  return {MakeSoftmaxOp("softmax_f32", kF32), MakeSoftmaxOp("softmax_f16", kF16)};
}

}  // namespace tile_ir::ops
