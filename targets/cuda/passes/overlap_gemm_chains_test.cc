// overlap-gemm-chains on thread-level loops: the smallest loop it rotates, and one loop per
// rule it checks, each kept with a remark naming the rule. Thread-level text with CUDA
// intrinsics, parsed here once they are registered (the golden files under testdata/ are
// parsed without a target's intrinsics).
#include "targets/cuda/passes/overlap_gemm_chains.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/testing/ir_test_util.h"
#include "targets/cuda/gemm_wgmma.h"
#include "tile_ir/printer.h"

namespace tile_ir::cuda {
namespace {

using passes::testing::ParseOrDie;

// A kernel whose loop body is `body` (two gemms and what is around them), at thread level.
std::string KernelText(const std::string& body) {
  return absl::StrCat(R"(
kernel k() grid(bx: 1) threads(256) {
  for tx in 0 +: 256 thread_bound(x) {
    alloc Q_s: shared f16[1, 128, 64] offset(0);
    alloc K_s: shared f16[1, 64, 64] offset(16384);
    alloc V_s: shared f16[1, 64, 64] offset(24576);
    alloc T_s: shared f32[256] offset(32768);
    alloc S: local f32[32];
    alloc P: local f16[32];
    alloc acc_o: local f32[32];
    alloc m: local f32[1];
    for k in 0 +: 4 serial {
)",
                      body, R"(
    }
  }
})");
}

constexpr char kFirst[] =
    "      eval cuda.gemm_wgmma(Q_s[0, 0, 0], K_s[0, 0, 0], S[0], 128, 64, 64, 2, 1, false, "
    "true, false);\n";
constexpr char kSecond[] =
    "      eval cuda.gemm_wgmma_rs(P[0], V_s[0, 0, 0], acc_o[0], 128, 64, 64, 2, 1, false, "
    "false, false);\n";
constexpr char kRowMax[] = "      m[0] = max(S[0], S[1]);\n";
constexpr char kConvert[] =
    "      for r in 0 +: 32 unrolled {\n        P[r] = cast<f16>(S[r]);\n      }\n";

struct Result {
  std::string printed;
  std::vector<std::string> remarks;
};

Result Overlap(const std::string& body) {
  EXPECT_TRUE(RegisterGemmWgmmaIntrinsic().ok());
  Module module = ParseOrDie(KernelText(body));
  Result result;
  Kernel kernel = OverlapGemmChains(module.kernels[0], &result.remarks);
  module.kernels[0] = kernel;
  result.printed = Print(module);
  return result;
}

TEST(OverlapGemmChainsTest, RotatesTheSmallestChain) {
  Result r = Overlap(absl::StrCat(kFirst, kRowMax, kConvert, kSecond));
  ASSERT_EQ(r.remarks.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.remarks[0], "whose wait follows 1 statements")) << r.remarks[0];
  // The steady state: both gemms issued, Q K^T waited for alone, the row maximum beside P V,
  // then P V's wait, P's fence and P's conversion.
  for (const char* line :
       {"for k in 0 + 1 +: 4 - 1 serial {",
        "eval cuda.gemm_wgmma_async(Q_s[0, 0, 0], K_s[0, 0, 0], S[0]",
        "eval cuda.gemm_wgmma_rs_async(P[0], V_s[0, 0, 0], acc_o[0]",
        "eval cuda.wgmma_wait(S[0], 1, 32);", "eval cuda.wgmma_wait(acc_o[0], 0, 32);",
        "eval cuda.wgmma_fence_operand(P[0], 32);", "for r_1 in 0 +: 32 unrolled {"}) {
    EXPECT_TRUE(absl::StrContains(r.printed, line)) << line << "\n" << r.printed;
  }
  // In the loop (the last row maximum; the first is the first iteration's, before it).
  const size_t row_max = r.printed.rfind("m[0] = max");
  EXPECT_LT(r.printed.find("wgmma_wait(S[0], 1, 32)"), row_max) << r.printed;
  EXPECT_LT(row_max, r.printed.find("wgmma_wait(acc_o[0], 0, 32)")) << r.printed;
}

// Each case breaks one rule; the loop stays and the remark names the rule.
TEST(OverlapGemmChainsTest, KeepsLoopsThatBreakARule) {
  struct Case {
    std::string body;
    const char* why;
  };
  const std::vector<Case> cases = {
      {absl::StrCat(kFirst, kRowMax, "      T_s[tx] = S[0];\n", kConvert, kSecond),
       "touches memory other than registers"},
      {absl::StrCat(kFirst, "      m[0] = acc_o[0];\n      S[0] = S[0] * m[0];\n", kConvert,
                    kSecond),
       "work that must wait for the second gemm feeds work that need not"},
      {absl::StrCat(kFirst, kRowMax, kConvert, kSecond, "      m[0] = 0.0;\n"),
       "a statement other than an mbarrier arrival follows its second gemm"},
      {absl::StrCat("      P[0] = 0.0_f16;\n", kFirst, kRowMax, kConvert, kSecond),
       "uses the second's operands"},
      {absl::StrCat(kFirst, kConvert, kSecond),
       "none of the work between its gemms could run beside the second"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    Result r = Overlap(c.body);
    EXPECT_FALSE(absl::StrContains(r.printed, "gemm_wgmma_rs_async")) << r.printed;
    ASSERT_EQ(r.remarks.size(), 1u);
    EXPECT_TRUE(absl::StrContains(r.remarks[0], "runs its two gemms in turn")) << r.remarks[0];
    EXPECT_TRUE(absl::StrContains(r.remarks[0], c.why)) << r.remarks[0];
  }
}

}  // namespace
}  // namespace tile_ir::cuda
