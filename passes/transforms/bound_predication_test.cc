#include "passes/transforms/bound_predication.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/transforms/layout_inference.h"
#include "passes/transforms/lower_tile_ops.h"
#include "passes/transforms/rasterize_blocks.h"
#include "passes/transforms/simplify.h"
#include "passes/testing/fake_targets.h"
#include "tile_ir/kernel_interpreter.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

using ::testing::HasSubstr;

Module Parse(absl::string_view kernel) {
  absl::StatusOr<Module> module =
      text::ParseModule(absl::StrCat("ir_version 1;\nproducer \"t\" \"1\";\n\n", kernel), "t.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

std::string Canonical(absl::string_view kernel) { return Print(Parse(kernel)); }

// The predicated module's text; `changed` receives what the pass said.
std::string Predicated(absl::string_view kernel, bool* changed = nullptr) {
  Module module = Parse(kernel);
  absl::StatusOr<bool> result = PredicateBounds(module);
  EXPECT_TRUE(result.ok()) << result.status();
  if (changed != nullptr) *changed = result.value_or(false);
  absl::Status valid = Verify(module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(module);
  return Print(module);
}

TEST(BoundPredicationTest, ProvedAccessesStayAsTheyAre) {
  constexpr char kKernel[] = R"(
kernel k<M: i32>(A: f32[M], B: f32[M], T: f32[512]) grid(bx: 4) threads(1) {
  for i in 0 +: M serial {
    A[i] = B[i];
  }
  for j in 0 +: 128 parallel {
    T[bx * 128 + j] = T[511 - bx * 128 - j];
  }
})";
  bool changed = true;
  EXPECT_EQ(Predicated(kKernel, &changed), Canonical(kKernel));
  EXPECT_FALSE(changed);
}

TEST(BoundPredicationTest, RaggedTilesGetGuardsAndClampedLoads) {
  EXPECT_EQ(Predicated(R"(
kernel k<M: i32>(A: f16[M, 64], C: f32[M, 64]) grid(by: ceildiv(M, 128)) threads(1) {
  for i in 0 +: 128 parallel {
    for j in 0 +: 64 parallel {
      C[by * 128 + i, j] = cast<f32>(A[by * 128 + i, j]) + C[by * 128 + i, j];
    }
  }
})"),
            Canonical(R"(
kernel k<M: i32>(A: f16[M, 64], C: f32[M, 64]) grid(by: ceildiv(M, 128)) threads(1) {
  for i in 0 +: 128 parallel {
    for j in 0 +: 64 parallel {
      if (by * 128 + i < M) {
        C[by * 128 + i, j] = cast<f32>(A[by * 128 + i, j]) + C[by * 128 + i, j];
      }
    }
  }
})"));
  EXPECT_EQ(Predicated(R"(
kernel k<M: i32, N: i32>(A: f16[M, N], S: f16[128, 4]) grid(by: ceildiv(M, 128)) threads(1) {
  for i in 0 +: 128 parallel {
    for j in 0 +: 4 parallel {
      S[i, j] = A[by * 128 + i, j - 1];
    }
  }
})"),
            Canonical(R"(
kernel k<M: i32, N: i32>(A: f16[M, N], S: f16[128, 4]) grid(by: ceildiv(M, 128)) threads(1) {
  for i in 0 +: 128 parallel {
    for j in 0 +: 4 parallel {
      S[i, j] = select(by * 128 + i < M && j - 1 >= 0 && j - 1 < N,
                       A[min(by * 128 + i, M - 1), min(max(j - 1, 0), N - 1)], 0.0_f16);
    }
  }
})"));
}

TEST(BoundPredicationTest, InvariantGuardsLeaveSerialLoopsButNotParallelOnes) {
  EXPECT_EQ(Predicated(R"(
kernel k<M: i32>(C: f32[M, 128], D: f32[M]) grid(bx: ceildiv(M, 4)) threads(1) {
  for i in 0 +: 4 serial {
    for j in 0 +: 128 serial {
      C[bx * 4 + i, j] = 1.0;
    }
  }
  for t in 0 +: 8 unrolled {
    D[bx * 4] = 2.0;
  }
  for p in 0 +: 8 parallel {
    D[bx * 4] = 3.0;
  }
})"),
            Canonical(R"(
kernel k<M: i32>(C: f32[M, 128], D: f32[M]) grid(bx: ceildiv(M, 4)) threads(1) {
  for i in 0 +: 4 serial {
    if (bx * 4 + i < M) {
      for j in 0 +: 128 serial {
        C[bx * 4 + i, j] = 1.0;
      }
    }
  }
  if (bx * 4 < M) {
    for t in 0 +: 8 unrolled {
      D[bx * 4] = 2.0;
    }
  }
  for p in 0 +: 8 parallel {
    if (bx * 4 < M) {
      D[bx * 4] = 3.0;
    }
  }
})"));
}

TEST(BoundPredicationTest, KnownConditionsAreNotRepeated) {
  EXPECT_EQ(Predicated(R"(
kernel k<N: i32>(A: f32[N], G: i32[N]) grid(bx: 1) threads(1) {
  for i in 0 +: 16 serial {
    if (i < N) {
      A[i] = A[G[i]];
    }
  }
})"),
            Canonical(R"(
kernel k<N: i32>(A: f32[N], G: i32[N]) grid(bx: 1) threads(1) {
  for i in 0 +: 16 serial {
    if (i < N) {
      A[i] = select(G[i] >= 0 && G[i] < N, A[min(max(G[i], 0), N - 1)], 0.0);
    }
  }
})"));
}

TEST(BoundPredicationTest, AtomicAddsAreGuardedNotClamped) {
  std::string text = Predicated(R"(
kernel k<M: i32>(D: f32[M], S: f32[M]) grid(bx: ceildiv(M, 32)) threads(1) {
  for i in 0 +: 32 parallel {
    eval atomic_add_at(D[bx * 32 + i], S[bx * 32 + i]);
  }
})");
  EXPECT_THAT(text, HasSubstr("if (bx * 32 + i < M) {\n      eval atomic_add_at(D[bx * 32 + i], "
                              "S[bx * 32 + i]);"));
}

TEST(BoundPredicationTest, WideDimensionsCompareInTheirType) {
  std::string text = Predicated(R"(
kernel k<N: i64>(A: f32[N]) grid(bx: 4) threads(1) {
  for i in 0 +: 8 serial {
    A[bx * 8 + i] = 0.0;
  }
})");
  EXPECT_THAT(text, HasSubstr("if (cast<i64>(bx * 8 + i) < N) {"));
}

// x % H, for x proved non-negative and a divisor fixed for the launch and proved positive (a
// dim), is in [0, H): a persistent kernel's head index, tile / tiles_per_head % HEADS, needs no
// guard. A dividend that may be negative keeps it.
TEST(BoundPredicationTest, ModuloByADimensionIsBelowIt) {
  std::string text = Predicated(R"(
kernel k<H: i32>(A: f32[H, 8], B: f32[H, 8]) grid(bx: 4) threads(1) {
  for t in 0 +: 100 serial {
    let head: i32 = (bx + t * 4) / 3 % H;
    A[head, 0] = 0.0;
    let maybe: i32 = (bx - 2) % H;
    B[maybe, 0] = 0.0;
  }
})");
  EXPECT_THAT(text, HasSubstr("\n    A[head, 0] = 0.0;"));
  EXPECT_THAT(text, HasSubstr("if (maybe >= 0 && maybe < H) {"));
}

TEST(BoundPredicationTest, TileOpsOnGlobalMemoryMustBeLoweredFirst) {
  Module module = Parse(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(1) {
  alloc s: shared f32[64];
  copy A -> s;
})");
  absl::StatusOr<bool> result = PredicateBounds(module);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("t.tile:7:3: in kernel 'k': a tile operation"));
  EXPECT_THAT(result.status().message(), HasSubstr("run lower-tile-ops before"));
}

// The lowering passes on a GEMM whose sizes are not multiples of its tiles,
// run block by block: every element of C gets its value, and no access leaves
// its tensor (the interpreter checks each one).
TEST(BoundPredicationTest, RaggedGemmIsCorrectAfterLowering) {
  constexpr char kGemm[] = R"(
kernel gemm<M: i32, N: i32, K: i32>(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    grid(bx: ceildiv(N, 4), by: ceildiv(M, 4)) threads(16) swizzle(panel=2, order=row) {
  alloc A_s: shared f16[4, 2];
  alloc B_s: shared f16[2, 4];
  alloc C_l: fragment f32[4, 4];
  fill C_l = 0.0;
  for k in 0 +: ceildiv(K, 2) pipelined(num_stages=2) {
    copy A[by * 4 +: 4, k * 2 +: 2] -> A_s;
    copy B[k * 2 +: 2, bx * 4 +: 4] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 4 +: 4, bx * 4 +: 4];
})";
  testing::RegisterFakeIntrinsics();
  const int m = 10, n = 7, k = 5;
  std::vector<double> a, b;
  for (int i = 0; i < m * k; ++i) a.push_back((i * 7 + 3) % 11 - 5);
  for (int i = 0; i < k * n; ++i) b.push_back((i * 5 + 1) % 13 - 6);
  std::vector<double> expected(m * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int x = 0; x < k; ++x) expected[i * n + j] += a[i * k + x] * b[x * n + j];
    }
  }
  for (const char* target_name : {"test-cpu", "test-gpu"}) {
    const TargetInfo& target = **testing::FindFakeTarget(target_name);
    Module module = Parse(kGemm);
    ASSERT_TRUE(RasterizeBlocks(module).ok());
    ASSERT_TRUE(InferFragmentLayouts(module, target).ok());
    ASSERT_TRUE(LowerTileOps(module, target).ok());
    absl::StatusOr<bool> predicated = PredicateBounds(module);
    ASSERT_TRUE(predicated.ok()) << predicated.status();
    SimplifyModule(module);
    ASSERT_TRUE(Verify(module).ok()) << Print(module);

    KernelInterpreter interpreter;
    interpreter.SetBuffer("A", a);
    interpreter.SetBuffer("B", b);
    interpreter.SetVar("M", m);
    interpreter.SetVar("N", n);
    interpreter.SetVar("K", k);
    for (int by = 0; by < (m + 3) / 4; ++by) {
      for (int bx = 0; bx < (n + 3) / 4; ++bx) {
        interpreter.SetVar("bx", bx);
        interpreter.SetVar("by", by);
        absl::Status ran = interpreter.RunBlock(*module.kernels[0]);
        ASSERT_TRUE(ran.ok()) << target_name << " block (" << bx << ", " << by << "): " << ran
                              << "\n"
                              << Print(module);
      }
    }
    EXPECT_EQ(interpreter.buffer("C"), expected) << target_name;
  }
}

}  // namespace
}  // namespace tile_ir::passes
