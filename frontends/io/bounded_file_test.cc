// User-given paths that name a device, a FIFO, a directory or too large a file are refused with
// a message naming the path and what it is, without hanging or reading them.
#include "frontends/io/bounded_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "frontends/io/module_io.h"

namespace tile_ir::io {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string WriteTemp(const std::string& name, const std::string& contents) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(BoundedFileTest, ReadsARegularFile) {
  const std::string path = WriteTemp("small.tile", "kernel");
  absl::StatusOr<std::string> contents = ReadBoundedFile(path, 6);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, "kernel");
}

TEST(BoundedFileTest, RefusesAFileLargerThanTheMaximum) {
  const std::string path = WriteTemp("large.tile", "kernel k");
  absl::StatusOr<std::string> contents = ReadBoundedFile(path, 7);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message(),
            path + ": the file has 8 bytes, more than the 7 bytes this reader accepts");
}

TEST(BoundedFileTest, RefusesASymlinkToDevZeroWithoutReading) {
  const std::string link = TempPath("zero.tile");
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink("/dev/zero", link.c_str()), 0);
  absl::StatusOr<std::string> contents = ReadFile(link);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message(),
            link + ": is a character device, not a regular file; give a file");
  absl::StatusOr<Module> module = ReadModuleFile(link);
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("a character device"));
}

TEST(BoundedFileTest, RefusesAFifoWithoutHanging) {
  const std::string fifo = TempPath("pipe.tile");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> contents = ReadFile(fifo);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message(),
            fifo + ": is a FIFO (named pipe), not a regular file; give a file");
}

TEST(BoundedFileTest, RefusesADirectory) {
  const std::string dir = TempPath("folder.tile");
  ::mkdir(dir.c_str(), 0700);
  absl::StatusOr<std::string> contents = ReadFile(dir);
  ASSERT_FALSE(contents.ok());
  EXPECT_THAT(contents.status().message(), HasSubstr(dir + ": is a directory"));
}

TEST(BoundedFileTest, NamesAMissingFile) {
  absl::StatusOr<std::string> contents = ReadFile("/nonexistent/k.tile");
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message(),
            "/nonexistent/k.tile: cannot open: No such file or directory");
}

TEST(BoundedFileTest, ReadsInPieces) {
  const std::string path = WriteTemp("pieces.bin", "headerdata");
  absl::StatusOr<BoundedFile> file = BoundedFile::Open(path, 100);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->size(), 10);
  std::string bytes;
  ASSERT_TRUE(file->Read(6, &bytes).ok());
  EXPECT_EQ(bytes, "header");
  EXPECT_FALSE(file->Read(5, &bytes).ok());
  ASSERT_TRUE(file->ReadRest(&bytes).ok());
  EXPECT_EQ(bytes, "headerdata");
}

TEST(BoundedFileTest, BoundsAStream) {
  std::istringstream small("0123456789");
  absl::StatusOr<std::string> read = ReadBoundedStream(small, 10, "<stdin>");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "0123456789");
  std::istringstream large(std::string(200000, 'x'));
  read = ReadBoundedStream(large, 100000, "<stdin>");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), "<stdin>: more than the 100000 bytes this reader accepts");
}

TEST(BoundedFileTest, FormatsSizes) {
  EXPECT_EQ(FormatBytes(kMaxModuleBytes), "1 GiB");
  EXPECT_EQ(FormatBytes(3 << 20), "3 MiB");
  EXPECT_EQ(FormatBytes(1000), "1000 bytes");
}

}  // namespace
}  // namespace tile_ir::io
