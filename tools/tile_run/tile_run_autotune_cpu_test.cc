// tile-run through the JIT on the CPU target: the kernel cache (--cache-dir),
// --autotune over a gemm's config space cut to a few candidates, and
// --explain.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_suite.h"
#include "runtime/device_registry.h"
#include "runtime/jit/jit_backend.h"
#include "targets/target_registry.h"
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

// The suite with gemm_f16's space cut to two real candidates and one its
// builder refuses, so that tuning takes seconds.
const std::vector<ops::OpCase>& SmallSuite() {
  static const std::vector<ops::OpCase>* suite = [] {
    auto* ops = new std::vector<ops::OpCase>;
    for (const ops::OpCase& op : ops::OperatorSuite()) {
      if (op.name != "gemm_f16" && op.name != "add_f32") continue;
      ops::OpCase copy = op;
      if (op.name == "gemm_f16") {
        std::vector<ops::OpConfig> kept;
        for (const ops::OpConfig& config : op.config_space.candidates) {
          if (config.name == "64x64x32_s3" || config.name == "128x128x32_s3") {
            kept.push_back(config);
          }
        }
        kept.push_back({"bogus", {{"block_q", 1}}});
        copy.config_space.candidates = kept;
      }
      ops->push_back(std::move(copy));
    }
    return ops;
  }();
  return *suite;
}

class TileRunAutotuneCpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    unsetenv("TILE_DISABLE_CACHE");
  }

  Result Run(std::vector<std::string> args, const std::vector<ops::OpCase>& suite = SmallSuite()) {
    args.insert(args.begin(), "tile-run");
    args.push_back("--cache-dir=" + dir_);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    TileRunEnvironment env{
        runtime::OpenDevice, &suite, runtime::jit::OpenJitBackend,
        [](std::string_view target) { return targets::LinkedTargets().Resolve(target); }};
    int status = TileRunMain(static_cast<int>(argv.size()), argv.data(), out, err, env);
    return {status, out.str(), err.str()};
  }

  std::string dir_;
};

TEST_F(TileRunAutotuneCpuTest, ASecondRunLoadsTheKernelFromTheDiskCache) {
  Result first = Run({"ops/add_f32.tile", "--check", "--seed=3"});
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_THAT(first.out, HasSubstr("cache   compiled, key "));
  EXPECT_THAT(first.out, HasSubstr(" in " + dir_));
  Result second = Run({"add_f32", "--check", "--seed=3"});  // the operator by name: same kernel
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_THAT(second.out, HasSubstr("cache   disk, key "));
  EXPECT_THAT(second.out, HasSubstr("PASS"));
  EXPECT_EQ(second.err, "");
}

// Without --config, the CPU takes the default heuristics' choice (on the CPU the largest tiles
// that fit its cache); every operator with a config space stays correct with it, at even and
// ragged shapes.
TEST_F(TileRunAutotuneCpuTest, EveryTunableOperatorIsCorrectAtItsDefaultConfig) {
  for (const ops::OpCase& op : ops::OperatorSuite()) {
    if (op.config_space.candidates.empty()) continue;
    std::vector<std::string> shapes;
    std::vector<std::string> dims;
    for (const auto& [dim, value] : op.default_shapes) dims.push_back(dim);
    for (int64_t scale : {256, 200}) {
      std::vector<std::string> parts;
      for (const std::string& dim : dims) {
        // BATCH-like leading dims stay small; the tiled ones take the scale (ragged at 200).
        const int64_t value = op.default_shapes.at(dim) <= 16 ? op.default_shapes.at(dim) : scale;
        parts.push_back(absl::StrCat(dim, "=", value));
      }
      shapes.push_back(absl::StrJoin(parts, ","));
    }
    for (const std::string& at : shapes) {
      Result result = Run({op.name, "--check", "--seed=5", "--shapes=" + at}, ops::OperatorSuite());
      EXPECT_EQ(result.status, 0) << op.name << " at " << at << "\n" << result.out << result.err;
      EXPECT_THAT(result.out, HasSubstr("PASS")) << op.name << " at " << at;
    }
  }
}

TEST_F(TileRunAutotuneCpuTest, TunesStoresTheChoiceAndReadsItBack) {
  const std::vector<std::string> args = {
      "gemm_f16", "--autotune", "--check",   "--shapes=M=128,N=96,K=64",
      "--seed=7", "--iters=2",  "--warmup=0"};
  Result first = Run(args);
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_THAT(first.err, HasSubstr("autotune: gemm_f16: 3 candidates compiled, checked and timed"));
  EXPECT_THAT(first.out, HasSubstr("autotune gemm_f16 at M=128,N=96,K=64 (checked at "
                                   "M=97,N=96,K=64)"));
  EXPECT_THAT(first.out, HasSubstr("64x64x32_s3"));
  EXPECT_THAT(first.out, HasSubstr("128x128x32_s3"));
  EXPECT_THAT(first.out, HasSubstr("skipped: gemm configs have no parameter 'block_q'"));
  EXPECT_THAT(first.out, HasSubstr("best"));
  EXPECT_THAT(first.out, HasSubstr("stored in " + dir_));
  EXPECT_THAT(first.out, HasSubstr("PASS"));

  // Another seed (tile-run draws one from the clock when none is given) finds the choice.
  std::vector<std::string> other_seed = args;
  other_seed[4] = "--seed=8";
  Result second = Run(other_seed);
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_THAT(second.err, HasSubstr("autotune: gemm_f16: the cached choice"));
  EXPECT_THAT(second.err, Not(HasSubstr("compiled, checked and timed")));
  EXPECT_THAT(second.out, HasSubstr("from the cache"));
  EXPECT_THAT(second.out, HasSubstr("read from " + dir_));
  // The best candidate's binary was cached by the first run too.
  EXPECT_THAT(second.out, HasSubstr("cache   disk"));
  // The same best config both times.
  auto best = [](const std::string& out) { return out.substr(out.find("\nbest ")); };
  EXPECT_EQ(best(first.out).substr(0, 40), best(second.out).substr(0, 40));

  // A plain run of the same shapes runs the stored choice, and says so; other shapes, which
  // no tuning covers, run the default config.
  const std::string chosen = best(first.out).substr(6, best(first.out).find(' ', 6) - 6);
  Result plain = Run({"gemm_f16", "--check", "--shapes=M=128,N=96,K=64", "--seed=9"});
  ASSERT_EQ(plain.status, 0) << plain.out << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("config  " + chosen + ": tuned for these shapes on "));
  EXPECT_THAT(plain.out, HasSubstr("PASS"));
  Result untuned = Run({"gemm_f16", "--check", "--shapes=M=40,N=96,K=20", "--seed=9"});
  ASSERT_EQ(untuned.status, 0) << untuned.out << untuned.err;
  // (This suite's cut space names neither config, so they are spelled by their values.)
  EXPECT_THAT(untuned.out, HasSubstr("config  block_k=32,block_m=64,block_n=128,num_stages=3: "
                                     "the default for these shapes (--explain says why), not the "
                                     "operator's own block_k=64,block_m=128,block_n=128,"
                                     "num_stages=3"));
  EXPECT_THAT(untuned.out, HasSubstr("PASS"));
}

TEST_F(TileRunAutotuneCpuTest, TunesStaticShapeBinariesUnderTheirOwnKey) {
  const std::vector<std::string> args = {
      "gemm_f16", "--autotune", "--static-shapes", "--check", "--shapes=M=128,N=96,K=64",
      "--seed=7", "--iters=2",  "--warmup=0"};
  Result tuned = Run(args);
  ASSERT_EQ(tuned.status, 0) << tuned.out << tuned.err;
  EXPECT_THAT(tuned.err, HasSubstr("3 candidates compiled, checked and timed"));
  EXPECT_THAT(tuned.out, HasSubstr("PASS"));
  // The dynamic-shape tuning of the same shapes is another question, tuned afresh.
  std::vector<std::string> dynamic = args;
  dynamic.erase(dynamic.begin() + 2);
  Result again = Run(dynamic);
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_THAT(again.err, HasSubstr("3 candidates compiled, checked and timed"));
  // And the static one is read back.
  Result read = Run(args);
  ASSERT_EQ(read.status, 0) << read.out << read.err;
  EXPECT_THAT(read.err, HasSubstr("the cached choice"));
}

TEST_F(TileRunAutotuneCpuTest, ExplainsTheDefaultConfig) {
  Result r = Run({"gemm_f16", "--explain", "--shapes=M=40,N=1000,K=20", "--seed=1"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("default config of gemm_f16 at M=40,N=1000,K=20 on cpu "
                               "(no asynchronous copies): "));
  EXPECT_THAT(r.out, HasSubstr("block_m = 64: M=40 (48 padded to 16) is smaller than the "
                               "default 128"));
  EXPECT_THAT(r.out, HasSubstr("block_n = 128: the template's default"));
  EXPECT_THAT(r.out, HasSubstr("num_stages = 3"));
}

// --explain alone compiles nothing: a GPU target is explained on a machine without one, with
// what its lowering decided (here: whether warp-specialize split the kernel, and why not).
TEST_F(TileRunAutotuneCpuTest, ExplainsAGpuTargetWithoutTheGpu) {
  Result r =
      Run({"gemm_f16", "--explain", "--target=cuda:sm_90a", "--shapes=M=4096,N=4096,K=4096"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("default config of gemm_f16 at M=4096,N=4096,K=4096 on "
                               "cuda:sm_90a (asynchronous copies): "));
  EXPECT_THAT(r.out, HasSubstr("its lowering for cuda:sm_90a (dynamic shapes):\n"
                               "  warp-specialize: kernel 'gemm_f16' "));
  Result bad = Run({"gemm_f16", "--explain", "--target=cuda:sm_70"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown cuda architecture 'sm_70'"));
}

// --explain with --config explains that config's lowering (here: sm_90a, whose remarks say
// why this config keeps its copies in the compute warps), still without a GPU.
// A file runs as written, so --explain explains the file, not the operator's default config.
TEST_F(TileRunAutotuneCpuTest, ExplainsAFileAsWritten) {
  Result r = Run({"ops/gemm_f16.tile", "--explain", "--target=cuda:sm_90a",
                  "--shapes=M=4096,N=4096,K=4096"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("kernel 'gemm_f16' runs as written in ops/gemm_f16.tile "
                               "(--config=NAME or --autotune runs one of its operator's configs)\n"
                               "its lowering for cuda:sm_90a ("));
  EXPECT_THAT(r.out, Not(HasSubstr("default config of")));
}

TEST_F(TileRunAutotuneCpuTest, ExplainsAGivenConfig) {
  Result r = Run({"gemm_f16", "--explain", "--config=128x128x32_s3", "--target=cuda:sm_90a",
                  "--shapes=M=4096,N=4096,K=4096"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("config given with --config of gemm_f16 at M=4096,N=4096,K=4096 "
                               "on cuda:sm_90a (asynchronous copies): "
                               "128x128x32_s3\n"));
  EXPECT_THAT(r.out, HasSubstr("its lowering for cuda:sm_90a (dynamic shapes)"));
  Result unknown = Run({"gemm_f16", "--explain", "--config=1x1x1_s1"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_THAT(unknown.err, HasSubstr("has no config '1x1x1_s1'"));
}

// An operator without a config space is explained as written: its lowering's remarks, which
// for an attention say what warp-specialize decided. --explain with --bench used to be refused
// for it, and a benchmark script lost its attention timings to that.
TEST_F(TileRunAutotuneCpuTest, ExplainsAnOperatorWithoutASpaceAsWritten) {
  for (const char* shapes : {"--shapes=N=1000", "--static-shapes"}) {
    Result r = Run({"add_f32", "--explain", "--target=cuda:sm_90a", shapes});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("kernel 'add_f32' has no config space: it runs as written\n"
                                 "its lowering for cuda:sm_90a ("));
    EXPECT_THAT(r.out, HasSubstr(std::string(shapes) == "--static-shapes" ? "(shapes compiled in)"
                                                                          : "(dynamic shapes)"));
  }
  // A lowering that fails is explained, and the run exits non-zero.
  Result fails = Run({"ops/flash_attn_d128_b128.tile", "--explain", "--target=cuda:sm_80",
                      "--shapes=BATCH=1,HEADS=1,SEQ=256"});
  EXPECT_EQ(fails.status, 1) << fails.out << fails.err;
  EXPECT_THAT(fails.out, HasSubstr("its lowering for cuda:sm_80 fails: "));
  EXPECT_THAT(fails.out, HasSubstr("shared memory"));
  EXPECT_THAT(fails.err, HasSubstr("--explain: kernel 'flash_attn_d128_b128' does not lower for "
                                   "cuda:sm_80 (the reason is above)"));
  Result retune = Run({"gemm_f16", "--retune"});
  EXPECT_EQ(retune.status, 2);
  EXPECT_THAT(retune.err, HasSubstr("--retune goes with --autotune"));
}

// The target's name is checked by the target registry before a device opens: an unknown option
// is named once, with the options the family takes.
TEST_F(TileRunAutotuneCpuTest, AnUnknownTargetOptionIsNamed) {
  Result r = Run({"add_f32", "--target=cpu{foo=1}"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "tile-run: error: --target: target 'cpu{foo=1}': unknown option 'foo' of cpu, which "
            "takes none\n");
}

TEST_F(TileRunAutotuneCpuTest, AnOperatorWithoutASpaceIsRefused) {
  Result r = Run({"add_f32", "--autotune"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "tile-run: error: kernel 'add_f32' has no config space to tune (operators with one: "
            "gemm_f16)\n");
}

}  // namespace
}  // namespace tile_ir::tools
