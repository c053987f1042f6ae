// The remote store a URL names: redis:// is the one scheme today
// (redis_store.h). Where the kernel cache's TILE_CACHE_URL becomes a store.
#ifndef RUNTIME_REMOTE_CACHE_OPEN_REMOTE_STORE_H_
#define RUNTIME_REMOTE_CACHE_OPEN_REMOTE_STORE_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/remote_cache/remote_store.h"

namespace tile_ir::runtime::remote_cache {

// Parses the URL and makes the store; nothing is connected yet (the first
// call connects). InvalidArgument naming the URL when it does not parse or
// names another scheme.
absl::StatusOr<std::unique_ptr<RemoteStore>> OpenRemoteStore(std::string_view url);

}  // namespace tile_ir::runtime::remote_cache

#endif  // RUNTIME_REMOTE_CACHE_OPEN_REMOTE_STORE_H_
