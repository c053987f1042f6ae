#include "tools/npy/npy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tile_ir::npy {
namespace {

std::string Fixture(const std::string& name) { return "tools/npy/testdata/" + name; }

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(NpyTest, ReadsWhatNumpyWrites) {
  absl::StatusOr<NpyArray> a = ReadNpyFile(Fixture("f32_2x3.npy"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->descr, "<f4");
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(a->data.size(), 24u);
  float values[6];
  std::memcpy(values, a->data.data(), sizeof(values));
  EXPECT_EQ(values[0], -2.5f);
  EXPECT_EQ(values[5], 2.5f);

  absl::StatusOr<NpyArray> i8 = ReadNpyFile(Fixture("i8_4.npy"));
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_EQ(i8->descr, "|i1");
  EXPECT_EQ(static_cast<int8_t>(i8->data[0]), -128);

  absl::StatusOr<NpyArray> scalar = ReadNpyFile(Fixture("f64_scalar.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->num_elements(), 1);
}

TEST(NpyTest, ReadsVersion2Headers) {
  absl::StatusOr<NpyArray> a = ReadNpyFile(Fixture("f32_v2.npy"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->shape, (std::vector<int64_t>{4}));
}

// What ml_dtypes' arrays look like in a header: their dtype is lost to a void
// ('<V2', '<V1') or, for float8_e5m2, an 'f1' NumPy itself cannot load.
TEST(NpyTest, ReadsMlDtypesArrays) {
  absl::StatusOr<NpyArray> bf16 = ReadNpyFile(Fixture("bf16_3.npy"));
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_EQ(bf16->descr, "<V2");
  EXPECT_EQ(bf16->data, std::string("\x80\x3f\x00\xc0\x00\x3f", 6));
  absl::StatusOr<NpyArray> e4m3 = ReadNpyFile(Fixture("f8e4m3_3.npy"));
  ASSERT_TRUE(e4m3.ok()) << e4m3.status();
  EXPECT_EQ(e4m3->descr, "<V1");
  EXPECT_EQ(e4m3->data, "\x38\xc0\x7e");
  absl::StatusOr<NpyArray> e5m2 = ReadNpyFile(Fixture("f8e5m2_3.npy"));
  ASSERT_TRUE(e5m2.ok()) << e5m2.status();
  EXPECT_EQ(e5m2->descr, "<f1");
}

TEST(NpyTest, RefusesFortranOrder) {
  absl::StatusOr<NpyArray> a = ReadNpyFile(Fixture("f16_fortran.npy"));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(Message(a.status()).find("f16_fortran.npy: Fortran order"), std::string::npos)
      << a.status();
}

TEST(NpyTest, RoundTripsAndAlignsTo64) {
  NpyArray a{"<i4", {3, 1}, std::string(12, '\x07')};
  absl::StatusOr<std::string> bytes = SerializeNpy(a);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ((bytes->size() - 12) % 64, 0u);
  EXPECT_EQ(bytes->substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes->find("'shape': (3, 1), }"), std::string::npos);
  absl::StatusOr<NpyArray> back = ParseNpy(*bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->descr, a.descr);
  EXPECT_EQ(back->shape, a.shape);
  EXPECT_EQ(back->data, a.data);

  NpyArray one{"<f8", {5}, std::string(40, '\0')};
  absl::StatusOr<std::string> one_bytes = SerializeNpy(one);
  ASSERT_TRUE(one_bytes.ok());
  EXPECT_NE(one_bytes->find("'shape': (5,), }"), std::string::npos);
}

TEST(NpyTest, WritesVersion2WhenTheHeaderIsLarge) {
  NpyArray a{"|u1", std::vector<int64_t>(30000, 1), std::string(1, 'x')};
  absl::StatusOr<std::string> bytes = SerializeNpy(a);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ((*bytes)[6], 2);
  absl::StatusOr<NpyArray> back = ParseNpy(*bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape.size(), 30000u);
}

TEST(NpyTest, RefusesSerializingTheWrongByteCount) {
  absl::StatusOr<std::string> bytes = SerializeNpy(NpyArray{"<f4", {2}, "abc"});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(Message(bytes.status()).find("needs 8 bytes of data, given 3"), std::string::npos);
}

// A well-formed file's bytes with the header replaced.
std::string WithHeader(const std::string& header, const std::string& data,
                       const std::string& version = std::string("\x01\x00", 2)) {
  std::string out = std::string("\x93NUMPY", 6) + version;
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

void ExpectRefused(const std::string& bytes, const std::string& what) {
  absl::StatusOr<NpyArray> a = ParseNpy(bytes, "x.npy");
  ASSERT_FALSE(a.ok()) << "accepted; wanted an error with: " << what;
  EXPECT_NE(Message(a.status()).find("x.npy: "), std::string::npos) << a.status();
  EXPECT_NE(Message(a.status()).find(what), std::string::npos) << a.status();
}

TEST(NpyTest, RefusesMalformedFiles) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  ASSERT_TRUE(ParseNpy(WithHeader(good, std::string(8, '\0')), "x.npy").ok());
  ExpectRefused("PK\x03\x04 a zip file", "bad magic");
  ExpectRefused("", "bad magic");
  ExpectRefused(std::string("\x93NUMPY", 6), "truncated before the format version");
  ExpectRefused(WithHeader(good, "", std::string("\x04\x00", 2)), "version 4.0");
  ExpectRefused(WithHeader(good, std::string(8, '\0')).substr(0, 30), "truncated header");
  ExpectRefused(WithHeader(good, std::string(5, '\0')), "truncated data");
  ExpectRefused(WithHeader(good, std::string(9, '\0')), "trailing bytes");
  ExpectRefused(WithHeader("{'descr': '<f4', 'shape': (2,)}", ""), "no 'fortran_order'");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", ""),
                "unknown key 'x'");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 'y'}", ""),
                "unknown key 'x'");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", ""),
                "x.npy: 'fortran_order' is 0; expected True or False");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': 100}", ""),
                "x.npy: 'shape' is the integer 100; expected a tuple of integers such as (100,)");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': '2'}", ""),
                "x.npy: 'shape' is '2'; expected a tuple of integers such as (2, 3)");
  ExpectRefused(WithHeader("{'descr': 4, 'fortran_order': False, 'shape': (2,)}", ""),
                "x.npy: 'descr' is 4; expected a dtype string such as '<f4'");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", ""),
                "the value of 'fortran_order' is not a string, True, False, an integer or a "
                "tuple");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", ""),
                "Fortran order");
  ExpectRefused(WithHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}", ""),
                "big-endian");
  ExpectRefused(WithHeader("{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", ""),
                "object array");
  ExpectRefused(WithHeader("{'descr': '<U3', 'fortran_order': False, 'shape': (2,)}", ""),
                "string dtype");
  ExpectRefused(WithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", ""),
                "structured dtypes");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}", ""),
                "malformed header");
  ExpectRefused(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", ""),
                "malformed header");
  ExpectRefused(
      WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, "
                 "4294967296)}",
                 ""),
      "too large");
}

TEST(NpyTest, FileErrorsNameThePath) {
  absl::StatusOr<NpyArray> a = ReadNpyFile("/nonexistent/a.npy");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(Message(a.status()).find("/nonexistent/a.npy: cannot open"), std::string::npos);
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/w.npy";
  ASSERT_TRUE(WriteNpyFile(path, NpyArray{"<f2", {1}, "ab"}).ok());
  absl::StatusOr<NpyArray> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data, "ab");
}

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

TEST(NpyTest, RefusesDevicesAndFifosWithoutReadingThem) {
  const std::string zero = TempPath("zero.npy");
  ::unlink(zero.c_str());
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  absl::StatusOr<NpyArray> a = ReadNpyFile(zero);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(Message(a.status()), zero + ": is a character device, not a regular file; give a file");
  const std::string fifo = TempPath("pipe.npy");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  a = ReadNpyFile(fifo);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(Message(a.status()),
            fifo + ": is a FIFO (named pipe), not a regular file; give a file");
}

TEST(NpyTest, ChecksTheDeclaredSizeAgainstTheFileBeforeReadingTheData) {
  const std::string path = TempPath("huge_header.npy");
  std::ofstream(path, std::ios::binary)
      << WithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824,), }", "1234");
  absl::StatusOr<NpyArray> a = ReadNpyFile(path);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(Message(a.status()),
            path +
                ": truncated data: shape (1073741824,) of '<f8' is 8589934592 bytes, the file "
                "has 4");
  const std::string short_header = TempPath("short_header.npy");
  std::ofstream(short_header, std::ios::binary)
      << WithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", "").substr(0, 20);
  a = ReadNpyFile(short_header);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(Message(a.status()).find("truncated header"), std::string::npos) << a.status();
}

}  // namespace
}  // namespace tile_ir::npy
