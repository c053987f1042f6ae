// RemoteStore on a Redis server through hiredis (Debian's libhiredis-dev):
//
//   redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ttl=SECONDS&timeout_ms=N&connect_timeout_ms=N]
//
// PORT defaults to 6379, DB to 0, ttl to 7 days, timeout_ms (each command,
// from sending it to its whole reply) to 2000 and connect_timeout_ms to 1000.
// One connection, made on first use and serialized by a mutex; after an
// error it is dropped (the next call reconnects). Replies are bounded: a get
// asks the length first (STRLEN) and fetches at most the caller's bound
// (GETRANGE), and no reply may grow past that bound plus a little while it is
// read, so a hostile or broken server can make calls fail, never hang or
// fill memory with one string.
#ifndef RUNTIME_REMOTE_CACHE_REDIS_STORE_H_
#define RUNTIME_REMOTE_CACHE_REDIS_STORE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/remote_cache/remote_store.h"

struct redisContext;
struct redisReply;

namespace tile_ir::runtime::remote_cache {

struct RedisAddress {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string user;  // empty: AUTH with the password alone (Redis before 6, or "default")
  std::optional<std::string> password;
  absl::Duration ttl = absl::Hours(24 * 7);
  absl::Duration timeout = absl::Milliseconds(2000);
  absl::Duration connect_timeout = absl::Milliseconds(1000);
  std::string name;  // the URL without the password, for messages
};

// InvalidArgument naming the URL and what is wrong with it.
absl::StatusOr<RedisAddress> ParseRedisUrl(std::string_view url);

class RedisStore : public RemoteStore {
 public:
  explicit RedisStore(RedisAddress address);
  ~RedisStore() override;

  const std::string& name() const override { return address_.name; }
  absl::Duration ttl() const override { return address_.ttl; }
  absl::StatusOr<std::optional<RemoteValue>> Get(std::string_view key, int64_t max_bytes) override;
  absl::Status Put(std::string_view key, std::string_view value) override;
  absl::Status Touch(std::string_view key) override;
  absl::StatusOr<std::vector<std::string>> Keys(std::string_view prefix) override;
  absl::StatusOr<std::optional<absl::Duration>> TimeToLive(std::string_view key) override;
  absl::StatusOr<int64_t> Remove(const std::vector<std::string>& keys) override;

 private:
  struct ReplyDeleter {
    void operator()(redisReply* reply) const;
  };
  using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

  // Sends one command and reads its reply within address_.timeout, the reply
  // at most `max_reply_bytes`; an error reply is an error. Callers hold mutex_.
  absl::StatusOr<Reply> Command(const std::vector<std::string_view>& args, int64_t max_reply_bytes);
  absl::Status Connect();
  absl::Status Drop(absl::Status why);  // closes the connection, returns `why`

  RedisAddress address_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;
};

}  // namespace tile_ir::runtime::remote_cache

#endif  // RUNTIME_REMOTE_CACHE_REDIS_STORE_H_
