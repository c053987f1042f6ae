#include "passes/transforms/vectorize.h"

#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "passes/testing/ir_test_util.h"

namespace tile_ir::passes {
namespace {

using testing::Canonical;
using testing::ParseOrDie;
using testing::PrintVerified;

// test-gpu and test-cpu both allow 16-byte vectors.
std::string Vectorized(std::string_view kernel_text) {
  testing::RegisterFakeIntrinsics();
  Module module = ParseOrDie(kernel_text);
  VectorizeLoops(module, **testing::FindFakeTarget("test-cpu"));
  return PrintVerified(module);
}

TEST(VectorizeTest, ContiguousStoresBecomeRampsAndInvariantsBroadcasts) {
  EXPECT_EQ(Vectorized(R"(
kernel k(A: f32[8, 64], C: f32[8], I: i32[64]) grid(bx: 1) threads(1) {
  for i in 0 +: 8 serial {
    for j in 0 +: 4 vectorized {
      A[i, j + 8] = A[i, j + 8] * 2.0 + C[i];
    }
    for q in 0 +: 4 vectorized {
      I[i + q] = q * 3 + i;
    }
  }
})"),
            Canonical(R"(
kernel k(A: f32[8, 64], C: f32[8], I: i32[64]) grid(bx: 1) threads(1) {
  for i in 0 +: 8 serial {
    A[i, ramp(8, 1, 4)] = A[i, ramp(8, 1, 4)] * broadcast(2.0, 4) + broadcast(C[i], 4);
    I[ramp(i, 1, 4)] = ramp(i, 3, 4);
  }
})"));
}

TEST(VectorizeTest, SplitsLoopsWiderThanTheTargetsVectors) {
  EXPECT_EQ(Vectorized(R"(
kernel k(A: f16[64], B: f32[64]) grid(bx: 1) threads(1) {
  for j in 0 +: 16 vectorized {
    B[j] = cast<f32>(A[j]);
  }
  for i in 0 +: 32 vectorized {
    A[i] = 0.0_f16;
  }
})"),
            Canonical(R"(
kernel k(A: f16[64], B: f32[64]) grid(bx: 1) threads(1) {
  for j_outer in 0 +: 4 serial {
    B[ramp(j_outer * 4, 1, 4)] = cast<f32x4>(A[ramp(j_outer * 4, 1, 4)]);
  }
  for i_outer in 0 +: 4 serial {
    A[ramp(i_outer * 8, 1, 8)] = broadcast(0.0_f16, 8);
  }
})"));
}

TEST(VectorizeTest, AnythingElseStaysASerialLoop) {
  EXPECT_EQ(Vectorized(R"(
kernel k(A: f32[64, 64], P: i4[64], S: f32[64] strides[2]) grid(bx: 1) threads(1) {
  for a in 0 +: 4 vectorized {
    A[a, 0] = 1.0;
  }
  for b in 0 +: 4 vectorized {
    A[0, b] = A[0, b + 1];
  }
  for c in 0 +: 4 vectorized {
    A[0, c] = A[0, 0];
  }
  for d in 0 +: 4 vectorized {
    A[0, d] = exp(A[1, d]);
  }
  for e in 0 +: 4 vectorized {
    A[0, e * 2] = 1.0;
  }
  for f in 0 +: 4 vectorized {
    P[f] = 1_i4;
  }
  for g in 0 +: 4 vectorized {
    A[0, g] = S[g];
  }
  for h in 0 +: 4 vectorized {
    A[0, h] = 1.0;
    A[1, h] = 1.0;
  }
  for m in 0 +: 4 vectorized {
    A[0, 0] = 1.0;
  }
})"),
            Canonical(R"(
kernel k(A: f32[64, 64], P: i4[64], S: f32[64] strides[2]) grid(bx: 1) threads(1) {
  for a in 0 +: 4 serial {
    A[a, 0] = 1.0;
  }
  for b in 0 +: 4 serial {
    A[0, b] = A[0, b + 1];
  }
  for c in 0 +: 4 serial {
    A[0, c] = A[0, 0];
  }
  for d in 0 +: 4 serial {
    A[0, d] = exp(A[1, d]);
  }
  for e in 0 +: 4 serial {
    A[0, e * 2] = 1.0;
  }
  for f in 0 +: 4 serial {
    P[f] = 1_i4;
  }
  for g in 0 +: 4 serial {
    A[0, g] = S[g];
  }
  for h in 0 +: 4 serial {
    A[0, h] = 1.0;
    A[1, h] = 1.0;
  }
  for m in 0 +: 4 serial {
    A[0, 0] = 1.0;
  }
})"));
}

}  // namespace
}  // namespace tile_ir::passes
