// The on-disk kernel cache: one file per entry (cache_entry.h) named by its
// key, written atomically (a temporary file in the same folder, then
// rename), with a lock file per key that makes concurrent processes compile a
// missing entry once.
//
// Location: $TILE_CACHE_DIR; otherwise $XDG_CACHE_HOME/tile, otherwise
// ~/.cache/tile. TILE_DISABLE_CACHE=1 turns the disk cache off.
//
// Trust: the cache runs what it reads, so it trusts only the current
// (effective) user. The folder and its locks/ must be owned by that user and
// not writable by group or others (new ones are made 0700); entries, lock
// files and the `key` file are opened without following symbolic links, and
// must be regular files of that user's, not writable by group or others (the
// key: not readable either); an entry is at most kMaxEntryBytes; and an entry
// must carry the HMAC of the folder's `key`, a secret of 32 random bytes made
// on first use, so that an entry written by anyone else is refused.
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
#include "runtime/jit/cache_entry.h"

namespace tile_ir::runtime::jit {

// The largest entry the cache reads or writes; a kernel's artifact (its
// lowered text and binary) weighs kilobytes to a few megabytes.
inline constexpr int64_t kMaxEntryBytes = int64_t{256} << 20;

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
  absl::Time modified;                         // disk entries
  std::optional<absl::Duration> time_to_live;  // remote entries: the time left, where one expires
  std::optional<CacheContext> context;         // nullopt when the file does not parse
  std::vector<std::string> problems;           // empty for a sound entry (Verify fills it)
};

class DiskCache {
 public:
  // Creates the folder (mode 0700; its parents as usual), its locks/ and its
  // key when missing. PermissionDenied naming the path, why and what to do
  // when the folder, locks/ or the key is not the user's own (see above).
  static absl::StatusOr<DiskCache> Open(std::string directory);
  // The same for an existing folder, creating nothing (tile-cache): NotFound
  // when it does not exist. Without a key file no entry authenticates.
  static absl::StatusOr<DiskCache> OpenExisting(std::string directory);

  DiskCache(DiskCache&& other) noexcept;
  DiskCache& operator=(DiskCache&& other) noexcept;
  ~DiskCache();

  const std::string& directory() const { return directory_; }
  std::string EntryPath(std::string_view key) const;

  // The entry for `key`, checked as a file (see above), against `current`
  // (its context must equal it: a copy from another architecture or toolkit
  // is refused, naming the field) and by its MAC (a truncated, damaged or
  // planted entry, or one from another user or machine, is refused).
  LoadResult Load(std::string_view key, const CacheContext& current) const;

  // Writes the entry atomically; a concurrent reader sees the old file, no
  // file, or the whole new one.
  absl::Status Store(std::string_view key, const CacheContext& context,
                     std::string_view artifact) const;

  // Blocks until this process holds the key's lock (other processes block in
  // turn); locks live in <dir>/locks/ and are never removed by their users.
  absl::StatusOr<KeyLock> Lock(std::string_view key) const;

  // Every entry, sorted by key, with its context when it parses; symbolic
  // links and other files that are not the user's are listed, never read.
  std::vector<EntryInfo> List() const;

  // Every entry with its problems: a file the cache would not open (a
  // symbolic link, a FIFO, another user's, writable by others, too large), a
  // damaged file, an entry not written under this folder's key (planted,
  // edited, or copied from another user or machine), a context that does not
  // hash to the file's key (edited or copied under another key), and, where
  // `current` gives a context for the entry's own kernel and target (it may
  // answer nullopt), a mismatch with it.
  std::vector<EntryInfo> Verify(
      const std::function<std::optional<CacheContext>(const CacheContext& stored)>& current =
          nullptr) const;

  // Removes entries (and leftover temporary files, and what was planted
  // under an entry's name: links are removed, not followed) last written
  // before `now - older_than`, or all of them; returns how many entries.
  absl::StatusOr<int> Clear(std::optional<absl::Duration> older_than) const;

 private:
  DiskCache(std::string directory, int folder_fd)
      : directory_(std::move(directory)), folder_fd_(folder_fd) {}
  static absl::StatusOr<DiskCache> OpenFolder(std::string directory, bool create);

  std::string directory_;
  int folder_fd_ = -1;                 // the folder as checked: later opens are relative to it
  int locks_fd_ = -1;                  // -1 when OpenExisting found no locks/
  std::optional<EntrySecret> secret_;  // nullopt when OpenExisting found no key
};

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_DISK_CACHE_H_
