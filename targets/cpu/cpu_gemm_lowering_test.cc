// The CPU gemm micro-kernels: the blocking they choose, when they decline,
// and their results through the whole CPU pipeline for every operand form.
#include "targets/cpu/cpu_gemm_lowering.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "passes/utils/fresh_names.h"
#include "targets/cpu/cpu_compiler.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"
#include "tile_ir/printer.h"

namespace tile_ir::cpu {
namespace {

TEST(ChooseGemmBlockingTest, FillsTheRegisterFileWithSquareBlocks) {
  // AVX-512: 16 accumulators of 16 f32 lanes.
  EXPECT_EQ(ChooseGemmBlocking(64, 64, kF32, 64), (GemmBlocking{4, 4, 16}));
  EXPECT_EQ(ChooseGemmBlocking(64, 64, kF64, 64), (GemmBlocking{4, 4, 8}));
  // AVX2: at most 12 of 8 lanes.
  EXPECT_EQ(ChooseGemmBlocking(64, 64, kF32, 32), (GemmBlocking{4, 2, 8}));
}

TEST(ChooseGemmBlockingTest, NarrowsVectorsAndBlocksToDivideTheTile) {
  EXPECT_EQ(ChooseGemmBlocking(64, 8, kF32, 64), (GemmBlocking{8, 1, 8}));
  EXPECT_EQ(ChooseGemmBlocking(6, 48, kF32, 64), (GemmBlocking{3, 3, 16}));
  EXPECT_FALSE(ChooseGemmBlocking(4, 3, kF32, 64).has_value());  // no vector divides 3
}

// One block: C (M x N) = op(A) * op(B) over K, through shared tiles and a
// fragment accumulator, as the operator suite writes gemms.
struct GemmShape {
  int m = 16;
  int n = 32;
  int k = 8;
};

std::string GemmKernel(const std::string& a_type, const std::string& b_type, bool transpose_a,
                       bool transpose_b, bool clear_accum, GemmShape shape = {}) {
  auto dims = [](int rows, int cols) { return absl::StrCat(rows, ", ", cols); };
  std::string a_shape = transpose_a ? dims(shape.k, shape.m) : dims(shape.m, shape.k);
  std::string b_shape = transpose_b ? dims(shape.n, shape.k) : dims(shape.k, shape.n);
  return absl::StrReplaceAll(R"(ir_version 1;
producer "test" "1";
kernel g(A: $A[$AS], B: $B[$BS], C: f32[$CS]) grid(bx: 1) threads(1) {
  alloc A_s: shared $A[$AS];
  alloc B_s: shared $B[$BS];
  alloc C_l: fragment f32[$CS];
  fill C_l = 5.0;
  copy A -> A_s;
  copy B -> B_s;
  gemm A_s, B_s -> C_l {transpose_a=$TA, transpose_b=$TB, policy=square, clear_accum=$CL};
  copy C_l -> C;
})",
                             {{"$AS", a_shape},
                              {"$BS", b_shape},
                              {"$CS", dims(shape.m, shape.n)},
                              {"$A", a_type},
                              {"$B", b_type},
                              {"$TA", transpose_a ? "true" : "false"},
                              {"$TB", transpose_b ? "true" : "false"},
                              {"$CL", clear_accum ? "true" : "false"}});
}

// Small multiples of 1/2, exact in every operand type and in f32 sums.
double Value(int seed, int i) { return ((i * 7 + seed * 3) % 9 - 4) * 0.5; }

// `count` values in the memory form of `type`.
std::vector<uint8_t> Encode(const std::string& type, int seed, int count) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < count; ++i) {
    double v = Value(seed, i);
    uint16_t half = type == "f16" ? test_util::NearestHalf(v) : test_util::NearestBf16(v);
    float single = static_cast<float>(v);
    const void* source = type == "f32" ? static_cast<const void*>(&single) : &half;
    size_t size = type == "f32" ? sizeof single : sizeof half;
    bytes.insert(bytes.end(), static_cast<const uint8_t*>(source),
                 static_cast<const uint8_t*>(source) + size);
  }
  return bytes;
}

struct GemmCase {
  std::string a_type;
  std::string b_type;
  bool transpose_a;
  bool transpose_b;
  bool clear_accum;
  GemmShape shape = {};
};

// Lowers, compiles and runs the case's kernel, and compares C with the exact result.
void ExpectMatchesTheReference(const GemmCase& param) {
  absl::StatusOr<Module> module =
      text::ParseModule(GemmKernel(param.a_type, param.b_type, param.transpose_a, param.transpose_b,
                                   param.clear_accum, param.shape),
                        "gemm.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Module> lowered = LowerForCpu(*module);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_TRUE(absl::StrContains(Print(*lowered), "fma(broadcast(")) << Print(*lowered);
  absl::StatusOr<std::unique_ptr<test_util::LinkedObject>> code =
      test_util::CompileLowered(*lowered, "g");
  ASSERT_TRUE(code.ok()) << code.status();

  const int m = param.shape.m, n = param.shape.n, k = param.shape.k;
  std::vector<uint8_t> a = Encode(param.a_type, 1, m * k);
  std::vector<uint8_t> b = Encode(param.b_type, 2, k * n);
  std::vector<float> c(m * n, -1.0f);
  test_util::RunGrid((*code)->block_fn(), {a.data(), b.data(), c.data()}, 1);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = param.clear_accum ? 0.0 : 5.0;
      for (int p = 0; p < k; ++p) {
        want += Value(1, param.transpose_a ? p * m + i : i * k + p) *
                Value(2, param.transpose_b ? j * k + p : p * n + j);
      }
      ASSERT_EQ(c[i * n + j], want) << "C[" << i << ", " << j << "]";
    }
  }
}

class CpuGemmLoweringTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(CpuGemmLoweringTest, MatchesTheReference) { ExpectMatchesTheReference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(OperandForms, CpuGemmLoweringTest,
                         ::testing::Values(GemmCase{"f32", "f32", false, false, false},
                                           GemmCase{"f32", "f32", false, false, true},
                                           GemmCase{"f32", "f32", true, false, false},
                                           GemmCase{"f32", "f32", false, true, false},
                                           GemmCase{"f16", "f16", false, true, true},
                                           GemmCase{"bf16", "f16", true, true, false}),
                         [](const ::testing::TestParamInfo<GemmCase>& info) {
                           const GemmCase& c = info.param;
                           return c.a_type + "_" + c.b_type + (c.transpose_a ? "_t" : "_n") +
                                  (c.transpose_b ? "t" : "n") +
                                  (c.clear_accum ? "_clear" : "_accumulate");
                         });

// Operands that need converting are packed row by row in vectorized loops, whose extent must
// be a power of two: rows of 24, 48, 80 or 96 (TileLang's tile sizes) go in runs of 8, 16 or
// 32, odd ones serially. Before, such a row was one vectorized loop the verifier refused.
class CpuGemmTileShapesTest : public ::testing::TestWithParam<GemmShape> {};

TEST_P(CpuGemmTileShapesTest, PacksRowsOfAnyLength) {
  const GemmShape& shape = GetParam();
  ExpectMatchesTheReference({"f16", "f16", false, false, true, shape});
  ExpectMatchesTheReference({"bf16", "f16", true, false, false, shape});
}

INSTANTIATE_TEST_SUITE_P(NotPowersOfTwo, CpuGemmTileShapesTest,
                         ::testing::Values(GemmShape{8, 24, 24}, GemmShape{4, 48, 48},
                                           GemmShape{6, 80, 24}, GemmShape{2, 96, 48},
                                           GemmShape{3, 40, 9}),
                         [](const ::testing::TestParamInfo<GemmShape>& info) {
                           return absl::StrCat("m", info.param.m, "_n", info.param.n, "_k",
                                               info.param.k);
                         });

TEST(LowerCpuGemmTest, DeclinesWhatTheGenericLoopsHandle) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";
kernel g(A: f32[16, 8], B: f32[8, 32], X: i32[16, 8], Y: i32[8, 32]) grid(bx: 1) threads(1) {
  alloc B_s: shared f32[8, 32];
  alloc C_l: fragment f32[16, 32];
  alloc X_s: shared i32[16, 8];
  alloc Y_s: shared i32[8, 32];
  alloc Z_l: fragment i32[16, 32];
  gemm A, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  gemm X_s, Y_s -> Z_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
})",
                                                    "declined.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const KernelNode& kernel = *module->kernels[0];
  const Seq& body = *As<Seq>(kernel.body);
  passes::FreshNames names(kernel);
  for (const Stmt& stmt : body.stmts) {
    const Gemm* gemm = As<Gemm>(stmt);
    if (gemm == nullptr) continue;
    // A in global memory would need bound predication; integers have no FMA.
    absl::StatusOr<std::optional<Stmt>> lowered = LowerCpuGemm({gemm, &kernel, &names}, 64);
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    EXPECT_FALSE(lowered->has_value());
    // Without fresh names a lowering could not declare its loops.
    lowered = LowerCpuGemm({gemm, &kernel, nullptr}, 64);
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    EXPECT_FALSE(lowered->has_value());
  }
}

}  // namespace
}  // namespace tile_ir::cpu
