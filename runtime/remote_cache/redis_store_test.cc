// RedisStore without a Redis server: its URLs, and servers that are not
// there, say nothing, or say something that is not Redis's protocol, each an
// error within the timeout (never a hang). Real Redis: remote_cache_redis_test.
#include "runtime/remote_cache/redis_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace tile_ir::runtime::remote_cache {
namespace {

TEST(ParseRedisUrlTest, ReadsHostPortDatabaseAndOptions) {
  absl::StatusOr<RedisAddress> plain = ParseRedisUrl("redis://cache.example");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->host, "cache.example");
  EXPECT_EQ(plain->port, 6379);
  EXPECT_EQ(plain->db, 0);
  EXPECT_EQ(plain->ttl, absl::Hours(24 * 7));
  absl::StatusOr<RedisAddress> full =
      ParseRedisUrl("redis://alice:s3cret@10.0.0.5:7000/3?ttl=60&timeout_ms=250");
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->host, "10.0.0.5");
  EXPECT_EQ(full->port, 7000);
  EXPECT_EQ(full->db, 3);
  EXPECT_EQ(full->user, "alice");
  EXPECT_EQ(full->password, "s3cret");
  EXPECT_EQ(full->ttl, absl::Seconds(60));
  EXPECT_EQ(full->timeout, absl::Milliseconds(250));
  EXPECT_EQ(full->name, "redis://alice:***@10.0.0.5:7000/3");  // no password in messages
  absl::StatusOr<RedisAddress> v6 = ParseRedisUrl("redis://[::1]:6380/1");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 6380);
}

TEST(ParseRedisUrlTest, RefusesWhatItCannotRead) {
  for (const char* url :
       {"http://host:6379", "redis://", "redis://host:0", "redis://host:x/0", "redis://host/db",
        "redis://host/0?ttl=0", "redis://host/0?colour=red", "redis://user@host"}) {
    absl::StatusOr<RedisAddress> address = ParseRedisUrl(url);
    EXPECT_TRUE(absl::IsInvalidArgument(address.status())) << url;
    EXPECT_TRUE(absl::StrContains(address.status().message(), url)) << address.status();
  }
}

// A loopback listener whose connections get `reply` (nothing: they stay silent) once a
// command arrives.
class FakeServer {
 public:
  explicit FakeServer(std::string reply) : reply_(std::move(reply)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    socklen_t length = sizeof(address);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    listen(fd_, 4);
    thread_ = std::thread([this] {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      char buffer[4096];
      if (read(client, buffer, sizeof(buffer)) > 0 && !reply_.empty()) {
        (void)!write(client, reply_.data(), reply_.size());
      }
      while (!stop_) usleep(10000);
      close(client);
    });
  }
  ~FakeServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

RedisStore StoreAt(int port) {
  absl::StatusOr<RedisAddress> address =
      ParseRedisUrl(absl::StrCat("redis://127.0.0.1:", port, "/0?timeout_ms=300"));
  EXPECT_TRUE(address.ok());
  return RedisStore(*address);
}

TEST(RedisStoreTest, ARefusedConnectionIsUnavailable) {
  int port;
  {
    FakeServer closed("");  // a port that was free a moment ago
    port = closed.port();
  }
  RedisStore store = StoreAt(port);
  absl::StatusOr<std::optional<RemoteValue>> value = store.Get("k", 100);
  EXPECT_TRUE(absl::IsUnavailable(value.status())) << value.status();
  EXPECT_TRUE(absl::StrContains(value.status().message(), "cannot connect")) << value.status();
}

TEST(RedisStoreTest, ASilentServerTimesOut) {
  FakeServer silent("");
  RedisStore store = StoreAt(silent.port());
  const absl::Time start = absl::Now();
  absl::StatusOr<std::optional<RemoteValue>> value = store.Get("k", 100);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_TRUE(absl::IsDeadlineExceeded(value.status())) << value.status();
}

TEST(RedisStoreTest, GarbageIsNotARedisReply) {
  FakeServer http("HTTP/1.1 400 Bad Request\r\n\r\n");
  RedisStore store = StoreAt(http.port());
  absl::StatusOr<std::optional<RemoteValue>> value = store.Get("k", 100);
  EXPECT_TRUE(absl::IsDataLoss(value.status())) << value.status();
  EXPECT_TRUE(absl::StrContains(value.status().message(), "not a Redis reply")) << value.status();
}

TEST(RedisStoreTest, AnEndlessReplyIsCutOffAtItsBound) {
  // STRLEN answered with a huge bulk string whose bytes keep coming.
  FakeServer endless(absl::StrCat("$999999999\r\n", std::string(1 << 20, 'x')));
  RedisStore store = StoreAt(endless.port());
  absl::StatusOr<std::optional<RemoteValue>> value = store.Get("k", 100);
  EXPECT_TRUE(absl::IsDataLoss(value.status())) << value.status();
  EXPECT_TRUE(absl::StrContains(value.status().message(), "grows past")) << value.status();
}

}  // namespace
}  // namespace tile_ir::runtime::remote_cache
