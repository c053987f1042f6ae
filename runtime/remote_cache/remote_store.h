// A remote key-value store under the local kernel cache, the only thing the
// cache (runtime/jit/remote_cache.h) knows of the server: get, put with a
// time to live, list by prefix, remove. Vendor-neutral; redis_store.h is the
// one implementation, open_remote_store.h picks it by URL scheme.
//
// The store moves bytes and trusts none of them: what a get returns is
// checked by the cache exactly as a local file is (context, length, HMAC).
// Every call is bounded in time (the implementation's timeouts); an error is
// a server that is unreachable or misbehaving, which the cache answers by
// going local for the rest of the process.
#ifndef RUNTIME_REMOTE_CACHE_REMOTE_STORE_H_
#define RUNTIME_REMOTE_CACHE_REMOTE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tile_ir::runtime::remote_cache {

struct RemoteValue {
  int64_t size = 0;   // the stored value's length
  std::string bytes;  // the value; empty when size is over the caller's bound (not fetched)
};

class RemoteStore {
 public:
  virtual ~RemoteStore() = default;

  // Where the store is, for messages: the URL without its password.
  virtual const std::string& name() const = 0;

  // The value of `key`, nullopt when absent. A value longer than `max_bytes`
  // is not transferred: its size alone comes back.
  virtual absl::StatusOr<std::optional<RemoteValue>> Get(std::string_view key,
                                                         int64_t max_bytes) = 0;
  // How long a stored or touched key lives (what the URL or the default set).
  virtual absl::Duration ttl() const = 0;

  // Stores `value` under `key`, replacing it, to expire after ttl().
  virtual absl::Status Put(std::string_view key, std::string_view value) = 0;
  // Restarts `key`'s time to live (a hit keeps a used entry alive).
  virtual absl::Status Touch(std::string_view key) = 0;
  // Every key beginning with `prefix`, in no particular order.
  virtual absl::StatusOr<std::vector<std::string>> Keys(std::string_view prefix) = 0;
  // The time `key` has left; nullopt when it never expires or is absent.
  virtual absl::StatusOr<std::optional<absl::Duration>> TimeToLive(std::string_view key) = 0;
  // Removes the keys; how many existed.
  virtual absl::StatusOr<int64_t> Remove(const std::vector<std::string>& keys) = 0;
};

}  // namespace tile_ir::runtime::remote_cache

#endif  // RUNTIME_REMOTE_CACHE_REMOTE_STORE_H_
