// Gemm statements for the tests of the tile gemms (gemm_mma_test.cc,
// gemm_mma_simulation_test.cc, gemm_wgmma_test.cc, gemm_fma_test.cc): dense shared operands and a
// fragment accumulator, the kernel around them, and where a fragment layout puts an element.
#ifndef TARGETS_CUDA_GEMM_MMA_TESTING_H_
#define TARGETS_CUDA_GEMM_MMA_TESTING_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "passes/analysis/fragment_threads.h"
#include "tile_ir/buffer.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::cuda::testing {

struct GemmSpec {
  DataType input = kF16;
  int64_t m = 128;
  int64_t n = 128;
  int64_t k = 32;
  bool trans_a = false;
  bool trans_b = false;
  WarpPolicy policy = WarpPolicy::kSquare;
  bool clear = false;
  // Elements added to each stored row of A_s and B_s (explicit strides), as
  // pad-shared-rows does; 0 keeps the tiles dense.
  int64_t pad_a = 0;
  int64_t pad_b = 0;
  // C's element type (f32 for the tensor cores; the FMA gemm also takes f64).
  DataType accumulator = kF32;
};

// Row-major strides of a [rows, cols] tile whose rows are `pad` elements longer.
inline std::vector<Expr> PaddedStrides(int64_t cols, int64_t pad) {
  if (pad == 0) return {};
  return {Int(cols + pad), Int(1)};
}

// `gemm A_s, B_s -> C_l` over whole buffers: A_s is [M, K] ([K, M] transposed), B_s [K, N]
// ([N, K] transposed), C_l a fragment [M, N] of spec.accumulator with `c_layout`.
inline Stmt MakeGemm(const GemmSpec& spec, std::optional<Layout> c_layout = std::nullopt) {
  int64_t a_cols = spec.trans_a ? spec.m : spec.k;
  int64_t b_cols = spec.trans_b ? spec.k : spec.n;
  Buffer a = BufferNode::Make("A_s", spec.input, {Int(spec.trans_a ? spec.k : spec.m), Int(a_cols)},
                              MemoryScope::kShared, PaddedStrides(a_cols, spec.pad_a));
  Buffer b = BufferNode::Make("B_s", spec.input, {Int(spec.trans_b ? spec.n : spec.k), Int(b_cols)},
                              MemoryScope::kShared, PaddedStrides(b_cols, spec.pad_b));
  Buffer c = BufferNode::Make("C_l", spec.accumulator, {Int(spec.m), Int(spec.n)},
                              MemoryScope::kFragment, {}, std::move(c_layout));
  return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c), spec.trans_a, spec.trans_b,
                    spec.policy, spec.clear);
}

// A kernel of `threads` threads whose body is `body` (a gemm, or a Seq of them).
inline Kernel KernelWith(Stmt body, int64_t threads) {
  Launch launch;
  launch.threads = {threads};
  return KernelNode::Make("k", {}, {}, std::move(launch), std::move(body), {});
}

// A (thread, register) place of a fragment layout, ordered so that sets of them count.
struct Place {
  int64_t thread;
  int64_t reg;
  bool operator<(const Place& other) const {
    return std::make_pair(thread, reg) < std::make_pair(other.thread, other.reg);
  }
};

// Where `layout` puts (i, j); a failure where it does not evaluate.
inline Place At(const Layout& layout, int64_t i, int64_t j) {
  passes::IntEnv env = {{layout.inputs[0].get(), i}, {layout.inputs[1].get(), j}};
  std::optional<int64_t> thread = passes::EvaluateInt(layout.outputs[0], env);
  std::optional<int64_t> reg = passes::EvaluateInt(layout.outputs[1], env);
  EXPECT_TRUE(thread && reg) << "(" << i << ", " << j << ")";
  return {thread.value_or(-1), reg.value_or(-1)};
}

}  // namespace tile_ir::cuda::testing

#endif  // TARGETS_CUDA_GEMM_MMA_TESTING_H_
