// The acceptance checks on the CPU target, through real processes
// sharing one cache folder: jit_probe calls add_f32 through the cache and
// tile-cache verifies the folder.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace {

struct ProcessRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

std::string Runfile(const std::string& path) {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/tile/", path);
}

ProcessRun Shell(const std::string& command) {
  ProcessRun run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class JitCpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  ProcessRun Probe(const std::string& flags = "") {
    return Shell(absl::StrCat("TILE_CACHE_DIR=", dir_, " ",
                              Runfile("runtime/jit/testing/jit_probe"), " ", flags));
  }
  ProcessRun TileCache(const std::string& command) {
    return Shell(absl::StrCat(Runfile("tools/tile_cache/tile-cache"), " ", command,
                              " --cache-dir=", dir_));
  }
  std::vector<std::string> Entries() {
    std::vector<std::string> paths;
    for (const auto& file : std::filesystem::directory_iterator(dir_)) {
      if (file.path().extension() == ".entry") paths.push_back(file.path().string());
    }
    return paths;
  }
  std::string dir_;
};

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(JitCpuTest, TwoProcessesCompileOnceAndTheSecondHitsTheDisk) {
  ProcessRun first = Probe();
  ASSERT_EQ(first.exit_code, 0) << first.out;
  EXPECT_TRUE(absl::StrContains(first.out, "source=compiled")) << first.out;
  EXPECT_TRUE(absl::StrContains(first.out, "compiles=1")) << first.out;
  ProcessRun second = Probe();
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_TRUE(absl::StrContains(second.out, "source=disk")) << second.out;
  EXPECT_TRUE(absl::StrContains(second.out, "compiles=0 disk_hits=1")) << second.out;
  // A disk hit loads without a refusal (a cached entry that fails to parse is rebuilt, warned).
  EXPECT_FALSE(absl::StrContains(second.out, "warning")) << second.out;
  EXPECT_EQ(Entries().size(), 1u);
}

TEST_F(JitCpuTest, EditedArchAndTruncatedEntriesAreReportedRefusedAndRebuilt) {
  ASSERT_EQ(Probe().exit_code, 0);                     // dynamic shapes: one entry
  ASSERT_EQ(Probe("--static").exit_code, 0);           // all static: another
  std::vector<std::string> entries = Entries();
  ASSERT_EQ(entries.size(), 2u);
  ASSERT_EQ(TileCache("verify").exit_code, 0);

  // Edit the stored architecture of one entry, truncate the other by a byte.
  const std::string edited = Read(entries[0]);
  const size_t arch = edited.find("\narch=");
  ASSERT_NE(arch, std::string::npos);
  const size_t end = edited.find('\n', arch + 1);
  Write(entries[0], absl::StrCat(edited.substr(0, arch), "\narch=sm_90a", edited.substr(end)));
  const std::string whole = Read(entries[1]);
  Write(entries[1], whole.substr(0, whole.size() - 1));

  ProcessRun verify = TileCache("verify");
  EXPECT_EQ(verify.exit_code, 1) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "2 bad")) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "truncated")) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "not written by this user's cache key")) << verify.out;

  ProcessRun dynamic = Probe(), fixed = Probe("--static");
  for (const ProcessRun& run : {dynamic, fixed}) {
    ASSERT_EQ(run.exit_code, 0) << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, "tile: warning: cache entry")) << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, "source=compiled")) << run.out;
    EXPECT_TRUE(absl::StrContains(run.out, "refused=1")) << run.out;
  }
  const std::string warnings = dynamic.out + fixed.out;
  EXPECT_TRUE(absl::StrContains(warnings, "arch: the entry has 'sm_90a', this process '"))
      << warnings;
  EXPECT_TRUE(absl::StrContains(warnings, "truncated")) << warnings;
  ProcessRun after = TileCache("verify");
  EXPECT_EQ(after.exit_code, 0) << after.out;
  EXPECT_TRUE(absl::StrContains(Probe().out, "source=disk"));
}

TEST_F(JitCpuTest, EightConcurrentProcessesAllSucceedAndCompileOnce) {
  std::vector<std::thread> threads;
  std::vector<ProcessRun> runs(8);
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { runs[i] = Probe(); });
  for (std::thread& thread : threads) thread.join();
  int compiled = 0;
  for (const ProcessRun& run : runs) {
    ASSERT_EQ(run.exit_code, 0) << run.out;
    EXPECT_FALSE(absl::StrContains(run.out, "warning")) << run.out;
    compiled += absl::StrContains(run.out, "source=compiled");
  }
  EXPECT_EQ(compiled, 1);  // the others waited on the key's lock, then hit the disk
  EXPECT_EQ(Entries().size(), 1u);
  ProcessRun verify = TileCache("verify");
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_TRUE(absl::StrContains(verify.out, "the cache is consistent")) << verify.out;
}

TEST_F(JitCpuTest, StaticShapesMakeOneEntryEachAndDynamicShapesShareOne) {
  for (const char* shape : {"--shape=64,128", "--shape=33,129", "--shape=200,7"}) {
    ProcessRun run = Probe(shape);
    ASSERT_EQ(run.exit_code, 0) << run.out;
  }
  EXPECT_EQ(Entries().size(), 1u);  // one binary serves every shape
  ProcessRun a = Probe("--static --shape=64,128"), b = Probe("--static --shape=33,129");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_TRUE(absl::StrContains(b.out, "source=compiled")) << b.out;
  EXPECT_EQ(Entries().size(), 3u);  // two static specializations beside the dynamic one
  ProcessRun again = Probe("--static --shape=64,128");
  EXPECT_TRUE(absl::StrContains(again.out, "source=disk")) << again.out;
  ProcessRun ls = TileCache("ls");
  EXPECT_TRUE(absl::StrContains(ls.out, "3 entries")) << ls.out;
  EXPECT_TRUE(absl::StrContains(ls.out, "add_f32")) << ls.out;
}

}  // namespace
