#include "targets/cuda/passes/pad_shared_rows.h"

#include "gtest/gtest.h"
#include "passes/testing/ir_test_util.h"

namespace tile_ir::passes {
namespace {

using testing::Canonical;
using testing::ParseOrDie;
using testing::PrintVerified;

std::string Padded(std::string_view kernel_text) {
  Module module = ParseOrDie(kernel_text);
  PadSharedRows(module);
  return PrintVerified(module);
}

TEST(PadSharedRowsTest, GemmOperandRowsBecomeAnOddNumberOfChunks) {
  // A: 64-byte rows (4 chunks) -> 80 bytes; B: 256-byte rows (16 chunks) -> 272 bytes, in
  // both stages; S is no gemm operand and stays dense.
  EXPECT_EQ(Padded(R"(
kernel k(A: f16[128, 32], B: f16[32, 128], C: f32[128, 128]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[2, 128, 32];
  alloc B_s: shared f16[2, 32, 128];
  alloc S: shared f16[32, 128];
  alloc C_l: fragment f32[128, 128];
  copy A -> A_s[0 +: 1, 0 +: 128, 0 +: 32];
  copy B -> B_s[0 +: 1, 0 +: 32, 0 +: 128];
  copy B -> S;
  gemm A_s[0 +: 1, 0 +: 128, 0 +: 32], B_s[0 +: 1, 0 +: 32, 0 +: 128] -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  copy C_l -> C;
})"),
            Canonical(R"(
kernel k(A: f16[128, 32], B: f16[32, 128], C: f32[128, 128]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[2, 128, 32] strides[5120, 40, 1];
  alloc B_s: shared f16[2, 32, 128] strides[4352, 136, 1];
  alloc S: shared f16[32, 128];
  alloc C_l: fragment f32[128, 128];
  copy A -> A_s[0 +: 1, 0 +: 128, 0 +: 32];
  copy B -> B_s[0 +: 1, 0 +: 32, 0 +: 128];
  copy B -> S;
  gemm A_s[0 +: 1, 0 +: 128, 0 +: 32], B_s[0 +: 1, 0 +: 32, 0 +: 128] -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  copy C_l -> C;
})"));
}

TEST(PadSharedRowsTest, OddChunkRowsPartialChunksAndStridedBuffersStay) {
  // 48-byte rows are already 3 chunks; 24-byte rows are not whole chunks; B_s has strides.
  constexpr char kKernel[] = R"(
kernel k(A: f16[64, 24], B: f16[24, 12], C: f32[64, 12]) grid(bx: 1) threads(32) {
  alloc A_s: shared f16[64, 24];
  alloc B_s: shared f16[24, 12] strides[16, 1];
  alloc C_l: fragment f32[64, 12];
  copy A -> A_s;
  copy B -> B_s;
  gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  copy C_l -> C;
})";
  EXPECT_EQ(Padded(kKernel), Canonical(kKernel));
}

}  // namespace
}  // namespace tile_ir::passes
