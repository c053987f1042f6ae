#include "passes/transforms/thread_binding.h"

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/kernel_interpreter.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

using ::testing::HasSubstr;

constexpr char kHeader[] = "ir_version 1;\nproducer \"test\" \"1\";\n\n";

Module ParseOrDie(std::string_view kernel_text) {
  absl::StatusOr<Module> module =
      text::ParseModule(absl::StrCat(kHeader, std::string(kernel_text)), "test.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

std::string Canonical(std::string_view kernel_text) { return Print(ParseOrDie(kernel_text)); }

absl::StatusOr<Module> Bound(std::string_view kernel_text, std::string_view target) {
  ::tile_ir::passes::testing::RegisterFakeIntrinsics();
  Module module = ParseOrDie(kernel_text);
  absl::StatusOr<bool> changed =
      BindThreads(module, **::tile_ir::passes::testing::FindFakeTarget(target));
  if (!changed.ok()) return changed.status();
  absl::Status valid = Verify(module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(module);
  return module;
}

std::string BoundText(std::string_view kernel_text, std::string_view target) {
  absl::StatusOr<Module> module = Bound(kernel_text, target);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? Print(*module) : "";
}

std::string BindError(std::string_view kernel_text) {
  absl::StatusOr<Module> module = Bound(kernel_text, "test-gpu");
  EXPECT_FALSE(module.ok()) << Print(*module);
  return module.ok() ? "" : std::string(module.status().message());
}

TEST(ThreadBindingTest, OneThreadMakesLoopsSerialAndFragmentsLocal) {
  EXPECT_EQ(BoundText(R"(
kernel k(A: f32[16, 8]) grid(bx: 1) threads(128) {
  alloc F: fragment f32[16, 8] layout((i, j) -> (i, j));
  for i in 0 +: 16 parallel {
    for j in 0 +: 8 parallel {
      F[i, j] = A[i, j];
    }
  }
})",
                      "test-cpu"),
            Canonical(R"(
kernel k(A: f32[16, 8]) grid(bx: 1) threads(128) {
  alloc F: local f32[16, 8];
  for i in 0 +: 16 serial {
    for j in 0 +: 8 serial {
      F[i, j] = A[i, j];
    }
  }
})"));
}

TEST(ThreadBindingTest, NestsWithoutFragmentsAreDealtCyclically) {
  EXPECT_EQ(BoundText(R"(
kernel k<N: i32>(A: f32[N, 8], B: f32[64, 8]) grid(bx: 1) threads(32) {
  for i in 0 +: N parallel {
    for j in 0 +: 8 parallel {
      A[i, j] = 0.0;
    }
  }
  for p in 0 +: 64 parallel {
    for q in 0 +: 8 parallel {
      B[p, q] = 1.0;
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k<N: i32>(A: f32[N, 8], B: f32[64, 8]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    for r in 0 +: ceildiv(max(N, 0) * 2, 32) serial {
      let e: i32 = r * 32 + tx;
      if (e < max(N, 0) * 2) {
        let i: i32 = e / 2;
        let j_run: i32 = e % 2 * 4;
        for j_lane in 0 +: 4 vectorized {
          A[i, j_run + j_lane] = 0.0;
        }
      }
    }
    for r_1 in 0 +: 4 serial {
      let e_1: i32 = r_1 * 32 + tx;
      let p: i32 = e_1 / 2;
      let q_run: i32 = e_1 % 2 * 4;
      for q_lane in 0 +: 4 vectorized {
        B[p, q_run + q_lane] = 1.0;
      }
    }
  }
})"));
}

// Found by the gpu_pipelines fuzz target (a copy whose region extent is 64_i8): loops that
// count in i8 were flattened in i8, whose 64 x 64 elements and rounds of 128 threads do not
// fit. The flat index counts in i32; each loop variable keeps its type.
TEST(ThreadBindingTest, NarrowLoopsAreDealtOutInI32) {
  EXPECT_EQ(BoundText(R"(
kernel k(B: f32[64, 64]) grid(bx: 1) threads(128) {
  for p: i8 in 0_i8 +: 64_i8 parallel {
    for q: i8 in 0_i8 +: 64_i8 parallel {
      B[p, q] = 1.0;
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k(B: f32[64, 64]) grid(bx: 1) threads(128) {
  for tx in 0 +: 128 thread_bound(x) {
    for r in 0 +: 8 serial {
      let e: i32 = r * 128 + tx;
      let p: i8 = cast<i8>(e / 16);
      let q_run: i32 = e % 16 * 4;
      for q_lane in 0 +: 4 vectorized {
        B[p, cast<i8>(q_run + q_lane)] = 1.0;
      }
    }
  }
})"));
}

// The same for a nest over a fragment, which each thread walks by its registers (found by the
// gpu_pipelines fuzz target after the fix above: 128 rounds of an i8 round variable).
TEST(ThreadBindingTest, NarrowLoopsOverAFragmentWalkRegistersInI32) {
  absl::StatusOr<Module> module = Bound(R"(
kernel k(A: f32[64, 64]) grid(bx: 1) threads(32) {
  alloc F: fragment f32[64, 64] layout((i, j) -> ((i * 64 + j) % 32, (i * 64 + j) / 32));
  for p: i8 in 0_i8 +: 64_i8 parallel {
    for q: i8 in 0_i8 +: 64_i8 parallel {
      F[p, q] = A[p, q];
    }
  }
})",
                                        "test-gpu");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_THAT(Print(*module), HasSubstr("let e: i32 = tx + r * 32;"));
}

// A guarded store (bound predication's select) would not vectorize: its elements are dealt
// out one by one, so that neighbouring threads still touch neighbouring elements.
// A guard that holds for a whole run of the innermost loop (a ragged row's, as
// bound-predication writes it) keeps the runs: vectorize widens the select.
TEST(ThreadBindingTest, RowGuardedNestsAreDealtInRuns) {
  EXPECT_EQ(BoundText(R"(
kernel k<N: i32>(A: f32[N, 8], B: f32[64, 8]) grid(bx: 1) threads(32) {
  for p in 0 +: 64 parallel {
    for q in 0 +: 8 parallel {
      B[p, q] = select(p < N, A[min(p, N - 1), q], 0.0);
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k<N: i32>(A: f32[N, 8], B: f32[64, 8]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    for r in 0 +: 4 serial {
      let e: i32 = r * 32 + tx;
      let p: i32 = e / 2;
      let q_run: i32 = e % 2 * 4;
      for q_lane in 0 +: 4 vectorized {
        B[p, q_run + q_lane] = select(p < N, A[min(p, N - 1), q_run + q_lane], 0.0);
      }
    }
  }
})"));
}

// A store guarded by the row (bound-predication's guard of a ragged row of the destination)
// is dealt in runs too: the guard is tested once per run, around the vectorized loop.
TEST(ThreadBindingTest, RowGuardedStoresAreDealtInRuns) {
  EXPECT_EQ(BoundText(R"(
kernel k<M: i32>(A: f32[64, 8], B: f32[M, 8]) grid(bx: 1) threads(32) {
  for p in 0 +: 64 parallel {
    for q in 0 +: 8 parallel {
      if (p < M) {
        B[p, q] = A[p, q];
      }
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k<M: i32>(A: f32[64, 8], B: f32[M, 8]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    for r in 0 +: 4 serial {
      let e: i32 = r * 32 + tx;
      let p: i32 = e / 2;
      let q_run: i32 = e % 2 * 4;
      if (p < M) {
        for q_lane in 0 +: 4 vectorized {
          B[p, q_run + q_lane] = A[p, q_run + q_lane];
        }
      }
    }
  }
})"));
}

// A store guarded by its column still goes element by element.
TEST(ThreadBindingTest, ColumnGuardedStoresAreDealtElementByElement) {
  EXPECT_EQ(BoundText(R"(
kernel k<N: i32>(A: f32[64, 8], B: f32[64, N]) grid(bx: 1) threads(32) {
  for p in 0 +: 64 parallel {
    for q in 0 +: 8 parallel {
      if (q < N) {
        B[p, q] = A[p, q];
      }
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k<N: i32>(A: f32[64, 8], B: f32[64, N]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    for r in 0 +: 16 serial {
      let e: i32 = r * 32 + tx;
      let p: i32 = e / 8;
      let q: i32 = e % 8;
      if (q < N) {
        B[p, q] = A[p, q];
      }
    }
  }
})"));
}

// A guard that changes along the innermost loop (a ragged column's) is dealt element by
// element: no vector would be all in or all out.
TEST(ThreadBindingTest, ColumnGuardedNestsAreDealtElementByElement) {
  EXPECT_EQ(BoundText(R"(
kernel k<N: i32>(A: f32[64, N], B: f32[64, 8]) grid(bx: 1) threads(32) {
  for p in 0 +: 64 parallel {
    for q in 0 +: 8 parallel {
      B[p, q] = select(q < N, A[p, min(q, N - 1)], 0.0);
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k<N: i32>(A: f32[64, N], B: f32[64, 8]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    for r in 0 +: 16 serial {
      let e: i32 = r * 32 + tx;
      let p: i32 = e / 8;
      let q: i32 = e % 8;
      B[p, q] = select(q < N, A[p, min(q, N - 1)], 0.0);
    }
  }
})"));
}

TEST(ThreadBindingTest, FragmentElementsRunOnTheirThread) {
  EXPECT_EQ(BoundText(R"(
kernel k(A: f32[64, 4], O: f32[64]) grid(bx: 1) threads(64) {
  alloc F: fragment f32[64, 4] layout((i, j) -> (i, j));
  alloc R: fragment f32[64] layout((i) -> (i, 0));
  for i in 0 +: 64 parallel {
    let row: i32 = i * 4;
    R[i] = 0.0;
    for j in 0 +: 4 serial {
      R[i] = R[i] + F[i, j] + A[i, j];
    }
    O[i] = R[i];
  }
  F[0, 1] = 2.0;
  O[1] = 3.0;
})",
                      "test-gpu"),
            Canonical(R"(
kernel k(A: f32[64, 4], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc F: local f32[4];
    alloc R: local f32[1];
    for r in 0 +: 1 unrolled {
      let e: i32 = tx;
      let i: i32 = e;
      let row: i32 = i * 4;
      R[0] = 0.0;
      for j in 0 +: 4 serial {
        R[0] = R[0] + F[j] + A[i, j];
      }
      O[i] = R[0];
    }
    if (0 == tx) {
      F[1] = 2.0;
    }
    if (0 == tx) {
      O[1] = 3.0;
    }
  }
})"));
}

// Runs a bound kernel (every thread in turn) on A = 0, 1, 2, ... and returns O.
std::vector<double> RunBound(const Module& module, int64_t inputs, int64_t outputs) {
  KernelInterpreter interpreter;
  std::vector<double> a(inputs);
  for (int64_t k = 0; k < inputs; ++k) a[k] = static_cast<double>(k);
  interpreter.SetBuffer("A", a);
  interpreter.SetBuffer("O", std::vector<double>(outputs, -1.0));
  interpreter.SetVar("bx", 0);
  absl::Status ran = interpreter.RunBlock(*module.kernels[0]);
  EXPECT_TRUE(ran.ok()) << ran << "\n" << Print(module);
  return ran.ok() ? interpreter.buffer("O") : std::vector<double>{};
}

// A cyclic layout (e -> (e % T, e / T)) over a nest whose 100 elements T = 32 does not
// divide: each thread walks its registers r, at element tx + r * 32, guarded by e < 100.
TEST(ThreadBindingTest, ACyclicLayoutNestWalksEachThreadsRegisters) {
  constexpr char kKernel[] = R"(
kernel k(A: f32[10, 10], O: f32[10, 10]) grid(bx: 1) threads(32) {
  alloc F: fragment f32[10, 10] layout((i, j) -> ((i * 10 + j) % 32, (i * 10 + j) / 32));
  for i in 0 +: 10 parallel {
    for j in 0 +: 10 parallel {
      F[i, j] = A[i, j] * 2.0;
    }
  }
  for p in 0 +: 10 parallel {
    for q in 0 +: 10 parallel {
      O[p, q] = F[p, q] + F[p, q];
    }
  }
})";
  absl::StatusOr<Module> module = Bound(kKernel, "test-gpu");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string out = Print(*module);
  EXPECT_THAT(out, HasSubstr(R"(    for r in 0 +: 4 unrolled {
      let e: i32 = tx + r * 32;
      if (e < 100) {
        let i: i32 = e / 10;
        let j: i32 = e % 10;
        F[r] = A[i, j] * 2.0;
      }
    })"));
  EXPECT_THAT(out, HasSubstr("O[p, q] = F[r_1] + F[r_1];"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("== tx")));
  std::vector<double> o = RunBound(*module, 100, 100);
  ASSERT_EQ(o.size(), 100u);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(o[k], 4.0 * k) << k;
}

// Found by the gpu_pipelines fuzz target (testdata/passes/thread-binding/cpu.tile on a GPU): a
// vectorized loop in a parallel nest over a fragment whose owner thread changes along it was
// guarded as a whole, by a condition naming its own variable before it was defined. The guard
// now goes inside the loop.
TEST(ThreadBindingTest, ALoopWhoseElementsChangeThreadIsGuardedInside) {
  constexpr char kKernel[] = R"(
kernel k(A: f32[8, 8], O: f32[8, 8]) grid(bx: 1) threads(16) {
  alloc F: fragment f32[8, 8] layout((i, j) -> ((i * 8 + j) % 16, (i * 8 + j) / 16));
  for i in 0 +: 8 parallel {
    for j in 0 +: 8 parallel {
      F[i, j] = A[i, j] * 2.0;
    }
  }
  for p in 0 +: 8 parallel {
    for q in 0 +: 8 vectorized {
      O[p, q] = F[p, q];
    }
  }
})";
  absl::StatusOr<Module> module = Bound(kKernel, "test-gpu");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_THAT(Print(*module), HasSubstr(R"(    for p in 0 +: 8 serial {
      for q in 0 +: 8 vectorized {
        if ((p * 8 + q) % 16 == tx) {
          O[p, q] = F[(p * 8 + q) / 16];
        }
      }
    })"));
  std::vector<double> o = RunBound(*module, 64, 64);
  ASSERT_EQ(o.size(), 64u);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(o[k], 2.0 * k) << k;
}

// A guard cannot name a thread that the statements it guards compute.
TEST(ThreadBindingTest, AnOwnerComputedByTheGuardedStatementsIsRefused) {
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i % 4, i / 4));
  alloc G: fragment f32[8] layout((i) -> (i % 4, i / 4));
  for i in 0 +: 8 parallel {
    let k: i32 = cast<i32>(F[i]);
    G[k % 8] = 1.0;
  }
})"),
              HasSubstr("the thread that holds the fragment element these statements access "
                        "depends on 'k', which they compute"));
}

// The 128-byte swizzle of an 8x64 tile (chunk q / 8 of row p goes to chunk q / 8 ^ p % 8):
// a nest with a swizzled destination is dealt out like any other, and every value lands
// where the swizzle says.
TEST(ThreadBindingTest, ASwizzledStoreLandsWhereTheSwizzleSays) {
  ::tile_ir::passes::testing::RegisterFakeIntrinsics();
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 2;
producer "test" "1";

kernel k(A: f32[8, 64], O: f32[8, 64]) grid(bx: 1) threads(32) {
  for p in 0 +: 8 parallel {
    for q in 0 +: 64 parallel {
      O[p, (q / 8 ^ p % 8) * 8 + q % 8] = A[p, q];
    }
  }
})",
                                                    "test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<bool> changed =
      BindThreads(*module, **::tile_ir::passes::testing::FindFakeTarget("test-gpu"));
  ASSERT_TRUE(changed.ok()) << changed.status();
  absl::Status valid = Verify(*module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(*module);
  std::vector<double> o = RunBound(*module, 512, 512);
  ASSERT_EQ(o.size(), 512u);
  for (int p = 0; p < 8; ++p) {
    for (int q = 0; q < 64; ++q) {
      EXPECT_EQ(o[p * 64 + ((q / 8) ^ p) * 8 + q % 8], p * 64 + q) << p << ", " << q;
    }
  }
}

// A row layout (rows cyclic over T = 8 threads, 4 registers per row, 12 rows): linear
// index 4 * tx + B[r] with B = 0, 1, 2, 3, 32, 33, 34, 35, not a progression, so B comes
// from a select chain in the unrolled loop; rows 12 to 15 do not exist (e < 48). A
// reduction's row fragment reads register r / 4 (a select chain too) on the same thread.
TEST(ThreadBindingTest, ARowLayoutNestUnrollsOverItsRegisters) {
  constexpr char kKernel[] = R"(
kernel k(A: f32[12, 4], O: f32[12, 4]) grid(bx: 1) threads(8) {
  alloc F: fragment f32[12, 4] layout((i, j) -> (i % 8, i / 8 * 4 + j));
  alloc S: fragment f32[12] layout((i) -> (i % 8, i / 8));
  for i in 0 +: 12 parallel {
    for j in 0 +: 4 parallel {
      F[i, j] = A[i, j] + 1.0;
    }
  }
  for k in 0 +: 12 parallel {
    S[k] = 0.0;
    for x in 0 +: 4 serial {
      S[k] = S[k] + F[k, x];
    }
  }
  for p in 0 +: 12 parallel {
    for q in 0 +: 4 parallel {
      O[p, q] = F[p, q] * S[p];
    }
  }
})";
  absl::StatusOr<Module> module = Bound(kKernel, "test-gpu");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string out = Print(*module);
  EXPECT_THAT(out, HasSubstr(R"(    for r in 0 +: 8 unrolled {
      let e: i32 = tx * 4 + select(r == 0, 0, select(r == 1, 1, select(r == 2, 2, select(r == 3, 3, select(r == 4, 32, select(r == 5, 33, select(r == 6, 34, 35)))))));
      if (e < 48) {
        let i: i32 = e / 4;
        let j: i32 = e % 4;
        F[r] = A[i, j] + 1.0;
      }
    })"));
  EXPECT_THAT(out, HasSubstr("S[r_1] = S[r_1] + F[r_1 * 4 + x];"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("== tx")));
  std::vector<double> o = RunBound(*module, 48, 48);
  ASSERT_EQ(o.size(), 48u);
  for (int i = 0; i < 12; ++i) {
    double sum = 0;
    for (int j = 0; j < 4; ++j) sum += i * 4 + j + 1.0;
    for (int j = 0; j < 4; ++j) EXPECT_EQ(o[i * 4 + j], (i * 4 + j + 1.0) * sum) << i << "," << j;
  }
}

// An mma.sync m16n8 accumulator layout (T = 64 threads, 2 warps along rows, a 32 x 16
// fragment of two m16n8 tiles per warp) is not affine in the thread index but separable and
// bit-linear: row = warp * 16 + lane / 4 + 8 * (c / 2), col = n8 * 8 + lane % 4 * 2 + c % 2
// for register r = n8 * 4 + c. Each thread walks its 8 registers, unrolled, at coordinates
// P(tx) + Q(r), with constant register indices.
TEST(ThreadBindingTest, AnMmaAccumulatorLayoutNestWalksEachThreadsRegisters) {
  constexpr char kKernel[] = R"(
kernel k(A: f32[32, 16], O: f32[32, 16]) grid(bx: 1) threads(64) {
  alloc F: fragment f32[32, 16] layout((i, j) -> (i / 16 * 32 + i % 8 * 4 + j % 8 / 2, j / 8 * 4 + i % 16 / 8 * 2 + j % 2));
  for i in 0 +: 32 parallel {
    for j in 0 +: 16 parallel {
      F[i, j] = A[i, j] * 2.0;
    }
  }
  for p in 0 +: 32 parallel {
    for q in 0 +: 16 parallel {
      O[p, q] = F[p, q] + 1.0;
    }
  }
})";
  absl::StatusOr<Module> module = Bound(kKernel, "test-gpu");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string out = Print(*module);
  // Registers come in pairs of neighbouring columns (c % 2), so the walk visits one pair per
  // step and the pair in a vectorized loop: one 8-byte access each.
  EXPECT_THAT(out, HasSubstr(R"(    for run in 0 +: 4 unrolled {
      let i: i32 = tx / 4 % 8 + tx / 32 * 16 + select(run == 0, 0, select(run == 1, 8, select(run == 2, 0, 8)));
      for lane in 0 +: 2 vectorized {
        F[run * 2 + lane] = A[i, tx % 4 * 2 + select(run == 0, 0, select(run == 1, 0, 8)) + lane] * 2.0;
      }
    })"));
  EXPECT_THAT(out, HasSubstr("O[p, tx % 4 * 2 + select(run_1 == 0, 0, select(run_1 == 1, 0, 8)) "
                             "+ lane_1] = F[run_1 * 2 + lane_1] + 1.0;"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("== tx")));
  std::vector<double> o = RunBound(*module, 512, 512);
  ASSERT_EQ(o.size(), 512u);
  for (int k = 0; k < 512; ++k) EXPECT_EQ(o[k], 2.0 * k + 1.0) << k;
}

// A nest over the second half of a fragment's rows (an epilogue storing its tile in chunks,
// targets/cuda/passes/tma_stores.h), whose elements sit in each thread's upper registers: the
// walk covers those registers only, in runs, with no guard for the half it does not touch.
TEST(ThreadBindingTest, ANestOverTheUpperRowsWalksOnlyTheirRegisters) {
  constexpr char kKernel[] = R"(
kernel k(A: f32[16, 16], O: f32[8, 16]) grid(bx: 1) threads(32) {
  alloc F: fragment f32[16, 16] layout((i, j) -> (i % 8 * 4 + j % 8 / 2, i / 8 * 4 + j / 8 * 2 + j % 2));
  for i in 0 +: 16 parallel {
    for j in 0 +: 16 parallel {
      F[i, j] = A[i, j] * 2.0;
    }
  }
  for p in 8 +: 8 parallel {
    for q in 0 +: 16 parallel {
      O[p - 8, q] = F[p, q] + 1.0;
    }
  }
})";
  absl::StatusOr<Module> module = Bound(kKernel, "test-gpu");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string out = Print(*module);
  EXPECT_THAT(out, HasSubstr("for run_1 in 0 +: 2 unrolled {"));
  EXPECT_THAT(out, HasSubstr("= F[run_1 * 2 + lane_1 + 4] + 1.0;"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("if (")));
  std::vector<double> o = RunBound(*module, 256, 128);
  ASSERT_EQ(o.size(), 128u);
  for (int k = 0; k < 128; ++k) EXPECT_EQ(o[k], 2.0 * (128 + k) + 1.0) << k;
}

TEST(ThreadBindingTest, SeveralThreadAxesDefineAFlatIndex) {
  std::string out = BoundText(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(16, 4) {
  for i in 0 +: 64 parallel {
    A[i] = 0.0;
  }
})",
                              "test-gpu");
  EXPECT_THAT(out, HasSubstr(R"(  for ty in 0 +: 4 thread_bound(y) {
    for tx in 0 +: 16 thread_bound(x) {
      let tid: i32 = tx + ty * 16;
      for r in 0 +: 1 serial {
        let e: i32 = r * 64 + tid;)"));
}

// R's register order differs from thread to thread (neither affine nor separable in the
// thread index), so the nest keeps the generic form.
TEST(ThreadBindingTest, OwnersThatAgreeOnlyOnTheLoopRangeAreProvedEqual) {
  std::string out = BoundText(R"(
kernel k(O: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8, 2] layout((i, j) -> ((i * 2 + j) / 4, (i * 2 + j) % 4));
  alloc R: fragment f32[8] layout((i) -> (i / 2, (i / 2 + i) % 2));
  for i in 0 +: 8 parallel {
    R[i] = F[i, 0] + F[i, 1];
  }
})",
                              "test-gpu");
  EXPECT_THAT(out, HasSubstr("if (i / 2 == tx) {"));
  EXPECT_THAT(out, HasSubstr("R[(i / 2 + i) % 2] = F[i * 2 % 4] + F[(i * 2 + 1) % 4];"));
}

TEST(ThreadBindingTest, ElementsReadByOtherThreadsGoThroughSharedMirrors) {
  EXPECT_EQ(BoundText(R"(
kernel k(A: f32[8], O: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i % 4, i / 4));
  alloc T: fragment f32[1] layout((i) -> (0, 0));
  for i in 0 +: 8 parallel {
    O[i] = F[i] + F[7 - i];
  }
  let t: f32 = T[0] * 2.0;
  O[0] = t;
})",
                      "test-gpu"),
            Canonical(R"(
kernel k(A: f32[8], O: f32[8]) grid(bx: 1) threads(4) {
  for tx in 0 +: 4 thread_bound(x) {
    alloc F_shared: shared f32[8];
    alloc T_shared: shared f32[1];
    alloc F: local f32[2];
    alloc T: local f32[1];
    for m in 0 +: 8 serial {
      if (m % 4 == tx) {
        F_shared[m] = F[m / 4];
      }
    }
    for r in 0 +: 2 unrolled {
      let e: i32 = tx + r * 4;
      let i: i32 = e;
      O[i] = F[r] + F_shared[7 - i];
    }
    for m_1 in 0 +: 1 serial {
      if (0 == tx) {
        T_shared[m_1] = T[0];
      }
    }
    let t: f32 = T_shared[0] * 2.0;
    if (0 == tx) {
      O[0] = t;
    }
  }
})"));
}

TEST(ThreadBindingTest, ReportsWhatItCannotBind) {
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i % 4, i / 4));
  fill F = 0.0;
})"),
              HasSubstr("run lower-tile-ops"));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i % 4, i / 4));
  alloc G: fragment f32[8] layout((i) -> (i / 2, i % 2));
  for i in 0 +: 8 parallel {
    F[i] = 1.0;
    G[i] = 2.0;
  }
})"),
              HasSubstr("fragment elements that one statement writes live on different threads "
                        "('F' on thread i % 4, 'G' on thread i / 2)"));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i % 4, i / 4));
  for i in 0 +: 8 parallel {
    F[i] = F[7 - i];
  }
})"),
              HasSubstr("fragment 'F' is read by threads that do not hold its elements in a loop "
                        "nest that also writes it"));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  for i in 0 +: 8 parallel {
    A[i] = 1.0;
    barrier(block);
  }
})"),
              HasSubstr("a barrier in a parallel loop"));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8];
  for i in 0 +: 8 parallel {
    F[i] = 1.0;
  }
})"),
              HasSubstr("fragment 'F' has no (thread, register) layout"));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i % 4, 0));
  for i in 0 +: 8 parallel {
    F[i] = 1.0;
  }
})"),
              HasSubstr("maps two elements to thread 0, register 0"));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(4) {
  alloc F: fragment f32[8] layout((i) -> (i, 0));
  for i in 0 +: 8 parallel {
    F[i] = 1.0;
  }
})"),
              HasSubstr("maps an element to thread 4"));
}

// A target intrinsic that takes a fragment whole, as a tensor-core gemm takes its accumulator.
void RegisterWholeFragmentIntrinsic() {
  IntrinsicInfo info;
  info.name = "test.accumulate";
  info.num_args = 3;
  info.result = IntrinsicInfo::ResultType::kVoid;
  info.pure = false;
  info.description = "adds a shared tile to each thread's registers of a fragment";
  RegisterIntrinsic(info);
}

TEST(ThreadBindingTest, AFragmentPassedWholeToATargetIntrinsicIsEachThreadsRegisters) {
  RegisterWholeFragmentIntrinsic();
  EXPECT_EQ(BoundText(R"(
kernel k(O: f32[4, 8]) grid(bx: 1) threads(8) {
  alloc S: shared f32[2, 4, 8];
  alloc C: fragment f32[4, 8] layout((i, j) -> (j, i));
  eval test.accumulate(S[1, 0, 0], C[0, 0], 8);
  for i in 0 +: 4 parallel {
    for j in 0 +: 8 parallel {
      O[i, j] = C[i, j];
    }
  }
})",
                      "test-gpu"),
            Canonical(R"(
kernel k(O: f32[4, 8]) grid(bx: 1) threads(8) {
  for tx in 0 +: 8 thread_bound(x) {
    alloc S: shared f32[2, 4, 8];
    alloc C: local f32[4];
    eval test.accumulate(S[1, 0, 0], C[0], 8);
    for r in 0 +: 4 unrolled {
      let e: i32 = tx + r * 8;
      let i: i32 = e / 8;
      let j: i32 = e % 8;
      O[i, j] = C[r];
    }
  }
})"));
}

TEST(ThreadBindingTest, AFragmentPassedWholeMustBeNamedByItsFirstElementOnEveryThread) {
  RegisterWholeFragmentIntrinsic();
  EXPECT_THAT(BindError(R"(
kernel k(O: f32[4, 8]) grid(bx: 1) threads(8) {
  alloc S: shared f32[4, 8];
  alloc C: fragment f32[4, 8] layout((i, j) -> (j, i));
  eval test.accumulate(S[0, 0], C[1, 0], 8);
})"),
              HasSubstr("fragment 'C' is passed whole to a target intrinsic, so it must be named "
                        "by its first element"));
  EXPECT_THAT(BindError(R"(
kernel k(O: f32[4, 8]) grid(bx: 1) threads(8) {
  alloc S: shared f32[4, 8];
  alloc C: fragment f32[4, 8] layout((i, j) -> (j, i));
  for i in 0 +: 4 parallel {
    eval test.accumulate(S[i, 0], C[0, 0], 8);
  }
})"),
              HasSubstr("a fragment passed whole to a target intrinsic needs every thread"));
}

TEST(ThreadBindingTest, AKernelAlreadyBoundStaysAsItIs) {
  constexpr char kBound[] = R"(
kernel k(A: f32[8]) grid(bx: 1) threads(8) {
  for tx in 0 +: 8 thread_bound(x) {
    A[tx] = 1.0;
  }
})";
  EXPECT_EQ(BoundText(kBound, "test-gpu"), Canonical(kBound));
  EXPECT_THAT(BindError(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(8) {
  for tx in 0 +: 8 thread_bound(x) {
    for i in 0 +: 8 parallel {
      A[i] = 1.0;
    }
  }
})"),
              HasSubstr("already has thread_bound loops"));
}

}  // namespace
}  // namespace tile_ir::passes
