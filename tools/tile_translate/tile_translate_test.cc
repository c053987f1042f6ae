// tile-translate through its library entry point: each target's output, the
// lowered IR, one kernel, and errors that name the input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "targets/target_registry.h"
#include "tools/tile_translate/tile_translate_main.h"

namespace tile_ir::tools {
namespace {

struct Result {
  int status;
  std::string out;
  std::string err;
};

Result RunTileTranslate(std::vector<std::string> args) {
  (void)targets::LinkedTargets();
  args.insert(args.begin(), "tile-translate");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  int status = TileTranslateMain(static_cast<int>(argv.size()), argv.data(), out, err, targets::LinkedTargets());
  return {status, out.str(), err.str()};
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr char kModule[] = R"(ir_version 1;
producer "test" "1";

kernel scale<N: i32>(X: f32[N], Y: f32[N]) grid(bx: ceildiv(N, 128)) threads(128) {
  for i in 0 +: 128 parallel {
    if (bx * 128 + i < N) {
      Y[bx * 128 + i] = X[bx * 128 + i] * 2.0;
    }
  }
}

kernel other(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 1.0;
}
)";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TileTranslateTest, Cuda) {
  std::string path = WriteTemp("scale.tile", kModule);
  Result result = RunTileTranslate({path, "--target=cuda:sm_80"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(Contains(result.out, "// CUDA C++ for sm_80")) << result.out;
  EXPECT_TRUE(Contains(result.out, "__launch_bounds__(128) scale(float* X, float* Y, int N)"))
      << result.out;
  EXPECT_TRUE(Contains(result.out, "const int tx = threadIdx.x;")) << result.out;
  EXPECT_TRUE(Contains(result.out, "other(float* Y)")) << result.out;
}

constexpr char kGemm[] = R"(ir_version 1;
producer "test" "1";

kernel gemm(A: bf16[256, 128], B: bf16[128, 256], C: f32[256, 256])
    grid(bx: 2, by: 2) threads(128) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 128];
  alloc C_l: fragment f32[128, 128];
  fill C_l = 0.0;
  for k in 0 +: 2 pipelined(num_stages=2) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, bx * 128 +: 128] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 128 +: 128];
}
)";

TEST(TileTranslateTest, CudaVariantsPinTheGemmInstruction) {
  // sm_90a takes wgmma for swizzled 128 x 64 and 64 x 128 tiles; the -mma variant keeps
  // mma.sync, the -wgmma one takes wgmma too.
  std::string path = WriteTemp("gemm.tile", kGemm);
  Result hopper = RunTileTranslate({path, "--target=cuda:sm_90a"});
  ASSERT_EQ(hopper.status, 0) << hopper.err;
  EXPECT_TRUE(Contains(hopper.out, "tl::gemm_wgmma<128, 128, 64,")) << hopper.out;
  Result mma = RunTileTranslate({path, "--target=cuda:sm_90a{gemm=mma}"});
  ASSERT_EQ(mma.status, 0) << mma.err;
  EXPECT_TRUE(Contains(mma.out, "// CUDA C++ for sm_90a")) << mma.out;
  EXPECT_TRUE(Contains(mma.out, "tl::gemm_ss<128, 128, 64,")) << mma.out;
  Result wgmma = RunTileTranslate({path, "--target=cuda:sm_90a{gemm=wgmma}"});
  ASSERT_EQ(wgmma.status, 0) << wgmma.err;
  EXPECT_TRUE(Contains(wgmma.out, "tl::gemm_wgmma<128, 128, 64,")) << wgmma.out;
}

TEST(TileTranslateTest, LoweredIrAndOneKernel) {
  std::string path = WriteTemp("scale.tile", kModule);
  Result result = RunTileTranslate({path, "--lowered-ir", "--kernel=scale"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(Contains(result.out, "thread_bound(x)")) << result.out;
  EXPECT_FALSE(Contains(result.out, "kernel other")) << result.out;
  Result missing = RunTileTranslate({path, "--kernel=nope"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(Contains(missing.err, path + ": the module has no kernel 'nope'")) << missing.err;
}

TEST(TileTranslateTest, Cpu) {
  std::string path = WriteTemp("scale.tile", kModule);
  Result result = RunTileTranslate({path, "--target=cpu", "--kernel=other"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(Contains(result.out, "define")) << result.out;
  EXPECT_TRUE(Contains(result.out, "other_block")) << result.out;
}

TEST(TileTranslateTest, ThreadLevelInputIsNotLoweredAgain) {
  std::string path = WriteTemp("lowered.tile", R"(ir_version 1;
producer "test" "1";

kernel copy(X: f32[64], Y: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    Y[tx] = X[tx];
  }
}
)");
  Result result = RunTileTranslate({path, "--thread-level"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(Contains(result.out, "  Y[tx] = X[tx];\n}")) << result.out;
}

TEST(TileTranslateTest, HipAndMetalSource) {
  std::string path = WriteTemp("scale.tile", kModule);
  Result hip = RunTileTranslate({path, "--target=hip:gfx940"});
  ASSERT_EQ(hip.status, 0) << hip.err;
  EXPECT_TRUE(Contains(hip.out, "// HIP C++ for gfx940")) << hip.out;
  EXPECT_TRUE(Contains(hip.out, "__global__")) << hip.out;
  Result metal = RunTileTranslate({path, "--target=metal"});
  ASSERT_EQ(metal.status, 0) << metal.err;
  EXPECT_TRUE(Contains(metal.out, "kernel void")) << metal.out;
}

TEST(TileTranslateTest, Errors) {
  Result usage = RunTileTranslate({});
  EXPECT_EQ(usage.status, 2);
  EXPECT_TRUE(Contains(usage.err, "expected exactly one FILE")) << usage.err;
  std::string path = WriteTemp("scale.tile", kModule);
  Result target = RunTileTranslate({path, "--target=cuda:sm_75"});
  EXPECT_EQ(target.status, 2);
  EXPECT_TRUE(Contains(target.err, "unknown cuda architecture 'sm_75'")) << target.err;
  Result bad_target = RunTileTranslate({path, "--target=vulkan"});
  EXPECT_EQ(bad_target.status, 2);
  EXPECT_TRUE(Contains(bad_target.err, "unknown target 'vulkan'; this program has: cpu, cuda, hip, metal")) << bad_target.err;
  Result bad_hip = RunTileTranslate({path, "--target=hip:gfx942"});
  EXPECT_EQ(bad_hip.status, 2);
  EXPECT_TRUE(Contains(bad_hip.err, "unknown hip architecture 'gfx942'")) << bad_hip.err;
  std::string broken = WriteTemp("broken.tile", "ir_version 1;\nkernel\n");
  Result parse = RunTileTranslate({broken});
  EXPECT_EQ(parse.status, 1);
  EXPECT_TRUE(Contains(parse.err, "broken.tile")) << parse.err;
  Result absent = RunTileTranslate({path + ".absent"});
  EXPECT_EQ(absent.status, 1);
  EXPECT_TRUE(Contains(absent.err, "scale.tile.absent")) << absent.err;
  // A tile-level module given as thread-level reaches the code generator's contract check.
  Result unlowered = RunTileTranslate({path, "--thread-level"});
  EXPECT_EQ(unlowered.status, 1);
  EXPECT_TRUE(Contains(unlowered.err, path + ":")) << unlowered.err;
  EXPECT_TRUE(Contains(unlowered.err, "is not thread-level")) << unlowered.err;
}

TEST(TileTranslateTest, Help) {
  Result help = RunTileTranslate({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(Contains(help.out, "--lowered-ir")) << help.out;
  EXPECT_TRUE(Contains(help.out, "cuda:sm_80")) << help.out;
}

constexpr char kWholeRow[] = R"(ir_version 1;
producer "test" "1";

kernel row<M: i32, N: i32>(X: f32[M, N], S: f32[M]) grid(bx: M) threads(128) {
  alloc x: fragment f32[1, N];
  alloc s: fragment f32[1];
  copy X[bx +: 1, 0 +: N] -> x;
  reduce sum x -> s {dim=1, clear=true};
  copy s -> S[bx +: 1];
}
)";

// A fragment sized by a dim needs the dim's value: --shapes compiles it in; without it the
// error names the fragment and says how; bad --shapes name what is wrong.
TEST(TileTranslateTest, ShapesCompileDimsInAsConstants) {
  std::string path = WriteTemp("row.tile", kWholeRow);
  Result sized = RunTileTranslate({path, "--shapes=N=1024", "--lowered-ir"});
  EXPECT_EQ(sized.status, 0) << sized.err;
  EXPECT_TRUE(Contains(sized.out, "kernel row<M: i32>(X: f32[M, 1024], S: f32[M])")) << sized.out;
  EXPECT_TRUE(Contains(sized.out, "lane_shuffle_xor")) << sized.out;

  Result symbolic = RunTileTranslate({path});
  EXPECT_EQ(symbolic.status, 1);
  EXPECT_TRUE(Contains(symbolic.err, "fragment 'x' has extent N in dimension 1")) << symbolic.err;
  EXPECT_TRUE(Contains(symbolic.err, "tile-translate --shapes")) << symbolic.err;

  Result unknown = RunTileTranslate({path, "--shapes=K=4"});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_TRUE(Contains(unknown.err, "--shapes: no kernel of the module has a dim 'K'"))
      << unknown.err;
  Result malformed = RunTileTranslate({path, "--shapes=N=many"});
  EXPECT_EQ(malformed.status, 1);
  EXPECT_TRUE(Contains(malformed.err, "--shapes: expected NAME=INTEGER, got 'N=many'"))
      << malformed.err;
  Result twice = RunTileTranslate({path, "--shapes=N=64,N=128"});
  EXPECT_EQ(twice.status, 1);
  EXPECT_TRUE(Contains(twice.err, "--shapes: 'N' is given twice: N=64 and N=128")) << twice.err;
  Result huge = RunTileTranslate({path, "--shapes=N=99999999999999999999"});
  EXPECT_EQ(huge.status, 1);
  EXPECT_TRUE(Contains(huge.err,
                       "--shapes: N=99999999999999999999 is out of range for dimension "
                       "'N' of kernel"))
      << huge.err;
  EXPECT_TRUE(Contains(huge.err, "whose type i32 holds 0 to 2147483647")) << huge.err;
}

}  // namespace
}  // namespace tile_ir::tools
