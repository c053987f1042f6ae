// URL scheme to store.
#include "runtime/remote_cache/open_remote_store.h"

#include "absl/strings/str_cat.h"
#include "runtime/remote_cache/redis_store.h"

namespace tile_ir::runtime::remote_cache {

absl::StatusOr<std::unique_ptr<RemoteStore>> OpenRemoteStore(std::string_view url) {
  if (url.substr(0, 8) != "redis://") {
    return absl::InvalidArgumentError(absl::StrCat("remote kernel cache: unsupported URL '",
                                                   std::string(url),
                                                   "': this build knows redis://HOST:PORT/DB"));
  }
  absl::StatusOr<RedisAddress> address = ParseRedisUrl(url);
  if (!address.ok()) return address.status();
  return std::make_unique<RedisStore>(*std::move(address));
}

}  // namespace tile_ir::runtime::remote_cache
