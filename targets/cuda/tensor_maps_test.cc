// The one TMA eligibility check (TmaTileWhyNot) as the emitter and the runtime meet it, through
// the tensor maps of a thread-level kernel's TMA calls.
#include "targets/cuda/tensor_maps.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"

namespace tile_ir::cuda {
namespace {

// The tensor maps of kernel `k`, whose parameters are `params` and whose one thread loop runs
// `body` beside a 64 x 64 f16 tile A_s and an mbarrier `bar`.
absl::StatusOr<std::vector<TensorMapUse>> MapsOf(absl::string_view params, absl::string_view body,
                                                 absl::string_view requirement = "") {
  RegisterTmaIntrinsics();
  absl::StatusOr<Module> module =
      text::ParseModule(absl::StrCat("ir_version 3;\nproducer \"test\" \"1\";\nkernel k", params,
                                     " grid(bx: 1) threads(128) {\n", requirement,
                                     "  for tx in 0 +: 128 thread_bound(x) {\n"
                                     "    alloc A_s: shared f16[64, 64];\n"
                                     "    alloc bar: shared i64[1];\n",
                                     body, "\n  }\n}\n"),
                        "tensor_maps_test.tile");
  if (!module.ok()) return module.status();
  return CollectTensorMaps(*module->kernels[0]);
}

std::string Error(const absl::StatusOr<std::vector<TensorMapUse>>& maps) {
  return maps.ok() ? "(accepted)" : std::string(maps.status().message());
}

TEST(TensorMapsTest, ALoadAndAStoreOfOneTensorShareItsMapWhenTheirBoxesAgree) {
  absl::StatusOr<std::vector<TensorMapUse>> maps =
      MapsOf("(B: f32[8, 64], A: f16[3, 256, 128])",
             "    eval cuda.tma_load_3d(A_s[0, 0], A[0, 0, 0], bar[0], 2, 64, 0, 64, 64);\n"
             "    eval cuda.tma_store_3d(A_s[0, 0], A[0, 0, 0], 1, 0, 64, 64, 64);\n"
             "    eval cuda.tma_load_2d(A_s[0, 0], B[0, 0], bar[0], 0, 0, 8, 32);");
  ASSERT_TRUE(maps.ok()) << maps.status();
  ASSERT_EQ(maps->size(), 2u);
  EXPECT_EQ((*maps)[0].param, 1);
  EXPECT_EQ((*maps)[0].rank, 3);
  EXPECT_EQ((*maps)[0].box_rows, 64);
  EXPECT_EQ((*maps)[0].box_cols, 64);  // 128 bytes of f16
  EXPECT_EQ((*maps)[1].param, 0);
  EXPECT_EQ((*maps)[1].element, ScalarType::kF32);
  EXPECT_EQ((*maps)[1].box_cols, 32);
}

TEST(TensorMapsTest, EachRefusalNamesTheCallTheTensorAndWhatIsWrong) {
  EXPECT_EQ(Error(MapsOf("(A: f16[64, 64])",
                         "    eval cuda.tma_load_2d(A_s[0, 0], A_s[0, 0], bar[0], 0, 0, 64, 64);")),
            "kernel 'k': cuda.tma_load_2d: 'A_s' is not a buffer parameter of the kernel in "
            "global memory");
  EXPECT_EQ(
      Error(MapsOf("(A: f16[64, 64])",
                   "    eval cuda.tma_load_3d(A_s[0, 0], A[0, 0], bar[0], 0, 0, 0, 64, 64);")),
      "kernel 'k': cuda.tma_load_3d: 'A' has rank 2, not the 3 the call gives coordinates "
      "for");
  EXPECT_EQ(Error(MapsOf("(A: i4[64, 512])",
                         "    eval cuda.tma_store_2d(A_s[0, 0], A[0, 0], 0, 0, 64, 256);")),
            "kernel 'k': cuda.tma_store_2d: 'A' has elements the TMA does not move (i4)");
  EXPECT_EQ(Error(MapsOf("<R: i32>(A: f16[64, 64])",
                         "    eval cuda.tma_store_2d(A_s[0, 0], A[0, 0], 0, 0, R, 64);")),
            "kernel 'k': cuda.tma_store_2d: the tile moved to or from 'A' has no constant 2-D "
            "shape");
  EXPECT_EQ(Error(MapsOf("(A: f16[64, 64])",
                         "    eval cuda.tma_load_2d(A_s[0, 0], A[0, 0], bar[0], 0, 0, 64, 32);")),
            "kernel 'k': cuda.tma_load_2d: the 64 x 32 tile of 'A' is not at most 256 rows (a "
            "multiple of 8) of whole 128-byte rows");
  EXPECT_EQ(Error(MapsOf("(A: f16[64, 64])",
                         "    eval cuda.tma_load_2d(A_s[0, 0], A[0, 0], bar[0], 0, 0, 12, 64);")),
            "kernel 'k': cuda.tma_load_2d: the 12 x 64 tile of 'A' is not at most 256 rows (a "
            "multiple of 8) of whole 128-byte rows");
}

// The TMA reads rows at a pitch of a multiple of 16 bytes (cuTensorMapEncodeTiled's strides): a
// symbolic row length must be proved to give one, as warp-specialize and tma-stores prove it.
TEST(TensorMapsTest, ARowPitchMustBeProvedAMultipleOf16Bytes) {
  const absl::string_view kLoad =
      "    eval cuda.tma_load_2d(A_s[0, 0], A[0, 0], bar[0], 0, 0, 64, 64);";
  EXPECT_EQ(Error(MapsOf("<K: i32>(A: f16[64, K])", kLoad)),
            "kernel 'k': cuda.tma_load_2d: the pitch of the rows of 'A' is not proved a multiple "
            "of 16 bytes (constant shapes or a `require` line prove it)");
  EXPECT_EQ(Error(MapsOf("<K: i32>(A: f16[64, K])", kLoad, "  require K % 4 == 0;\n")),
            "kernel 'k': cuda.tma_load_2d: the pitch of the rows of 'A' is not proved a multiple "
            "of 16 bytes (constant shapes or a `require` line prove it)");
  EXPECT_EQ(Error(MapsOf("<K: i32>(A: f16[64, K])", kLoad, "  require K % 8 == 0;\n")),
            "(accepted)");
}

}  // namespace
}  // namespace tile_ir::cuda
