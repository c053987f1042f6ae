// Gemm statements for the tests of the tensor-core gemm (gemm_mma_test.cc and
// gemm_mma_simulation_test.cc): dense shared operands and a fragment accumulator.
#ifndef TARGETS_CUDA_GEMM_MMA_TESTING_H_
#define TARGETS_CUDA_GEMM_MMA_TESTING_H_

#include <cstdint>
#include <optional>

#include "tile_ir/buffer.h"
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
};

// `gemm A_s, B_s -> C_l` over whole buffers: A_s is [M, K] ([K, M] transposed), B_s [K, N]
// ([N, K] transposed), C_l a fragment f32[M, N] with `c_layout`.
inline Stmt MakeGemm(const GemmSpec& spec, std::optional<Layout> c_layout = std::nullopt) {
  Buffer a = BufferNode::Make(
      "A_s", spec.input, {Int(spec.trans_a ? spec.k : spec.m), Int(spec.trans_a ? spec.m : spec.k)},
      MemoryScope::kShared);
  Buffer b = BufferNode::Make(
      "B_s", spec.input, {Int(spec.trans_b ? spec.n : spec.k), Int(spec.trans_b ? spec.k : spec.n)},
      MemoryScope::kShared);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(spec.m), Int(spec.n)}, MemoryScope::kFragment, {},
                              std::move(c_layout));
  return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c), spec.trans_a, spec.trans_b,
                    spec.policy, spec.clear);
}

}  // namespace tile_ir::cuda::testing

#endif  // TARGETS_CUDA_GEMM_MMA_TESTING_H_
