// The cache's entries over owned_files.h: the folder's key, atomic writes,
// flock-based key locks, list, verify and clear. Every file is opened
// relative to the folder's descriptor, as checked when the cache was opened,
// and never through a symbolic link.
#include "runtime/jit/disk_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/jit/owned_files.h"
#include "runtime/jit/secret_file.h"

namespace tile_ir::runtime::jit {
namespace {

namespace fs = std::filesystem;

constexpr absl::string_view kEntrySuffix = ".entry";
constexpr char kKeyName[] = "key";
constexpr char kLocksName[] = "locks";

bool IsEntryName(const std::string& name) {
  return absl::EndsWith(name, kEntrySuffix) && !absl::StartsWith(name, kTempPrefix);
}

}  // namespace

std::optional<std::string> CacheDirectoryFromEnvironment() {
  const char* disable = std::getenv("TILE_DISABLE_CACHE");
  if (disable != nullptr && std::string_view(disable) == "1") return std::nullopt;
  if (const char* dir = std::getenv("TILE_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return absl::StrCat(xdg, "/tile");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/.cache/tile");
  }
  return std::nullopt;
}

KeyLock::~KeyLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

absl::StatusOr<DiskCache> DiskCache::Open(std::string directory) {
  return OpenFolder(std::move(directory), /*create=*/true);
}

absl::StatusOr<DiskCache> DiskCache::OpenExisting(std::string directory) {
  return OpenFolder(std::move(directory), /*create=*/false);
}

absl::StatusOr<DiskCache> DiskCache::OpenFolder(std::string directory, bool create) {
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  if (create) {
    std::error_code error;
    if (fs::path parent = fs::path(directory).parent_path(); !parent.empty()) {
      fs::create_directories(parent, error);
    }
    if (error) {
      return absl::InternalError(absl::StrCat("tile cache: cannot create the cache folder ",
                                              directory, ": ", error.message(),
                                              " (set TILE_CACHE_DIR, or TILE_DISABLE_CACHE=1)"));
    }
  }
  absl::StatusOr<int> folder =
      OpenOwnedFolder(AT_FDCWD, directory, directory, "the cache folder", create, true);
  if (!folder.ok()) return folder.status();
  DiskCache cache(directory, *folder);
  absl::StatusOr<int> locks =
      OpenOwnedFolder(cache.folder_fd_, kLocksName, absl::StrCat(directory, "/", kLocksName),
                      "the cache's lock folder", create, false);
  if (locks.ok()) {
    cache.locks_fd_ = *locks;
  } else if (create || !absl::IsNotFound(locks.status())) {
    return locks.status();
  }
  absl::StatusOr<std::optional<EntrySecret>> secret =
      ReadOrCreateSecret(cache.folder_fd_, directory, kKeyName, create);
  if (!secret.ok()) return secret.status();
  cache.secret_ = *secret;
  return cache;
}

DiskCache::DiskCache(DiskCache&& other) noexcept
    : directory_(std::move(other.directory_)),
      folder_fd_(std::exchange(other.folder_fd_, -1)),
      locks_fd_(std::exchange(other.locks_fd_, -1)),
      secret_(other.secret_) {}

DiskCache& DiskCache::operator=(DiskCache&& other) noexcept {
  if (this != &other) {
    if (folder_fd_ >= 0) close(folder_fd_);
    if (locks_fd_ >= 0) close(locks_fd_);
    directory_ = std::move(other.directory_);
    folder_fd_ = std::exchange(other.folder_fd_, -1);
    locks_fd_ = std::exchange(other.locks_fd_, -1);
    secret_ = other.secret_;
  }
  return *this;
}

DiskCache::~DiskCache() {
  if (folder_fd_ >= 0) close(folder_fd_);
  if (locks_fd_ >= 0) close(locks_fd_);
}

std::string DiskCache::EntryPath(std::string_view key) const {
  return absl::StrCat(directory_, "/", std::string(key), kEntrySuffix);
}

LoadResult DiskCache::Load(std::string_view key, const CacheContext& current) const {
  LoadResult result;
  const std::string path = EntryPath(key);
  absl::StatusOr<std::string> bytes = ReadOwnedFile(
      folder_fd_, absl::StrCat(std::string(key), kEntrySuffix), kMaxEntryBytes, false);
  if (absl::IsNotFound(bytes.status())) return result;  // a miss
  result.kind = LoadResult::Kind::kRefused;
  if (!bytes.ok()) {
    result.warning = absl::StrCat("cache entry ", path, " refused: ", bytes.status().message(),
                                  "; rebuilding it");
    return result;
  }
  absl::StatusOr<ParsedEntry> entry = ParseEntry(*bytes);
  if (!entry.ok()) {
    result.warning = absl::StrCat(
        "cache entry ", path, absl::IsFailedPrecondition(entry.status()) ? " is " : " is damaged (",
        entry.status().message(), absl::IsFailedPrecondition(entry.status()) ? "" : ")",
        "; rebuilding it");
    return result;
  }
  if (std::optional<std::string> mismatch = FirstMismatch(entry->context, current)) {
    result.warning = absl::StrCat("cache entry ", path, " was built for another context (",
                                  *mismatch, "); refusing it and rebuilding");
    return result;
  }
  if (!secret_ || !IsAuthentic(*bytes, *entry, *secret_)) {
    result.warning = absl::StrCat("cache entry ", path,
                                  " was not written by this user's cache key: planted, corrupted, "
                                  "or from another user or machine; rebuilding it");
    return result;
  }
  result.kind = LoadResult::Kind::kHit;
  result.artifact = std::move(entry->artifact);
  return result;
}

absl::Status DiskCache::Store(std::string_view key, const CacheContext& context,
                              std::string_view artifact) const {
  if (!secret_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tile cache: ", directory_, " has no key file, so nothing written there would load"));
  }
  const std::string bytes = SerializeEntry(context, artifact, *secret_);
  const std::string path = EntryPath(key);
  if (static_cast<int64_t>(bytes.size()) > kMaxEntryBytes) {
    return absl::ResourceExhaustedError(absl::StrCat("tile cache: not storing ", path, ": ",
                                                     bytes.size(), " bytes, over the limit of ",
                                                     kMaxEntryBytes));
  }
  const std::string temp = absl::StrCat(TempName(std::string(key)), kEntrySuffix);
  if (absl::Status written =
          WriteNewFile(folder_fd_, temp, absl::StrCat(directory_, "/", temp), bytes);
      !written.ok()) {
    return written;
  }
  // rename replaces whatever had the name (a link is replaced, not followed).
  if (renameat(folder_fd_, temp.c_str(), folder_fd_,
               absl::StrCat(std::string(key), kEntrySuffix).c_str()) != 0) {
    absl::Status status = ErrnoError("cannot rename into place", path);
    unlinkat(folder_fd_, temp.c_str(), 0);
    return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<KeyLock> DiskCache::Lock(std::string_view key) const {
  const std::string name = absl::StrCat(std::string(key), ".lock");
  const std::string path = absl::StrCat(directory_, "/", kLocksName, "/", name);
  if (locks_fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("tile cache: ", directory_, " has no ", kLocksName, " folder"));
  }
  const int fd = openat(locks_fd_, name.c_str(),
                        O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == ELOOP) {
      return absl::PermissionDeniedError(absl::StrCat("tile cache: refusing the lock file ", path,
                                                      ": ", FileKind(S_IFLNK), "; remove it"));
    }
    return ErrnoError("cannot open the lock", path);
  }
  FdCloser closer(fd);
  struct stat info;
  if (fstat(fd, &info) != 0) return ErrnoError("cannot examine the lock", path);
  if (std::optional<std::string> why = WhyUntrusted(info, false)) {
    return absl::PermissionDeniedError(
        absl::StrCat("tile cache: refusing the lock file ", path, ": ", *why, "; remove it"));
  }
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    return ErrnoError("cannot lock", path);
  }
  return KeyLock(closer.release());
}

std::vector<EntryInfo> DiskCache::List() const {
  std::vector<EntryInfo> entries;
  absl::StatusOr<std::vector<std::string>> names = FolderNames(folder_fd_, directory_);
  if (!names.ok()) return entries;
  for (const std::string& name : *names) {
    if (!IsEntryName(name)) continue;
    struct stat info;
    if (fstatat(folder_fd_, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    EntryInfo entry;
    entry.key = name.substr(0, name.size() - kEntrySuffix.size());
    entry.path = absl::StrCat(directory_, "/", name);
    entry.size_bytes = static_cast<int64_t>(info.st_size);
    entry.modified = absl::FromTimeT(info.st_mtime);
    if (absl::StatusOr<std::string> bytes = ReadOwnedFile(folder_fd_, name, kMaxEntryBytes, false);
        bytes.ok()) {
      if (absl::StatusOr<ParsedEntry> parsed = ParseEntry(*bytes); parsed.ok()) {
        entry.context = parsed->context;
      }
    }
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const EntryInfo& a, const EntryInfo& b) { return a.key < b.key; });
  return entries;
}

std::vector<EntryInfo> DiskCache::Verify(
    const std::function<std::optional<CacheContext>(const CacheContext& stored)>& current) const {
  std::vector<EntryInfo> entries = List();
  for (EntryInfo& info : entries) {
    absl::StatusOr<std::string> bytes =
        ReadOwnedFile(folder_fd_, absl::StrCat(info.key, kEntrySuffix), kMaxEntryBytes, false);
    if (absl::IsNotFound(bytes.status())) {
      info.problems.push_back("unreadable (removed while verifying?)");
      continue;
    }
    if (!bytes.ok()) {
      info.problems.push_back(absl::StrCat("refused: ", bytes.status().message()));
      continue;
    }
    absl::StatusOr<ParsedEntry> entry = ParseEntry(*bytes);
    if (!entry.ok()) {
      info.problems.push_back(absl::StrCat(
          absl::IsFailedPrecondition(entry.status()) ? "" : "damaged: ", entry.status().message()));
      continue;
    }
    if (!secret_) {
      info.problems.push_back(absl::StrCat("not authenticated: the folder has no key file (",
                                           directory_, "/", kKeyName, ")"));
    } else if (!IsAuthentic(*bytes, *entry, *secret_)) {
      info.problems.push_back(
          "not written by this user's cache key: planted, corrupted or edited, or from another "
          "user or machine");
    }
    if (entry->context.Key() != info.key) {
      info.problems.push_back(absl::StrCat("its context hashes to key ", entry->context.Key(),
                                           ", not to its file name (edited, or copied under "
                                           "another key)"));
    }
    if (current) {
      if (std::optional<CacheContext> here = current(entry->context)) {
        if (std::optional<std::string> mismatch = FirstMismatch(entry->context, *here)) {
          info.problems.push_back(absl::StrCat("built for another context: ", *mismatch));
        }
      }
    }
  }
  return entries;
}

absl::StatusOr<int> DiskCache::Clear(std::optional<absl::Duration> older_than) const {
  const absl::Time cutoff = older_than ? absl::Now() - *older_than : absl::InfiniteFuture();
  absl::StatusOr<std::vector<std::string>> names = FolderNames(folder_fd_, directory_);
  if (!names.ok()) return names.status();
  int removed = 0;
  for (const std::string& name : *names) {
    if (!absl::EndsWith(name, kEntrySuffix)) continue;
    struct stat info;
    if (fstatat(folder_fd_, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(info.st_mode) || absl::FromTimeT(info.st_mtime) >= cutoff) continue;
    if (unlinkat(folder_fd_, name.c_str(), 0) != 0) {
      if (errno == ENOENT) continue;  // removed by another process meanwhile
      return ErrnoError("cannot remove", absl::StrCat(directory_, "/", name));
    }
    if (IsEntryName(name)) ++removed;
  }
  return removed;
}

}  // namespace tile_ir::runtime::jit
