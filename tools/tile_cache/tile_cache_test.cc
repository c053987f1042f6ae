// tile-cache as a user meets it (issue 37): ages that are not positive and
// folders that do not exist are refused by name, nothing is created, and
// verify reports what the runtime would refuse (an entry under another key, a
// link planted as an entry) without reading through it.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/jit/cache_entry.h"
#include "runtime/jit/disk_cache.h"

namespace tile_ir::tools {
namespace {

using runtime::jit::CacheContext;
using runtime::jit::DiskCache;

struct ProcessRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

// tile-cache with `args`, killed after 20 seconds (a hang fails the test).
ProcessRun TileCache(const std::string& args) {
  const std::string command = absl::StrCat("timeout 20 ", std::getenv("TEST_SRCDIR"),
                                           "/tile/tools/tile_cache/tile-cache ", args, " 2>&1");
  ProcessRun run;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string TempDir(const std::string& name) {
  std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

CacheContext Context(const std::string& kernel) {
  CacheContext context;
  context.Set("kind", "kernel");
  context.Set("kernel", kernel);
  context.Set("target", "cpu");
  return context;
}

TEST(TileCacheTest, AnAgeThatIsNotPositiveIsRefusedByNameAndRemovesNothing) {
  const std::string dir = TempDir("ages");
  {
    absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
    ASSERT_TRUE(cache.ok()) << cache.status();
    ASSERT_TRUE(cache->Store(Context("add").Key(), Context("add"), "x").ok());
  }
  for (const char* age : {"-5d", "-1h", "0s", "0d"}) {
    SCOPED_TRACE(age);
    ProcessRun run = TileCache(absl::StrCat("clear --older-than=", age, " --cache-dir=", dir));
    EXPECT_EQ(run.exit_code, 2) << run.out;
    EXPECT_TRUE(absl::StrContains(
        run.out, absl::StrCat("--older-than: '", age, "' is ", age[0] == '-' ? "negative" : "zero",
                              ": an age must be positive")))
        << run.out;
  }
  ProcessRun recent = TileCache(absl::StrCat("clear --older-than=1h --cache-dir=", dir));
  EXPECT_EQ(recent.exit_code, 0) << recent.out;
  EXPECT_TRUE(absl::StrContains(recent.out, "removed 0 entries")) << recent.out;
  ProcessRun all = TileCache(absl::StrCat("clear --cache-dir=", dir));
  EXPECT_TRUE(absl::StrContains(all.out, "removed 1 entries")) << all.out;
}

TEST(TileCacheTest, AFolderThatDoesNotExistIsNamedAndNotCreated) {
  const std::string dir = TempDir("nonexistent");
  for (const char* command : {"ls", "verify", "clear"}) {
    SCOPED_TRACE(command);
    ProcessRun run = TileCache(absl::StrCat(command, " --cache-dir=", dir));
    EXPECT_EQ(run.exit_code, 1) << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, "the cache folder " + dir + " does not exist"))
        << run.out;
    EXPECT_FALSE(absl::StrContains(run.out, "0 entries")) << run.out;
    EXPECT_FALSE(std::filesystem::exists(dir));
  }
}

TEST(TileCacheTest, AFolderOthersMayWriteIsRefused) {
  const std::string dir = TempDir("shared");
  std::filesystem::create_directories(dir);
  chmod(dir.c_str(), 0777);
  ProcessRun run = TileCache(absl::StrCat("verify --cache-dir=", dir));
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(absl::StrContains(run.out, "writable by group or others")) << run.out;
  EXPECT_TRUE(absl::StrContains(run.out, "chmod go-w " + dir)) << run.out;
}

TEST(TileCacheTest, VerifyReportsPlantedEntriesAndLinksWithoutFollowingThem) {
  const std::string dir = TempDir("planted");
  absl::StatusOr<DiskCache> cache = DiskCache::Open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  ASSERT_TRUE(cache->Store(Context("genuine").Key(), Context("genuine"), "x").ok());
  // Well-formed, for its own key, under another user's secret.
  const std::string planted_path = cache->EntryPath(Context("planted").Key());
  std::ofstream(planted_path, std::ios::binary)
      << runtime::jit::SerializeEntry(Context("planted"), "evil", {0x66});
  chmod(planted_path.c_str(), 0600);
  ASSERT_EQ(symlink("/dev/zero", cache->EntryPath(Context("zero").Key()).c_str()), 0);

  ProcessRun verify = TileCache(absl::StrCat("verify --cache-dir=", dir));
  EXPECT_EQ(verify.exit_code, 1) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "3 entries checked, 2 bad")) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "BAD " + planted_path +
                                                " (kernel planted)\n"
                                                "  not written by this user's cache key"))
      << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "refused: a symbolic link (never followed)"))
      << verify.out;
  ProcessRun ls = TileCache(absl::StrCat("ls --cache-dir=", dir));
  EXPECT_EQ(ls.exit_code, 0) << ls.out;
  EXPECT_TRUE(absl::StrContains(ls.out, "3 entries")) << ls.out;
}

}  // namespace
}  // namespace tile_ir::tools
