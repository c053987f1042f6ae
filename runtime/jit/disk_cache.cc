// Files, atomic writes and flock-based key locks of the disk cache.
#include "runtime/jit/disk_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/jit/cache_entry.h"

namespace tile_ir::runtime::jit {
namespace {

namespace fs = std::filesystem;

constexpr absl::string_view kEntrySuffix = ".entry";
constexpr absl::string_view kTempPrefix = ".tmp-";

absl::Status ErrnoError(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat("tile cache: ", what, " ", path, ": ",
                                          std::strerror(errno)));
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool IsEntryName(const std::string& name) {
  return absl::EndsWith(name, kEntrySuffix) && !absl::StartsWith(name, kTempPrefix);
}

absl::Time ModifiedTime(const fs::path& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return absl::InfinitePast();
  return absl::FromTimeT(info.st_mtime);
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
  std::error_code error;
  fs::create_directories(fs::path(directory) / "locks", error);
  if (error) {
    return absl::InternalError(absl::StrCat("tile cache: cannot create the cache folder ",
                                            directory, ": ", error.message(),
                                            " (set TILE_CACHE_DIR, or TILE_DISABLE_CACHE=1)"));
  }
  return DiskCache(std::move(directory));
}

std::string DiskCache::EntryPath(std::string_view key) const {
  return absl::StrCat(directory_, "/", std::string(key), kEntrySuffix);
}

LoadResult DiskCache::Load(std::string_view key, const CacheContext& current) const {
  LoadResult result;
  const std::string path = EntryPath(key);
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return result;  // a miss
  result.kind = LoadResult::Kind::kRefused;
  absl::StatusOr<ParsedEntry> entry = ParseEntry(*bytes);
  if (!entry.ok()) {
    result.warning = absl::StrCat("cache entry ", path, " is damaged (", entry.status().message(),
                                  "); rebuilding it");
    return result;
  }
  if (std::optional<std::string> mismatch = FirstMismatch(entry->context, current)) {
    result.warning = absl::StrCat("cache entry ", path, " was built for another context (",
                                  *mismatch, "); refusing it and rebuilding");
    return result;
  }
  if (!entry->checksum_ok) {
    result.warning =
        absl::StrCat("cache entry ", path, " fails its checksum (corrupted); rebuilding it");
    return result;
  }
  result.kind = LoadResult::Kind::kHit;
  result.artifact = std::move(entry->artifact);
  return result;
}

absl::Status DiskCache::Store(std::string_view key, const CacheContext& context,
                              std::string_view artifact) const {
  static std::atomic<uint64_t> counter{0};
  const std::string temp = absl::StrCat(directory_, "/", kTempPrefix, std::string(key), "-", getpid(), "-",
                                        counter.fetch_add(1), kEntrySuffix);
  const std::string bytes = SerializeEntry(context, artifact);
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot create", temp);
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status status = ErrnoError("cannot write", temp);
      close(fd);
      unlink(temp.c_str());
      return status;
    }
    written += static_cast<size_t>(n);
  }
  // The data must be on disk before the name is: otherwise a crash could
  // leave a whole-looking name over a short file.
  if (fsync(fd) != 0 || close(fd) != 0) {
    absl::Status status = ErrnoError("cannot flush", temp);
    unlink(temp.c_str());
    return status;
  }
  const std::string path = EntryPath(key);
  if (rename(temp.c_str(), path.c_str()) != 0) {
    absl::Status status = ErrnoError("cannot rename into place", path);
    unlink(temp.c_str());
    return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<KeyLock> DiskCache::Lock(std::string_view key) const {
  const std::string path = absl::StrCat(directory_, "/locks/", std::string(key), ".lock");
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot open the lock", path);
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    absl::Status status = ErrnoError("cannot lock", path);
    close(fd);
    return status;
  }
  return KeyLock(fd);
}

std::vector<EntryInfo> DiskCache::List() const {
  std::vector<EntryInfo> entries;
  std::error_code error;
  for (const fs::directory_entry& file : fs::directory_iterator(directory_, error)) {
    const std::string name = file.path().filename().string();
    if (!file.is_regular_file() || !IsEntryName(name)) continue;
    EntryInfo info;
    info.key = name.substr(0, name.size() - kEntrySuffix.size());
    info.path = file.path().string();
    info.size_bytes = static_cast<int64_t>(file.file_size(error));
    info.modified = ModifiedTime(file.path());
    if (absl::StatusOr<std::string> bytes = ReadFile(info.path); bytes.ok()) {
      if (absl::StatusOr<ParsedEntry> entry = ParseEntry(*bytes); entry.ok()) {
        info.context = entry->context;
      }
    }
    entries.push_back(std::move(info));
  }
  std::sort(entries.begin(), entries.end(),
            [](const EntryInfo& a, const EntryInfo& b) { return a.key < b.key; });
  return entries;
}

std::vector<EntryInfo> DiskCache::Verify(
    const std::function<std::optional<CacheContext>(const CacheContext& stored)>& current) const {
  std::vector<EntryInfo> entries = List();
  for (EntryInfo& info : entries) {
    absl::StatusOr<std::string> bytes = ReadFile(info.path);
    if (!bytes.ok()) {
      info.problems.push_back("unreadable (removed while verifying?)");
      continue;
    }
    absl::StatusOr<ParsedEntry> entry = ParseEntry(*bytes);
    if (!entry.ok()) {
      info.problems.push_back(absl::StrCat("damaged: ", entry.status().message()));
      continue;
    }
    if (!entry->checksum_ok) info.problems.push_back("checksum mismatch (corrupted or edited)");
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
  const absl::Time cutoff =
      older_than ? absl::Now() - *older_than : absl::InfiniteFuture();
  int removed = 0;
  std::error_code error;
  for (const fs::directory_entry& file : fs::directory_iterator(directory_, error)) {
    const std::string name = file.path().filename().string();
    if (!file.is_regular_file() || !absl::EndsWith(name, kEntrySuffix)) continue;
    if (ModifiedTime(file.path()) >= cutoff) continue;
    if (!fs::remove(file.path(), error)) continue;
    if (IsEntryName(name)) ++removed;
  }
  if (error) {
    return absl::InternalError(
        absl::StrCat("tile cache: cannot clear ", directory_, ": ", error.message()));
  }
  return removed;
}

}  // namespace tile_ir::runtime::jit
