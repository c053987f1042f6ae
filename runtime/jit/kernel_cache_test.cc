// In-process behaviour of the kernel cache, the specializer and the autotuner
// on the CPU backend.
#include "runtime/jit/kernel_cache.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ops/op_suite.h"
#include "runtime/host_buffer.h"
#include "runtime/jit/autotuner.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/specializer.h"

namespace tile_ir::runtime::jit {
namespace {

Module AddModule() {
  absl::StatusOr<Kernel> kernel = ops::FindOp("add_f32")->build();
  return Module{kIrVersion, "test", "0", {*kernel}};
}

KernelCacheOptions InDir(const std::string& name) {
  KernelCacheOptions options;
  options.directory = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::filesystem::remove_all(*options.directory);
  return options;
}

TEST(KernelCacheTest, MemoryThenDiskThenCompile) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  ASSERT_TRUE(backend.ok());
  KernelCacheOptions options = InDir("mdc");
  {
    KernelCache cache(**backend, options);
    absl::StatusOr<CachedKernel> first = cache.Get(AddModule(), "add_f32");
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_EQ(first->source, CacheSource::kCompiled);
    absl::StatusOr<CachedKernel> second = cache.Get(AddModule(), "add_f32");
    EXPECT_EQ(second->source, CacheSource::kMemory);
    EXPECT_EQ(second->kernel, first->kernel);
  }
  KernelCache fresh(**backend, options);
  absl::StatusOr<CachedKernel> third = fresh.Get(AddModule(), "add_f32");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->source, CacheSource::kDisk);
}

// A folder others may write is refused with a warning naming it, and the
// cache keeps to memory: the kernel still compiles and runs (issue 37).
TEST(KernelCacheTest, AWorldWritableFolderTurnsTheDiskCacheOffWithAWarning) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  ASSERT_TRUE(backend.ok());
  KernelCacheOptions options = InDir("shared");
  std::filesystem::create_directories(*options.directory);
  std::filesystem::permissions(*options.directory, std::filesystem::perms::all);
  std::vector<std::string> warnings;
  options.warn = [&](const std::string& message) { warnings.push_back(message); };
  KernelCache cache(**backend, options);
  EXPECT_FALSE(cache.disk().has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(*options.directory + ": it is writable by group or others"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("caching in memory only"), std::string::npos) << warnings[0];
  absl::StatusOr<CachedKernel> kernel = cache.Get(AddModule(), "add_f32");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(kernel->source, CacheSource::kCompiled);
  EXPECT_FALSE(std::filesystem::exists(*options.directory + "/key"));
}

TEST(KernelCacheTest, ConcurrentCallsForOneMissingKeyCompileOnce) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  KernelCache cache(**backend, InDir("once"));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      if (!cache.Get(AddModule(), "add_f32").ok()) ++failures;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cache.stats().compiles.load(), 1);
  EXPECT_EQ(cache.stats().memory_hits.load(), 5);
}

TEST(SpecializerTest, StaticDimsBecomeConstantsAndDispatchIsByValue) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  KernelCache cache(**backend, KernelCacheOptions{});  // memory only
  KernelTemplate t = KernelTemplate::FromModule(AddModule(), "add_f32");
  t.static_dims = {"N"};
  JitFunction add(t, {}, cache);
  auto call = [&](int64_t m, int64_t n, CacheSource* source) -> LoadedKernel* {
    HostBuffer a(kF32, {m, n}), b(kF32, {m, n}), c(kF32, {m, n});
    for (int64_t i = 0; i < m * n; ++i) {
      a.Set(i, i % 7);
      b.Set(i, 1);
    }
    std::vector<KernelArg> args = {KernelArg::Tensor(a.AsDLTensor()),
                                   KernelArg::Tensor(b.AsDLTensor()),
                                   KernelArg::Tensor(c.AsDLTensor())};
    absl::StatusOr<LoadedKernel*> kernel = add.Specialize(args, source);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_TRUE((*kernel)->Launch(args).ok());
    for (int64_t i = 0; i < m * n; ++i) EXPECT_EQ(c.Get(i), i % 7 + 1);
    // N is static: the specialization's signature has M only.
    EXPECT_EQ((*kernel)->signature().dims.size(), 1u);
    return *kernel;
  };
  CacheSource source;
  LoadedKernel* n128 = call(10, 128, &source);
  EXPECT_EQ(source, CacheSource::kCompiled);
  EXPECT_EQ(call(77, 128, &source), n128);  // M is dynamic: the same binary
  EXPECT_EQ(source, CacheSource::kMemory);
  EXPECT_NE(call(10, 129, &source), n128);
  EXPECT_EQ(source, CacheSource::kCompiled);
  EXPECT_EQ(cache.stats().compiles.load(), 2);
}

TEST(SpecializerTest, UnknownStaticDimIsAnError) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  KernelCache cache(**backend, KernelCacheOptions{});
  KernelTemplate t = KernelTemplate::FromModule(AddModule(), "add_f32");
  t.static_dims = {"Q"};
  JitFunction add(t, {}, cache);
  HostBuffer a(kF32, {2, 2});
  std::vector<KernelArg> args(3, KernelArg::Tensor(a.AsDLTensor()));
  absl::StatusOr<LoadedKernel*> kernel = add.Specialize(args);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("no dimension 'Q'"), std::string::npos);
}

TEST(AutotunerTest, PicksTheFastestPassingCandidateAndStoresTheEvidence) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  KernelCacheOptions options = InDir("tune");
  KernelCache cache(**backend, options);
  ConfigSpace space;
  space.params = {{"variant", TuningParam::Kind::kPolicy, {0, 1, 2}, 0, ""}};
  TuningProblem problem;
  problem.kernel_name = "add_f32";
  problem.problem = "M=8,N=8";
  problem.build = [](const Config&) -> absl::StatusOr<Module> { return AddModule(); };
  // Fake timings: variant 1 fastest, variant 2 fails its check.
  problem.check_and_time = [](LoadedKernel&, const Config& config) -> absl::StatusOr<double> {
    if (config.at("variant") == 2) return absl::InternalError("mismatch at element 3");
    return config.at("variant") == 1 ? 1e-6 : 2e-6;
  };
  int progress_calls = 0;
  AutotuneOptions tune;
  tune.parallel_compiles = 2;
  tune.progress = [&](int, int, const std::string&) { ++progress_calls; };
  absl::StatusOr<TuningResult> result = Autotune(cache, space, problem, tune);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->best.at("variant"), 1);
  EXPECT_FALSE(result->from_cache);
  EXPECT_EQ(result->candidates.size(), 3u);
  EXPECT_EQ(progress_calls, 6);
  EXPECT_EQ(result->candidates[2].error, "mismatch at element 3");

  KernelCache other(**backend, options);
  absl::StatusOr<TuningResult> stored = Autotune(other, space, problem, tune);
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->from_cache);
  EXPECT_EQ(stored->best, result->best);
  EXPECT_EQ(stored->candidates.size(), 3u);
  EXPECT_EQ(stored->device, result->device);
  EXPECT_EQ(stored->date, result->date);

  // The stored choice is found without tuning (nothing compiled or timed), for this problem
  // only.
  KernelCache third(**backend, options);
  problem.check_and_time = [](LoadedKernel&, const Config&) -> absl::StatusOr<double> {
    ADD_FAILURE() << "StoredTuning timed a candidate";
    return 1.0;
  };
  std::optional<TuningResult> found = StoredTuning(third, space, problem);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->from_cache);
  EXPECT_EQ(found->best, result->best);
  EXPECT_EQ(found->key, result->key);
  EXPECT_EQ(third.stats().compiles.load(), 0);
  problem.problem = "M=16,N=8";
  EXPECT_FALSE(StoredTuning(third, space, problem).has_value());
}

TEST(AutotunerTest, DefaultConfigHeuristicsExplainThemselves) {
  ConfigSpace space;
  space.params = {{"block_m", TuningParam::Kind::kTile, {32, 64, 128}, 128, "M"},
                  {"num_stages", TuningParam::Kind::kStages, {1, 2, 3}, 3, ""}};
  std::vector<std::string> why;
  Config config = DefaultConfig(space, {{"M", 40}}, /*has_async_copy=*/false, &why);
  EXPECT_EQ(config.at("block_m"), 64);
  EXPECT_EQ(config.at("num_stages"), 1);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_NE(why[0].find("M=40"), std::string::npos) << why[0];
  EXPECT_NE(why[1].find("asynchronous"), std::string::npos) << why[1];
  Config big = DefaultConfig(space, {{"M", 4096}}, /*has_async_copy=*/true, nullptr);
  EXPECT_EQ(big.at("block_m"), 128);
  EXPECT_EQ(big.at("num_stages"), 3);
}

// A target whose fastest lowering wants 256 threads: the nearest candidate that has them, fits
// the shapes and lowers on that path replaces the default; none qualifying keeps it.
TEST(AutotunerTest, DefaultConfigTakesTheNearestCandidateOnTheTargetsFastestPath) {
  ConfigSpace space;
  space.params = {{"block_m", TuningParam::Kind::kTile, {64, 128, 256}, 128, "M"},
                  {"block_n", TuningParam::Kind::kTile, {64, 128, 256}, 128, "N"},
                  {"num_stages", TuningParam::Kind::kStages, {3, 4}, 3, ""}};
  space.candidates = {{{"block_m", 128}, {"block_n", 128}, {"num_stages", 3}},
                      {{"block_m", 256}, {"block_n", 256}, {"num_stages", 3}},
                      {{"block_m", 128}, {"block_n", 256}, {"num_stages", 4}},
                      {{"block_m", 256}, {"block_n", 128}, {"num_stages", 4}},
                      {{"block_m", 128}, {"block_n", 256}, {"num_stages", 3}}};
  TargetPreferences target;
  target.min_block_threads = 256;
  // One thread per 128 outputs.
  target.block_threads = [](const Config& c) -> std::optional<int64_t> {
    return c.at("block_m") * c.at("block_n") / 128;
  };
  std::vector<Config> lowered;
  target.takes_fastest_path = [&](const Config& c) {
    lowered.push_back(c);
    return c.at("block_m") != 256;  // 256-row tiles miss it here
  };
  std::vector<std::string> why;
  Config config = DefaultConfig(space, {{"M", 4096}, {"N", 4096}}, target, &why);
  // 128x256 changes one tile size, at 3 stages or at 4; the target's copies are asynchronous,
  // so the deeper pipeline comes first. 256x128 changes both tile sizes and is never lowered.
  EXPECT_EQ(config, (Config{{"block_m", 128}, {"block_n", 256}, {"num_stages", 4}}));
  EXPECT_EQ(lowered.size(), 1u);
  ASSERT_EQ(why.size(), 4u);
  EXPECT_NE(why[3].find("at least 256 threads"), std::string::npos) << why[3];
  EXPECT_NE(why[3].find("the most stages"), std::string::npos) << why[3];
  // Where 4 stages miss the fastest path (their buffers do not fit), 3 stages do.
  auto fits_three_stages = [&](const Config& c) {
    lowered.push_back(c);
    return c.at("block_m") != 256 && c.at("num_stages") == 3;
  };
  target.takes_fastest_path = fits_three_stages;
  lowered.clear();
  EXPECT_EQ(DefaultConfig(space, {{"M", 4096}, {"N", 4096}}, target, nullptr),
            (Config{{"block_m", 128}, {"block_n", 256}, {"num_stages", 3}}));
  // Asked in turn: 128x256 and 256x128 at 4 stages (one tile size each), then 128x256 at 3.
  EXPECT_EQ(lowered.size(), 3u);
  // Synchronous copies: extra stages only add buffers, so the fewest changes win.
  target.has_async_copy = false;
  target.takes_fastest_path = [](const Config& c) { return c.at("block_m") != 256; };
  EXPECT_EQ(DefaultConfig(space, {{"M", 4096}, {"N", 4096}}, target, nullptr),
            (Config{{"block_m", 128}, {"block_n", 256}, {"num_stages", 3}}));
  target.has_async_copy = true;
  // N = 200 fits no 256-wide tile, and the 256-row candidates miss the path: kept.
  why.clear();
  Config kept = DefaultConfig(space, {{"M", 4096}, {"N", 200}}, target, &why);
  EXPECT_EQ(kept, (Config{{"block_m", 128}, {"block_n", 128}, {"num_stages", 3}}));
  EXPECT_NE(why.back().find(": kept"), std::string::npos) << why.back();
  // No preference: the heuristics alone.
  target.min_block_threads = 0;
  EXPECT_EQ(DefaultConfig(space, {{"M", 4096}, {"N", 4096}}, target, nullptr),
            (Config{{"block_m", 128}, {"block_n", 128}, {"num_stages", 3}}));
}

// A target that keeps tiles in a cache: the largest tiles, larger than the default's, whose
// bytes fit it, that pad no more work than the default and leave blocks for every thread;
// nothing qualifying keeps the default.
TEST(AutotunerTest, DefaultConfigTakesTheLargestTilesThatFitTheTargetsCache) {
  ConfigSpace space;
  space.params = {{"block_m", TuningParam::Kind::kTile, {64, 128, 256}, 64, "M"},
                  {"block_n", TuningParam::Kind::kTile, {64, 128, 256}, 64, "N"},
                  {"num_stages", TuningParam::Kind::kStages, {2, 3, 4}, 2, ""}};
  space.candidates = {{{"block_m", 64}, {"block_n", 64}, {"num_stages", 2}},
                      {{"block_m", 128}, {"block_n", 64}, {"num_stages", 3}},
                      {{"block_m", 128}, {"block_n", 128}, {"num_stages", 4}},
                      {{"block_m", 128}, {"block_n", 128}, {"num_stages", 3}},
                      {{"block_m", 256}, {"block_n", 256}, {"num_stages", 4}}};
  TargetPreferences target;
  target.has_async_copy = false;
  target.block_cache_bytes = 128 * 1024;
  // 4 bytes an output element, the stages' buffers besides.
  target.block_bytes = [](const Config& c) -> std::optional<int64_t> {
    return c.at("block_m") * c.at("block_n") * 4 * (1 + c.at("num_stages"));
  };
  const std::map<std::string, int64_t> big = {{"M", 4096}, {"N", 4096}};
  std::vector<std::string> why;
  // 256x256 needs 1280 KiB, 128x128 320 at 4 stages and 256 at 3; 128x64 fits in 128.
  EXPECT_EQ(DefaultConfig(space, big, target, &why),
            (Config{{"block_m", 128}, {"block_n", 64}, {"num_stages", 3}}));
  EXPECT_NE(why.back().find("largest tiles that fit it"), std::string::npos) << why.back();
  // Equal tiles: the fewer stages, though later in the space.
  target.block_cache_bytes = 512 * 1024;
  EXPECT_EQ(DefaultConfig(space, big, target, nullptr),
            (Config{{"block_m", 128}, {"block_n", 128}, {"num_stages", 3}}));
  // Blocks for every thread: 32 threads over 512 x 512 leave 128x128 (16 blocks) out.
  target.concurrent_blocks = 32;
  target.block_count = [](const Config& c) -> std::optional<int64_t> {
    return (512 / c.at("block_m")) * (512 / c.at("block_n"));
  };
  why.clear();
  EXPECT_EQ(DefaultConfig(space, {{"M", 512}, {"N", 512}}, target, &why),
            (Config{{"block_m", 128}, {"block_n", 64}, {"num_stages", 3}}));
  EXPECT_NE(why.back().find("blocks for 32 threads"), std::string::npos) << why.back();
  target.concurrent_blocks = 0;
  // M = 300, N = 72: a 128-wide tile is wider than N, and 128 rows pad M to 384 where the
  // default's 64 pad it to 320: the default stays.
  EXPECT_EQ(DefaultConfig(space, {{"M", 300}, {"N", 72}}, target, nullptr),
            (Config{{"block_m", 64}, {"block_n", 64}, {"num_stages", 2}}));
  // Nothing fits a tiny cache: the default stays.
  target.block_cache_bytes = 1024;
  why.clear();
  EXPECT_EQ(DefaultConfig(space, big, target, &why),
            (Config{{"block_m", 64}, {"block_n", 64}, {"num_stages", 2}}));
  EXPECT_NE(why.back().find(": kept"), std::string::npos) << why.back();
}

}  // namespace
}  // namespace tile_ir::runtime::jit
