// The per-user secret that authenticates cache entries, kept in a file of the
// user's that only the user can read: the disk cache's folder `key`, and the
// remote level's key file (remote_cache.h), which several cache folders, and
// users who mean to, can share.
#ifndef RUNTIME_JIT_SECRET_FILE_H_
#define RUNTIME_JIT_SECRET_FILE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/jit/cache_entry.h"

namespace tile_ir::runtime::jit {

// The secret in the file `name` of the checked folder `folder_fd` (`directory`
// in messages). When missing and `create`, 32 random bytes are written aside
// and linked into place without replacing one a racing process made first,
// then read back, so that every process agrees on one secret; nullopt when
// missing otherwise. PermissionDenied naming the file and what to do when it
// is not a regular file of the user's with no group or other permission, or
// not 32 bytes.
absl::StatusOr<std::optional<EntrySecret>> ReadOrCreateSecret(int folder_fd,
                                                              const std::string& directory,
                                                              const std::string& name, bool create);

// The same for a path: its folder is checked as the cache folder is (the
// user's, not writable by others; made 0700, its parents as usual, when
// `create`).
absl::StatusOr<std::optional<EntrySecret>> ReadOrCreateSecretFile(const std::string& path,
                                                                  bool create);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_SECRET_FILE_H_
