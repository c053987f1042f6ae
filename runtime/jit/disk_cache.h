// The on-disk kernel cache: one file per entry (cache_entry.h) named by its
// key, written atomically (a temporary file in the same folder, then
// rename), with a lock file per key that makes concurrent processes compile a
// missing entry once.
//
// Location: $TILE_CACHE_DIR; otherwise $XDG_CACHE_HOME/tile, otherwise
// ~/.cache/tile. TILE_DISABLE_CACHE=1 turns the disk cache off.
#ifndef RUNTIME_JIT_DISK_CACHE_H_
#define RUNTIME_JIT_DISK_CACHE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/jit/cache_context.h"

namespace tile_ir::runtime::jit {

// Where the environment puts the cache, or nullopt when TILE_DISABLE_CACHE=1
// (or no folder can be derived: no HOME).
std::optional<std::string> CacheDirectoryFromEnvironment();

// Holds an exclusive lock (flock) on one key's lock file until destroyed.
class KeyLock {
 public:
  explicit KeyLock(int fd) : fd_(fd) {}
  KeyLock(KeyLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  KeyLock& operator=(KeyLock&&) = delete;
  ~KeyLock();

 private:
  int fd_;
};

struct LoadResult {
  enum class Kind { kHit, kMiss, kRefused };
  Kind kind = Kind::kMiss;
  std::string artifact;  // for kHit
  // For kRefused: why, naming the entry and the mismatching field or the
  // damage ("arch: the entry has 'sm_80', this process 'sm_90a'").
  std::string warning;
};

// What tile-cache lists and verifies.
struct EntryInfo {
  std::string key;
  std::string path;
  int64_t size_bytes = 0;
  absl::Time modified;
  std::optional<CacheContext> context;  // nullopt when the file does not parse
  std::vector<std::string> problems;    // empty for a sound entry (Verify fills it)
};

class DiskCache {
 public:
  // Creates the folder (and its parents) when missing.
  static absl::StatusOr<DiskCache> Open(std::string directory);

  const std::string& directory() const { return directory_; }
  std::string EntryPath(std::string_view key) const;

  // The entry for `key`, checked against `current` (its context must equal
  // it: a copy from another architecture or toolkit is refused, naming the
  // field) and its checksum (a truncated or damaged entry is refused).
  LoadResult Load(std::string_view key, const CacheContext& current) const;

  // Writes the entry atomically; a concurrent reader sees the old file, no
  // file, or the whole new one.
  absl::Status Store(std::string_view key, const CacheContext& context,
                     std::string_view artifact) const;

  // Blocks until this process holds the key's lock (other processes block in
  // turn); locks live in <dir>/locks/ and are never removed by their users.
  absl::StatusOr<KeyLock> Lock(std::string_view key) const;

  // Every entry, sorted by key, with its context when it parses.
  std::vector<EntryInfo> List() const;

  // Every entry with its problems: a damaged file, a checksum mismatch, a
  // context that does not hash to the file's key (edited or copied under
  // another key), and, where `current` gives a context for the entry's own
  // kernel and target (it may answer nullopt), a mismatch with it.
  std::vector<EntryInfo> Verify(
      const std::function<std::optional<CacheContext>(const CacheContext& stored)>& current =
          nullptr) const;

  // Removes entries (and leftover temporary files) last written before
  // `now - older_than`, or all of them; returns how many entries.
  absl::StatusOr<int> Clear(std::optional<absl::Duration> older_than) const;

 private:
  explicit DiskCache(std::string directory) : directory_(std::move(directory)) {}
  std::string directory_;
};

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_DISK_CACHE_H_
