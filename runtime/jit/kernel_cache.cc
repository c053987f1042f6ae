// Memory, then disk, then compile; the compile-once protocol.
#include "runtime/jit/kernel_cache.h"

#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::runtime::jit {

std::string_view CacheSourceName(CacheSource source) {
  switch (source) {
    case CacheSource::kMemory:
      return "memory";
    case CacheSource::kDisk:
      return "disk";
    case CacheSource::kRemote:
      return "remote";
    case CacheSource::kCompiled:
      return "compiled";
  }
  return "?";
}

KernelCacheOptions KernelCacheOptions::FromEnvironment() {
  KernelCacheOptions options;
  options.directory = CacheDirectoryFromEnvironment();
  options.remote_url = RemoteCacheUrlFromEnvironment();
  if (options.remote_url) options.remote_key_path = RemoteKeyPathFromEnvironment();
  return options;
}

KernelCache::KernelCache(JitBackend& backend, KernelCacheOptions options)
    : backend_(backend), options_(std::move(options)) {
  if (options_.directory) {
    absl::StatusOr<DiskCache> disk = DiskCache::Open(*options_.directory);
    if (disk.ok()) {
      disk_ = *std::move(disk);
    } else {
      Warn(absl::StrCat(disk.status().message(), "; caching in memory only"));
    }
  }
  if (options_.remote_url) {
    if (!options_.remote_key_path) {
      Warn(absl::StrCat("no key file for the remote kernel cache ", *options_.remote_url,
                        " (set TILE_CACHE_REMOTE_KEY or HOME); not using it"));
      return;
    }
    absl::StatusOr<std::unique_ptr<RemoteCache>> remote =
        RemoteCache::Open(*options_.remote_url, *options_.remote_key_path, /*create_key=*/true,
                          [this](const std::string& message) { Warn(message); });
    if (remote.ok()) {
      remote_ = *std::move(remote);
    } else {
      Warn(absl::StrCat(remote.status().message(), "; not using the remote cache"));
    }
  }
}

void KernelCache::Warn(const std::string& message) {
  if (options_.warn) {
    options_.warn(message);
  } else {
    std::cerr << "tile: warning: " << message << "\n";
  }
}

absl::StatusOr<CachedKernel> KernelCache::Get(const Module& module,
                                              std::string_view kernel_name) {
  return Get(KernelContext(backend_, module, kernel_name), [&] { return module; }, kernel_name);
}

absl::StatusOr<CachedKernel> KernelCache::Get(const CacheContext& context,
                                              const std::function<absl::StatusOr<Module>()>& build,
                                              std::string_view kernel_name) {
  CachedKernel result;
  result.key = context.Key();
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Slot>& entry = slots_[result.key];
    if (!entry) entry = std::make_shared<Slot>();
    slot = entry;
  }
  // Threads asking for the same key queue here while the first one loads or
  // compiles; a failed compile leaves the slot empty for the next caller.
  std::lock_guard<std::mutex> lock(slot->mutex);
  if (slot->kernel) {
    ++stats_.memory_hits;
    result.kernel = slot->kernel.get();
    result.source = CacheSource::kMemory;
    return result;
  }
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      LoadOrCompile(context, result.key, build, kernel_name, &result.source);
  if (!kernel.ok()) return kernel.status();
  slot->kernel = *std::move(kernel);
  result.kernel = slot->kernel.get();
  return result;
}

std::unique_ptr<LoadedKernel> KernelCache::LoadEntry(const LoadResult& loaded,
                                                     std::string_view kernel_name,
                                                     const std::string& entry,
                                                     const std::string& then) {
  if (loaded.kind == LoadResult::Kind::kMiss) return nullptr;
  if (loaded.kind == LoadResult::Kind::kRefused) {
    ++stats_.refused;
    Warn(loaded.warning);
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      backend_.LoadArtifact(loaded.artifact, kernel_name);
  if (!kernel.ok()) {
    ++stats_.refused;
    Warn(absl::StrCat(entry, " does not load (", kernel.status().message(), "); ", then));
    return nullptr;
  }
  return *std::move(kernel);
}

std::unique_ptr<LoadedKernel> KernelCache::TryDisk(const CacheContext& context,
                                                   const std::string& key,
                                                   std::string_view kernel_name) {
  LoadResult loaded = disk_->Load(key, context);
  return LoadEntry(loaded, kernel_name, absl::StrCat("cache entry ", disk_->EntryPath(key)),
                   "rebuilding it");
}

std::unique_ptr<LoadedKernel> KernelCache::TryRemote(const CacheContext& context,
                                                     const std::string& key,
                                                     std::string_view kernel_name) {
  LoadResult loaded = remote_->Load(key, context);
  std::unique_ptr<LoadedKernel> kernel = LoadEntry(
      loaded, kernel_name,
      absl::StrCat("remote cache entry ", remote_->EntryName(key), " on ", remote_->name()),
      "compiling it");
  if (kernel == nullptr) return nullptr;
  if (disk_) {
    if (absl::Status stored = disk_->Store(key, context, loaded.artifact); !stored.ok()) {
      Warn(absl::StrCat(stored.message(), "; the kernel is cached in memory only"));
    }
  }
  return kernel;
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> KernelCache::LoadOrCompile(
    const CacheContext& context, const std::string& key,
    const std::function<absl::StatusOr<Module>()>& build, std::string_view kernel_name,
    CacheSource* source) {
  std::optional<KeyLock> key_lock;
  if (disk_) {
    if (std::unique_ptr<LoadedKernel> kernel = TryDisk(context, key, kernel_name)) {
      ++stats_.disk_hits;
      *source = CacheSource::kDisk;
      return kernel;
    }
    // Missing or refused: take the key's lock, then look again, since the
    // process that held it may just have written the entry.
    absl::StatusOr<KeyLock> locked = disk_->Lock(key);
    if (locked.ok()) {
      key_lock.emplace(*std::move(locked));
      LoadResult again = disk_->Load(key, context);
      if (again.kind == LoadResult::Kind::kHit) {
        absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
            backend_.LoadArtifact(again.artifact, kernel_name);
        if (kernel.ok()) {
          ++stats_.disk_hits;
          *source = CacheSource::kDisk;
          return kernel;
        }
      }
    } else {
      Warn(absl::StrCat(locked.status().message(), "; compiling without the lock"));
    }
  }
  // Under the key's lock, so that one process of a machine asks the server.
  if (remote_) {
    if (std::unique_ptr<LoadedKernel> kernel = TryRemote(context, key, kernel_name)) {
      ++stats_.remote_hits;
      *source = CacheSource::kRemote;
      return kernel;
    }
  }
  absl::StatusOr<Module> module = build();
  if (!module.ok()) return module.status();
  absl::StatusOr<CompiledKernel> compiled = backend_.Compile(*module, kernel_name);
  if (!compiled.ok()) return compiled.status();
  ++stats_.compiles;
  *source = CacheSource::kCompiled;
  if (disk_) {
    if (absl::Status stored = disk_->Store(key, context, compiled->artifact); !stored.ok()) {
      Warn(absl::StrCat(stored.message(), "; the kernel is cached in memory only"));
    }
  }
  if (remote_) remote_->Store(key, context, compiled->artifact);
  return std::move(compiled->kernel);
}

std::optional<std::string> KernelCache::LoadRecord(const CacheContext& context) {
  if (!disk_) return std::nullopt;
  LoadResult loaded = disk_->Load(context.Key(), context);
  if (loaded.kind == LoadResult::Kind::kRefused) {
    ++stats_.refused;
    Warn(loaded.warning);
  }
  if (loaded.kind != LoadResult::Kind::kHit) return std::nullopt;
  return loaded.artifact;
}

absl::Status KernelCache::StoreRecord(const CacheContext& context, std::string_view record) {
  if (!disk_) return absl::OkStatus();
  return disk_->Store(context.Key(), context, record);
}

}  // namespace tile_ir::runtime::jit
