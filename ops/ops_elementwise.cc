// Element-wise operators: a 2-D grid of tiles, each copied into fragments, a
// parallel loop over the tile, and one copy out (TileLang's elementwise-add
// example with fragment staging).
#include <cmath>
#include <string>
#include <vector>

#include "frontends/cpp/dsl.h"
#include "ops/families.h"

namespace tile_ir::ops {
namespace {

using dsl::alloc_fragment;
using dsl::cast;
using dsl::ceildiv;
using dsl::copy;
using dsl::E;
using dsl::KernelBuilder;
using dsl::let;
using dsl::parallel;
using dsl::Tensor;

constexpr int kBlockM = 64, kBlockN = 128;

absl::StatusOr<Kernel> BuildAdd() {
  KernelBuilder k("add_f32");
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor A = k.Param("A", kF32, {M, N});
  Tensor B = k.Param("B", kF32, {M, N});
  Tensor C = k.Param("C", kF32, {M, N});
  std::vector<E> blocks = k.Launch({ceildiv(N, kBlockN), ceildiv(M, kBlockM)}, {128});
  E bx = blocks[0], by = blocks[1];
  Tensor A_l = alloc_fragment("A_l", {kBlockM, kBlockN}, kF32);
  Tensor B_l = alloc_fragment("B_l", {kBlockM, kBlockN}, kF32);
  Tensor C_l = alloc_fragment("C_l", {kBlockM, kBlockN}, kF32);
  copy(A.tile({by * kBlockM, bx * kBlockN}), A_l);
  copy(B.tile({by * kBlockM, bx * kBlockN}), B_l);
  parallel(kBlockM, kBlockN, [&](E i, E j) { C_l(i, j) = A_l(i, j) + B_l(i, j); });
  copy(C_l, C.tile({by * kBlockM, bx * kBlockN}));
  return k.Finish();
}

// GELU with the tanh approximation, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the
// form fused bias-GELU kernels use; the reference evaluates the same formula.
constexpr double kGeluCoeff = 0.044715;
constexpr double kSqrt2OverPi = 0.7978845608028654;

double GeluTanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + kGeluCoeff * x * x * x)));
}

absl::StatusOr<Kernel> BuildBiasGelu() {
  KernelBuilder k("bias_gelu_f16");
  E M = k.Dim("M"), N = k.Dim("N");
  Tensor X = k.Param("X", kF16, {M, N});
  Tensor Bias = k.Param("Bias", kF16, {N});
  Tensor Y = k.Param("Y", kF16, {M, N});
  std::vector<E> blocks = k.Launch({ceildiv(N, kBlockN), ceildiv(M, kBlockM)}, {128});
  E bx = blocks[0], by = blocks[1];
  Tensor X_l = alloc_fragment("X_l", {kBlockM, kBlockN}, kF16);
  Tensor Bias_l = alloc_fragment("Bias_l", {kBlockN}, kF16);
  Tensor Y_l = alloc_fragment("Y_l", {kBlockM, kBlockN}, kF16);
  copy(X.tile({by * kBlockM, bx * kBlockN}), X_l);
  copy(Bias.tile({bx * kBlockN}), Bias_l);
  // fp32 math: fp16 would lose the cubic term's precision and tanh's.
  parallel(kBlockM, kBlockN, [&](E i, E j) {
    E v = let("v", cast(kF32, X_l(i, j)) + cast(kF32, Bias_l(j)));
    E inner = kSqrt2OverPi * (v + kGeluCoeff * v * v * v);
    Y_l(i, j) = cast(kF16, 0.5f * v * (1.0f + dsl::tanh(inner)));
  });
  copy(Y_l, Y.tile({by * kBlockM, bx * kBlockN}));
  return k.Finish();
}

}  // namespace

std::vector<OpCase> ElementwiseOps() {
  std::vector<OpCase> ops;

  OpCase add;
  add.name = "add_f32";
  add.description = "C = A + B element-wise in fp32; 64x128 tiles";
  add.build = BuildAdd;
  add.default_shapes = {{"M", 1024}, {"N", 1024}};
  add.ragged_shapes = {{"M", 1000}, {"N", 777}};
  add.outputs = {"C"};
  add.reference = [](RefTensors& t, const Shapes&, const std::map<std::string, double>&) {
    const std::vector<double>& a = t.at("A").data;
    const std::vector<double>& b = t.at("B").data;
    std::vector<double>& c = t.at("C").data;
    for (size_t i = 0; i < c.size(); ++i) c[i] = a[i] + b[i];
  };
  // One correctly rounded fp32 addition errs by half an ulp, at most 2^-24
  // relative; allow one ulp.
  add.atol = 0;
  add.rtol = 0x1p-23;
  add.flops = [](const Shapes& d) { return double(d.at("M")) * d.at("N"); };
  add.bytes = [](const Shapes& d) { return 12.0 * d.at("M") * d.at("N"); };
  ops.push_back(std::move(add));

  OpCase gelu;
  gelu.name = "bias_gelu_f16";
  gelu.description =
      "Y = gelu(X + Bias) in fp16 with fp32 math, GELU by its tanh approximation; 64x128 tiles";
  gelu.build = BuildBiasGelu;
  gelu.default_shapes = {{"M", 512}, {"N", 1024}};
  gelu.ragged_shapes = {{"M", 1000}, {"N", 777}};
  // Wide enough to reach both tails of GELU.
  gelu.inits = {{"X", {InputInit::Kind::kUniform, -4, 4}}};
  gelu.outputs = {"Y"};
  gelu.reference = [](RefTensors& t, const Shapes& dims, const std::map<std::string, double>&) {
    const int64_t M = dims.at("M"), N = dims.at("N");
    const std::vector<double>& x = t.at("X").data;
    const std::vector<double>& bias = t.at("Bias").data;
    std::vector<double>& y = t.at("Y").data;
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) y[i * N + j] = GeluTanh(x[i * N + j] + bias[j]);
    }
  };
  // fp16 output rounding, plus a device tanh that may be an approximation
  // (CUDA's tanh.approx errs by ~2^-11 relative, i.e. ~5e-4 absolute in the
  // output where 1 + tanh cancels for negative inputs).
  gelu.atol = 1e-3;
  gelu.rtol = kF16OutputRtol;
  gelu.flops = [](const Shapes& d) { return 10.0 * d.at("M") * d.at("N"); };
  gelu.bytes = [](const Shapes& d) { return 4.0 * d.at("M") * d.at("N") + 2.0 * d.at("N"); };
  ops.push_back(std::move(gelu));
  return ops;
}

}  // namespace tile_ir::ops
