// The secret files: read with the checks of owned_files.h, made once by
// whichever process gets there first.
#include "runtime/jit/secret_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "runtime/jit/owned_files.h"

namespace tile_ir::runtime::jit {
namespace {

// 32 random bytes from the kernel's generator.
absl::StatusOr<EntrySecret> RandomSecret() {
  EntrySecret secret;
  size_t got = 0;
  while (got < secret.size()) {
    const ssize_t n = getrandom(secret.data() + got, secret.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("cannot draw random bytes for the key of", "the cache");
    got += static_cast<size_t>(n);
  }
  return secret;
}

}  // namespace

absl::StatusOr<std::optional<EntrySecret>> ReadOrCreateSecret(int folder_fd,
                                                              const std::string& directory,
                                                              const std::string& name,
                                                              bool create) {
  const std::string path = absl::StrCat(directory, "/", name);
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<std::string> bytes = ReadOwnedFile(folder_fd, name, 64, /*secret=*/true);
    if (bytes.ok() && bytes->size() == EntrySecret().size()) {
      EntrySecret secret;
      std::copy(bytes->begin(), bytes->end(), secret.begin());
      return std::optional<EntrySecret>(secret);
    }
    if (bytes.ok() || !absl::IsNotFound(bytes.status())) {
      const std::string why = bytes.ok() ? absl::StrCat(bytes->size(), " bytes, not 32")
                                         : std::string(bytes.status().message());
      return absl::PermissionDeniedError(
          absl::StrCat("tile cache: refusing the key file ", path, ": ", why,
                       "; a key others could read or replace authenticates nothing: remove it (rm ",
                       path, "), and a new one is made and every entry rebuilt"));
    }
    if (!create) return std::optional<EntrySecret>();
    absl::StatusOr<EntrySecret> secret = RandomSecret();
    if (!secret.ok()) return secret.status();
    const std::string temp = TempName(name);
    absl::Status written = WriteNewFile(
        folder_fd, temp, absl::StrCat(directory, "/", temp),
        std::string_view(reinterpret_cast<const char*>(secret->data()), secret->size()));
    if (!written.ok()) return written;
    const bool linked = linkat(folder_fd, temp.c_str(), folder_fd, name.c_str(), 0) == 0;
    const int link_errno = errno;
    unlinkat(folder_fd, temp.c_str(), 0);
    if (!linked && link_errno != EEXIST) {
      errno = link_errno;
      return ErrnoError("cannot create the key file", path);
    }
  }
  return absl::InternalError(absl::StrCat("tile cache: the key file ", path, " keeps vanishing"));
}

absl::StatusOr<std::optional<EntrySecret>> ReadOrCreateSecretFile(const std::string& path,
                                                                  bool create) {
  const std::filesystem::path file(path);
  std::string directory = file.parent_path().string();
  if (directory.empty()) directory = ".";
  if (create) {
    std::error_code error;
    if (std::filesystem::path parent = file.parent_path().parent_path(); !parent.empty()) {
      std::filesystem::create_directories(parent, error);
    }
    if (error) {
      return absl::InternalError(
          absl::StrCat("tile cache: cannot create the folder of ", path, ": ", error.message()));
    }
  }
  absl::StatusOr<int> folder =
      OpenOwnedFolder(AT_FDCWD, directory, directory, "the key file's folder", create, true);
  if (!folder.ok()) {
    if (!create && absl::IsNotFound(folder.status())) return std::optional<EntrySecret>();
    return folder.status();
  }
  FdCloser closer(*folder);
  return ReadOrCreateSecret(*folder, directory, file.filename().string(), create);
}

}  // namespace tile_ir::runtime::jit
