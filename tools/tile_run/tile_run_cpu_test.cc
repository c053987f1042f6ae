// tile-run as the binary runs it: the real CPU device and operator suite, on
// the suite's own .tile files (ops/).
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/device_registry.h"
#include "ops/op_suite.h"
#include "tools/tile_run/tile_run_main.h"

namespace tile_ir::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int status;
  std::string out;
  std::string err;
};

Result RunTileRun(std::vector<std::string> args) {
  args.insert(args.begin(), "tile-run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  int status = TileRunMain(static_cast<int>(argv.size()), argv.data(), out, err,
                           {runtime::OpenDevice, &ops::OperatorSuite()});
  return {status, out.str(), err.str()};
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// `text` with every occurrence of `from` replaced by `to` (there must be one),
// written to the test's temporary folder as `stem`.tile; the path.
std::string WriteEdited(std::string text, const std::string& from, const std::string& to,
                        const std::string& stem) {
  EXPECT_NE(text.find(from), std::string::npos) << from;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + stem + ".tile";
  std::ofstream(path) << text;
  return path;
}

TEST(TileRunCpuTest, ListsTheSuite) {
  Result r = RunTileRun({"--list"});
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("add_f32"));
  EXPECT_THAT(r.out, HasSubstr("\ngemm_f16(A: f16[M, K], B: f16[K, N], C: f32[M, N])\n"
                               "  description: fp16 GEMM, fp32 accumulation and output; "
                               "128x128x64 tiles\n"
                               "  default shapes: M=256,N=256,K=128\n"
                               "  ragged shapes: M=257,N=191,K=97\n"));
  EXPECT_THAT(r.out, HasSubstr("\ngemm_w4a16(A: f16[M, K], B: u8[N, K / 2], Scale: f16[N, K / 32], "
                               "C: f16[M, N])\n"));
  EXPECT_THAT(r.out, HasSubstr("  requires: K % 32 == 0\n"));
  EXPECT_THAT(r.out, HasSubstr("  inputs (normal): A, Scale N(0, 1); B integers in [0, 255]\n"
                               "  inputs (op ranges): A uniform [-1, 1); B integers in [0, 255]; "
                               "Scale uniform [0.005, 0.02)\n"));
}

// gemm_w4a16 reads K in groups of 32 with one scale each; at K = 333 it returned 773,046 wrong
// elements of 777,000 before it stated its contract. Now the launch is refused naming it.
TEST(TileRunCpuTest, AShapeContractRefusesTheLaunchNamingTheValues) {
  Result r = RunTileRun({"gemm_w4a16", "--check", "--shapes", "M=1000,N=777,K=333"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("the kernel requires K % 32 == 0"));
  EXPECT_THAT(r.err, HasSubstr("which these arguments break: K = 333"));
  Result fine = RunTileRun({"gemm_w4a16", "--check", "--shapes", "M=100,N=77,K=320"});
  EXPECT_EQ(fine.status, 0) << fine.err;
  Result specialized =
      RunTileRun({"gemm_w4a16", "--check", "--static-shapes", "--shapes", "M=100,N=77,K=333"});
  EXPECT_EQ(specialized.status, 2);
  EXPECT_THAT(specialized.err, HasSubstr("requires K % 32 == 0, which K=333, M=100, N=77 breaks"));
}

// The softmax kernel with its column mask removed: the columns past N of the
// last tile read as zeros and join the row's sum. Inputs in the op's
// [-100, 100) hide that (exp(0 - max) is below 1e-40 when the row's maximum is
// near 100); standard normal inputs do not, so the check must fail.
TEST(TileRunCpuTest, ASoftmaxWithoutItsColumnMaskFailsItsCheck) {
  const std::string own = ReadFile("ops/softmax_f32.tile");
  std::string unmasked =
      WriteEdited(own, "select(k * 128 + j < N, X_s[i, j], -inf)", "X_s[i, j]", "softmax_f32");
  Result r = RunTileRun({unmasked, "--check", "--ragged", "--seed=3"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("shapes  M=100,N=777"));
  EXPECT_THAT(r.out, testing::MatchesRegex("(.|\n)*Y \\[normal\\]: [^\n]*: FAIL\n(.|\n)*"));
  EXPECT_THAT(r.out, testing::MatchesRegex("(.|\n)*Y \\[op ranges\\]: [^\n]*: PASS\n(.|\n)*"));
  EXPECT_THAT(r.out, HasSubstr("\nFAIL (rerun with --seed=3)"));
  Result masked = RunTileRun({"ops/softmax_f32.tile", "--check", "--ragged", "--seed=3"});
  EXPECT_EQ(masked.status, 0) << masked.out << masked.err;
}

// The other way round: a row maximum without its mask lets a padded zero win
// only where a row has no positive value, which the op's all-negative inputs
// ensure and normal inputs almost never give. Each case catches what the other misses.
TEST(TileRunCpuTest, ARowMaxWithoutItsColumnMaskFailsOnTheOpsRanges) {
  const std::string own = ReadFile("ops/row_max_f32.tile");
  std::string unmasked =
      WriteEdited(own, "select(k * 128 + j < N, X_s[i, j], -inf)", "X_s[i, j]", "row_max_f32");
  Result r = RunTileRun({unmasked, "--check", "--ragged", "--seed=3"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_THAT(r.out, testing::MatchesRegex("(.|\n)*Y \\[op ranges\\]: [^\n]*: FAIL\n(.|\n)*"));
  Result masked = RunTileRun({"ops/row_max_f32.tile", "--check", "--ragged", "--seed=3"});
  EXPECT_EQ(masked.status, 0) << masked.out << masked.err;
}

// The case: gemm_f16 with C declared f16 aborted in the reference
// (std::out_of_range) or overran C; now it is refused before it compiles.
TEST(TileRunCpuTest, AGemmWithAnotherSignatureIsRefusedNotRun) {
  const std::string own = ReadFile("ops/gemm_f16.tile");
  struct Edit {
    std::string from, to, difference;
  };
  const std::vector<Edit> edits = {
      {"C: f32[M, N]", "C: f16[M, N]", "its parameter 'C' is f16 where the operator's is f32"},
      {"C: f32[M, N]", "C: f32[M, 64]",
       "its parameter 'C' has the shape [M, 64] where the operator's is [M, N]"},
      {"-> C[", "-> D[", ""},  // with the declaration below: C renamed D
  };
  for (const Edit& edit : edits) {
    std::string path = WriteEdited(own, edit.from, edit.to, "gemm_f16");
    std::string difference = edit.difference;
    if (difference.empty()) {
      path = WriteEdited(ReadFile(path), "C: f32[M, N]", "D: f32[M, N]", "gemm_f16");
      difference = "it lacks the operator's parameter 'C' (it has 'D', which the operator lacks)";
    }
    Result r = RunTileRun({path, "--check", "--seed=1"});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_THAT(r.err,
                HasSubstr("kernel 'gemm_f16' is named like the suite operator but " + difference +
                          "; --check compares with that operator's "
                          "reference, so the signatures must match"));
  }
}

TEST(TileRunCpuTest, ChecksAnElementwiseOperatorAtRaggedShapes) {
  Result r = RunTileRun({"ops/add_f32.tile", "--check", "--ragged", "--seed=11"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("on cpu: "));
  EXPECT_THAT(r.out, HasSubstr("shapes  M=1000,N=777"));
  EXPECT_THAT(r.out, HasSubstr("inputs  normal: A, B N(0, 1)\n"
                               "          op ranges: A, B uniform [-1, 1)\n"));
  EXPECT_THAT(r.out, HasSubstr("check   C [normal]: max abs err"));
  EXPECT_THAT(r.out, HasSubstr("check   C [op ranges]: max abs err"));
  EXPECT_THAT(r.out, HasSubstr("PASS (rerun with --seed=11)"));
}

TEST(TileRunCpuTest, ChecksAGemmAtSmallRaggedShapes) {
  Result r =
      RunTileRun({"ops/gemm_f16.tile", "--check", "--shapes=M=100,N=70,K=50", "--seed=5"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("shapes  M=100,N=70,K=50"));
}

// A file runs as written even when its kernel is a suite operator's with a config space (the
// default for gemm_f16's shapes is another config); by name, the operator takes that default.
// (--explain of a file: tile_run_autotune_cpu_test's ExplainsAFileAsWritten.)
TEST(TileRunCpuTest, AFileRunsAsWrittenAndAnOperatorByNameAtItsDefault) {
  Result file = RunTileRun({"ops/gemm_f16.tile", "--check", "--seed=3"});
  EXPECT_EQ(file.status, 0) << file.out << file.err;
  EXPECT_THAT(file.out, HasSubstr("config  as written in ops/gemm_f16.tile (--config=NAME or "
                                  "--autotune runs one of gemm_f16's configs)"));
  EXPECT_THAT(file.out, Not(HasSubstr("the default for these shapes")));
  Result named = RunTileRun({"gemm_f16", "--check", "--seed=3"});
  EXPECT_EQ(named.status, 0) << named.out << named.err;
  EXPECT_THAT(named.out, HasSubstr("the default for these shapes"));


  // Run as written, a refusal of the file's contract names where the file wrote it.
  Result refused = RunTileRun({"ops/gemm_w4a16.tile", "--shapes=M=64,N=64,K=333"});
  EXPECT_EQ(refused.status, 1);
  EXPECT_THAT(refused.err, HasSubstr("the kernel requires K % 32 == 0 (ops/gemm_w4a16.tile:6:3)"));
}

TEST(TileRunCpuTest, RunsAGemmAtANamedConfigOfItsSpace) {
  Result r = RunTileRun({"gemm_bf16", "--config=64x64x32_s3", "--static-shapes", "--check",
                         "--shapes=M=128,N=64,K=96", "--seed=3"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("config  64x64x32_s3 of gemm_bf16's space"));
  EXPECT_THAT(r.out, HasSubstr("PASS"));
  Result unknown = RunTileRun({"gemm_bf16", "--config=1x1x1_s1"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_THAT(unknown.err, HasSubstr("operator 'gemm_bf16' has no config '1x1x1_s1'; its configs: "
                                     "128x128x64_s3, 64x64x32_s3"));
  Result both = RunTileRun({"gemm_bf16", "--config=64x64x32_s3", "--autotune"});
  EXPECT_EQ(both.status, 2);
  EXPECT_THAT(both.err, HasSubstr("--config picks a config, and --autotune searches for one"));

  // The suite's own file is the operator; an edited one is not, and --config would drop it.
  Result file = RunTileRun({"ops/gemm_bf16.tile", "--config=64x64x32_s3", "--check",
                            "--shapes=M=64,N=64,K=64", "--seed=3"});
  EXPECT_EQ(file.status, 0) << file.out << file.err;
  std::ifstream suite_file("ops/gemm_bf16.tile");
  std::stringstream text;
  text << suite_file.rdbuf();
  std::string edited = text.str();
  edited.replace(edited.find("num_stages=3"), 12, "num_stages=2");
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/gemm_bf16.tile";
  std::ofstream(path) << edited;
  Result differs = RunTileRun({path, "--config=64x64x32_s3"});
  EXPECT_EQ(differs.status, 2);
  EXPECT_THAT(differs.err, HasSubstr("this kernel differs from the suite's"));
  Result none = RunTileRun({"add_f32", "--config=64x64x32_s3"});
  EXPECT_EQ(none.status, 2);
  EXPECT_THAT(none.err, HasSubstr("kernel 'add_f32' has no config space to pick"));
}

// Kernels from porting TileLang's examples (testdata/ports), under the suite's operator names.
TEST(TileRunCpuTest, ChecksAGemmWhoseTilesAreNotPowersOfTwo) {
  for (const char* shapes : {"--shapes=M=100,N=200,K=70", "--shapes=M=64,N=160,K=48"}) {
    Result r = RunTileRun(
        {"testdata/ports/gemm_f16_tiles_64x80x24.tile", "--check", shapes, "--seed=7"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("PASS"));
  }
}

// With static shapes a tile wider than the tensor is a constant region past its edge, which
// the copies mask as they do with symbolic shapes.
TEST(TileRunCpuTest, ChecksTilesLargerThanTheTensorWithStaticShapes) {
  Result gemm = RunTileRun(
      {"gemm_f16", "--static-shapes", "--check", "--shapes=M=256,N=256,K=20", "--seed=2"});
  EXPECT_EQ(gemm.status, 0) << gemm.out << gemm.err;
  EXPECT_THAT(gemm.out, HasSubstr("PASS"));
  Result row = RunTileRun({"testdata/ports/softmax_f32_whole_row.tile", "--static-shapes",
                           "--check", "--shapes=M=64,N=777", "--seed=2"});
  EXPECT_EQ(row.status, 0) << row.out << row.err;
  EXPECT_THAT(row.out, HasSubstr("PASS"));
}

// A fragment of N elements needs N constant: --static-shapes runs it, and without it the error
// says so in the user's terms.
// A fragment sized by a dim (a whole row) needs the dim's value when compiling: tile-run
// compiles that dim in from the run's shapes, says so, and leaves the others symbolic.
TEST(TileRunCpuTest, RunsAWholeRowFragmentWithItsSizingDimCompiledIn) {
  const std::string file = "testdata/ports/rmsnorm_f16_whole_row.tile";
  Result fixed = RunTileRun({file, "--static-shapes", "--check", "--shapes=M=8,N=300", "--seed=4"});
  EXPECT_EQ(fixed.status, 0) << fixed.out << fixed.err;
  EXPECT_THAT(fixed.out, HasSubstr("PASS"));
  Result sized = RunTileRun({file, "--check", "--shapes=M=8,N=300", "--seed=4"});
  EXPECT_EQ(sized.status, 0) << sized.out << sized.err;
  EXPECT_THAT(sized.out, HasSubstr("specialized N (sizing fragments, so compiled in as constants)"));
  EXPECT_THAT(sized.out, HasSubstr("PASS"));
  EXPECT_THAT(sized.err, Not(HasSubstr("does not verify")));
}

TEST(TileRunCpuTest, BenchesWithThroughput) {
  Result r = RunTileRun({"ops/add_f32.tile", "--bench", "--iters=3", "--warmup=1"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("over 3 launches"));
  EXPECT_THAT(r.out, HasSubstr("GB/s"));
}

// This machine has no NVIDIA driver; where one is installed the run goes on.
TEST(TileRunCpuTest, CudaWithoutADriverFailsSayingSo) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); driver != nullptr) {
    dlclose(driver);
    GTEST_SKIP() << "this machine has an NVIDIA driver";
  }
  Result r = RunTileRun({"ops/add_f32.tile", "--target=cuda"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "tile-run: error: --target=cuda: cuda: libcuda.so.1 not found (no NVIDIA driver on "
            "this machine)\n");
}

}  // namespace
}  // namespace tile_ir::tools
