// Loop extraction and FMA counting on a hand-written assembly listing.
#include "bench/asm_loops.h"

#include "gtest/gtest.h"

namespace tile_ir::bench {
namespace {

constexpr char kAssembly[] = R"(gemm_block:
	vmulps	%ymm1, %ymm2, %ymm3
.LBB0_1:
	vbroadcastss	(%rax), %zmm4
.LBB0_2:
	vfmadd231ps	(%rsi), %zmm4, %zmm0
	vfmadd231ps	64(%rsi), %zmm4, %zmm1
	vfmadd213ss	%xmm1, %xmm2, %xmm3
	addq	$1, %rcx
	jne	.LBB0_2
	vfmadd231ps	%ymm5, %ymm6, %ymm7
	jmp	.LBB0_1
	retq
)";

TEST(AsmLoopsTest, CountsPackedFmasByRegisterWidth) {
  EXPECT_EQ(CountVectorFmas(kAssembly, "zmm"), 2);
  EXPECT_EQ(CountVectorFmas(kAssembly, "ymm"), 1);
  EXPECT_EQ(CountVectorFmas(kAssembly, "xmm"), 0);  // vfmadd213ss is scalar
}

TEST(AsmLoopsTest, PicksAnInnermostLoop) {
  AsmLoop loop = HottestFmaLoop(kAssembly);
  // .LBB0_1 has three vector FMAs, but only by containing .LBB0_2.
  EXPECT_EQ(loop.fmas, 2);
  EXPECT_EQ(loop.num_lines, 6);
  EXPECT_TRUE(loop.text.starts_with(".LBB0_2:\n"));
}

TEST(AsmLoopsTest, ExcerptSaysWhatItLeftOut) {
  EXPECT_EQ(Excerpt("a\nb\nc\n", 2), "a\nb\n... (1 more lines)\n");
  EXPECT_EQ(Excerpt("a\n", 2), "a\n");
}

}  // namespace
}  // namespace tile_ir::bench
