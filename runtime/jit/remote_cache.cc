// The remote level: the disk's checks over bytes from a store, and the
// once-per-process fallback to local.
#include "runtime/jit/remote_cache.h"

#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/jit/secret_file.h"
#include "runtime/remote_cache/open_remote_store.h"

namespace tile_ir::runtime::jit {
namespace {

// Stores that failed in this process, by name: one warning each, and a cache
// opened later on the same store does not wait on it again.
struct DownStores {
  std::mutex mutex;
  absl::flat_hash_set<std::string> names;
};

DownStores& Down() {
  static DownStores* down = new DownStores;
  return *down;
}

bool IsDown(const std::string& name) {
  DownStores& down = Down();
  std::lock_guard<std::mutex> lock(down.mutex);
  return down.names.contains(name);
}

}  // namespace

std::optional<std::string> RemoteCacheUrlFromEnvironment() {
  const char* disable = std::getenv("TILE_DISABLE_CACHE");
  if (disable != nullptr && std::string_view(disable) == "1") return std::nullopt;
  const char* url = std::getenv("TILE_CACHE_URL");
  if (url == nullptr || *url == '\0') return std::nullopt;
  return std::string(url);
}

std::optional<std::string> RemoteKeyPathFromEnvironment() {
  if (const char* path = std::getenv("TILE_CACHE_REMOTE_KEY"); path != nullptr && *path != '\0') {
    return std::string(path);
  }
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return absl::StrCat(xdg, "/tile/remote-cache.key");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/.config/tile/remote-cache.key");
  }
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<RemoteCache>> RemoteCache::Open(std::string_view url,
                                                               const std::string& key_path,
                                                               bool create_key, Warn warn) {
  absl::StatusOr<std::unique_ptr<remote_cache::RemoteStore>> store =
      remote_cache::OpenRemoteStore(url);
  if (!store.ok()) return store.status();
  absl::StatusOr<std::optional<EntrySecret>> secret = ReadOrCreateSecretFile(key_path, create_key);
  if (!secret.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the remote kernel cache's key: ", secret.status().message()));
  }
  return std::make_unique<RemoteCache>(*std::move(store), *secret, key_path, std::move(warn));
}

RemoteCache::RemoteCache(std::unique_ptr<remote_cache::RemoteStore> store,
                         std::optional<EntrySecret> secret, std::string key_path, Warn warn)
    : store_(std::move(store)),
      secret_(secret),
      key_path_(std::move(key_path)),
      warn_(std::move(warn)),
      down_(IsDown(store_->name())) {}

std::string RemoteCache::EntryName(std::string_view key) const {
  return absl::StrCat(kRemoteKeyPrefix, std::string(key));
}

void RemoteCache::MarkDown(const absl::Status& why) {
  down_ = true;
  DownStores& down = Down();
  {
    std::lock_guard<std::mutex> lock(down.mutex);
    if (!down.names.insert(store_->name()).second) return;
  }
  warn_(absl::StrCat("remote kernel cache ", store_->name(), " unavailable (", why.message(),
                     "); using the local cache only for the rest of this process"));
}

LoadResult RemoteCache::Load(std::string_view key, const CacheContext& current) {
  LoadResult result;
  if (down_ || !secret_) return result;
  const std::string name = EntryName(key);
  absl::StatusOr<std::optional<remote_cache::RemoteValue>> value =
      store_->Get(name, kMaxEntryBytes);
  if (!value.ok()) {
    MarkDown(value.status());
    return result;
  }
  if (!value->has_value()) return result;  // a miss
  result.kind = LoadResult::Kind::kRefused;
  const std::string where = absl::StrCat("remote cache entry ", name, " on ", store_->name());
  if ((*value)->size > kMaxEntryBytes) {
    result.warning = absl::StrCat(where, " refused: ", (*value)->size, " bytes, over the limit of ",
                                  kMaxEntryBytes, "; compiling it");
    return result;
  }
  const std::string& bytes = (*value)->bytes;
  absl::StatusOr<ParsedEntry> entry = ParseEntry(bytes);
  if (!entry.ok()) {
    result.warning =
        absl::StrCat(where, " refused: damaged (", entry.status().message(), "); compiling it");
    return result;
  }
  if (std::optional<std::string> mismatch = FirstMismatch(entry->context, current)) {
    result.warning =
        absl::StrCat(where, " refused: built for another context (", *mismatch, "); compiling it");
    return result;
  }
  if (!IsAuthentic(bytes, *entry, *secret_)) {
    result.warning = absl::StrCat(
        where, " refused: not written under this user's remote cache key (", key_path_,
        "): planted, corrupted, or from another user who does not share that key file; "
        "compiling it");
    return result;
  }
  if (absl::Status touched = store_->Touch(name); !touched.ok()) MarkDown(touched);
  result.kind = LoadResult::Kind::kHit;
  result.artifact = std::move(entry->artifact);
  return result;
}

void RemoteCache::Store(std::string_view key, const CacheContext& context,
                        std::string_view artifact) {
  if (down_ || !secret_) return;
  const std::string bytes = SerializeEntry(context, artifact, *secret_);
  if (static_cast<int64_t>(bytes.size()) > kMaxEntryBytes) {
    warn_(absl::StrCat("not storing remote cache entry ", EntryName(key), ": ", bytes.size(),
                       " bytes, over the limit of ", kMaxEntryBytes));
    return;
  }
  if (absl::Status stored = store_->Put(EntryName(key), bytes); !stored.ok()) MarkDown(stored);
}

absl::StatusOr<std::vector<EntryInfo>> RemoteCache::Entries(bool verify) {
  absl::StatusOr<std::vector<std::string>> names =
      store_->Keys(std::string_view(kRemoteKeyPrefix.data(), kRemoteKeyPrefix.size()));
  if (!names.ok()) return names.status();
  std::vector<EntryInfo> entries;
  for (const std::string& name : *names) {
    EntryInfo info;
    info.key = name.substr(kRemoteKeyPrefix.size());
    info.path = absl::StrCat(store_->name(), " ", name);
    absl::StatusOr<std::optional<remote_cache::RemoteValue>> value =
        store_->Get(name, kMaxEntryBytes);
    if (!value.ok()) return value.status();
    if (!value->has_value()) continue;  // expired or removed meanwhile
    absl::StatusOr<std::optional<absl::Duration>> ttl = store_->TimeToLive(name);
    if (!ttl.ok()) return ttl.status();
    info.time_to_live = *ttl;
    info.size_bytes = (*value)->size;
    const std::string& bytes = (*value)->bytes;
    absl::StatusOr<ParsedEntry> entry =
        (*value)->size > kMaxEntryBytes ? absl::ResourceExhaustedError("") : ParseEntry(bytes);
    if (entry.ok()) info.context = entry->context;
    if (verify) {
      if ((*value)->size > kMaxEntryBytes) {
        info.problems.push_back(
            absl::StrCat((*value)->size, " bytes, over the limit of ", kMaxEntryBytes));
      } else if (!entry.ok()) {
        info.problems.push_back(absl::StrCat("damaged: ", entry.status().message()));
      } else {
        if (!secret_) {
          info.problems.push_back(
              absl::StrCat("not authenticated: no remote key file (", key_path_, ")"));
        } else if (!IsAuthentic(bytes, *entry, *secret_)) {
          info.problems.push_back(absl::StrCat(
              "not written under this user's remote cache key (", key_path_,
              "): planted, corrupted or edited, or from another user who does not share it"));
        }
        if (entry->context.Key() != info.key) {
          info.problems.push_back(absl::StrCat("its context hashes to key ", entry->context.Key(),
                                               ", not to its name (edited, or stored under "
                                               "another key)"));
        }
      }
    }
    entries.push_back(std::move(info));
  }
  return entries;
}

absl::StatusOr<std::vector<EntryInfo>> RemoteCache::List() { return Entries(false); }

absl::StatusOr<std::vector<EntryInfo>> RemoteCache::Verify() { return Entries(true); }

absl::StatusOr<int64_t> RemoteCache::Clear() {
  absl::StatusOr<std::vector<std::string>> names =
      store_->Keys(std::string_view(kRemoteKeyPrefix.data(), kRemoteKeyPrefix.size()));
  if (!names.ok()) return names.status();
  return store_->Remove(*names);
}

}  // namespace tile_ir::runtime::jit
