// The kernel cache's remote level, under the disk (TILE_CACHE_URL=redis://
// host:port/db): a local miss asks it, a compile stores to it. Its entries are
// the disk's entry format (cache_entry.h), checked exactly as a local file
// is: the stored context must equal the process's, the lengths must add up,
// and the HMAC must verify under the user's remote key (a file, not the
// folder's key: several cache folders, and users who mean to, share it), so
// a planted, stale or foreign entry is refused, named, and compiled locally.
// Entries over kMaxEntryBytes are neither fetched nor stored; keys expire
// after the store's time to live, restarted by each hit.
//
// The server is never needed: the first error of a call (refused, timed
// out, a reply that is not Redis's) warns once per process and store, and
// every later call of the process stays local without asking.
#ifndef RUNTIME_JIT_REMOTE_CACHE_H_
#define RUNTIME_JIT_REMOTE_CACHE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/jit/cache_context.h"
#include "runtime/jit/cache_entry.h"
#include "runtime/jit/disk_cache.h"
#include "runtime/remote_cache/remote_store.h"

namespace tile_ir::runtime::jit {

// Every remote entry's key is this prefix and the local key; tile-cache
// lists and clears only these.
inline constexpr absl::string_view kRemoteKeyPrefix = "tile:kernel:";

// $TILE_CACHE_URL, or nullopt when unset or empty (or TILE_DISABLE_CACHE=1).
std::optional<std::string> RemoteCacheUrlFromEnvironment();

// The remote key file: $TILE_CACHE_REMOTE_KEY; else
// $XDG_CONFIG_HOME/tile/remote-cache.key; else ~/.config/tile/remote-cache.key;
// nullopt without HOME.
std::optional<std::string> RemoteKeyPathFromEnvironment();

class RemoteCache {
 public:
  using Warn = std::function<void(const std::string&)>;

  // The store at `url` with the secret of `key_path` (made when missing and
  // `create_key`). InvalidArgument for a bad URL, PermissionDenied for a key
  // file others could read or replace; nothing is connected yet.
  static absl::StatusOr<std::unique_ptr<RemoteCache>> Open(std::string_view url,
                                                           const std::string& key_path,
                                                           bool create_key, Warn warn);

  // Without a secret nothing loads and nothing is stored (tile-cache reads
  // such a store to list it).
  RemoteCache(std::unique_ptr<remote_cache::RemoteStore> store, std::optional<EntrySecret> secret,
              std::string key_path, Warn warn);

  const std::string& name() const { return store_->name(); }
  const std::string& key_path() const { return key_path_; }
  // False once the server failed in this process.
  bool available() const { return !down_.load(); }
  std::string EntryName(std::string_view key) const;

  // The entry for `key` checked against `current`: kMiss when absent or when
  // the server is unavailable (warned once), kRefused with the reason.
  LoadResult Load(std::string_view key, const CacheContext& current);
  // Stores the entry; a failure warns (once, for the server) and is otherwise ignored.
  void Store(std::string_view key, const CacheContext& context, std::string_view artifact);

  // For tile-cache: every entry (its size, time to live and context), each
  // with its problems (Verify: too large, damaged, not under this user's
  // remote key, a context hashing to another key), and removal of them all.
  // Errors are the server's.
  absl::StatusOr<std::vector<EntryInfo>> List();
  absl::StatusOr<std::vector<EntryInfo>> Verify();
  absl::StatusOr<int64_t> Clear();

 private:
  void MarkDown(const absl::Status& why);
  absl::StatusOr<std::vector<EntryInfo>> Entries(bool verify);

  std::unique_ptr<remote_cache::RemoteStore> store_;
  std::optional<EntrySecret> secret_;
  std::string key_path_;
  Warn warn_;
  std::atomic<bool> down_{false};
};

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_REMOTE_CACHE_H_
