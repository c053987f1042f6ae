// Enumeration, the default heuristics, parallel compiles, timing and the record.
#include "runtime/jit/autotuner.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "runtime/jit/sha256.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

// A dimension's extent padded to 16: what DefaultConfig measures a tile covering it against
// (a smaller extent still costs the matrix instructions' 16).
int64_t PaddedTo16(int64_t extent) {
  return extent > std::numeric_limits<int64_t>::max() - 15 ? extent : (extent + 15) / 16 * 16;
}

absl::StatusOr<Config> ParseConfig(absl::string_view text) {
  Config config;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
    int64_t value = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &value)) {
      return absl::DataLossError(absl::StrCat("bad config '", item, "'"));
    }
    config[parts[0]] = value;
  }
  return config;
}

}  // namespace

std::string ConfigToString(const Config& config) {
  return absl::StrJoin(config, ",", absl::PairFormatter("="));
}

std::vector<Config> ConfigSpace::Enumerate() const {
  if (!candidates.empty()) return candidates;
  std::vector<Config> configs = {Config{}};
  for (const TuningParam& param : params) {
    std::vector<Config> next;
    for (const Config& base : configs) {
      for (int64_t value : param.values) {
        Config config = base;
        config[param.name] = value;
        next.push_back(std::move(config));
      }
    }
    configs = std::move(next);
  }
  return configs;
}

std::string ConfigSpace::ToString() const {
  std::vector<std::string> parts;
  for (const TuningParam& param : params) {
    parts.push_back(absl::StrCat(param.name, " in {", absl::StrJoin(param.values, ","), "}"));
  }
  if (!candidates.empty()) {
    std::vector<std::string> listed;
    for (const Config& config : candidates) listed.push_back(ConfigToString(config));
    parts.push_back(absl::StrCat("candidates {", absl::StrJoin(listed, " "), "}"));
  }
  return absl::StrJoin(parts, "; ");
}

Config DefaultConfig(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                     bool has_async_copy, std::vector<std::string>* explanation) {
  Config config;
  auto say = [&](std::string line) {
    if (explanation) explanation->push_back(std::move(line));
  };
  for (const TuningParam& param : space.params) {
    int64_t value = param.default_value;
    std::string why = "the template's default";
    if (param.kind == TuningParam::Kind::kTile && !param.covers.empty()) {
      auto dim = dims.find(param.covers);
      if (dim != dims.end()) {
        const int64_t padded = PaddedTo16(dim->second);
        if (value > padded) {
          int64_t smallest = value;
          for (int64_t candidate : param.values) {
            if (candidate >= padded && candidate < smallest) smallest = candidate;
          }
          if (smallest != value) {
            why = absl::StrCat(param.covers, "=", dim->second, " (", padded,
                               " padded to 16) is smaller than the default ", value,
                               ": the smallest candidate covering it wastes the least work");
            value = smallest;
          }
        }
      }
    }
    if (param.kind == TuningParam::Kind::kStages && !has_async_copy && !param.values.empty()) {
      const int64_t fewest = *std::min_element(param.values.begin(), param.values.end());
      if (fewest != value) {
        why = absl::StrCat("the target has no asynchronous copies, so stages beyond ", fewest,
                           " only cost buffer space");
        value = fewest;
      }
    }
    config[param.name] = value;
    say(absl::StrCat(param.name, " = ", value, ": ", why));
  }
  return config;
}

namespace {

// Whether no tile of `candidate` is larger than the (padded to 16) dimension it covers: a
// bigger block must not buy what it is chosen for with padding work.
bool TilesFitDims(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                  const Config& candidate) {
  for (const TuningParam& param : space.params) {
    if (param.kind != TuningParam::Kind::kTile || param.covers.empty()) continue;
    auto dim = dims.find(param.covers);
    auto value = candidate.find(param.name);
    if (dim != dims.end() && value != candidate.end() && value->second > PaddedTo16(dim->second)) {
      return false;
    }
  }
  return true;
}

// The tiles a block computes: the product of its tile sizes.
int64_t TileVolume(const ConfigSpace& space, const Config& candidate) {
  int64_t volume = 1;
  for (const TuningParam& param : space.params) {
    auto value = candidate.find(param.name);
    if (param.kind == TuningParam::Kind::kTile && value != candidate.end() && value->second > 0) {
      volume *= value->second;
    }
  }
  return volume;
}

// The work the blocks of `candidate` do over the dims it tiles, padding included: the product
// of each known dimension rounded up to its tile (a tile of 256 over N = 777 computes 1024).
double PaddedWork(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                  const Config& candidate) {
  double work = 1;
  for (const TuningParam& param : space.params) {
    if (param.kind != TuningParam::Kind::kTile || param.covers.empty()) continue;
    auto dim = dims.find(param.covers);
    auto value = candidate.find(param.name);
    if (dim == dims.end() || dim->second <= 0 || value == candidate.end() || value->second <= 0) {
      continue;
    }
    work *= static_cast<double>((dim->second - 1) / value->second + 1) *
            static_cast<double>(value->second);
  }
  return work;
}

// The sum of a config's stage parameters: fewer is cheaper where copies are synchronous.
int64_t Stages(const ConfigSpace& space, const Config& candidate) {
  int64_t stages = 0;
  for (const TuningParam& param : space.params) {
    auto value = candidate.find(param.name);
    if (param.kind == TuningParam::Kind::kStages && value != candidate.end()) {
      stages += value->second;
    }
  }
  return stages;
}

// The candidate with larger tiles than `config`'s, the largest whose tiles fit the target's
// cache (TargetPreferences::block_cache_bytes), or `config` where none does.
Config LargestCachedTiles(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                          const TargetPreferences& target, Config config,
                          std::vector<std::string>* explanation) {
  const int64_t default_volume = TileVolume(space, config);
  const double default_work = PaddedWork(space, dims, config);
  // As many blocks as run at once, unless the default has fewer already: bigger tiles must not
  // leave threads idle.
  int64_t want_blocks = 0;
  if (target.concurrent_blocks > 0 && target.block_count) {
    if (std::optional<int64_t> blocks = target.block_count(config)) {
      want_blocks = std::min(target.concurrent_blocks, *blocks);
    }
  }
  std::optional<Config> best;
  int64_t best_volume = default_volume;
  int64_t best_stages = 0;
  int64_t best_bytes = 0;
  for (const Config& candidate : space.Enumerate()) {
    if (!TilesFitDims(space, dims, candidate)) continue;
    // No more padding work than the default does: on ragged shapes the bigger tiles lose to the
    // padding what they gain (1000x777x333 f32 on the CPU: 64x64x32 runs 155-163 GFLOP/s,
    // 128x128x64 124-148).
    if (PaddedWork(space, dims, candidate) > default_work * 1.05) continue;
    const int64_t volume = TileVolume(space, candidate);
    const int64_t stages = Stages(space, candidate);
    // Larger tiles first; among equal ones the fewest stages, which only add buffers where
    // copies are synchronous (1024^3 f32: 128x256x64 at 4 stages 181 GFLOP/s, at 3 201-207).
    if (volume < best_volume || (volume == best_volume && (!best || stages >= best_stages))) {
      continue;
    }
    const std::optional<int64_t> bytes = target.block_bytes(candidate);
    if (!bytes || *bytes > target.block_cache_bytes) continue;
    if (want_blocks > 0) {
      const std::optional<int64_t> blocks = target.block_count(candidate);
      if (!blocks || *blocks < want_blocks) continue;
    }
    best = candidate;
    best_volume = volume;
    best_stages = stages;
    best_bytes = *bytes;
  }
  const std::string keeps = absl::StrCat("the target keeps a block's tiles in a cache of ",
                                         target.block_cache_bytes / 1024, " KiB");
  if (!best) {
    if (explanation) {
      explanation->push_back(absl::StrCat(
          keeps, ", and no candidate with larger tiles fits it, these shapes",
          want_blocks > 0 ? absl::StrCat(" and ", want_blocks, " blocks at once") : "", ": kept"));
    }
    return config;
  }
  if (explanation) {
    explanation->push_back(absl::StrCat(
        keeps, ": ", ConfigToString(*best), " has the largest tiles that fit it (",
        best_bytes / 1024, " KiB) and these shapes with no more padding than the default",
        want_blocks > 0 ? absl::StrCat(" and blocks for ", want_blocks, " threads") : "",
        "; every step of a block pays for its tile copies and accumulator reloads, which the "
        "largest tiles amortize best"));
  }
  return *best;
}

}  // namespace

Config DefaultConfig(const ConfigSpace& space, const std::map<std::string, int64_t>& dims,
                     const TargetPreferences& target, std::vector<std::string>* explanation) {
  Config config = DefaultConfig(space, dims, target.has_async_copy, explanation);
  if (target.block_cache_bytes > 0 && target.block_bytes) {
    return LargestCachedTiles(space, dims, target, std::move(config), explanation);
  }
  if (target.min_block_threads <= 0 || !target.block_threads) return config;
  const std::optional<int64_t> threads = target.block_threads(config);
  if (!threads || *threads >= target.min_block_threads) return config;
  auto fits = [&](const Config& candidate) { return TilesFitDims(space, dims, candidate); };
  // Candidates with the threads that fit, nearest the default first; among those that change
  // as many tile sizes, where copies are asynchronous, the most stages: a deeper pipeline keeps
  // more loads in flight behind the compute (sm_90a, H100, 128x256x64 bf16 at 4096^3 with
  // warp-specialized TMA loads: 749 TFLOP/s at 4 stages, 684 at 3, run 20), and a candidate
  // whose buffers do not fit misses the fastest path below and yields to the next.
  struct Near {
    int tile_changes = 0;
    int64_t fewer_stages = 0;  // -stages where copies are asynchronous, else 0
    int other_changes = 0;
    size_t order = 0;
    const Config* config = nullptr;
  };
  std::vector<Near> near;
  for (size_t i = 0; i < space.candidates.size(); ++i) {
    const Config& candidate = space.candidates[i];
    if (!fits(candidate)) continue;
    const std::optional<int64_t> candidate_threads = target.block_threads(candidate);
    if (!candidate_threads || *candidate_threads < target.min_block_threads) continue;
    Near each{0, target.has_async_copy ? -Stages(space, candidate) : 0, 0, i, &candidate};
    for (const TuningParam& param : space.params) {
      auto mine = candidate.find(param.name);
      auto own = config.find(param.name);
      if (mine == candidate.end() || own == config.end() || mine->second == own->second) continue;
      ++(param.kind == TuningParam::Kind::kTile ? each.tile_changes : each.other_changes);
    }
    near.push_back(each);
  }
  std::sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
    return std::tie(a.tile_changes, a.fewer_stages, a.other_changes, a.order) <
           std::tie(b.tile_changes, b.fewer_stages, b.other_changes, b.order);
  });
  const std::string wants = absl::StrCat("the target's fastest lowering wants blocks of at least ",
                                         target.min_block_threads, " threads and ",
                                         ConfigToString(config), " has ", *threads);
  for (const Near& each : near) {
    if (target.takes_fastest_path && !target.takes_fastest_path(*each.config)) continue;
    if (explanation) {
      explanation->push_back(absl::StrCat(
          wants, ": ", ConfigToString(*each.config),
          " is the candidate nearest it that has them, fits these shapes and lowers on that path",
          target.has_async_copy
              ? " (among equally near ones, the most stages: the target's "
                "copies are asynchronous, so a deeper pipeline hides more of them)"
              : ""));
    }
    return *each.config;
  }
  if (explanation) {
    explanation->push_back(absl::StrCat(
        wants, ", and no candidate that has them fits these shapes and lowers on that path: kept"));
  }
  return config;
}

std::string TuningResult::ToRecord() const {
  std::string record =
      absl::StrCat("best ", ConfigToString(best), "\ndevice ", device, "\ndate ", date, "\n");
  for (const CandidateResult& candidate : candidates) {
    absl::StrAppend(
        &record, "candidate ", ConfigToString(candidate.config), " ",
        candidate.error.empty()
            ? absl::StrCat(candidate.seconds)
            // One line per candidate: compilers' messages span several.
            : absl::StrCat("error ", absl::StrReplaceAll(candidate.error, {{"\n", " "}})),
        "\n");
  }
  return record;
}

absl::StatusOr<TuningResult> TuningResult::FromRecord(std::string_view record) {
  TuningResult result;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(record.data(), record.size()), '\n', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> word =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if (word.first == "best") {
      absl::StatusOr<Config> config = ParseConfig(word.second);
      if (!config.ok()) return config.status();
      result.best = *config;
    } else if (word.first == "device") {
      result.device = std::string(word.second);
    } else if (word.first == "date") {
      result.date = std::string(word.second);
    } else if (word.first == "candidate") {
      std::pair<absl::string_view, absl::string_view> rest =
          absl::StrSplit(word.second, absl::MaxSplits(' ', 1));
      CandidateResult candidate;
      absl::StatusOr<Config> config = ParseConfig(rest.first);
      if (!config.ok()) return config.status();
      candidate.config = *config;
      if (absl::StartsWith(rest.second, "error ")) {
        candidate.error = std::string(rest.second.substr(6));
      } else if (!absl::SimpleAtod(rest.second, &candidate.seconds)) {
        return absl::DataLossError(absl::StrCat("bad candidate line '", line, "'"));
      }
      result.candidates.push_back(std::move(candidate));
    }
  }
  if (result.best.empty()) return absl::DataLossError("the tuning record has no 'best' line");
  return result;
}

std::string ProgressBar(int done, int total, const std::string& what) {
  constexpr int kWidth = 30;
  const int filled = total > 0 ? done * kWidth / total : kWidth;
  return absl::StrCat("\r[", std::string(filled, '#'), std::string(kWidth - filled, ' '), "] ",
                      done, "/", total, " ", what, "\x1b[K");
}

namespace {

// The candidates' modules (built up front: cheap) and the context that keys the record: the
// candidates' kernel texts, the space, the problem and the backend's own fields.
struct TuningRecordKey {
  std::vector<Config> configs;
  std::vector<absl::StatusOr<Module>> modules;
  CacheContext context;
};

TuningRecordKey KeyTuningRecord(KernelCache& cache, const ConfigSpace& space,
                                const TuningProblem& problem) {
  TuningRecordKey key;
  key.configs = space.Enumerate();
  Sha256 space_hash;
  for (const Config& config : key.configs) {
    key.modules.push_back(problem.build(config));
    space_hash.Update(ConfigToString(config));
    if (key.modules.back().ok()) {
      for (const Kernel& kernel : key.modules.back()->kernels) {
        if (kernel->name == problem.kernel_name) space_hash.Update(Print(*kernel));
      }
    }
  }
  std::string digest;
  for (uint8_t byte : space_hash.Finish())
    absl::StrAppend(&digest, absl::Hex(byte, absl::kZeroPad2));
  CacheContext& context = key.context;
  context.Set("kind", "autotune");
  context.Set("kernel", problem.kernel_name);
  context.Set("ir_sha256", digest);
  context.Set("space", space.ToString());
  context.Set("problem", problem.problem);
  const CacheContext base = cache.backend().BaseContext();
  for (const auto& [field, value] : base.fields()) context.Set(field, value);
  return key;
}

std::optional<TuningResult> ReadTuningRecord(KernelCache& cache, const CacheContext& context) {
  std::optional<std::string> record = cache.LoadRecord(context);
  if (!record) return std::nullopt;
  absl::StatusOr<TuningResult> stored = TuningResult::FromRecord(*record);
  if (!stored.ok()) return std::nullopt;  // a damaged record: tuning again replaces it
  stored->from_cache = true;
  stored->key = context.Key();
  return *std::move(stored);
}

}  // namespace

std::optional<TuningResult> StoredTuning(KernelCache& cache, const ConfigSpace& space,
                                         const TuningProblem& problem) {
  return ReadTuningRecord(cache, KeyTuningRecord(cache, space, problem).context);
}

absl::StatusOr<TuningResult> Autotune(KernelCache& cache, const ConfigSpace& space,
                                      const TuningProblem& problem,
                                      const AutotuneOptions& options) {
  TuningRecordKey key = KeyTuningRecord(cache, space, problem);
  const std::vector<Config>& configs = key.configs;
  std::vector<absl::StatusOr<Module>>& modules = key.modules;
  const CacheContext& context = key.context;
  if (!options.retune) {
    if (std::optional<TuningResult> stored = ReadTuningRecord(cache, context)) return *stored;
  }

  const int total = static_cast<int>(configs.size());
  std::vector<CandidateResult> results(configs.size());
  std::vector<LoadedKernel*> kernels(configs.size(), nullptr);
  std::atomic<int> next{0}, done{0};
  std::mutex progress_mutex;
  auto report = [&](int finished, int of, const std::string& what) {
    if (!options.progress) return;
    std::lock_guard<std::mutex> lock(progress_mutex);
    options.progress(finished, of, what);
  };
  int threads = options.parallel_compiles > 0
                    ? options.parallel_compiles
                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  threads = std::min(threads, std::max(total, 1));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i = next++; i < total; i = next++) {
        results[i].config = configs[i];
        if (!modules[i].ok()) {
          results[i].error = std::string(modules[i].status().message());
        } else {
          absl::StatusOr<CachedKernel> cached = cache.Get(*modules[i], problem.kernel_name);
          if (cached.ok()) {
            kernels[i] = cached->kernel;
          } else {
            results[i].error = std::string(cached.status().message());
          }
        }
        report(++done, 2 * total, absl::StrCat("compiled ", ConfigToString(configs[i])));
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  // Timed one at a time: concurrent runs would disturb each other's times.
  for (int i = 0; i < total; ++i) {
    if (kernels[i] != nullptr) {
      absl::StatusOr<double> seconds = problem.check_and_time(*kernels[i], configs[i]);
      if (seconds.ok()) {
        results[i].seconds = *seconds;
      } else {
        results[i].error = std::string(seconds.status().message());
      }
    }
    report(total + i + 1, 2 * total, absl::StrCat("timed ", ConfigToString(configs[i])));
  }

  TuningResult result;
  result.candidates = std::move(results);
  result.device = cache.backend().device().description();
  result.date = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
  result.key = context.Key();
  const CandidateResult* best = nullptr;
  for (const CandidateResult& candidate : result.candidates) {
    if (candidate.error.empty() && (best == nullptr || candidate.seconds < best->seconds)) {
      best = &candidate;
    }
  }
  if (best == nullptr) {
    std::string errors;
    for (const CandidateResult& candidate : result.candidates) {
      absl::StrAppend(&errors, "\n  ", ConfigToString(candidate.config), ": ", candidate.error);
    }
    return absl::FailedPreconditionError(
        absl::StrCat("autotuning '", problem.kernel_name, "': no candidate passed", errors));
  }
  result.best = best->config;
  if (absl::Status stored = cache.StoreRecord(context, result.ToRecord()); !stored.ok()) {
    return stored;
  }
  return result;
}

}  // namespace tile_ir::runtime::jit
