#include "passes/transforms/lower_tile_ops.h"

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "frontends/text/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/transforms/layout_inference.h"
#include "passes/testing/fake_targets.h"
#include "tile_ir/kernel_interpreter.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const TargetInfo& Target(absl::string_view name) {
  testing::RegisterFakeIntrinsics();
  return **testing::FindFakeTarget(std::string(name));
}

absl::StatusOr<Module> Parse(absl::string_view kernel) {
  return text::ParseModule(absl::StrCat("ir_version 1;\nproducer \"t\" \"1\";\n\n", kernel),
                           "t.tile");
}

// Layout inference and lowering for `target`; the result must verify and
// hold no tile operation.
absl::StatusOr<Module> Lower(absl::string_view target, absl::string_view kernel) {
  absl::StatusOr<Module> module = Parse(kernel);
  if (!module.ok()) return module.status();
  if (absl::Status valid = Verify(*module); !valid.ok()) return valid;
  absl::StatusOr<bool> inferred = InferFragmentLayouts(*module, Target(target));
  if (!inferred.ok()) return inferred.status();
  absl::StatusOr<bool> lowered = LowerTileOps(*module, Target(target));
  if (!lowered.ok()) return lowered.status();
  if (absl::Status valid = Verify(*module); !valid.ok()) return valid;
  std::string text = Print(*module);
  for (const char* op : {"copy ", "gemm ", "fill ", "reduce ", "cumsum ", "atomic_add "}) {
    EXPECT_THAT(text, Not(HasSubstr(op)));
  }
  return module;
}

std::string LoweredText(absl::string_view target, absl::string_view kernel) {
  absl::StatusOr<Module> module = Lower(target, kernel);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? Print(*module) : "";
}

// Small integers, exact in every type used here.
std::vector<double> Values(size_t count, int salt) {
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) values.push_back(static_cast<double>((i * 7 + salt) % 11) - 5);
  return values;
}

struct Run {
  std::vector<std::pair<std::string, std::vector<double>>> inputs;
  std::string output;
};

// Lowers `kernel` for both test targets, runs it and returns the output buffer.
std::vector<std::vector<double>> RunOnBothTargets(absl::string_view kernel, const Run& run) {
  std::vector<std::vector<double>> outputs;
  for (absl::string_view target : {"test-cpu", "test-gpu"}) {
    absl::StatusOr<Module> module = Lower(target, kernel);
    EXPECT_TRUE(module.ok()) << target << ": " << module.status();
    if (!module.ok()) return outputs;
    KernelInterpreter interpreter;
    for (const auto& [name, values] : run.inputs) interpreter.SetBuffer(name, values);
    interpreter.SetVar("bx", 0);
    absl::Status ran = interpreter.RunBlock(*module->kernels[0]);
    EXPECT_TRUE(ran.ok()) << target << ": " << ran << "\n" << Print(*module);
    outputs.push_back(interpreter.buffer(run.output));
  }
  return outputs;
}

TEST(LowerTileOpsTest, GemmComputesEveryTransposeAndRegion) {
  const int M = 4, N = 3, K = 5;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (bool clear : {false, true}) {
        // A and B sit at an offset inside larger shared tiles.
        std::string a_shape = ta ? "[6, 6]" : "[5, 6]";
        std::string a_region = ta ? "A_s[1 +: 5, 2 +: 4]" : "A_s[1 +: 4, 1 +: 5]";
        std::string b_shape = tb ? "[3, 5]" : "[5, 3]";
        std::string kernel = absl::StrReplaceAll(
            R"(
kernel g(A: f32A_SHAPE, B: f32B_SHAPE, C: f32[4, 3]) grid(bx: 1) threads(8) {
  alloc A_s: shared f32A_SHAPE;
  alloc B_s: shared f32B_SHAPE;
  alloc acc: fragment f32[4, 3];
  copy A -> A_s;
  copy B -> B_s;
  fill acc = 2.0;
  gemm A_REGION, B_s -> acc {transpose_a=TA, transpose_b=TB, policy=square, clear_accum=CLEAR};
  copy acc -> C;
})",
            {{"A_SHAPE", a_shape},
             {"B_SHAPE", b_shape},
             {"A_REGION", a_region},
             {"TA", ta ? "true" : "false"},
             {"TB", tb ? "true" : "false"},
             {"CLEAR", clear ? "true" : "false"}});
        std::vector<double> a = Values(ta ? 36 : 30, 1);  // A_SHAPE's elements
        std::vector<double> b = Values(15, 4);
        auto a_at = [&](int i, int k) {
          return ta ? a[(1 + k) * 6 + 2 + i] : a[(1 + i) * 6 + 1 + k];
        };
        auto b_at = [&](int k, int j) { return tb ? b[j * 5 + k] : b[k * 3 + j]; };
        std::vector<double> expected;
        for (int i = 0; i < M; ++i) {
          for (int j = 0; j < N; ++j) {
            double sum = clear ? 0 : 2;
            for (int k = 0; k < K; ++k) sum += a_at(i, k) * b_at(k, j);
            expected.push_back(sum);
          }
        }
        for (const auto& out : RunOnBothTargets(kernel, {{{"A", a}, {"B", b}}, "C"})) {
          EXPECT_EQ(out, expected) << "transpose_a=" << ta << " transpose_b=" << tb;
        }
      }
    }
  }
}

TEST(LowerTileOpsTest, ReducesEveryKindOverEitherDimension) {
  struct Case {
    const char* kind;
    double identity;
    std::function<double(double, double)> combine;
  };
  const Case cases[] = {
      {"sum", 0, [](double a, double x) { return a + x; }},
      {"max", -INFINITY, [](double a, double x) { return std::fmax(a, x); }},
      {"min", INFINITY, [](double a, double x) { return std::fmin(a, x); }},
      {"absmax", 0, [](double a, double x) { return std::fmax(a, std::fabs(x)); }},
  };
  std::vector<double> src = Values(24, 2);  // [4, 6]
  for (const Case& c : cases) {
    for (int dim : {0, 1}) {
      for (bool clear : {false, true}) {
        int rows = dim == 0 ? 6 : 4;
        std::string kernel =
            absl::StrCat(R"(
kernel r(S: f32[4, 6], D: f32[)",
                         rows, R"(]) grid(bx: 1) threads(4) {
  alloc s: fragment f32[4, 6];
  alloc d: fragment f32[)",
                         rows, R"(];
  copy S -> s;
  fill d = -3.0;
  reduce )",
                         c.kind, " s -> d {dim=", dim, ", clear=", clear ? "true" : "false", R"(};
  copy d -> D;
})");
        std::vector<double> expected;
        for (int r = 0; r < rows; ++r) {
          double acc = clear ? c.identity : (std::string(c.kind) == "absmax" ? 3.0 : -3.0);
          for (int x = 0; x < (dim == 0 ? 4 : 6); ++x) {
            acc = c.combine(acc, dim == 0 ? src[x * 6 + r] : src[r * 6 + x]);
          }
          expected.push_back(acc);
        }
        for (const auto& out : RunOnBothTargets(kernel, {{{"S", src}}, "D"})) {
          EXPECT_EQ(out, expected) << c.kind << " dim " << dim << " clear " << clear;
        }
      }
    }
  }
}

TEST(LowerTileOpsTest, ScansForwardAndBackward) {
  std::vector<double> src = Values(12, 3);  // [3, 4]
  for (int dim : {0, 1}) {
    for (bool reverse : {false, true}) {
      std::string kernel = absl::StrCat(R"(
kernel c(S: f32[3, 4], D: f32[3, 4]) grid(bx: 1) threads(2) {
  alloc s: fragment f32[3, 4];
  alloc d: fragment f32[3, 4];
  copy S -> s;
  cumsum s -> d {dim=)",
                                        dim, ", reverse=", reverse ? "true" : "false", R"(};
  copy d -> D;
})");
      std::vector<double> expected(12);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
          // The scanned position and the run of elements summed up to it.
          int pos = dim == 0 ? i : j;
          int extent = dim == 0 ? 3 : 4;
          double sum = 0;
          for (int x = reverse ? pos : 0; x <= (reverse ? extent - 1 : pos); ++x) {
            sum += dim == 0 ? src[x * 4 + j] : src[i * 4 + x];
          }
          expected[i * 4 + j] = sum;
        }
      }
      for (const auto& out : RunOnBothTargets(kernel, {{{"S", src}}, "D"})) {
        EXPECT_EQ(out, expected) << "dim " << dim << " reverse " << reverse;
      }
    }
  }
}

// TileLang's scans on many threads: in place and not, over shared tiles (a running sum per
// thread) and over fragments (rows across threads go through a shared tile), checked on
// both targets against the serial sums.
TEST(LowerTileOpsTest, ScansEveryScopeInPlaceOrNot) {
  struct Case {
    const char* allocs;  // SRC and DST name the scanned tiles
    const char* scan;
    const char* expect;  // in the GPU lowering
  };
  const Case cases[] = {
      {"alloc t: shared f32[3, 4];", "t -> t", "alloc t_sum: local f32[1];"},
      {"alloc t: shared f32[3, 4]; alloc u: shared f32[3, 4];", "t -> u",
       "alloc u_sum: local f32[1];"},
      // t's cyclic layout spreads its rows: it is staged, and the scan writes u.
      {"alloc t: fragment f32[3, 4]; alloc u: shared f32[3, 4];", "t -> u",
       "u[i_3, s_1] = u_sum[0];"},
      {"alloc t: fragment f32[3, 4];", "t -> t", "t[i_1, 0] = t[i_1, 0];"},
      {"alloc t: fragment f32[3, 4] layout((i, j) -> (j, i));", "t -> t",
       "alloc t_staged: shared f32[3, 4];"},
      {"alloc t: fragment f32[3, 4] layout((i, j) -> (j, i)); alloc u: fragment f32[3, 4];",
       "t -> u", "alloc t_staged: shared f32[3, 4];"},
  };
  std::vector<double> src = Values(12, 3);  // [3, 4]
  for (const Case& c : cases) {
    for (bool reverse : {false, true}) {
      std::string out = absl::StrContains(c.scan, "-> u") ? "u" : "t";
      std::string kernel = absl::StrCat("\nkernel c(S: f32[3, 4], D: f32[3, 4]) grid(bx: 1) ",
                                        "threads(4) {\n  ", c.allocs, "\n  copy S -> t;\n  cumsum ",
                                        c.scan, " {dim=1, reverse=", reverse ? "true" : "false",
                                        "};\n  copy ", out, " -> D;\n}");
      if (!reverse) EXPECT_THAT(LoweredText("test-gpu", kernel), HasSubstr(c.expect)) << kernel;
      std::vector<double> expected(12);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
          for (int x = reverse ? j : 0; x <= (reverse ? 3 : j); ++x) {
            expected[i * 4 + j] += src[i * 4 + x];
          }
        }
      }
      for (const auto& result : RunOnBothTargets(kernel, {{{"S", src}}, "D"})) {
        EXPECT_EQ(result, expected) << kernel;
      }
    }
  }
}

TEST(LowerTileOpsTest, CopiesCastAndAtomicAddsAccumulate) {
  std::vector<double> src = Values(8, 5);
  std::vector<double> dst = Values(16, 6);
  std::string kernel = R"(
kernel a(S: f32[8], D: i32[2, 8]) grid(bx: 1) threads(4) {
  alloc t: shared i32[1, 8];
  copy S -> t[0 +: 1, 0 +: 8];
  atomic_add t -> D[1 +: 1, 0 +: 8];
})";
  std::vector<double> expected = dst;
  for (int i = 0; i < 8; ++i) expected[8 + i] += src[i];
  for (const auto& out : RunOnBothTargets(kernel, {{{"S", src}, {"D", dst}}, "D"})) {
    EXPECT_EQ(out, expected);
  }
}

TEST(LowerTileOpsTest, GemmLoopOrderFollowsTheThreadCount) {
  constexpr char kKernel[] = R"(
kernel g(A: f16[16, 8], B: f16[8, 16]) grid(bx: 1) threads(THREADS) {
  alloc A_s: shared f16[16, 8];
  alloc B_s: shared f16[8, 16];
  alloc acc: fragment f32[16, 16];
  gemm A_s, B_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
})";
  std::string one = LoweredText("test-cpu", absl::StrReplaceAll(kKernel, {{"THREADS", "1"}}));
  EXPECT_THAT(one, HasSubstr(R"(  for i in 0 +: 16 parallel {
    for j in 0 +: 16 parallel {
      acc[i, j] = 0.0;
    }
  }
  for i_1 in 0 +: 16 serial {
    for k in 0 +: 8 serial {
      for j_1 in 0 +: 16 parallel {
        acc[i_1, j_1] = acc[i_1, j_1] + cast<f32>(A_s[i_1, k]) * cast<f32>(B_s[k, j_1]);
      }
    }
  }
)"));
  std::string many = LoweredText("test-gpu", absl::StrReplaceAll(kKernel, {{"THREADS", "64"}}));
  EXPECT_THAT(many, HasSubstr(R"(  for i_1 in 0 +: 16 parallel {
    for j_1 in 0 +: 16 parallel {
      for k in 0 +: 8 serial {
        acc[i_1, j_1] = acc[i_1, j_1] + cast<f32>(A_s[i_1, k]) * cast<f32>(B_s[k, j_1]);
      }
    }
  }
)"));
}

TEST(LowerTileOpsTest, LocalBuffersGetSerialLoops) {
  std::string text = LoweredText("test-gpu", R"(
kernel l() grid(bx: 1) threads(32) {
  alloc v: local f32[4];
  fill v = 1.0;
})");
  EXPECT_THAT(text, HasSubstr("for i in 0 +: 4 serial {"));
}

TEST(LowerTileOpsTest, PipelinedBodiesKeepTheirStatementCount) {
  std::string text = LoweredText("test-cpu", R"(
kernel p(A: f32[64, 8]) grid(bx: 1) threads(1) {
  alloc A_s: shared f32[8, 8];
  alloc acc: fragment f32[8, 8];
  for k in 0 +: 8 pipelined(num_stages=2, order=[0, 1], stage=[0, 1]) {
    copy A[k * 8 +: 8, 0 +: 8] -> A_s;
    gemm A_s, A_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  }
})");
  // The gemm's clearing and multiply loops stay together as the second statement.
  EXPECT_THAT(text, HasSubstr("    }\n    {\n      for i_1 in 0 +: 8 parallel {"));
}

TEST(LowerTileOpsTest, TargetRefusalsNameTheOperationAndKernel) {
  absl::StatusOr<Module> module = Lower("test-cpu", R"(
kernel fp8(A: f8e4m3[16, 16]) grid(bx: 1) threads(1) {
  alloc A_s: shared f8e4m3[16, 16];
  alloc acc: fragment f32[16, 16];
  gemm A_s, A_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
})");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(module.status().message(),
              HasSubstr("t.tile:8:3: in kernel 'fp8': test-cpu target: gemm on f8e4m3 needs fp8 "
                        "arithmetic"));
}

TEST(LowerTileOpsTest, CrossThreadReductionsGoThroughSharedMemory) {
  // Rows spread over threads (a gemm accumulator's layout does this), and a
  // destination whose owners differ from the source's: both reduce from a
  // shared copy of the source.
  for (const char* layouts : {"(i, j) -> (j, i)|(i) -> (i, 0)", "(i, j) -> (i, j)|(i) -> (3 - i, 0)"}) {
    std::vector<std::string> parts = absl::StrSplit(layouts, '|');
    std::string kernel = absl::StrReplaceAll(R"(
kernel x(S: f32[4, 4], D: f32[4]) grid(bx: 1) threads(4) {
  alloc s: fragment f32[4, 4] layout(SRC);
  alloc d: fragment f32[4] layout(DST);
  copy S -> s;
  reduce sum s -> d {dim=1, clear=true};
  copy d -> D;
})",
                                             {{"SRC", parts[0]}, {"DST", parts[1]}});
    EXPECT_THAT(LoweredText("test-gpu", kernel), HasSubstr("alloc s_staged: shared f32[4, 4];"));
    std::vector<double> in = Values(16, 3);
    std::vector<double> expected;
    for (int i = 0; i < 4; ++i) expected.push_back(in[i * 4] + in[i * 4 + 1] + in[i * 4 + 2] + in[i * 4 + 3]);
    for (const auto& out : RunOnBothTargets(kernel, {{{"S", in}}, "D"})) {
      EXPECT_EQ(out, expected) << layouts;
    }
  }
}

TEST(LowerTileOpsTest, FragmentGemmOperandsAreStagedInSharedMemory) {
  // Attention's P * V: A is a register tile, which the generic gemm of several
  // threads cannot read row by row.
  const std::string kernel = R"(
kernel f(A: f32[4, 4], B: f32[4, 4], C: f32[4, 4]) grid(bx: 1) threads(16) {
  alloc a: fragment f32[4, 4];
  alloc b_s: shared f32[4, 4];
  alloc acc: fragment f32[4, 4];
  copy A -> a;
  copy B -> b_s;
  gemm a, b_s -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  copy acc -> C;
})";
  EXPECT_THAT(LoweredText("test-gpu", kernel), HasSubstr("alloc a_staged: shared f32[4, 4];"));
  std::vector<double> a = Values(16, 1);
  std::vector<double> b = Values(16, 5);
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) sum += a[i * 4 + k] * b[k * 4 + j];
      expected.push_back(sum);
    }
  }
  for (const auto& out : RunOnBothTargets(kernel, {{{"A", a}, {"B", b}}, "C"})) {
    EXPECT_EQ(out, expected);
  }
}

// A target whose gemm hook replaces the generic loops.
class HookTarget : public TargetInfo {
 public:
  std::string name() const override { return "hook"; }
  std::string arch() const override { return "test"; }
  int warp_size() const override { return 1; }
  int64_t ThreadsExecutingBlock(const Launch&) const override { return 1; }
  int64_t max_shared_memory_bytes() const override { return 0; }
  int max_vector_bytes() const override { return 4; }
  bool has_async_copy() const override { return false; }
  absl::Status CheckTileOp(TileOpKind, DataType) const override { return absl::OkStatus(); }
  absl::StatusOr<std::optional<Stmt>> LowerGemm(const GemmLoweringRequest& request) const override {
    const Region& c = request.gemm->c;
    return std::optional<Stmt>(Store::Make(c.buffer, {Int(0), Int(0)}, Float(42.0)));
  }
};

TEST(LowerTileOpsTest, TheTargetsGemmLoweringWins) {
  absl::StatusOr<Module> module = Parse(R"(
kernel h() grid(bx: 1) threads(1) {
  alloc a: shared f32[2, 2];
  alloc acc: fragment f32[2, 2];
  gemm a, a -> acc {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
})");
  ASSERT_TRUE(module.ok());
  ASSERT_TRUE(LowerTileOps(*module, HookTarget()).ok());
  EXPECT_THAT(Print(*module), HasSubstr("  acc[0, 0] = 42.0;\n}"));
}

TEST(LowerTileOpsTest, FreshNamesAvoidTheKernels) {
  std::string text = LoweredText("test-cpu", R"(
kernel n(A: f32[4]) grid(bx: 1) threads(1) {
  let i: i32 = 0;
  alloc j: shared f32[4];
  copy A -> j;
})");
  EXPECT_THAT(text, HasSubstr("for i_1 in 0 +: 4 parallel {\n    j[i_1] = A[i_1];"));
}

TEST(LowerTileOpsTest, VerifierChecksAtomicAddAt) {
  for (const char* bad : {"eval atomic_add_at(1.0, 2.0);", "eval atomic_add_at(A[0], 2);"}) {
    absl::StatusOr<Module> module =
        Parse(absl::StrCat("kernel v(A: f32[4]) grid(bx: 1) threads(1) {\n  ", bad, "\n}\n"));
    ASSERT_TRUE(module.ok()) << module.status();
    absl::Status valid = Verify(*module);
    EXPECT_FALSE(valid.ok()) << bad;
    EXPECT_THAT(valid.message(), HasSubstr("atomic_add_at")) << bad;
  }
}

}  // namespace
}  // namespace tile_ir::passes
