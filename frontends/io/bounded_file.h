// Reading user-given files with a bound: a path may name a FIFO, a device such as /dev/zero, a
// directory or a file of any size, and none of these may hang or exhaust the process. Every
// reader of user input (modules here, .npy arrays in tools/npy) goes through this.
#ifndef FRONTENDS_IO_BOUNDED_FILE_H_
#define FRONTENDS_IO_BOUNDED_FILE_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tile_ir::io {

// The largest module file (.tile, .tilepb, .json) or standard input read: far above any real
// module (the operator suite's largest is a few KiB), far below what exhausts a machine.
inline constexpr int64_t kMaxModuleBytes = int64_t{1} << 30;  // 1 GiB

// An open regular file of known size. Open never blocks (O_NONBLOCK, so a FIFO cannot hang it),
// refuses anything that is not a regular file, naming what it is (a directory, a FIFO, a
// character device, ...), and refuses a file larger than `max_bytes`. Every error starts with
// the path.
class BoundedFile {
 public:
  static absl::StatusOr<BoundedFile> Open(const std::string& path, int64_t max_bytes);
  BoundedFile(BoundedFile&& other) noexcept;
  BoundedFile& operator=(BoundedFile&& other) noexcept;
  BoundedFile(const BoundedFile&) = delete;
  BoundedFile& operator=(const BoundedFile&) = delete;
  ~BoundedFile();

  const std::string& path() const { return path_; }
  // The size fstat gave when the file was opened.
  int64_t size() const { return size_; }
  // Appends exactly `n` bytes from the current position to `out`; a file that ends sooner (it
  // shrank since it was opened) is an error.
  absl::Status Read(int64_t n, std::string* out);
  // Appends the rest of the file to `out`, refusing a file that grew past its opened size.
  absl::Status ReadRest(std::string* out);

 private:
  BoundedFile(std::string path, int fd, int64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}

  std::string path_;
  int fd_ = -1;
  int64_t size_ = 0;
  int64_t position_ = 0;
};

// The whole file at `path`, at most `max_bytes`, as BoundedFile reads it.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, int64_t max_bytes);

// The whole stream (standard input: no size to stat), refused once it passes `max_bytes`;
// errors start with `source`.
absl::StatusOr<std::string> ReadBoundedStream(std::istream& in, int64_t max_bytes,
                                              std::string_view source);

// "1 GiB", "512 MiB", "1000 bytes": a size for messages.
std::string FormatBytes(int64_t bytes);

}  // namespace tile_ir::io

#endif  // FRONTENDS_IO_BOUNDED_FILE_H_
