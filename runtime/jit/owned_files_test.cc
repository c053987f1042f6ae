// The owned-file checks as one user can exercise them: modes, links, FIFOs,
// sizes. Files of another uid are disk_cache_trust_test's (it needs root).
#include "runtime/jit/owned_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tile_ir::runtime::jit {
namespace {

std::string TempDir(const std::string& name) {
  std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/owned-" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

// A folder of the user's, mode 0700, with its descriptor.
class OwnedFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    absl::StatusOr<int> fd = OpenOwnedFolder(AT_FDCWD, dir_, dir_, "the folder", true, false);
    ASSERT_TRUE(fd.ok()) << fd.status();
    fd_ = *fd;
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
  }
  void Write(const std::string& name, const std::string& bytes, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    chmod(path.c_str(), mode);
  }

  std::string dir_;
  int fd_ = -1;
};

TEST_F(OwnedFilesTest, ANewFolderIsPrivate) {
  struct stat info;
  ASSERT_EQ(stat(dir_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  absl::StatusOr<int> again = OpenOwnedFolder(AT_FDCWD, dir_, dir_, "the folder", false, false);
  ASSERT_TRUE(again.ok()) << again.status();
  close(*again);
}

TEST_F(OwnedFilesTest, AMissingFolderIsNotFoundAndNotCreated) {
  absl::StatusOr<int> fd =
      OpenOwnedFolder(fd_, "sub", dir_ + "/sub", "the sub-folder", false, false);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(fd.status().message(), "tile cache: the sub-folder " + dir_ + "/sub does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/sub"));
}

TEST_F(OwnedFilesTest, AFolderWritableByGroupOrOthersIsRefused) {
  for (mode_t mode : {0720, 0702, 0777, 01777}) {
    SCOPED_TRACE(mode);
    chmod(dir_.c_str(), mode);
    absl::StatusOr<int> fd = OpenOwnedFolder(AT_FDCWD, dir_, dir_, "the folder", true, false);
    ASSERT_FALSE(fd.ok());
    EXPECT_EQ(fd.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_TRUE(absl::StrContains(fd.status().message(), "writable by group or others"))
        << fd.status();
    EXPECT_TRUE(absl::StrContains(fd.status().message(), "chmod go-w " + dir_)) << fd.status();
  }
}

TEST_F(OwnedFilesTest, AFolderLinkIsFollowedOnlyWhenAsked) {
  ASSERT_EQ(mkdirat(fd_, "real", 0700), 0);
  ASSERT_EQ(symlinkat("real", fd_, "link"), 0);
  absl::StatusOr<int> never = OpenOwnedFolder(fd_, "link", dir_ + "/link", "locks/", false, false);
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(never.status().message(), "it is a symbolic link (never followed)"))
      << never.status();
  absl::StatusOr<int> own = OpenOwnedFolder(fd_, "link", dir_ + "/link", "the folder", false, true);
  ASSERT_TRUE(own.ok()) << own.status();
  close(*own);
}

TEST_F(OwnedFilesTest, ReadsAFileOfTheUsers) {
  Write("file", "bytes", 0600);
  absl::StatusOr<std::string> bytes = ReadOwnedFile(fd_, "file", 5, false);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, "bytes");
  absl::StatusOr<std::string> missing = ReadOwnedFile(fd_, "none", 5, false);
  EXPECT_EQ(missing.status(), absl::NotFoundError("missing"));
}

TEST_F(OwnedFilesTest, ALinkOrAFifoIsRefusedWithoutBeingOpened) {
  Write("target", "bytes", 0600);
  ASSERT_EQ(symlinkat("target", fd_, "link"), 0);
  EXPECT_EQ(ReadOwnedFile(fd_, "link", 5, false).status(),
            absl::PermissionDeniedError("a symbolic link (never followed)"));
  ASSERT_EQ(mkfifoat(fd_, "fifo", 0600), 0);  // opened blocking, it would wait for a writer
  EXPECT_EQ(ReadOwnedFile(fd_, "fifo", 5, false).status(), absl::PermissionDeniedError("a FIFO"));
  ASSERT_EQ(mkdirat(fd_, "folder", 0700), 0);
  EXPECT_EQ(ReadOwnedFile(fd_, "folder", 5, false).status(),
            absl::PermissionDeniedError("a directory"));
}

TEST_F(OwnedFilesTest, AFileWritableByOthersOrASecretReadableByThemIsRefused) {
  Write("shared", "bytes", 0622);
  EXPECT_EQ(ReadOwnedFile(fd_, "shared", 5, false).status(),
            absl::PermissionDeniedError("mode 0622, writable by group or others"));
  Write("key", "bytes", 0640);
  EXPECT_TRUE(ReadOwnedFile(fd_, "key", 5, false).ok());
  EXPECT_EQ(ReadOwnedFile(fd_, "key", 5, true).status(),
            absl::PermissionDeniedError("mode 0640, open to group or others"));
}

TEST_F(OwnedFilesTest, AFileOverTheLimitIsNotRead) {
  Write("big", "123456", 0600);
  EXPECT_EQ(ReadOwnedFile(fd_, "big", 5, false).status(),
            absl::ResourceExhaustedError("6 bytes, over the limit of 5 (not read)"));
}

TEST_F(OwnedFilesTest, WriteNewFileIsPrivateAndReplacesNothing) {
  ASSERT_TRUE(WriteNewFile(fd_, "new", dir_ + "/new", "bytes").ok());
  struct stat info;
  ASSERT_EQ(stat((dir_ + "/new").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(*ReadOwnedFile(fd_, "new", 5, false), "bytes");
  absl::Status again = WriteNewFile(fd_, "new", dir_ + "/new", "other");
  EXPECT_EQ(again.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StartsWith(again.message(), "tile cache: cannot create " + dir_ + "/new: "))
      << again;
  EXPECT_EQ(*ReadOwnedFile(fd_, "new", 5, false), "bytes");
  // Not through a link either: its target is not created.
  ASSERT_EQ(symlinkat("elsewhere", fd_, "dangling"), 0);
  EXPECT_FALSE(WriteNewFile(fd_, "dangling", dir_ + "/dangling", "bytes").ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/elsewhere"));
}

TEST_F(OwnedFilesTest, TempNamesAreMarkedAndDistinct) {
  const std::string a = TempName("stem"), b = TempName("stem");
  EXPECT_TRUE(absl::StartsWith(a, kTempPrefix)) << a;
  EXPECT_TRUE(absl::StrContains(a, "stem")) << a;
  EXPECT_NE(a, b);
}

TEST_F(OwnedFilesTest, FolderNamesListsEverythingButDots) {
  Write("file", "", 0600);
  ASSERT_EQ(symlinkat("/dev/zero", fd_, "link"), 0);
  absl::StatusOr<std::vector<std::string>> names = FolderNames(fd_, dir_);
  ASSERT_TRUE(names.ok()) << names.status();
  std::sort(names->begin(), names->end());
  EXPECT_EQ(*names, (std::vector<std::string>{"file", "link"}));
}

}  // namespace
}  // namespace tile_ir::runtime::jit
