// The JIT's kernel cache: a call finds a kernel in memory first, then on
// disk (disk_cache.h), then in the remote cache where TILE_CACHE_URL names
// one (remote_cache.h; a hit is stored on disk too), then compiles it through
// its backend and stores it on disk and remotely.
// Concurrent calls for one missing key compile once: threads of a process
// wait on the key's slot, processes on the key's lock file.
#ifndef RUNTIME_JIT_KERNEL_CACHE_H_
#define RUNTIME_JIT_KERNEL_CACHE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/jit/cache_context.h"
#include "runtime/jit/disk_cache.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/remote_cache.h"

namespace tile_ir::runtime::jit {

enum class CacheSource { kMemory, kDisk, kRemote, kCompiled };
// "memory", "disk", "remote", "compiled"
std::string_view CacheSourceName(CacheSource source);

struct KernelCacheOptions {
  // The disk cache's folder; nullopt keeps kernels in memory only.
  std::optional<std::string> directory;
  // The remote level's URL (redis://host:port/db) and its key file; nullopt
  // for none. A URL that does not parse or a key file that is refused is
  // warned about and the cache stays local.
  std::optional<std::string> remote_url;
  std::optional<std::string> remote_key_path;
  // Where refusals of stale or damaged entries go; stderr
  // ("tile: warning: ...") by default.
  std::function<void(const std::string&)> warn;

  // $TILE_CACHE_DIR, $XDG_CACHE_HOME/tile or ~/.cache/tile; $TILE_CACHE_URL
  // and the remote key file (RemoteKeyPathFromEnvironment); none with
  // TILE_DISABLE_CACHE=1.
  static KernelCacheOptions FromEnvironment();
};

struct KernelCacheStats {
  std::atomic<int64_t> memory_hits{0};
  std::atomic<int64_t> disk_hits{0};
  std::atomic<int64_t> remote_hits{0};
  std::atomic<int64_t> compiles{0};
  std::atomic<int64_t> refused{0};  // stale, damaged or untrusted entries rebuilt
};

struct CachedKernel {
  LoadedKernel* kernel = nullptr;  // owned by the cache, valid while it lives
  CacheSource source = CacheSource::kMemory;
  std::string key;
};

class KernelCache {
 public:
  // `backend` must outlive the cache. A disk folder that cannot be created,
  // or that DiskCache::Open refuses (not the user's own, writable by others,
  // a bad key file), is warned about and the cache keeps to memory.
  KernelCache(JitBackend& backend, KernelCacheOptions options);

  JitBackend& backend() { return backend_; }
  const std::optional<DiskCache>& disk() const { return disk_; }
  // nullptr without a remote level.
  const RemoteCache* remote() const { return remote_.get(); }
  const KernelCacheStats& stats() const { return stats_; }

  // The kernel `kernel_name` of `module`, keyed by KernelContext.
  absl::StatusOr<CachedKernel> Get(const Module& module, std::string_view kernel_name);

  // The same with the context given and the module built only on a miss.
  absl::StatusOr<CachedKernel> Get(const CacheContext& context,
                                   const std::function<absl::StatusOr<Module>()>& build,
                                   std::string_view kernel_name);

  // Small text records keyed like binaries (autotuning results and their
  // evidence), on disk only.
  std::optional<std::string> LoadRecord(const CacheContext& context);
  absl::Status StoreRecord(const CacheContext& context, std::string_view record);

 private:
  struct Slot {
    std::mutex mutex;
    std::unique_ptr<LoadedKernel> kernel;
  };
  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadOrCompile(
      const CacheContext& context, const std::string& key,
      const std::function<absl::StatusOr<Module>()>& build, std::string_view kernel_name,
      CacheSource* source);
  // Loads a disk entry; nullptr on a miss, warning on a refusal.
  // The kernel of a cache level's answer: nullptr on a miss, and on a refusal or an artifact
  // that does not load (counted and warned of, naming `entry`, then what happens: `then`).
  std::unique_ptr<LoadedKernel> LoadEntry(const LoadResult& loaded, std::string_view kernel_name,
                                          const std::string& entry, const std::string& then);
  std::unique_ptr<LoadedKernel> TryDisk(const CacheContext& context, const std::string& key,
                                        std::string_view kernel_name);
  // Loads a remote entry and stores it on disk; nullptr on a miss, warning on a refusal.
  std::unique_ptr<LoadedKernel> TryRemote(const CacheContext& context, const std::string& key,
                                          std::string_view kernel_name);
  void Warn(const std::string& message);

  JitBackend& backend_;
  KernelCacheOptions options_;
  std::optional<DiskCache> disk_;
  std::unique_ptr<RemoteCache> remote_;
  KernelCacheStats stats_;
  std::mutex mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<Slot>> slots_;
};

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_KERNEL_CACHE_H_
