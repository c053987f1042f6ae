// Files and folders the kernel cache trusts: those of the current (effective)
// user that no one else can write, reached relative to a folder's descriptor
// and never through a symbolic link. The threat is another user who could
// once write the cache folder (issue 37; runtime/README.md, "Trust"): what
// it planted there must be refused before it is read, run or written through.
// Messages name the tile cache, the one user of these functions.
#ifndef RUNTIME_JIT_OWNED_FILES_H_
#define RUNTIME_JIT_OWNED_FILES_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tile_ir::runtime::jit {

// How temporary files begin (TempName), so that listings can skip them.
inline constexpr absl::string_view kTempPrefix = ".tmp-";

// InternalError "tile cache: <what> <path>: <strerror(errno)>".
absl::Status ErrnoError(absl::string_view what, const std::string& path);

// Closes a descriptor when it goes out of scope, unless released.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser();
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// What a file of `mode` is when it is not a regular file ("a FIFO", "a
// symbolic link (never followed)"), for messages.
std::string FileKind(mode_t mode);

// Why a file with `info` (from fstat on an open descriptor, so that it is the
// file that will be read, not one swapped in after a check by name) is not
// one to trust, or nullopt. It must be a regular file (a device or FIFO could
// hang or feed endless bytes), the user's own (another user's bytes are
// theirs to choose), and not writable by group or others (they could change
// it after the check); a `secret` may not even be readable by them (a key
// others can read authenticates nothing).
std::optional<std::string> WhyUntrusted(const struct stat& info, bool secret);

// The bytes of the file `name` in `folder_fd`, opened with O_NOFOLLOW (a link
// would reach whatever file the attacker chose) and O_NONBLOCK (opening a
// FIFO would wait for a writer), and read only once WhyUntrusted finds nothing
// and fstat gives at most `max_bytes` (a huge file would exhaust memory); no
// read goes past that size (a file still growing is refused). NotFound when
// missing; otherwise an error whose message is the reason alone, for the
// caller to put beside the path.
absl::StatusOr<std::string> ReadOwnedFile(int folder_fd, const std::string& name, int64_t max_bytes,
                                          bool secret);

// A descriptor of the folder `name` in `parent_fd` (AT_FDCWD: a path), once
// fstat shows it is the user's and not writable by group or others: anyone
// who can write a folder can plant, replace or remove its files. Made with
// mode 0700 when `create`. With `follow_own_link`, a symbolic link the user
// made is followed (its target is checked); any other link is refused, as
// one planted in a folder once shared could lead anywhere. `path` and `what`
// name the folder in messages: NotFound when missing, PermissionDenied
// naming why and what to do when refused. Later opens relative to the
// descriptor reach the folder that was checked, even if its path is swapped.
absl::StatusOr<int> OpenOwnedFolder(int parent_fd, const std::string& name, const std::string& path,
                                    absl::string_view what, bool create, bool follow_own_link);

// Writes `bytes` to a new file `name` in `folder_fd` (`path` in messages):
// mode 0600, O_EXCL (never over an existing file, nor through a link), and
// flushed with fsync before returning, so that a rename or link that follows
// never leaves a whole-looking name over a short file after a crash. Removes
// the file on failure.
absl::Status WriteNewFile(int folder_fd, const std::string& name, const std::string& path,
                          std::string_view bytes);

// A name beginning with kTempPrefix, unique among this process's calls and
// other processes' (it holds the pid): `stem` tells what it will become.
std::string TempName(absl::string_view stem);

// The names in the folder `folder_fd` (`path` in messages), "." and ".."
// aside; nothing is opened or followed.
absl::StatusOr<std::vector<std::string>> FolderNames(int folder_fd, const std::string& path);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_OWNED_FILES_H_
