#include "frontends/io/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::io {
namespace {

// What a stat says a non-regular file is.
std::string FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::Status NotRegular(const std::string& path, mode_t mode) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": is ", FileKind(mode), ", not a regular file; give a file"));
}

absl::Status TooLarge(const std::string& path, int64_t size, int64_t max_bytes) {
  return absl::ResourceExhaustedError(absl::StrCat(path, ": the file has ", size,
                                                   " bytes, more than the ", FormatBytes(max_bytes),
                                                   " this reader accepts"));
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  constexpr int64_t kKiB = 1024;
  for (auto [unit, size] : {std::pair{"GiB", kKiB * kKiB * kKiB}, std::pair{"MiB", kKiB * kKiB},
                            std::pair{"KiB", kKiB}}) {
    if (bytes >= size && bytes % size == 0) return absl::StrCat(bytes / size, " ", unit);
  }
  return absl::StrCat(bytes, " bytes");
}

absl::StatusOr<BoundedFile> BoundedFile::Open(const std::string& path, int64_t max_bytes) {
  // stat first, so that a device is never opened (opening some has effects); the fstat after
  // the open checks that the path still names a regular file.
  struct stat before;
  if (::stat(path.c_str(), &before) != 0) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  if (!S_ISREG(before.st_mode)) return NotRegular(path, before.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  BoundedFile file(path, fd, 0);
  struct stat opened;
  if (::fstat(fd, &opened) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": cannot stat: ", std::strerror(errno)));
  }
  if (!S_ISREG(opened.st_mode)) return NotRegular(path, opened.st_mode);
  if (opened.st_size > max_bytes) return TooLarge(path, opened.st_size, max_bytes);
  file.size_ = opened.st_size;
  return file;
}

BoundedFile::BoundedFile(BoundedFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      position_(other.position_) {}

BoundedFile& BoundedFile::operator=(BoundedFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    position_ = other.position_;
  }
  return *this;
}

BoundedFile::~BoundedFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status BoundedFile::Read(int64_t n, std::string* out) {
  if (n < 0 || n > size_ - position_) {
    return absl::OutOfRangeError(absl::StrCat(path_, ": cannot read ", n, " bytes at offset ",
                                              position_, " of a ", size_, "-byte file"));
  }
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(n));
  int64_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd_, out->data() + start + done, static_cast<size_t>(n - done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      out->resize(start);
      return absl::DataLossError(absl::StrCat(path_, ": read failed: ", std::strerror(errno)));
    }
    if (got == 0) {
      out->resize(start);
      return absl::DataLossError(absl::StrCat(path_, ": the file shrank while being read (", size_,
                                              " bytes when opened, ended at ", position_ + done,
                                              ")"));
    }
    done += got;
  }
  position_ += n;
  return absl::OkStatus();
}

absl::Status BoundedFile::ReadRest(std::string* out) {
  if (absl::Status status = Read(size_ - position_, out); !status.ok()) return status;
  char extra;
  ssize_t got;
  do {
    got = ::read(fd_, &extra, 1);
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    return absl::DataLossError(
        absl::StrCat(path_, ": the file grew while being read (", size_, " bytes when opened)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, int64_t max_bytes) {
  absl::StatusOr<BoundedFile> file = BoundedFile::Open(path, max_bytes);
  if (!file.ok()) return file.status();
  std::string contents;
  if (absl::Status status = file->ReadRest(&contents); !status.ok()) return status;
  return contents;
}

absl::StatusOr<std::string> ReadBoundedStream(std::istream& in, int64_t max_bytes,
                                              std::string_view source) {
  std::string contents;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof(chunk));
    const std::streamsize got = in.gcount();
    if (static_cast<int64_t>(contents.size()) + got > max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          std::string(source), ": more than the ", FormatBytes(max_bytes), " this reader accepts"));
    }
    contents.append(chunk, static_cast<size_t>(got));
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(std::string(source), ": read failed"));
  return contents;
}

}  // namespace tile_ir::io
