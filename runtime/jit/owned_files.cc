// The owned-file checks of owned_files.h: every open is relative to a
// checked folder's descriptor, and fstat, not the name, decides.
#include "runtime/jit/owned_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tile_ir::runtime::jit {
namespace {

std::string ModeText(mode_t mode) { return absl::StrFormat("%04o", mode & 07777); }

std::string NotYours(uid_t owner) {
  return absl::StrCat("owned by uid ", owner, ", not by you (uid ", geteuid(), ")");
}

}  // namespace

absl::Status ErrnoError(absl::string_view what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat("tile cache: ", what, " ", path, ": ", std::strerror(errno)));
}

FdCloser::~FdCloser() {
  if (fd_ >= 0) close(fd_);
}

std::string FileKind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link (never followed)";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

std::optional<std::string> WhyUntrusted(const struct stat& info, bool secret) {
  if (!S_ISREG(info.st_mode)) return FileKind(info.st_mode);
  if (info.st_uid != geteuid()) return NotYours(info.st_uid);
  if (secret && (info.st_mode & 077) != 0) {
    return absl::StrCat("mode ", ModeText(info.st_mode), ", open to group or others");
  }
  if ((info.st_mode & 022) != 0) {
    return absl::StrCat("mode ", ModeText(info.st_mode), ", writable by group or others");
  }
  return std::nullopt;
}

absl::StatusOr<std::string> ReadOwnedFile(int folder_fd, const std::string& name, int64_t max_bytes,
                                          bool secret) {
  const int fd =
      openat(folder_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError("missing");
    if (errno == ELOOP) return absl::PermissionDeniedError(FileKind(S_IFLNK));
    return absl::PermissionDeniedError(absl::StrCat("cannot be opened: ", std::strerror(errno)));
  }
  FdCloser closer(fd);
  struct stat info;
  if (fstat(fd, &info) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot be examined: ", std::strerror(errno)));
  }
  if (std::optional<std::string> why = WhyUntrusted(info, secret)) {
    return absl::PermissionDeniedError(*why);
  }
  if (info.st_size > max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(info.st_size, " bytes, over the limit of ", max_bytes, " (not read)"));
  }
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::DataLossError(absl::StrCat("unreadable: ", std::strerror(errno)));
    if (n == 0) break;  // shrank while read: the parser names the truncation
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  char extra;
  ssize_t n;
  while ((n = read(fd, &extra, 1)) < 0 && errno == EINTR) {
  }
  if (n > 0) return absl::DataLossError("grew while being read (being written by someone else?)");
  return bytes;
}

absl::StatusOr<int> OpenOwnedFolder(int parent_fd, const std::string& name, const std::string& path,
                                    absl::string_view what, bool create, bool follow_own_link) {
  if (create && mkdirat(parent_fd, name.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("tile cache: cannot create ", what, " ", path, ": ",
                                            std::strerror(errno),
                                            " (set TILE_CACHE_DIR, or TILE_DISABLE_CACHE=1)"));
  }
  struct stat link;
  if (fstatat(parent_fd, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(absl::StrCat("tile cache: ", what, " ", path, " does not exist"));
    }
    return ErrnoError(absl::StrCat("cannot examine ", what), path);
  }
  const std::string refusing = absl::StrCat("tile cache: refusing ", what, " ", path, ": ");
  const std::string remedy =
      absl::StrCat("; use a folder of your own (set TILE_CACHE_DIR) or TILE_DISABLE_CACHE=1");
  if (S_ISLNK(link.st_mode) && (!follow_own_link || link.st_uid != geteuid())) {
    return absl::PermissionDeniedError(absl::StrCat(
        refusing, "it is a symbolic link",
        follow_own_link ? absl::StrCat(" ", NotYours(link.st_uid)) : " (never followed)", remedy));
  }
  const int fd = openat(parent_fd, name.c_str(),
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow_own_link ? 0 : O_NOFOLLOW));
  if (fd < 0) return ErrnoError(absl::StrCat("cannot open ", what), path);
  FdCloser closer(fd);
  struct stat info;
  if (fstat(fd, &info) != 0) return ErrnoError(absl::StrCat("cannot examine ", what), path);
  if (info.st_uid != geteuid()) {
    return absl::PermissionDeniedError(
        absl::StrCat(refusing, "it is ", NotYours(info.st_uid),
                     ", so its entries would be kernels another user chose", remedy));
  }
  if ((info.st_mode & 022) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(refusing, "it is writable by group or others (mode ", ModeText(info.st_mode),
                     "), so anyone who can write it could plant kernels; run 'chmod go-w ", path,
                     "', or set TILE_CACHE_DIR to a folder of your own"));
  }
  return closer.release();
}

absl::Status WriteNewFile(int folder_fd, const std::string& name, const std::string& path,
                          std::string_view bytes) {
  const int fd =
      openat(folder_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("cannot create", path);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status status = ErrnoError("cannot write", path);
      close(fd);
      unlinkat(folder_fd, name.c_str(), 0);
      return status;
    }
    written += static_cast<size_t>(n);
  }
  // The data must be on disk before the name is: otherwise a crash could
  // leave a whole-looking name over a short file.
  if (fsync(fd) != 0 || close(fd) != 0) {
    absl::Status status = ErrnoError("cannot flush", path);
    unlinkat(folder_fd, name.c_str(), 0);
    return status;
  }
  return absl::OkStatus();
}

std::string TempName(absl::string_view stem) {
  static std::atomic<uint64_t> counter{0};
  return absl::StrCat(kTempPrefix, stem, "-", getpid(), "-", counter.fetch_add(1));
}

absl::StatusOr<std::vector<std::string>> FolderNames(int folder_fd, const std::string& path) {
  const int fd = openat(folder_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot list", path);
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    absl::Status status = ErrnoError("cannot list", path);
    close(fd);
    return status;
  }
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

}  // namespace tile_ir::runtime::jit
