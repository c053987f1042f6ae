// Autotuning over a kernel template's config space (tile sizes, stages,
// warps, policies): compile every candidate in parallel through the kernel
// cache, check each against the reference, time each on the device, pick the
// fastest, and store the choice with its evidence (every candidate's time or
// failure, the device, the date) as a cache record keyed like a binary.
// Without tuning, DefaultConfig picks a config by the documented heuristics
// below and explains each step.
#ifndef RUNTIME_JIT_AUTOTUNER_H_
#define RUNTIME_JIT_AUTOTUNER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/jit/kernel_cache.h"

namespace tile_ir::runtime::jit {

using Config = std::map<std::string, int64_t>;
std::string ConfigToString(const Config& config);  // "block_m=64,num_stages=2"

struct TuningParam {
  enum class Kind { kTile, kStages, kWarps, kPolicy };
  std::string name;
  Kind kind = Kind::kTile;
  std::vector<int64_t> values;  // candidates, ascending for tiles
  int64_t default_value = 0;    // the template's own choice
  std::string covers;           // for a tile: the dimension it tiles ("M"), or empty
};

struct ConfigSpace {
  std::vector<TuningParam> params;
  // When not empty, the configs to try (a modest list out of a large
  // product); otherwise every combination of the parameters' values.
  std::vector<Config> candidates;
  // `candidates`, or every combination, in a fixed order.
  std::vector<Config> Enumerate() const;
  std::string ToString() const;  // "block_m in {32,64,128}; ..." (and the candidates)
};

// The default config and why: start from each parameter's default; a tile
// larger than the (padded to 16) extent of the dimension it covers shrinks to
// the smallest candidate that still covers it (less padding work on small
// problems); without asynchronous copies, stages drop to the smallest
// candidate (extra stages only cost buffer space there). `explanation` gets
// one line per parameter.
Config DefaultConfig(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                     bool has_async_copy, std::vector<std::string>* explanation);

// What the target adds to DefaultConfig's heuristics.
struct TargetPreferences {
  bool has_async_copy = true;
  // TargetInfo::min_block_threads_preferred: blocks of fewer threads miss the target's fastest
  // lowering. 0: no preference.
  int64_t min_block_threads = 0;
  // A candidate's threads per block (its build's launch), nullopt when it does not build.
  std::function<std::optional<int64_t>(const Config&)> block_threads;
  // Whether a candidate's lowering succeeds and takes the target's fastest path
  // (TargetInfo::OnFastestPath); asked of few candidates, since it lowers. Null: any that
  // has the threads does.
  std::function<bool(const Config&)> takes_fastest_path;
  // TargetInfo::block_cache_bytes: where a block's tiles live behind a cache, the bytes of it
  // one block's tiles should fit. 0: no preference.
  int64_t block_cache_bytes = 0;
  // A candidate's tiles in bytes (an estimate from its build: its buffers, the shared ones once
  // per stage), nullopt when it does not build.
  std::function<std::optional<int64_t>(const Config&)> block_bytes;
  // TargetInfo::concurrent_blocks: how many blocks run at once (the CPU's threads), and a
  // candidate's blocks at the shapes (nullopt when unknown): bigger tiles must leave as many
  // blocks as run at once. 0: no such bound.
  int64_t concurrent_blocks = 0;
  std::function<std::optional<int64_t>(const Config&)> block_count;
};

// DefaultConfig, then, when the target prefers blocks of at least `min_block_threads` and the
// default's are fewer: the candidate of the space nearest the default (fewest tile sizes
// changed, then, where the target's copies are asynchronous, the most stages, then fewest
// other parameters, then the space's order) that has that many threads,
// no tile larger than the (padded to 16) dimension it covers, and whose lowering takes the
// target's fastest path. Or, where the target keeps a block's tiles in a cache
// (`block_cache_bytes`): the candidate with the largest tiles (the product of its tile sizes),
// larger than the default's, whose tiles fit that cache, with no tile larger than the padded
// dimension it covers, no more padding work over the shapes than the default's (5% grace) and
// at least as many blocks as run at once (or as the default has, if fewer); the fewest stages
// among equals, then the space's order. The default
// stays where no candidate qualifies. `explanation` gets one more line saying which and why.
Config DefaultConfig(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                     const TargetPreferences& target, std::vector<std::string>* explanation);

struct TuningProblem {
  std::string kernel_name;
  std::function<absl::StatusOr<Module>(const Config&)> build;
  // Checks a compiled candidate against the reference and times it: the
  // median seconds, or an error (a failed check is an error too).
  std::function<absl::StatusOr<double>(LoadedKernel& kernel, const Config& config)> check_and_time;
  // What else the choice depends on: the bound shapes, say "M=512,N=512,K=512".
  std::string problem;
};

struct CandidateResult {
  Config config;
  double seconds = 0;  // when ok
  std::string error;   // empty when the candidate compiled, passed and was timed
};

struct TuningResult {
  Config best;
  std::vector<CandidateResult> candidates;
  std::string device;
  std::string date;  // UTC, RFC 3339
  bool from_cache = false;
  std::string key;  // the record's cache key

  std::string ToRecord() const;
  static absl::StatusOr<TuningResult> FromRecord(std::string_view record);
};

struct AutotuneOptions {
  int parallel_compiles = 0;  // 0: the hardware's threads
  bool retune = false;        // ignore a stored result
  // Called after each compile and each timing: (done, total, what).
  std::function<void(int, int, const std::string&)> progress;
};

absl::StatusOr<TuningResult> Autotune(KernelCache& cache, const ConfigSpace& space,
                                      const TuningProblem& problem,
                                      const AutotuneOptions& options = {});

// The choice Autotune stored for this space and problem on the cache's backend (the same key:
// kernel texts, space, problem, target, architecture, toolkits), without tuning or compiling
// anything; nullopt when there is none (or it is damaged). `problem.check_and_time` is not
// called.
std::optional<TuningResult> StoredTuning(KernelCache& cache, const ConfigSpace& space,
                                         const TuningProblem& problem);

// A one-line progress bar for `progress` on a terminal ("\r[#####     ] 5/10 what").
std::string ProgressBar(int done, int total, const std::string& what);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_AUTOTUNER_H_
