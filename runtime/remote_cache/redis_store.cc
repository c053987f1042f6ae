// RemoteStore over hiredis's blocking API, with a deadline per command: the
// reply is read a buffer at a time with the socket's timeout set to the time
// left, and its size is checked as it grows.
#include "runtime/remote_cache/redis_store.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tile_ir::runtime::remote_cache {
namespace {

// What a reply may carry besides the value a call bounds (framing, a SCAN page's cursor).
constexpr int64_t kReplySlack = 4096;
constexpr int64_t kSmallReply = 64 * 1024;
constexpr int64_t kScanPageBytes = int64_t{16} << 20;

absl::Status BadUrl(absl::string_view url, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("remote kernel cache: bad URL '", url, "': ", why,
                   " (expected redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ttl=SECONDS&timeout_ms=N"
                   "&connect_timeout_ms=N])"));
}

bool ParsePositive(absl::string_view text, int64_t limit, int64_t* value) {
  return absl::SimpleAtoi(text, value) && *value > 0 && *value <= limit;
}

timeval SocketTimeout(absl::Duration duration) {
  return absl::ToTimeval(std::max(duration, absl::Milliseconds(1)));  // zero would mean forever
}

// Escapes SCAN's glob characters, so that a prefix matches only itself.
std::string GlobPrefix(absl::string_view prefix) {
  std::string pattern;
  for (char c : prefix) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') pattern.push_back('\\');
    pattern.push_back(c);
  }
  pattern.push_back('*');
  return pattern;
}

absl::string_view ReplyText(const redisReply& reply) {
  return absl::string_view(reply.str, reply.len);
}

// hiredis writes with write(2): on a connection the server closed, that raises SIGPIPE,
// whose default action ends the process. Blocks it in this thread for the scope, and
// takes back one raised meanwhile (write then fails with EPIPE, an error like any other).
class SigpipeBlocker {
 public:
  SigpipeBlocker() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocker() {
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec now = {0, 0};
        sigtimedwait(&pipe_, nullptr, &now);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

}  // namespace

absl::StatusOr<RedisAddress> ParseRedisUrl(std::string_view url_text) {
  const absl::string_view url(url_text.data(), url_text.size());
  constexpr absl::string_view kScheme = "redis://";
  if (!absl::StartsWith(url, kScheme)) return BadUrl(url, "not redis://");
  RedisAddress address;
  absl::string_view rest = url.substr(kScheme.size());
  absl::string_view query;
  if (size_t q = rest.find('?'); q != absl::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  absl::string_view path;
  if (size_t slash = rest.find('/'); slash != absl::string_view::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  std::string userinfo;
  if (size_t at = rest.rfind('@'); at != absl::string_view::npos) {
    userinfo = std::string(rest.substr(0, at));
    rest = rest.substr(at + 1);
    const size_t colon = userinfo.find(':');
    if (colon == std::string::npos) return BadUrl(url, "a user without ':PASSWORD'");
    address.user = userinfo.substr(0, colon);
    address.password = userinfo.substr(colon + 1);
  }
  absl::string_view host = rest;
  if (size_t colon = rest.rfind(':');
      colon != absl::string_view::npos && !absl::EndsWith(rest, "]")) {
    host = rest.substr(0, colon);
    int64_t port = 0;
    if (!ParsePositive(rest.substr(colon + 1), 65535, &port)) return BadUrl(url, "bad port");
    address.port = static_cast<int>(port);
  }
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);  // an IPv6 literal
  }
  if (host.empty()) return BadUrl(url, "no host");
  address.host = std::string(host);
  if (!path.empty()) {
    int64_t db = 0;
    if (!absl::SimpleAtoi(path, &db) || db < 0 || db > 1000000) {
      return BadUrl(url, "the path must be a database number");
    }
    address.db = static_cast<int>(db);
  }
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(pair, absl::MaxSplits('=', 1));
    int64_t value = 0;
    if (!ParsePositive(kv.second, int64_t{1} << 40, &value)) {
      return BadUrl(url, absl::StrCat("'", kv.first, "' needs a positive integer"));
    }
    if (kv.first == "ttl") {
      address.ttl = absl::Seconds(value);
    } else if (kv.first == "timeout_ms") {
      address.timeout = absl::Milliseconds(value);
    } else if (kv.first == "connect_timeout_ms") {
      address.connect_timeout = absl::Milliseconds(value);
    } else {
      return BadUrl(url, absl::StrCat("unknown option '", kv.first, "'"));
    }
  }
  address.name = absl::StrCat(
      "redis://", address.password ? absl::StrCat(address.user, ":***@") : "",
      absl::StrContains(address.host, ':') ? absl::StrCat("[", address.host, "]") : address.host,
      ":", address.port, "/", address.db);
  return address;
}

void RedisStore::ReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

RedisStore::RedisStore(RedisAddress address) : address_(std::move(address)) {}

RedisStore::~RedisStore() {
  if (context_ != nullptr) redisFree(context_);
}

absl::Status RedisStore::Drop(absl::Status why) {
  if (context_ != nullptr) redisFree(context_);
  context_ = nullptr;
  return why;
}

absl::Status RedisStore::Connect() {
  if (context_ != nullptr) return absl::OkStatus();
  redisContext* context = redisConnectWithTimeout(address_.host.c_str(), address_.port,
                                                  SocketTimeout(address_.connect_timeout));
  if (context == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(address_.name, ": out of memory"));
  }
  context_ = context;
  if (context->err != 0) {
    return Drop(absl::UnavailableError(
        absl::StrCat("cannot connect to ", address_.name, ": ", context->errstr)));
  }
  if (address_.password) {
    std::vector<std::string_view> auth = {"AUTH"};
    if (!address_.user.empty()) auth.push_back(address_.user);
    auth.push_back(*address_.password);
    if (absl::StatusOr<Reply> reply = Command(auth, kSmallReply); !reply.ok()) {
      return Drop(reply.status());
    }
  }
  if (address_.db != 0) {
    const std::string db = absl::StrCat(address_.db);
    if (absl::StatusOr<Reply> reply = Command({"SELECT", db}, kSmallReply); !reply.ok()) {
      return Drop(reply.status());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<RedisStore::Reply> RedisStore::Command(const std::vector<std::string_view>& args,
                                                      int64_t max_reply_bytes) {
  if (absl::Status connected = Connect(); !connected.ok()) return connected;
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (std::string_view arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  const std::string what = absl::StrCat(address_.name, " (", std::string(args[0]), ")");
  if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(),
                             lengths.data()) != REDIS_OK) {
    return Drop(absl::InternalError(absl::StrCat(what, ": ", context_->errstr)));
  }
  const absl::Time deadline = absl::Now() + address_.timeout;
  const auto io_error = [&](absl::string_view doing) {
    if (absl::Now() >= deadline) {
      return Drop(absl::DeadlineExceededError(
          absl::StrCat(what, ": no ", doing, " within ", absl::FormatDuration(address_.timeout))));
    }
    return Drop(absl::UnavailableError(absl::StrCat(what, ": ", doing, ": ", context_->errstr)));
  };
  for (int done = 0; !done;) {
    redisSetTimeout(context_, SocketTimeout(deadline - absl::Now()));
    SigpipeBlocker no_sigpipe;
    if (redisBufferWrite(context_, &done) != REDIS_OK) return io_error("sending the command");
  }
  void* raw = nullptr;
  for (;;) {
    if (redisGetReplyFromReader(context_, &raw) != REDIS_OK) {
      return Drop(
          absl::DataLossError(absl::StrCat(what, ": not a Redis reply (", context_->errstr, ")")));
    }
    if (raw != nullptr) break;
    const redisReader& reader = *context_->reader;
    if (static_cast<int64_t>(reader.len - reader.pos) > max_reply_bytes + kReplySlack) {
      return Drop(absl::DataLossError(
          absl::StrCat(what, ": the reply grows past ", max_reply_bytes, " bytes")));
    }
    if (absl::Now() >= deadline) return io_error("whole reply");
    redisSetTimeout(context_, SocketTimeout(deadline - absl::Now()));
    if (redisBufferRead(context_) != REDIS_OK) return io_error("reply");
  }
  Reply reply(static_cast<redisReply*>(raw));
  if (reply->type == REDIS_REPLY_ERROR) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": the server answers '", ReplyText(*reply), "'"));
  }
  return reply;
}

namespace {

absl::Status Unexpected(absl::string_view name, absl::string_view command) {
  return absl::DataLossError(
      absl::StrCat(name, " (", command, "): an unexpected reply type (is it a Redis server?)"));
}

}  // namespace

absl::StatusOr<std::optional<RemoteValue>> RedisStore::Get(std::string_view key,
                                                           int64_t max_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  absl::StatusOr<Reply> length = Command({"STRLEN", key}, kSmallReply);
  if (!length.ok()) return length.status();
  if ((*length)->type != REDIS_REPLY_INTEGER) return Unexpected(address_.name, "STRLEN");
  if ((*length)->integer <= 0) return std::nullopt;  // absent (an empty value is no entry)
  RemoteValue value;
  value.size = (*length)->integer;
  if (value.size > max_bytes) return value;
  // The value may have changed since STRLEN: fetch at most one byte past the bound.
  const std::string end = absl::StrCat(max_bytes);
  absl::StatusOr<Reply> range = Command({"GETRANGE", key, "0", end}, max_bytes + 1);
  if (!range.ok()) return range.status();
  if ((*range)->type != REDIS_REPLY_STRING) return Unexpected(address_.name, "GETRANGE");
  value.size = static_cast<int64_t>((*range)->len);
  if (value.size == 0) return std::nullopt;  // removed meanwhile
  if (value.size <= max_bytes) value.bytes.assign((*range)->str, (*range)->len);
  return value;
}

absl::Status RedisStore::Put(std::string_view key, std::string_view value) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string seconds = absl::StrCat(absl::ToInt64Seconds(address_.ttl));
  absl::StatusOr<Reply> reply = Command({"SET", key, value, "EX", seconds}, kSmallReply);
  if (!reply.ok()) return reply.status();
  if ((*reply)->type != REDIS_REPLY_STATUS) return Unexpected(address_.name, "SET");
  return absl::OkStatus();
}

absl::Status RedisStore::Touch(std::string_view key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string seconds = absl::StrCat(absl::ToInt64Seconds(address_.ttl));
  absl::StatusOr<Reply> reply = Command({"EXPIRE", key, seconds}, kSmallReply);
  if (!reply.ok()) return reply.status();
  if ((*reply)->type != REDIS_REPLY_INTEGER) return Unexpected(address_.name, "EXPIRE");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> RedisStore::Keys(std::string_view prefix) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string pattern = GlobPrefix(absl::string_view(prefix.data(), prefix.size()));
  std::vector<std::string> keys;
  std::string cursor = "0";
  do {
    absl::StatusOr<Reply> reply =
        Command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}, kScanPageBytes);
    if (!reply.ok()) return reply.status();
    const redisReply& page = **reply;
    if (page.type != REDIS_REPLY_ARRAY || page.elements != 2 ||
        page.element[0]->type != REDIS_REPLY_STRING || page.element[1]->type != REDIS_REPLY_ARRAY) {
      return Unexpected(address_.name, "SCAN");
    }
    cursor = std::string(ReplyText(*page.element[0]));
    const redisReply& names = *page.element[1];
    for (size_t i = 0; i < names.elements; ++i) {
      if (names.element[i]->type != REDIS_REPLY_STRING) return Unexpected(address_.name, "SCAN");
      keys.emplace_back(ReplyText(*names.element[i]));
    }
  } while (cursor != "0");
  // SCAN may return a key twice (a rehash meanwhile).
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

absl::StatusOr<std::optional<absl::Duration>> RedisStore::TimeToLive(std::string_view key) {
  std::lock_guard<std::mutex> lock(mutex_);
  absl::StatusOr<Reply> reply = Command({"TTL", key}, kSmallReply);
  if (!reply.ok()) return reply.status();
  if ((*reply)->type != REDIS_REPLY_INTEGER) return Unexpected(address_.name, "TTL");
  if ((*reply)->integer < 0) return std::nullopt;
  return absl::Seconds((*reply)->integer);
}

absl::StatusOr<int64_t> RedisStore::Remove(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  constexpr size_t kBatch = 256;
  int64_t removed = 0;
  for (size_t start = 0; start < keys.size(); start += kBatch) {
    std::vector<std::string_view> args = {"DEL"};
    for (size_t i = start; i < std::min(keys.size(), start + kBatch); ++i) args.push_back(keys[i]);
    absl::StatusOr<Reply> reply = Command(args, kSmallReply);
    if (!reply.ok()) return reply.status();
    if ((*reply)->type != REDIS_REPLY_INTEGER) return Unexpected(address_.name, "DEL");
    removed += (*reply)->integer;
  }
  return removed;
}

}  // namespace tile_ir::runtime::remote_cache
