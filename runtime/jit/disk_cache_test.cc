#include "runtime/jit/disk_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace tile_ir::runtime::jit {
namespace {

std::string TempDir(const std::string& name) {
  std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

CacheContext Context(const std::string& arch) {
  CacheContext context;
  context.Set("kernel", "add");
  context.Set("target", "cuda");
  context.Set("arch", arch);
  return context;
}

TEST(DiskCacheTest, StoreThenLoadHits) {
  absl::StatusOr<DiskCache> cache = DiskCache::Open(TempDir("hit"));
  ASSERT_TRUE(cache.ok()) << cache.status();
  CacheContext context = Context("sm_90a");
  EXPECT_EQ(cache->Load(context.Key(), context).kind, LoadResult::Kind::kMiss);
  ASSERT_TRUE(cache->Store(context.Key(), context, "cubin bytes").ok());
  LoadResult loaded = cache->Load(context.Key(), context);
  EXPECT_EQ(loaded.kind, LoadResult::Kind::kHit);
  EXPECT_EQ(loaded.artifact, "cubin bytes");
  std::vector<EntryInfo> entries = cache->Verify();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].problems.empty());
}

TEST(DiskCacheTest, AnEntryWithAnotherArchIsRefusedNamingTheField) {
  absl::StatusOr<DiskCache> cache = DiskCache::Open(TempDir("arch"));
  ASSERT_TRUE(cache.ok());
  CacheContext here = Context("sm_90a");
  // An entry built for sm_80 sitting under this machine's key: a copied cache.
  ASSERT_TRUE(cache->Store(here.Key(), Context("sm_80"), "cubin").ok());
  LoadResult loaded = cache->Load(here.Key(), here);
  EXPECT_EQ(loaded.kind, LoadResult::Kind::kRefused);
  EXPECT_NE(loaded.warning.find("arch: the entry has 'sm_80', this process 'sm_90a'"),
            std::string::npos)
      << loaded.warning;
  std::vector<EntryInfo> entries = cache->Verify();
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(entries[0].problems.size(), 1u);
  EXPECT_NE(entries[0].problems[0].find("not to its file name"), std::string::npos);
}

TEST(DiskCacheTest, HandEditedArchAndTruncationAreRefusedAndVerifyReportsThem) {
  absl::StatusOr<DiskCache> cache = DiskCache::Open(TempDir("edit"));
  ASSERT_TRUE(cache.ok());
  CacheContext a = Context("sm_90a"), b = Context("sm_90a");
  b.Set("kernel", "mul");
  ASSERT_TRUE(cache->Store(a.Key(), a, "cubin a").ok());
  ASSERT_TRUE(cache->Store(b.Key(), b, "cubin b").ok());
  const std::string path_a = cache->EntryPath(a.Key()), path_b = cache->EntryPath(b.Key());
  Write(path_a, absl::StrReplaceAll(Read(path_a), {{"arch=sm_90a", "arch=sm_80"}}));
  std::string bytes_b = Read(path_b);
  Write(path_b, bytes_b.substr(0, bytes_b.size() - 1));

  std::vector<EntryInfo> entries = cache->Verify();
  ASSERT_EQ(entries.size(), 2u);
  for (const EntryInfo& entry : entries) EXPECT_FALSE(entry.problems.empty()) << entry.path;

  LoadResult edited = cache->Load(a.Key(), a);
  EXPECT_EQ(edited.kind, LoadResult::Kind::kRefused);
  EXPECT_NE(edited.warning.find("arch"), std::string::npos) << edited.warning;
  LoadResult truncated = cache->Load(b.Key(), b);
  EXPECT_EQ(truncated.kind, LoadResult::Kind::kRefused);
  EXPECT_NE(truncated.warning.find("truncated"), std::string::npos) << truncated.warning;
}

TEST(DiskCacheTest, ConcurrentWritersNeverLeaveHalfAnEntry) {
  absl::StatusOr<DiskCache> cache = DiskCache::Open(TempDir("race"));
  ASSERT_TRUE(cache.ok());
  CacheContext context = Context("sm_90a");
  const std::string big(1 << 20, 'z');
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        if (!cache->Store(context.Key(), context, big).ok()) ++bad;
        LoadResult loaded = cache->Load(context.Key(), context);
        if (loaded.kind != LoadResult::Kind::kHit || loaded.artifact != big) ++bad;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(cache->List().size(), 1u);  // no temporary file left behind
}

TEST(DiskCacheTest, LockIsExclusiveAcrossHolders) {
  absl::StatusOr<DiskCache> cache = DiskCache::Open(TempDir("lock"));
  ASSERT_TRUE(cache.ok());
  std::atomic<int> inside{0}, worst{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      absl::StatusOr<KeyLock> lock = cache->Lock("k");
      ASSERT_TRUE(lock.ok());
      int now = ++inside;
      worst = std::max(worst.load(), now);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --inside;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(worst.load(), 1);
}

TEST(DiskCacheTest, ClearRemovesEntries) {
  absl::StatusOr<DiskCache> cache = DiskCache::Open(TempDir("clear"));
  ASSERT_TRUE(cache.ok());
  CacheContext context = Context("sm_90a");
  ASSERT_TRUE(cache->Store(context.Key(), context, "x").ok());
  EXPECT_EQ(*cache->Clear(absl::Hours(1)), 0);
  EXPECT_EQ(*cache->Clear(std::nullopt), 1);
  EXPECT_TRUE(cache->List().empty());
}

TEST(DiskCacheTest, DirectoryFromEnvironment) {
  setenv("TILE_CACHE_DIR", "/x/y", 1);
  EXPECT_EQ(CacheDirectoryFromEnvironment(), "/x/y");
  unsetenv("TILE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(CacheDirectoryFromEnvironment(), "/xdg/tile");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(CacheDirectoryFromEnvironment(), "/home/u/.cache/tile");
  setenv("TILE_DISABLE_CACHE", "1", 1);
  EXPECT_FALSE(CacheDirectoryFromEnvironment().has_value());
  unsetenv("TILE_DISABLE_CACHE");
}

}  // namespace
}  // namespace tile_ir::runtime::jit
