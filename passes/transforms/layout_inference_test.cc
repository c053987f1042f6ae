#include "passes/transforms/layout_inference.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/testing/fake_targets.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

using ::testing::HasSubstr;

const TargetInfo& Target(absl::string_view name) {
  testing::RegisterFakeIntrinsics();
  return **testing::FindFakeTarget(std::string(name));
}

absl::StatusOr<std::string> Infer(absl::string_view target, absl::string_view kernel) {
  absl::StatusOr<Module> module =
      text::ParseModule(absl::StrCat("ir_version 1;\nproducer \"t\" \"1\";\n\n", kernel), "t.tile");
  if (!module.ok()) return module.status();
  absl::StatusOr<bool> changed = InferFragmentLayouts(*module, Target(target));
  if (!changed.ok()) return changed.status();
  if (absl::Status valid = Verify(*module); !valid.ok()) return valid;
  return Print(*module);
}

constexpr char kGemmReduce[] = R"(
kernel k(A: f16[64, 32], B: f16[32, 64], R: f32[64]) grid(bx: 1) threads(64) {
  alloc A_s: shared f16[64, 32];
  alloc B_s: shared f16[32, 64];
  alloc acc: fragment f32[64, 64];
  alloc row_max: fragment f32[64];
  alloc other: fragment f32[3, 5];
  copy A -> A_s;
  copy B -> B_s;
  gemm A_s, B_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  reduce max acc -> row_max {dim=1, clear=true};
  fill other = 0.0;
  copy row_max -> R;
})";

TEST(LayoutInferenceTest, OneThreadHoldsEverythingOnTheCpu) {
  absl::StatusOr<std::string> text = Infer("test-cpu", kGemmReduce);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text,
              HasSubstr("alloc acc: fragment f32[64, 64] layout((i, j) -> (0, i * 64 + j));"));
  EXPECT_THAT(*text, HasSubstr("alloc row_max: fragment f32[64] layout((i) -> (0, i));"));
  EXPECT_THAT(*text,
              HasSubstr("alloc other: fragment f32[3, 5] layout((i, j) -> (0, i * 5 + j));"));
}

TEST(LayoutInferenceTest, GemmHookThenReduceThenCyclic) {
  absl::StatusOr<std::string> text = Infer("test-gpu", kGemmReduce);
  ASSERT_TRUE(text.ok()) << text.status();
  // The target's blocked layout: 64 * 64 / 64 threads = 64 registers each.
  EXPECT_THAT(*text, HasSubstr("alloc acc: fragment f32[64, 64] layout((i, j) -> (i, j));"));
  // The reduced row lives with source element (i, 0).
  EXPECT_THAT(*text, HasSubstr("alloc row_max: fragment f32[64] layout((i) -> (i, 0));"));
  EXPECT_THAT(*text, HasSubstr("alloc other: fragment f32[3, 5] layout((i, j) -> "
                               "(i * 5 + j, 0));"));
}

TEST(LayoutInferenceTest, UnconstrainedReductionsStayInsideThreads) {
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel k(S: f32[256, 8], D: f32[256]) grid(bx: 1) threads(128) {
  alloc s: fragment f32[256, 8];
  alloc d: fragment f32[256];
  alloc c: fragment f32[256, 8];
  alloc kept: fragment f32[1, 8];
  copy S -> s;
  reduce sum s -> d {dim=1, clear=true};
  cumsum s -> c {dim=1, reverse=false};
  reduce max c -> kept {dim=0, clear=true};
  copy d -> D;
})");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("alloc s: fragment f32[256, 8] layout((i, j) -> "
                               "(floormod(i, 128), floordiv(i, 128) * 8 + j));"));
  EXPECT_THAT(*text, HasSubstr("alloc d: fragment f32[256] layout((i) -> "
                               "(floormod(i, 128), floordiv(i, 128)));"));
  EXPECT_THAT(*text, HasSubstr("alloc c: fragment f32[256, 8] layout((i, j) -> "
                               "(floormod(i, 128), floordiv(i, 128) * 8 + j));"));
  // From c, whose column j lies over every thread (row i on thread i % 128): the kept row is
  // replicated on all of them, column j in register j, for a butterfly across the warps.
  EXPECT_THAT(*text, HasSubstr("alloc kept: fragment f32[1, 8] layout((i, j) replicate(r: 128) "
                               "-> (r, j));"));
}

TEST(LayoutInferenceTest, ReducedRowsSpreadOverLanesInVectorRuns) {
  // 128 threads, 32 rows of 128: 4 lanes a row, each holding runs of 8 (16 bytes of f16)
  // dealt round-robin over them; the row vector is replicated over each row's 4 lanes, and y,
  // which broadcasts it along the rows, takes x's layout, so the broadcast is thread-local.
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel k(X: f16[32, 128], Y: f16[32, 128]) grid(bx: 1) threads(128) {
  alloc x: fragment f32[32, 128];
  alloc y: fragment f16[32, 128];
  alloc m: fragment f32[32];
  for i in 0 +: 32 parallel {
    for j in 0 +: 128 parallel {
      x[i, j] = cast<f32>(X[i, j]);
    }
  }
  reduce max x -> m {dim=1, clear=true};
  for i2 in 0 +: 32 parallel {
    for j2 in 0 +: 128 parallel {
      y[i2, j2] = cast<f16>(cast<f32>(X[i2, j2]) - m[i2]);
    }
  }
  copy y -> Y;
})");
  ASSERT_TRUE(text.ok()) << text.status();
  const char* spread = "layout((i, j) -> (i * 4 + floormod(floordiv(j, 8), 4), "
                       "floordiv(j, 32) * 8 + floormod(j, 8)));";
  EXPECT_THAT(*text, HasSubstr(absl::StrCat("alloc x: fragment f32[32, 128] ", spread)));
  EXPECT_THAT(*text, HasSubstr(absl::StrCat("alloc y: fragment f16[32, 128] ", spread)));
  EXPECT_THAT(*text,
              HasSubstr("alloc m: fragment f32[32] layout((i) replicate(r: 4) -> (i * 4 + r, 0));"));
}

TEST(LayoutInferenceTest, AWholeRowSpreadsOverTheBlock) {
  // One row of 1024 over 128 threads: every lane of every warp holds one run of 8, and the
  // row's sum is replicated on every thread.
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel k(X: f16[1, 1024]) grid(bx: 1) threads(128) {
  alloc x: fragment f16[1, 1024];
  alloc s: fragment f32[1];
  copy X -> x;
  reduce sum x -> s {dim=1, clear=true};
})");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("alloc x: fragment f16[1, 1024] layout((i, j) -> "
                               "(floordiv(j, 8), i * 8 + floormod(j, 8)));"));
  EXPECT_THAT(*text, HasSubstr("alloc s: fragment f32[1] layout((i) replicate(r: 128) -> (r, "));
}

TEST(LayoutInferenceTest, DestinationLayoutsSpreadToSources) {
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel k() grid(bx: 1) threads(4) {
  alloc src: fragment f32[8, 3];
  alloc dst: fragment f32[8] layout((r) -> (floordiv(r, 2), floormod(r, 2)));
  alloc twin: fragment f32[8, 3];
  reduce sum src -> dst {dim=1, clear=true};
  copy twin -> src;
})");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("alloc dst: fragment f32[8] layout((r) -> "
                               "(floordiv(r, 2), floormod(r, 2)));"));
  EXPECT_THAT(*text, HasSubstr("alloc src: fragment f32[8, 3] layout((i, j) -> "
                               "(floordiv(i, 2), floormod(i, 2) * 3 + j));"));
  EXPECT_THAT(*text, HasSubstr("alloc twin: fragment f32[8, 3] layout((i, j) -> "
                               "(floordiv(i, 2), floormod(i, 2) * 3 + j));"));
}

// Found by the gpu_pipelines fuzz target: a written destination layout without a register
// output was spread to the reduce's source, reading past its one output (ASan).
TEST(LayoutInferenceTest, AWrittenLayoutWithoutARegisterIsRefusedOnSeveralThreads) {
  constexpr char kKernel[] = R"(
kernel k() grid(bx: 1) threads(8) {
  alloc src: fragment f32[16, 4];
  alloc dst: fragment f32[16] layout((r) -> (floormod(r, 2)));
  reduce max src -> dst {dim=1, clear=false};
})";
  absl::StatusOr<std::string> text = Infer("test-gpu", kKernel);
  ASSERT_FALSE(text.ok()) << *text;
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(text.status().message(),
            "t.tile:7:3: in kernel 'k': the layout of fragment 'dst' has 1 output; a fragment "
            "layout maps an element to (thread, register): give both, or leave the layout out "
            "for layout-inference to choose");
  // One thread reads no layout, so the CPU keeps compiling it.
  EXPECT_TRUE(Infer("test-cpu", kKernel).ok());
}

TEST(LayoutInferenceTest, ElementwiseStatementsShareTheLayoutOfWhatTheyRead) {
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel k(A: f16[64, 32], B: f16[32, 64], O: f16[64, 64]) grid(bx: 1) threads(64) {
  alloc A_s: shared f16[64, 32];
  alloc B_s: shared f16[32, 64];
  alloc acc: fragment f32[64, 64];
  alloc p: fragment f16[64, 64];
  alloc q: fragment f16[64, 64];
  alloc shifted: fragment f16[64, 64];
  copy A -> A_s;
  copy B -> B_s;
  gemm A_s, B_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  for i in 0 +: 64 parallel {
    for j in 0 +: 64 parallel {
      p[i, j] = cast<f16>(acc[i, j] * 2.0);
    }
  }
  for i2 in 0 +: 64 parallel {
    for j2 in 0 +: 64 parallel {
      q[i2, j2] = p[i2, j2] + p[i2, j2];
    }
  }
  for i3 in 0 +: 64 parallel {
    for j3 in 0 +: 63 parallel {
      shifted[i3, j3] = p[i3, j3 + 1];
    }
  }
  copy q -> O;
})");
  ASSERT_TRUE(text.ok()) << text.status();
  // The cast of the accumulator and what is computed from it stay where the accumulator is.
  EXPECT_THAT(*text, HasSubstr("alloc p: fragment f16[64, 64] layout((i, j) -> (i, j));"));
  EXPECT_THAT(*text, HasSubstr("alloc q: fragment f16[64, 64] layout((i, j) -> (i, j));"));
  // A read at other indices moves data: no constraint, the generic layout.
  EXPECT_THAT(*text, HasSubstr("alloc shifted: fragment f16[64, 64] layout((i, j) -> (j, i));"));
}

TEST(LayoutInferenceTest, ConflictingGemmLayoutsNameTheBufferAndKernel) {
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel twice(A: f16[128, 32], B: f16[32, 128]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[128, 32];
  alloc B_s: shared f16[32, 128];
  alloc acc: fragment f32[128, 128];
  gemm A_s, B_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  gemm A_s[0 +: 64, 0 +: 32], B_s -> acc[0 +: 64, 0 +: 128]
      {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
})");
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("kernel 'twice': fragment 'acc'"));
  EXPECT_THAT(text.status().message(), HasSubstr("t.tile:9:3 and t.tile:10:3"));
}

// A whole row of N elements cannot be dealt out to registers while N is unknown, even under a
// layout the user wrote; the error says so and what to do, before any layout would name N.
TEST(LayoutInferenceTest, FragmentsOfSymbolicExtentAreRefusedByName) {
  for (absl::string_view target : {"test-cpu", "test-gpu"}) {
    absl::StatusOr<std::string> text = Infer(target, R"(
kernel row<N: i32>(X: f32[4, N]) grid(bx: 4) threads(64) {
  alloc fixed: fragment f32[64];
  alloc whole: fragment f32[1, N * 2] layout((i, j) -> (floormod(j, 64), floordiv(j, 64)));
  copy X[bx +: 1, 0 +: N] -> whole[0 +: 1, 0 +: N];
})");
    ASSERT_FALSE(text.ok()) << *text;
    EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(text.status().message(),
              "t.tile:7:3: in kernel 'row': fragment 'whole' has extent N * 2 in dimension 1, "
              "which is not a compile-time constant; fragments live in registers and need "
              "constant extents: use a constant tile size (loop over the dimension in tiles), or "
              "give its value when compiling (tile-translate --shapes, tile-run and the "
              "runtime do so by themselves; the specialize-dims pass) so that N * 2 is a "
              "constant");
  }
}

// An extent named by a let stays a name in the buffer's shape, so --static-shapes would not
// help there; the advice is to write it as a literal.
TEST(LayoutInferenceTest, FragmentExtentsNamedByALetAskForALiteral) {
  absl::StatusOr<std::string> text = Infer("test-gpu", R"(
kernel k(X: f32[8]) grid(bx: 1) threads(4) {
  let bm: i32 = 8;
  alloc f: fragment f32[bm];
  fill f = 1.0;
  copy f -> X;
})");
  ASSERT_FALSE(text.ok()) << *text;
  EXPECT_EQ(text.status().message(),
            "t.tile:7:3: in kernel 'k': fragment 'f' has extent bm in dimension 0, which is not "
            "a compile-time constant; fragments live in registers and need constant extents: "
            "write the extent as a literal");
}

TEST(LayoutInferenceTest, ThePassLowersForTheRunsTarget) {
  PassInfo pass = LayoutInferencePass();
  EXPECT_TRUE(pass.needs_target);
  // The target is the run's, never an option of the pass.
  absl::StatusOr<PassOptions> options =
      PassOptions::Create(pass.name, pass.options, {{"target", "test-cpu"}});
  ASSERT_FALSE(options.ok());
  EXPECT_THAT(options.status().message(),
              HasSubstr("takes no target option: a pipeline's target is given once"));
}

TEST(LayoutInferenceTest, NothingToDoKeepsTheKernel) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "t" "1";

kernel k() grid(bx: 1) threads(4) {
  alloc f: fragment f32[4] layout((i) -> (i, 0));
  fill f = 1.0;
}
)",
                                                    "t.tile");
  ASSERT_TRUE(module.ok());
  Kernel before = module->kernels[0];
  absl::StatusOr<bool> changed = InferFragmentLayouts(*module, Target("test-gpu"));
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(module->kernels[0], before);
}

}  // namespace
}  // namespace tile_ir::passes
