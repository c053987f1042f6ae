// The attacks of issue 37 on the disk cache, the attacker a second uid
// (65534, nobody) in a forked child: a folder that is not the user's, files
// planted while the folder was once shared (0777, then fixed with chmod as
// the refusal says), entries written under another key, a bad key file. The
// victim's loads that could hang or exhaust memory run in a child bounded in
// time and address space, so that a regression fails instead of hanging.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/jit/cache_entry.h"
#include "runtime/jit/disk_cache.h"

namespace tile_ir::runtime::jit {
namespace {

constexpr uid_t kNobody = 65534;

// Whether this process may become uid 65534: root, outside a user namespace
// that maps root alone (as Bazel's linux-sandbox does; the test is tagged
// no-sandbox).
bool CanRunAsNobody() {
  if (geteuid() != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) _exit(setgid(kNobody) == 0 && setuid(kNobody) == 0 ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#define SKIP_UNLESS_ROOT()                                                                    \
  if (!CanRunAsNobody())                                                                      \
  GTEST_SKIP() << "needs root outside a user namespace, to run the attacker as a second uid " \
                  "(65534) and to give files to it"

std::string TempDir(const std::string& name) {
  std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/trust-" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

CacheContext Context() {
  CacheContext context;
  context.Set("kernel", "scale_add");
  context.Set("target", "cpu");
  context.Set("arch", "znver3");
  return context;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `attack` as uid and gid 65534 in a child; true when it returned true.
// The child reaches files only through descriptors the parent opened (its
// ancestors under TEST_TMPDIR need not be open to it).
bool AsNobody(const std::function<bool()>& attack) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(2);
    _exit(attack() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// `victim()` in a child with 10 seconds and 64 MiB of address space beyond
// what it starts with: its answer, or a line saying how it died.
std::string Bounded(const std::function<std::string()>& victim) {
  int fds[2];
  if (pipe(fds) != 0) return "no pipe";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(10);
    std::ifstream statm("/proc/self/statm");
    long pages = 0;
    statm >> pages;
    const rlim_t limit = static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) + (rlim_t{64} << 20);
    const rlimit bound = {limit, limit};
    setrlimit(RLIMIT_AS, &bound);
    const std::string answer = victim();
    (void)!write(fds[1], answer.data(), answer.size());
    _exit(0);
  }
  close(fds[1]);
  std::string answer;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) answer.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    return absl::StrCat("the victim died of signal ", WTERMSIG(status),
                        WTERMSIG(status) == SIGALRM ? " (hung)" : "");
  }
  return answer;
}

// A victim's cache whose folder was once shared (0777) and is now fixed
// (0700): `plant` runs as nobody with descriptors of the folder and locks/.
std::string PlantedThenFixed(const std::string& name,
                             const std::function<bool(int folder, int locks)>& plant) {
  const std::string dir = TempDir(name);
  { EXPECT_TRUE(DiskCache::Open(dir).ok()); }
  chmod(dir.c_str(), 0777);
  chmod((dir + "/locks").c_str(), 0777);
  const int folder = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  const int locks = open((dir + "/locks").c_str(), O_RDONLY | O_DIRECTORY);
  EXPECT_TRUE(AsNobody([&] { return plant(folder, locks); }));
  close(folder);
  close(locks);
  chmod(dir.c_str(), 0700);
  chmod((dir + "/locks").c_str(), 0700);
  return dir;
}

std::string Describe(const LoadResult& loaded) {
  const char* kinds[] = {"hit", "miss", "refused"};
  return absl::StrCat(kinds[static_cast<int>(loaded.kind)], ": ", loaded.warning, loaded.artifact);
}

std::string EntryName() { return Context().Key() + ".entry"; }

TEST(DiskCacheTrustTest, AFolderOwnedByAnotherUserIsRefused) {
  SKIP_UNLESS_ROOT();
  const std::string parent = TempDir("theirs");
  std::filesystem::create_directories(parent);
  chmod(parent.c_str(), 0777);
  const int parent_fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(AsNobody([&] { return mkdirat(parent_fd, "cache", 0755) == 0; }));
  close(parent_fd);
  for (bool existing : {false, true}) {
    absl::StatusOr<DiskCache> cache =
        existing ? DiskCache::OpenExisting(parent + "/cache") : DiskCache::Open(parent + "/cache");
    ASSERT_FALSE(cache.ok());
    EXPECT_EQ(cache.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_TRUE(absl::StrContains(cache.status().message(),
                                  absl::StrCat(parent,
                                               "/cache: it is owned by uid 65534, not by "
                                               "you (uid 0)")))
        << cache.status();
  }
  // Nothing was written there on the victim's behalf.
  EXPECT_FALSE(std::filesystem::exists(parent + "/cache/key"));
  EXPECT_FALSE(std::filesystem::exists(parent + "/cache/locks"));
}

TEST(DiskCacheTrustTest, AFolderWritableByGroupOrOthersIsRefused) {
  for (mode_t mode : {0770, 0707, 0777, 01777}) {
    SCOPED_TRACE(mode);
    const std::string dir = TempDir("writable");
    std::filesystem::create_directories(dir);
    chmod(dir.c_str(), mode);
    absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
    ASSERT_FALSE(cache.ok());
    EXPECT_EQ(cache.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_TRUE(absl::StrContains(cache.status().message(), "writable by group or others"))
        << cache.status();
    EXPECT_TRUE(absl::StrContains(cache.status().message(), "chmod go-w " + dir)) << cache.status();
  }
  // Its locks/ as well.
  const std::string dir = TempDir("writable-locks");
  ASSERT_TRUE(DiskCache::Open(dir).ok());
  chmod((dir + "/locks").c_str(), 0777);
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_FALSE(cache.ok());
  EXPECT_TRUE(absl::StrContains(cache.status().message(), dir + "/locks")) << cache.status();
}

TEST(DiskCacheTrustTest, NewFoldersAndTheKeyArePrivate) {
  const std::string dir = TempDir("private") + "/a/tile";
  ASSERT_TRUE(DiskCache::Open(dir).ok());
  struct stat info;
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((dir + "/locks").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((dir + "/key").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(info.st_size, 32);
  // OpenExisting creates nothing.
  const std::string missing = TempDir("missing");
  absl::StatusOr<DiskCache> none = DiskCache::OpenExisting(missing);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(none.status().message(), missing + " does not exist"));
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// The attacker copied a genuine entry (readable while the folder was
// shared) under its own name: the bytes authenticate, the owner does not.
TEST(DiskCacheTrustTest, AnEntryOwnedByAnotherUserIsRefused) {
  SKIP_UNLESS_ROOT();
  const std::string donor = TempDir("donor");
  std::string genuine;
  {
    absl::StatusOr<DiskCache> cache = DiskCache::Open(donor);
    ASSERT_TRUE(cache.ok());
    ASSERT_TRUE(cache->Store(Context().Key(), Context(), "genuine").ok());
    genuine = Read(cache->EntryPath(Context().Key()));
  }
  const std::string dir = PlantedThenFixed("foreign-owner", [&](int folder, int) {
    const int fd = openat(folder, EntryName().c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    return fd >= 0 && write(fd, genuine.data(), genuine.size()) == ssize_t(genuine.size()) &&
           close(fd) == 0;
  });
  // The same key, so that the bytes would authenticate.
  std::filesystem::copy_file(donor + "/key", dir + "/key",
                             std::filesystem::copy_options::overwrite_existing);
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  LoadResult loaded = cache->Load(Context().Key(), Context());
  EXPECT_EQ(loaded.kind, LoadResult::Kind::kRefused) << Describe(loaded);
  EXPECT_TRUE(absl::StrContains(loaded.warning, "owned by uid 65534, not by you (uid 0)"))
      << loaded.warning;
  std::vector<EntryInfo> entries = cache->Verify();
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(entries[0].problems.size(), 1u);
  EXPECT_TRUE(absl::StrContains(entries[0].problems[0], "owned by uid 65534"));
  // Rebuilding replaces it with the victim's own.
  ASSERT_TRUE(cache->Store(Context().Key(), Context(), "rebuilt").ok());
  EXPECT_EQ(Describe(cache->Load(Context().Key(), Context())), "hit: rebuilt");
}

TEST(DiskCacheTrustTest, ASymlinkToDevZeroAsAnEntryIsRefusedPromptly) {
  SKIP_UNLESS_ROOT();
  const std::string dir = PlantedThenFixed("dev-zero", [](int folder, int) {
    return symlinkat("/dev/zero", folder, EntryName().c_str()) == 0;
  });
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  const std::string loaded =
      Bounded([&] { return Describe(cache->Load(Context().Key(), Context())); });
  EXPECT_TRUE(absl::StartsWith(loaded, "refused: ")) << loaded;
  EXPECT_TRUE(absl::StrContains(loaded, "a symbolic link (never followed)")) << loaded;
  const std::string verified = Bounded([&] {
    std::vector<EntryInfo> entries = cache->Verify();
    return entries.size() == 1 && entries[0].problems.size() == 1 ? entries[0].problems[0]
                                                                  : std::string("?");
  });
  EXPECT_EQ(verified, "refused: a symbolic link (never followed)");
}

TEST(DiskCacheTrustTest, AFifoAsAnEntryIsRefusedPromptly) {
  SKIP_UNLESS_ROOT();
  const std::string dir = PlantedThenFixed(
      "fifo", [](int folder, int) { return mkfifoat(folder, EntryName().c_str(), 0600) == 0; });
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  const std::string loaded =
      Bounded([&] { return Describe(cache->Load(Context().Key(), Context())); });
  EXPECT_TRUE(absl::StartsWith(loaded, "refused: ")) << loaded;
  EXPECT_TRUE(absl::StrContains(loaded, "a FIFO")) << loaded;
  const std::string verified = Bounded([&] {
    std::vector<EntryInfo> entries = cache->Verify();
    return entries.size() == 1 && entries[0].problems.size() == 1 ? entries[0].problems[0]
                                                                  : std::string("?");
  });
  EXPECT_EQ(verified, "refused: a FIFO");
  EXPECT_EQ(*cache->Clear(std::nullopt), 1);  // removed, not opened
}

TEST(DiskCacheTrustTest, ASymlinkedLockFileIsRefusedAndItsTargetNotCreated) {
  SKIP_UNLESS_ROOT();
  const std::string target = TempDir("lock-target") + "-chosen-by-the-attacker";
  const std::string dir = PlantedThenFixed("lock-link", [&](int, int locks) {
    return symlinkat(target.c_str(), locks, (Context().Key() + ".lock").c_str()) == 0;
  });
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  absl::StatusOr<KeyLock> lock = cache->Lock(Context().Key());
  ASSERT_FALSE(lock.ok());
  EXPECT_TRUE(absl::StrContains(lock.status().message(), "a symbolic link (never followed)"))
      << lock.status();
  EXPECT_FALSE(std::filesystem::exists(target));
}

// The attack of issue 37 itself: a well-formed entry for the victim's exact
// context with a checksum the attacker computed, which the victim then has
// as a file of its own (copied in, or its folder restored from a shared one).
TEST(DiskCacheTrustTest, AnEntryWrittenUnderAnotherKeyIsRefusedOnLoadAndInVerify) {
  SKIP_UNLESS_ROOT();
  const std::string drop = TempDir("drop");
  std::filesystem::create_directories(drop);
  chmod(drop.c_str(), 0777);
  const int drop_fd = open(drop.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(AsNobody([&] {
    const EntrySecret attackers = {0x66};
    const std::string planted = SerializeEntry(Context(), "alpha*X - Y + 1000", attackers);
    const int fd = openat(drop_fd, "planted.entry", O_WRONLY | O_CREAT | O_EXCL, 0644);
    return fd >= 0 && write(fd, planted.data(), planted.size()) == ssize_t(planted.size()) &&
           close(fd) == 0;
  }));
  close(drop_fd);
  const std::string dir = TempDir("copied-in");
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  const std::string path = cache->EntryPath(Context().Key());
  std::filesystem::copy_file(drop + "/planted.entry", path);
  chmod(path.c_str(), 0600);
  LoadResult loaded = cache->Load(Context().Key(), Context());
  EXPECT_EQ(loaded.kind, LoadResult::Kind::kRefused) << Describe(loaded);
  EXPECT_TRUE(
      absl::StrContains(loaded.warning,
                        "was not written by this user's cache key: planted, corrupted, or from "
                        "another user or machine; rebuilding it"))
      << loaded.warning;
  std::vector<EntryInfo> entries = cache->Verify();
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(entries[0].problems.size(), 1u);
  EXPECT_TRUE(absl::StrContains(entries[0].problems[0], "not written by this user's cache key"));
}

// Another user's cache (or another machine's) has another key: its entries
// are rebuilt, even copied whole with their folder's files.
TEST(DiskCacheTrustTest, EntriesOfAnotherKeyAreRebuilt) {
  const std::string mine = TempDir("mine"), theirs = TempDir("theirs-key");
  absl::StatusOr<DiskCache> a = DiskCache::Open(mine), b = DiskCache::Open(theirs);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(b->Store(Context().Key(), Context(), "theirs").ok());
  std::filesystem::copy_file(b->EntryPath(Context().Key()), a->EntryPath(Context().Key()));
  EXPECT_EQ(a->Load(Context().Key(), Context()).kind, LoadResult::Kind::kRefused);
  EXPECT_EQ(Describe(b->Load(Context().Key(), Context())), "hit: theirs");
}

// A format-1 entry with its SHA-256 recomputed, as issue 37's attacker wrote it.
TEST(DiskCacheTrustTest, FormatOneEntriesAreRefusedAsUnauthenticated) {
  const std::string dir = TempDir("format1");
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok());
  const std::string path = cache->EntryPath(Context().Key());
  std::ofstream(path, std::ios::binary)
      << "TILE-CACHE-ENTRY 1\n"
      << Context().Serialize() << "artifact 0\n\nsha256 " << std::string(64, '0') << "\n";
  LoadResult loaded = cache->Load(Context().Key(), Context());
  EXPECT_EQ(loaded.kind, LoadResult::Kind::kRefused);
  EXPECT_TRUE(absl::StrContains(loaded.warning, "format 1 entries carry no authentication"))
      << loaded.warning;
}

TEST(DiskCacheTrustTest, AKeyFileOpenToOthersOrNotTheUsersIsRefused) {
  const std::string dir = TempDir("key-mode");
  ASSERT_TRUE(DiskCache::Open(dir).ok());
  const std::string key = dir + "/key";
  chmod(key.c_str(), 0644);
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(cache.status().message(), "refusing the key file " + key +
                                                              ": mode 0644, open to group or "
                                                              "others"))
      << cache.status();
  EXPECT_TRUE(absl::StrContains(cache.status().message(), "rm " + key)) << cache.status();
  // Removed, a new key is made.
  std::filesystem::remove(key);
  EXPECT_TRUE(DiskCache::Open(dir).ok());
}

// The attacker leaves a key of its own; the victim's key is then a link to
// it, or it (renamed over the victim's, as the attacker could while the
// folder was shared).
TEST(DiskCacheTrustTest, AKeyFileOfAnotherUserOrALinkIsRefused) {
  SKIP_UNLESS_ROOT();
  const std::string dir = PlantedThenFixed("key-owner", [](int folder, int) {
    const EntrySecret attackers = {0x66};
    const int fd = openat(folder, "their-key", O_WRONLY | O_CREAT | O_EXCL, 0600);
    return fd >= 0 && write(fd, attackers.data(), attackers.size()) == 32 && close(fd) == 0;
  });
  std::filesystem::remove(dir + "/key");
  ASSERT_EQ(symlink("their-key", (dir + "/key").c_str()), 0);
  absl::StatusOr<DiskCache> linked = DiskCache::Open(dir);
  ASSERT_FALSE(linked.ok());
  EXPECT_TRUE(absl::StrContains(linked.status().message(), "a symbolic link (never followed)"))
      << linked.status();
  std::filesystem::remove(dir + "/key");
  std::filesystem::rename(dir + "/their-key", dir + "/key");
  absl::StatusOr<DiskCache> owned = DiskCache::Open(dir);
  ASSERT_FALSE(owned.ok());
  EXPECT_TRUE(absl::StrContains(owned.status().message(), "owned by uid 65534, not by you"))
      << owned.status();
}

TEST(DiskCacheTrustTest, AnOversizedEntryIsRefusedWithoutReadingIt) {
  const std::string dir = TempDir("oversized");
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok());
  const std::string path = cache->EntryPath(Context().Key());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_EQ(ftruncate(fd, kMaxEntryBytes + 1), 0);  // sparse: no disk used
  close(fd);
  const std::string loaded =
      Bounded([&] { return Describe(cache->Load(Context().Key(), Context())); });
  EXPECT_TRUE(absl::StrContains(loaded, "refused: 268435457 bytes, over the limit of 268435456"))
      << loaded;
  std::filesystem::remove(path);
}

TEST(DiskCacheTrustTest, KeyCreationRacesAgreeOnOneKey) {
  const std::string dir = TempDir("race-key");
  std::filesystem::create_directories(dir);
  chmod(dir.c_str(), 0700);
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
      const CacheContext context = Context();
      _exit(cache.ok() && cache->Store(absl::StrCat(i), context, "x").ok() ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok());
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(Describe(cache->Load(absl::StrCat(i), Context())), "hit: x") << i;
  }
}

}  // namespace
}  // namespace tile_ir::runtime::jit
