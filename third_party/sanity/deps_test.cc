// Checks that the system Abseil, protobuf, gtest/gmock, DLPack and OpenBLAS
// link and run.
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "cblas.h"
#include "dlpack/dlpack.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "third_party/sanity/sanity.pb.h"

ABSL_FLAG(int, sanity_answer, 0, "Set to 42 by the test's args.");

namespace {

absl::StatusOr<int> Half(int x) {
  if (x % 2 != 0) return absl::InvalidArgumentError(absl::StrCat("odd: ", x));
  return x / 2;
}

TEST(Absl, StatusAndStrings) {
  EXPECT_EQ(*Half(8), 4);
  absl::StatusOr<int> bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "odd: 3");
  EXPECT_EQ(absl::StrFormat("%s=%05.2f", "x", 3.14159), "x=03.14");
}

TEST(Absl, FlatHashMapAndMutex) {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, int> m;
  {
    absl::MutexLock lock(&mu);
    for (int i = 0; i < 100; ++i) m[absl::StrCat("k", i)] = i;
  }
  EXPECT_EQ(m.size(), 100u);
  EXPECT_EQ(m.at("k42"), 42);
}

TEST(Absl, Flags) { EXPECT_EQ(absl::GetFlag(FLAGS_sanity_answer), 42); }

TEST(Protobuf, RoundTrip) {
  tile::sanity::Tensor t;
  t.set_name("a");
  t.mutable_shape()->add_dims(4);
  t.mutable_shape()->add_dims(8);
  (*t.mutable_attrs())["layout"] = "row_major";
  t.mutable_created()->set_seconds(7);
  std::string bytes;
  ASSERT_TRUE(t.SerializeToString(&bytes));
  tile::sanity::Tensor u;
  ASSERT_TRUE(u.ParseFromString(bytes));
  EXPECT_EQ(u.name(), "a");
  EXPECT_THAT(u.shape().dims(), ::testing::ElementsAre(4, 8));
  EXPECT_EQ(u.attrs().at("layout"), "row_major");
  EXPECT_EQ(u.created().seconds(), 7);
}

TEST(DLPack, Header) {
  DLDataType t{kDLFloat, 16, 1};
  EXPECT_EQ(t.bits, 16);
  EXPECT_GE(DLPACK_VERSION, 60);
}

TEST(OpenBLAS, Sgemm) {
  const float a[4] = {1, 2, 3, 4};  // 2x2 row-major
  const float b[4] = {5, 6, 7, 8};
  float c[4] = {0, 0, 0, 0};
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b,
              2, 0.0f, c, 2);
  EXPECT_FLOAT_EQ(c[0], 19);
  EXPECT_FLOAT_EQ(c[1], 22);
  EXPECT_FLOAT_EQ(c[2], 43);
  EXPECT_FLOAT_EQ(c[3], 50);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  absl::ParseCommandLine(argc, argv);
  return RUN_ALL_TESTS();
}
