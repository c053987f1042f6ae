// The remote kernel cache against Debian's redis-server, started by the test
// on a free loopback port (no persistence): a process on another cache folder
// gets its kernel from Redis, planted entries are refused and compiled, a
// server killed mid-run costs one warning, and tile-cache lists, verifies and
// clears the remote level. Skipped, saying so, where redis-server is absent.
#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "ops/op_suite.h"
#include "runtime/host_buffer.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specializer.h"

namespace tile_ir::runtime::jit {
namespace {

namespace fs = std::filesystem;

struct ProcessRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

ProcessRun Shell(const std::string& command) {
  ProcessRun run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string Runfile(const std::string& path) {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/tile/", path);
}

std::string RedisServerPath() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
    const std::string path = absl::StrCat(dir, "/redis-server");
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

class RemoteCacheRedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string server = RedisServerPath();
    if (server.empty()) {
      GTEST_SKIP() << "redis-server not found (Debian's redis-server package; scripts/setup.sh "
                      "installs it, and CI runs these tests)";
    }
    dir_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/redis");
    for (int attempt = 0; attempt < 3 && redis_ == nullptr; ++attempt) {
      port_ = FreeLoopbackPort();
      StartServer(server);
    }
    ASSERT_NE(redis_, nullptr) << "redis-server did not start; see " << dir_ << "/redis/log";
    url_ = absl::StrCat("redis://127.0.0.1:", port_, "/0");
    key_ = dir_ + "/user/remote-cache.key";
  }

  void StartServer(const std::string& server) {
    pid_ = fork();
    if (pid_ == 0) {
      const std::string port = absl::StrCat(port_), folder = dir_ + "/redis";
      const std::string log = folder + "/log";
      execl(server.c_str(), server.c_str(), "--port", port.c_str(), "--bind", "127.0.0.1", "--save",
            "", "--appendonly", "no", "--dir", folder.c_str(), "--logfile", log.c_str(),
            "--daemonize", "no", static_cast<char*>(nullptr));
      _exit(127);
    }
    const timeval timeout = {1, 0};
    for (int i = 0; i < 100; ++i) {  // up to 5 s
      usleep(50000);
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) break;  // died: the port was taken
      redisContext* context = redisConnectWithTimeout("127.0.0.1", port_, timeout);
      if (context != nullptr && context->err == 0) {
        redis_ = context;
        return;
      }
      if (context != nullptr) redisFree(context);
    }
    StopServer();
  }

  void StopServer() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

  void TearDown() override {
    if (redis_ != nullptr) redisFree(redis_);
    StopServer();
  }

  // The environment of a process of this user: its own cache folder, the shared server.
  std::string Env(const std::string& folder, const std::string& key = "") {
    return absl::StrCat("TILE_CACHE_DIR=", dir_, "/", folder, " TILE_CACHE_URL=", url_,
                        " TILE_CACHE_REMOTE_KEY=", key.empty() ? key_ : key, " ");
  }
  ProcessRun Probe(const std::string& folder, const std::string& key = "") {
    return Shell(Env(folder, key) + Runfile("runtime/jit/testing/jit_probe"));
  }
  ProcessRun TileCache(const std::string& command) {
    return Shell(absl::StrCat("TILE_CACHE_URL=", url_, " TILE_CACHE_REMOTE_KEY=", key_, " ",
                              Runfile("tools/tile_cache/tile-cache"), " ", command));
  }

  std::vector<std::string> RemoteKeys() {
    std::vector<std::string> keys;
    auto* reply = static_cast<redisReply*>(redisCommand(redis_, "KEYS tile:kernel:*"));
    for (size_t i = 0; reply != nullptr && i < reply->elements; ++i) {
      keys.emplace_back(reply->element[i]->str, reply->element[i]->len);
    }
    if (reply != nullptr) freeReplyObject(reply);
    return keys;
  }
  std::string RemoteGet(const std::string& key) {
    auto* reply = static_cast<redisReply*>(redisCommand(redis_, "GET %b", key.data(), key.size()));
    std::string value = reply != nullptr && reply->type == REDIS_REPLY_STRING
                            ? std::string(reply->str, reply->len)
                            : "";
    if (reply != nullptr) freeReplyObject(reply);
    return value;
  }
  void RemoteSet(const std::string& key, const std::string& value) {
    auto* reply = static_cast<redisReply*>(
        redisCommand(redis_, "SET %b %b", key.data(), key.size(), value.data(), value.size()));
    ASSERT_NE(reply, nullptr);
    freeReplyObject(reply);
  }

  std::string dir_, url_, key_;
  int port_ = 0;
  pid_t pid_ = -1;
  redisContext* redis_ = nullptr;
};

TEST_F(RemoteCacheRedisTest, ASecondProcessOnAnotherFolderGetsTheKernelFromRedis) {
  const std::string run =
      absl::StrCat(Runfile("tools/tile_run/tile-run"), " add_f32 --check --seed=3");
  ProcessRun first = Shell(Env("a") + run);
  ASSERT_EQ(first.exit_code, 0) << first.out;
  EXPECT_TRUE(absl::StrContains(first.out, "cache   compiled, key ")) << first.out;
  ASSERT_EQ(RemoteKeys().size(), 1u);
  EXPECT_TRUE(fs::exists(key_));  // the user's remote key, made on first use
  EXPECT_EQ(fs::status(key_).permissions() & (fs::perms::group_all | fs::perms::others_all),
            fs::perms::none);

  ProcessRun second = Shell(Env("b") + run);
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_TRUE(absl::StrContains(second.out, "cache   remote, key ")) << second.out;
  EXPECT_TRUE(absl::StrContains(second.out, "PASS")) << second.out;
  EXPECT_FALSE(absl::StrContains(second.out, "warning")) << second.out;
  ProcessRun third = Shell(Env("b") + run);  // the remote hit was stored in b's folder
  EXPECT_TRUE(absl::StrContains(third.out, "cache   disk, key ")) << third.out;

  ProcessRun probe = Probe("c");  // the JIT's own path, a new folder again
  ASSERT_EQ(probe.exit_code, 0) << probe.out;
  EXPECT_TRUE(absl::StrContains(probe.out, "source=remote")) << probe.out;
  EXPECT_TRUE(absl::StrContains(probe.out, "compiles=0 disk_hits=0 refused=0 remote_hits=1"))
      << probe.out;
}

TEST_F(RemoteCacheRedisTest, PlantedEntriesAreRefusedNamingTheKeyAndCompiled) {
  ASSERT_EQ(Probe("seed").exit_code, 0);
  std::vector<std::string> keys = RemoteKeys();
  ASSERT_EQ(keys.size(), 1u);
  const std::string name = keys[0];
  const std::string good = RemoteGet(name);
  ASSERT_FALSE(good.empty());
  std::string bad_mac = good;
  const size_t mac = bad_mac.rfind("hmac-sha256 ") + 12;
  bad_mac[mac] = bad_mac[mac] == '0' ? '1' : '0';
  std::string other_arch = good;
  const size_t arch = other_arch.find("\narch=");
  ASSERT_NE(arch, std::string::npos);
  other_arch = absl::StrCat(other_arch.substr(0, arch), "\narch=sm_90a",
                            other_arch.substr(other_arch.find('\n', arch + 1)));
  struct Plant {
    std::string what, bytes, why;
  };
  const std::vector<Plant> plants = {
      {"wrong HMAC", bad_mac, "not written under this user's remote cache key"},
      {"wrong context", other_arch, "built for another context (arch: the entry has 'sm_90a'"},
      {"truncated", good.substr(0, good.size() - 1), "damaged ("},
      {"not an entry", "#!/bin/sh\nrm -rf ~\n", "damaged ("},
  };
  int folder = 0;
  for (const Plant& plant : plants) {
    RemoteSet(name, plant.bytes);
    ProcessRun run = Probe(absl::StrCat("fresh", folder++));
    ASSERT_EQ(run.exit_code, 0) << plant.what << ": " << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, "source=compiled")) << plant.what << ": " << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, "refused=1")) << plant.what << ": " << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, absl::StrCat("remote cache entry ", name)))
        << plant.what << ": " << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, plant.why)) << plant.what << ": " << run.out;
    EXPECT_NE(RemoteGet(name), plant.bytes) << plant.what << ": the compile wrote it back";
  }
  ProcessRun verify = TileCache("verify --remote");
  EXPECT_EQ(verify.exit_code, 0) << verify.out;

  // Over the local bound (256 MiB), made on the server without sending it: refused by its
  // length alone, never fetched.
  auto* grown =
      static_cast<redisReply*>(redisCommand(redis_, "SETRANGE %s 268435456 x", name.c_str()));
  ASSERT_NE(grown, nullptr);
  freeReplyObject(grown);
  ProcessRun oversized = Probe("fresh-oversized");
  ASSERT_EQ(oversized.exit_code, 0) << oversized.out;
  EXPECT_TRUE(absl::StrContains(oversized.out, "source=compiled")) << oversized.out;
  EXPECT_TRUE(absl::StrContains(oversized.out, "268435457 bytes, over the limit of 268435456"))
      << oversized.out;

  // Another user's key file: their entries are not this user's.
  ProcessRun other = Probe("fresh-other-user", dir_ + "/other-user/remote-cache.key");
  ASSERT_EQ(other.exit_code, 0) << other.out;
  EXPECT_TRUE(absl::StrContains(other.out, "source=compiled")) << other.out;
  EXPECT_TRUE(absl::StrContains(other.out, "not written under this user's remote cache key"))
      << other.out;
}

TEST_F(RemoteCacheRedisTest, AServerKilledMidRunCostsOneWarningAndNoFailedCompile) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  ASSERT_TRUE(backend.ok()) << backend.status();
  KernelCacheOptions options;
  options.directory = dir_ + "/local";
  options.remote_url = url_;
  options.remote_key_path = key_;
  std::vector<std::string> warnings;
  options.warn = [&](const std::string& message) { warnings.push_back(message); };
  KernelCache cache(**backend, options);
  const ops::OpCase* op = ops::FindOp("add_f32");
  ASSERT_NE(op, nullptr);
  KernelTemplate t;
  t.kernel_name = "add_f32";
  t.all_static = true;  // each shape its own kernel, its own key
  t.build = [op](const TemplateArgs&) -> absl::StatusOr<Module> {
    absl::StatusOr<Kernel> kernel = op->build();
    if (!kernel.ok()) return kernel.status();
    return Module{kIrVersion, "remote_cache_redis_test", "0", {*kernel}};
  };
  JitFunction add(t, {}, cache);
  const auto call = [&](int64_t m, int64_t n) -> absl::StatusOr<CacheSource> {
    HostBuffer a(kF32, {m, n}), b(kF32, {m, n}), c(kF32, {m, n});
    for (int64_t i = 0; i < m * n; ++i) {
      a.Set(i, static_cast<double>(i % 7));
      b.Set(i, 1.0);
    }
    std::vector<KernelArg> args = {KernelArg::Tensor(a.AsDLTensor()),
                                   KernelArg::Tensor(b.AsDLTensor()),
                                   KernelArg::Tensor(c.AsDLTensor())};
    CacheSource source;
    absl::StatusOr<LoadedKernel*> kernel = add.Specialize(args, &source);
    if (!kernel.ok()) return kernel.status();
    if (absl::Status status = (*kernel)->Launch(args); !status.ok()) return status;
    for (int64_t i = 0; i < m * n; ++i) {
      if (c.Get(i) != a.Get(i) + 1.0) return absl::InternalError("wrong result");
    }
    return source;
  };
  absl::StatusOr<CacheSource> first = call(8, 16);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, CacheSource::kCompiled);
  EXPECT_EQ(RemoteKeys().size(), 1u);  // written back

  StopServer();
  const absl::Time start = absl::Now();
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{9, 16}, {10, 16}, {11, 16}}) {
    absl::StatusOr<CacheSource> source = call(m, n);
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_EQ(*source, CacheSource::kCompiled);
  }
  ASSERT_EQ(warnings.size(), 1u) << absl::StrJoin(warnings, "\n");
  EXPECT_TRUE(absl::StrContains(warnings[0], "remote kernel cache " + url_ + " unavailable"))
      << warnings[0];
  EXPECT_TRUE(absl::StrContains(warnings[0], "local cache only for the rest of this process"))
      << warnings[0];
  EXPECT_FALSE(cache.remote()->available());
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));  // three compiles, no waits on a server
  EXPECT_EQ(cache.stats().compiles, 4);
}

TEST_F(RemoteCacheRedisTest, AnUnreachableServerIsOneWarningForAProcess) {
  StopServer();  // nothing listens on the port now
  ProcessRun run = Probe("a");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(absl::StrContains(run.out, "source=compiled")) << run.out;
  EXPECT_EQ(Count(run.out, "tile: warning: remote kernel cache"), 1) << run.out;
  EXPECT_TRUE(absl::StrContains(run.out, "Connection refused")) << run.out;
}

TEST_F(RemoteCacheRedisTest, TileCacheListsVerifiesAndClearsTheRemoteLevel) {
  ASSERT_EQ(Probe("a").exit_code, 0);
  ASSERT_EQ(Shell(Env("a") + Runfile("runtime/jit/testing/jit_probe") + " --static").exit_code, 0);
  RemoteSet("someone-elses:key", "kept");  // not ours: clear leaves it
  ProcessRun ls = TileCache("ls --remote");
  ASSERT_EQ(ls.exit_code, 0) << ls.out;
  EXPECT_TRUE(absl::StrContains(ls.out, "2 entries")) << ls.out;
  EXPECT_TRUE(absl::StrContains(ls.out, "add_f32")) << ls.out;
  EXPECT_TRUE(absl::StrContains(ls.out, "on " + url_)) << ls.out;
  // The default time to live, 7 days (6d once a second has passed).
  EXPECT_TRUE(absl::StrContains(ls.out, " 7d\n") || absl::StrContains(ls.out, " 6d\n")) << ls.out;
  ProcessRun verify = TileCache("verify --remote");
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "the remote cache is consistent")) << verify.out;

  const std::vector<std::string> keys = RemoteKeys();
  ASSERT_EQ(keys.size(), 2u);
  const std::string good = RemoteGet(keys[0]);
  RemoteSet(keys[0], good.substr(0, good.size() - 10));
  RemoteSet(keys[1], good);  // a whole entry under another key
  verify = TileCache("verify --remote");
  EXPECT_EQ(verify.exit_code, 1) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "2 bad")) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "damaged")) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "not to its name")) << verify.out;
  ProcessRun foreign =
      Shell(absl::StrCat(Runfile("tools/tile_cache/tile-cache"), " verify --remote-url=", url_,
                         " --remote-key=", dir_, "/nobody/remote-cache.key"));
  EXPECT_EQ(foreign.exit_code, 1) << foreign.out;
  EXPECT_TRUE(absl::StrContains(foreign.out, "not authenticated: no remote key file"))
      << foreign.out;

  ProcessRun clear = TileCache("clear --remote");
  ASSERT_EQ(clear.exit_code, 0) << clear.out;
  EXPECT_TRUE(absl::StrContains(clear.out, "removed 2 entries from " + url_)) << clear.out;
  EXPECT_TRUE(RemoteKeys().empty());
  EXPECT_EQ(RemoteGet("someone-elses:key"), "kept");
  EXPECT_TRUE(absl::StrContains(TileCache("ls --remote").out, "0 entries")) << "after clear";
  ProcessRun older = TileCache("clear --remote --older-than=7d");
  EXPECT_EQ(older.exit_code, 2) << older.out;
}

}  // namespace
}  // namespace tile_ir::runtime::jit
