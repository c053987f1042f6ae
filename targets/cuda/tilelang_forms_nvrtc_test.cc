// TileLang's forms the CUDA targets once refused lower, emit and compile with NVRTC for sm_80
// and sm_90a (compiling is skipped, with the reason, where NVRTC is missing): cumsum's tile
// forms (python/examples/tilelang/cumsum.py), a scan over a shared tile, in place and along
// either dimension, and over a fragment; and shared tiles with layouts of their own
// (T.make_swizzled_layout on a gemm's operands, a transposing layout).
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "targets/cuda/cuda_target.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/target_name.h"

namespace tile_ir::cuda {
namespace {

// TileLang's chunk_local_cumsum: a chunk of 64 gates scanned in a shared tile of one row,
// backwards; its rows form on a (4, 64) tile; and both through fragments, in place.
constexpr char kScans[] = R"(ir_version 1;
producer "test" "1";

kernel chunk_shared(G: f16[2, 256, 4], G_new: f32[2, 256, 4]) grid(bs: 4, bbh: 8) threads(256) {
  alloc G_shared: shared f32[1, 64];
  copy G[bbh / 4 +: 1, bs * 64 +: 64, bbh % 4 +: 1] -> G_shared;
  cumsum G_shared -> G_shared {dim=1, reverse=true};
  copy G_shared -> G_new[bbh / 4 +: 1, bs * 64 +: 64, bbh % 4 +: 1];
}

kernel rows_shared(A: f32[8, 256], B: f32[8, 256]) grid(bx: 4, by: 2) threads(256) {
  alloc A_shared: shared f32[4, 64];
  copy A[by * 4 +: 4, bx * 64 +: 64] -> A_shared;
  cumsum A_shared -> A_shared {dim=1, reverse=false};
  cumsum A_shared -> A_shared {dim=0, reverse=true};
  copy A_shared -> B[by * 4 +: 4, bx * 64 +: 64];
}

kernel rows_fragment(A: f32[8, 256], B: f32[8, 256]) grid(bx: 4, by: 2) threads(256) {
  alloc A_shared: shared f32[4, 64];
  alloc A_fragment: fragment f32[4, 64];
  copy A[by * 4 +: 4, bx * 64 +: 64] -> A_shared;
  copy A_shared -> A_fragment;
  cumsum A_fragment -> A_fragment {dim=1, reverse=true};
  copy A_fragment -> B[by * 4 +: 4, bx * 64 +: 64];
}

kernel spread_fragment(A: f32[8, 256], B: f32[8, 256]) grid(bx: 4, by: 2) threads(256) {
  alloc A_fragment: fragment f32[4, 64] layout((i, j) -> (i * 64 + j, 0));
  copy A[by * 4 +: 4, bx * 64 +: 64] -> A_fragment;
  cumsum A_fragment -> A_fragment {dim=1, reverse=false};
  copy A_fragment -> B[by * 4 +: 4, bx * 64 +: 64];
}
)";

// A TileLang gemm whose operand tiles carry T.make_swizzled_layout's 128-byte swizzle, and a
// copy through a tile laid out transposed.
constexpr char kSharedLayouts[] = R"(ir_version 2;
producer "test" "1";

kernel swizzled_gemm(A: f16[256, 256], B: f16[256, 256], C: f32[256, 256])
    grid(bx: 2, by: 2) threads(128) {
  alloc A_s: shared f16[128, 64] layout((i, j) -> (i, (floordiv(j, 8) ^ floormod(i, 8)) * 8 + floormod(j, 8)));
  alloc B_s: shared f16[64, 128] layout((i, j) -> (i, floordiv(j, 64) * 64 + (floordiv(floormod(j, 64), 8) ^ floormod(i, 8)) * 8 + floormod(j, 8)));
  alloc C_l: fragment f32[128, 128];
  fill C_l = 0.0;
  for k in 0 +: 4 pipelined(num_stages=2) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, bx * 128 +: 128] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 128 +: 128];
}

kernel transposed_tile(A: f16[64, 64], B: f16[64, 64]) grid(bx: 1) threads(128) {
  alloc P: shared f16[64, 64] layout((i, j) -> (j, i));
  copy A -> P;
  copy P -> B;
}
)";

absl::StatusOr<std::string> Source(const std::string& target_name, const std::string& kernel,
                                   const char* text = kScans) {
  absl::StatusOr<Module> module = text::ParseModule(text, "forms.tile");
  if (!module.ok()) return module.status();
  absl::StatusOr<targets::TargetName> name = targets::ParseTargetName(target_name);
  if (!name.ok()) return name.status();
  std::unique_ptr<targets::TargetFamily> family = MakeCudaFamily();
  family->RegisterIntrinsics();
  absl::StatusOr<std::unique_ptr<targets::Target>> target = family->Create(*name);
  if (!target.ok()) return target.status();
  absl::StatusOr<Module> lowered = (*target)->Lower(*module);
  if (!lowered.ok()) return lowered.status();
  return (*target)->Emit(*lowered, {.kernel = kernel, .self_contained = false});
}

TEST(TileLangFormsNvrtcTest, SharedAndFragmentScansCompile) {
  absl::Status nvrtc = NvrtcAvailable();
  for (const char* arch : {"sm_80", "sm_90a"}) {
    for (const char* kernel : {"chunk_shared", "rows_shared", "rows_fragment", "spread_fragment"}) {
      absl::StatusOr<std::string> source = Source(absl::StrCat("cuda:", arch), kernel);
      ASSERT_TRUE(source.ok()) << kernel << " on " << arch << ": " << source.status();
      // Each thread scans whole rows between the barriers around the scan.
      EXPECT_TRUE(absl::StrContains(*source, "__syncthreads();")) << *source;
      if (absl::StrContains(kernel, "shared") || absl::StrContains(kernel, "spread")) {
        EXPECT_TRUE(absl::StrContains(*source, "_sum[0] = -0.0f;")) << *source;
      }
      if (!nvrtc.ok()) continue;
      absl::StatusOr<NvrtcOutput> compiled =
          CompileWithNvrtc(*source, absl::StrCat(kernel, ".cu"), {.arch = arch});
      EXPECT_TRUE(compiled.ok()) << kernel << " on " << arch << ": " << compiled.status() << "\n"
                                 << *source;
    }
  }
  if (!nvrtc.ok()) GTEST_SKIP() << "lowered and emitted; not compiled: " << nvrtc.message();
}

// The layouts are dropped (layout-inference); the targets lay the gemm's tiles out themselves.
TEST(TileLangFormsNvrtcTest, SharedTilesWithLayoutsCompile) {
  absl::Status nvrtc = NvrtcAvailable();
  for (const char* arch : {"sm_80", "sm_90a"}) {
    for (const char* kernel : {"swizzled_gemm", "transposed_tile"}) {
      absl::StatusOr<std::string> source =
          Source(absl::StrCat("cuda:", arch), kernel, kSharedLayouts);
      ASSERT_TRUE(source.ok()) << kernel << " on " << arch << ": " << source.status();
      if (absl::StrContains(kernel, "gemm")) {
        // The tensor-core gemm each architecture takes for tiles without layouts.
        const char* gemm = absl::StrContains(arch, "90a") ? "tl::gemm_wgmma" : "tl::gemm_ss";
        EXPECT_TRUE(absl::StrContains(*source, gemm)) << arch << ":\n" << *source;
      }
      if (!nvrtc.ok()) continue;
      absl::StatusOr<NvrtcOutput> compiled =
          CompileWithNvrtc(*source, absl::StrCat(kernel, ".cu"), {.arch = arch});
      EXPECT_TRUE(compiled.ok()) << kernel << " on " << arch << ": " << compiled.status() << "\n"
                                 << *source;
    }
  }
  if (!nvrtc.ok()) GTEST_SKIP() << "lowered and emitted; not compiled: " << nvrtc.message();
}

}  // namespace
}  // namespace tile_ir::cuda
