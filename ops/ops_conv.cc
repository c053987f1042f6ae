// 2-D convolution as an implicit GEMM (TileLang's convolution example): the
// output pixels are the GEMM's rows, the output channels its columns, and
// (r, s, c) its reduction; each K step gathers an im2col tile of the input
// into shared memory. NHWC input, KRSC weights, 3x3 filter, stride 1, zero
// padding 1, so the output keeps the input's height and width.
//
// The padding is explicit: a gathered element whose (h, w) falls outside the
// image is selected to 0. Bound predication cannot stand in for it, because it
// only guards accesses that leave the tensor, and a neighbour pixel's row is
// inside the tensor.
#include <algorithm>
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
using dsl::E;
using dsl::gemm;
using dsl::KernelBuilder;
using dsl::let;
using dsl::parallel;
using dsl::pipelined;
using dsl::select;
using dsl::Tensor;

constexpr int kR = 3, kS = 3, kPad = 1;

absl::StatusOr<Kernel> BuildConv2d() {
  constexpr int bm = 64, bn = 64, bk = 32;
  KernelBuilder k("conv2d_nhwc_f16");
  E N = k.Dim("N"), H = k.Dim("H"), W = k.Dim("W"), C = k.Dim("C"), K = k.Dim("K");
  Tensor X = k.Param("X", kF16, {N, H, W, C});
  Tensor Weight = k.Param("Weight", kF16, {K, kR, kS, C});
  Tensor Y = k.Param("Y", kF16, {N, H, W, K});
  std::vector<E> blocks = k.Launch({ceildiv(K, bn), ceildiv(N * H * W, bm)}, {128});
  E bx = blocks[0], by = blocks[1];
  Tensor X_s = alloc_shared("X_s", {bm, bk}, kF16);
  Tensor W_s = alloc_shared("W_s", {bn, bk}, kF16);
  Tensor Y_l = alloc_fragment("Y_l", {bm, bn}, kF32);
  clear(Y_l);
  // Row m of the GEMM is output pixel (n, p, q); column kk of the reduction is
  // filter tap (r, s) of input channel c.
  E pixels = H * W;
  pipelined(ceildiv(kR * kS * C, bk), 2, [&](E ko) {
    parallel(bm, bk, [&](E i, E j) {
      E m = let("m", by * bm + i);
      E kk = let("kk", ko * bk + j);
      E h = let("h", m % pixels / W + kk / (kS * C) - kPad);
      E w = let("w", m % W + kk / C % kS - kPad);
      E inside = kk < kR * kS * C && h >= 0 && h < H && w >= 0 && w < W;
      X_s(i, j) = select(inside, X(m / pixels, h, w, kk % C), 0);
    });
    parallel(bn, bk, [&](E i, E j) {
      E kk = let("kk", ko * bk + j);
      W_s(i, j) =
          select(kk < kR * kS * C, Weight(bx * bn + i, kk / (kS * C), kk / C % kS, kk % C), 0);
    });
    gemm(X_s, W_s, Y_l, {.transpose_b = true});
  });
  parallel(bm, bn, [&](E i, E j) {
    E m = let("m", by * bm + i);
    Y(m / pixels, m % pixels / W, m % W, bx * bn + j) = cast(kF16, Y_l(i, j));
  });
  return k.Finish();
}

void Conv2dReference(RefTensors& t, const Shapes& dims) {
  const int64_t N = dims.at("N"), H = dims.at("H"), W = dims.at("W"), C = dims.at("C"),
                K = dims.at("K");
  const std::vector<double>& X = t.at("X").data;
  const std::vector<double>& F = t.at("Weight").data;
  std::vector<double>& Y = t.at("Y").data;
  std::fill(Y.begin(), Y.end(), 0.0);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t p = 0; p < H; ++p) {
      for (int64_t q = 0; q < W; ++q) {
        double* y = &Y[((n * H + p) * W + q) * K];
        for (int64_t r = 0; r < kR; ++r) {
          int64_t h = p + r - kPad;
          if (h < 0 || h >= H) continue;
          for (int64_t s = 0; s < kS; ++s) {
            int64_t w = q + s - kPad;
            if (w < 0 || w >= W) continue;
            const double* x = &X[((n * H + h) * W + w) * C];
            for (int64_t o = 0; o < K; ++o) {
              const double* f = &F[((o * kR + r) * kS + s) * C];
              double sum = 0;
              for (int64_t c = 0; c < C; ++c) sum += x[c] * f[c];
              y[o] += sum;
            }
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<OpCase> ConvOps() {
  OpCase op;
  op.name = "conv2d_nhwc_f16";
  op.description =
      "3x3 convolution, stride 1, zero padding 1, as an implicit GEMM: fp16 NHWC input, KRSC "
      "weights, fp32 accumulation, fp16 NHWK output; 64x64x32 tiles";
  op.build = BuildConv2d;
  op.default_shapes = {{"N", 2}, {"H", 16}, {"W", 16}, {"C", 64}, {"K", 64}};
  // 143 output pixels, a reduction of 216 and 40 channels: no tile is whole.
  op.ragged_shapes = {{"N", 1}, {"H", 13}, {"W", 11}, {"C", 24}, {"K", 40}};
  op.outputs = {"Y"};
  op.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    Conv2dReference(t, dims);
  };
  // fp16 output rounding dominates; the fp32 sum of 9 * C products of N(0, 1)
  // inputs (partial sums up to ~sqrt(576) = 24 at C = 64) errs by about 1e-5,
  // a ninth of that for uniform [-1, 1) inputs; atol covers it for outputs
  // near zero.
  op.atol = 1e-4;
  op.rtol = kF16OutputRtol;
  op.flops = [](const Shapes& d) {
    return 2.0 * d.at("N") * d.at("H") * d.at("W") * d.at("K") * kR * kS * d.at("C");
  };
  op.bytes = [](const Shapes& d) {
    double pixels = double(d.at("N")) * d.at("H") * d.at("W");
    return 2.0 * (pixels * d.at("C") + d.at("K") * kR * kS * d.at("C") + pixels * d.at("K"));
  };
  return {op};
}

}  // namespace tile_ir::ops
