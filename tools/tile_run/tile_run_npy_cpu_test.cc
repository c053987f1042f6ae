// tile-run --in/--out/--expect on the CPU target, through the kernel cache:
// a kernel outside the operator suite on .npy files this test writes (and one
// ml_dtypes wrote), checked against a float64 reference computed here; then
// each mismatch tile-run must refuse, by the words of its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/device_registry.h"
#include "runtime/dtype_convert.h"
#include "runtime/jit/jit_backend.h"
#include "tools/npy/npy.h"
#include "tools/tile_run/tile_run_main.h"

namespace tile_ir::tools {
namespace {

using ::testing::HasSubstr;

constexpr char kKernel[] = "tools/tile_run/testdata/scale_add_rows.tile";
constexpr int64_t kM = 37, kN = 45;  // ragged: neither divides the 16x32 tile
constexpr double kAlpha = 0.5;

struct Result {
  int status;
  std::string out;
  std::string err;
};

template <typename T>
npy::NpyArray Array(const std::string& descr, std::vector<int64_t> shape,
                    const std::vector<T>& values) {
  npy::NpyArray array{descr, std::move(shape), std::string(values.size() * sizeof(T), '\0')};
  std::memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

class TileRunNpyCpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::getenv("TEST_TMPDIR");
    setenv("TILE_CACHE_DIR", (dir_ + "/cache").c_str(), 1);
    for (int64_t i = 0; i < kM * kN; ++i) x_.push_back(static_cast<float>((i % 17) - 8) / 4);
    for (int64_t j = 0; j < kN; ++j) {
      y_bits_.push_back(runtime::DoubleToBFloat16(0.01 * j * j - 3.3));
    }
    for (int64_t i = 0; i < kM * kN; ++i) {
      z_.push_back(kAlpha * x_[i] + runtime::BFloat16ToFloat(y_bits_[i % kN]));
    }
    Write("x.npy", Array("<f4", {kM, kN}, x_));
    Write("y.npy", Array("<V2", {kN}, y_bits_));  // what np.save of ml_dtypes.bfloat16 writes
    Write("z.npy", Array("<f8", {kM, kN}, z_));   // a float64 reference
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Write(const std::string& name, const npy::NpyArray& array) {
    ASSERT_TRUE(npy::WriteNpyFile(Path(name), array).ok());
  }

  Result Run(std::vector<std::string> args, const std::string& kernel = kKernel) {
    args.insert(args.begin(), {"tile-run", kernel});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    TileRunEnvironment env{runtime::OpenDevice, nullptr, runtime::jit::OpenJitBackend};
    int status = TileRunMain(static_cast<int>(argv.size()), argv.data(), out, err, env);
    return {status, out.str(), err.str()};
  }
  // The usual flags with one replaced (or dropped, with an empty replacement).
  std::vector<std::string> Flags(const std::string& prefix = "", const std::string& with = "") {
    std::vector<std::string> flags = {"--in=X=" + Path("x.npy"), "--in=Y=" + Path("y.npy"),
                                      "--scalars=alpha=0.5", "--expect=Z=" + Path("z.npy")};
    for (std::string& flag : flags) {
      if (!prefix.empty() && flag.rfind(prefix, 0) == 0) flag = with;
    }
    std::erase(flags, "");
    return flags;
  }
  void ExpectRefused(const std::vector<std::string>& flags, const std::string& message) {
    Result r = Run(flags);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
  }

  std::string dir_;
  std::vector<float> x_;
  std::vector<uint16_t> y_bits_;
  std::vector<double> z_;
};

TEST_F(TileRunNpyCpuTest, RunsOnFilesComparesAndWritesTheOutput) {
  std::vector<std::string> flags = Flags();
  flags.push_back("--out=Z=" + Path("got.npy"));
  Result r = Run(flags);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("shapes  M=37,N=45"));
  EXPECT_THAT(r.out, HasSubstr("inputs  X, Y from files"));
  EXPECT_THAT(r.out, HasSubstr("0 of 1665 mismatched"));
  EXPECT_THAT(r.out, HasSubstr("wrote   Z -> " + Path("got.npy")));
  EXPECT_THAT(r.out, HasSubstr("PASS"));
  absl::StatusOr<npy::NpyArray> got = npy::ReadNpyFile(Path("got.npy"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->descr, "<f4");
  EXPECT_EQ(got->shape, (std::vector<int64_t>{kM, kN}));
  std::vector<float> values(kM * kN);
  std::memcpy(values.data(), got->data.data(), got->data.size());
  for (int64_t i = 0; i < kM * kN; ++i) ASSERT_NEAR(values[i], z_[i], 1e-5) << i;
}

TEST_F(TileRunNpyCpuTest, AWrongElementFails) {
  std::vector<double> wrong = z_;
  wrong[kN * 36 + 44] += 0.01;  // the last element, in the ragged corner block
  Write("wrong.npy", Array("<f8", {kM, kN}, wrong));
  Result r = Run(Flags("--expect", "--expect=Z=" + Path("wrong.npy")));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("1 of 1665 mismatched"));
  EXPECT_THAT(r.out, HasSubstr("worst at [36, 44]"));
  EXPECT_THAT(r.out, HasSubstr("FAIL"));
  // A looser tolerance lets it pass.
  std::vector<std::string> loose = Flags("--expect", "--expect=Z=" + Path("wrong.npy"));
  loose.push_back("--atol=0.02");
  EXPECT_EQ(Run(loose).status, 0);
}

// A bf16 array exactly as np.save of an ml_dtypes.bfloat16 array wrote it.
TEST_F(TileRunNpyCpuTest, ReadsMlDtypesBfloat16) {
  Write("x23.npy", Array("<f4", {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}));
  // bf16_3.npy holds [1.0, -2.0, 0.5].
  Write("z23.npy", Array("<f8", {2, 3}, std::vector<double>{1.5, -1, 2, 3, 0.5, 3.5}));
  Result r = Run({"--in=X=" + Path("x23.npy"), "--in=Y=tools/npy/testdata/bf16_3.npy",
                  "--scalars=alpha=0.5", "--expect=Z=" + Path("z23.npy")});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("PASS"));
}

// u32 arrays ('<u4', NumPy's uint32) in and out, the high bit set in most words.
TEST_F(TileRunNpyCpuTest, ReadsAndWritesUint32) {
  std::vector<uint32_t> packed, expected;
  for (uint32_t i = 0; i < 100; ++i) {
    packed.push_back(0x9E3779B9u * (i + 1));
    expected.push_back((packed.back() >> 28) + (packed.back() & 15));
  }
  Write("packed.npy", Array("<u4", {100}, packed));
  Write("ends.npy", Array("<u4", {100}, expected));
  Result r = Run({"--in=Packed=" + Path("packed.npy"), "--expect=Out=" + Path("ends.npy"),
                  "--out=Out=" + Path("got_ends.npy")},
                 "tools/tile_run/testdata/nibble_ends.tile");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("0 of 100 mismatched"));
  absl::StatusOr<npy::NpyArray> got = npy::ReadNpyFile(Path("got_ends.npy"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->descr, "<u4");
  std::vector<uint32_t> values(100);
  std::memcpy(values.data(), got->data.data(), got->data.size());
  EXPECT_EQ(values, expected);
}

TEST_F(TileRunNpyCpuTest, RefusesAWrongDtypeNamingBoth) {
  Write("x64.npy", Array("<f8", {kM, kN}, z_));
  ExpectRefused(Flags("--in=X", "--in=X=" + Path("x64.npy")),
                "x64.npy: parameter 'X' of kernel 'scale_add_rows' is f32 (float32, '<f4' in a "
                ".npy header), but the file holds '<f8' (float64)");
  Write("y32.npy", Array("<f4", {kN}, std::vector<float>(kN, 1)));
  ExpectRefused(Flags("--in=Y", "--in=Y=" + Path("y32.npy")),
                "parameter 'Y' of kernel 'scale_add_rows' is bf16 (ml_dtypes.bfloat16, '<V2' in "
                "a .npy header), but the file holds '<f4' (float32)");
}

TEST_F(TileRunNpyCpuTest, RefusesWrongRanksAndShapes) {
  Write("y2d.npy", Array("<V2", {1, kN}, y_bits_));
  ExpectRefused(Flags("--in=Y", "--in=Y=" + Path("y2d.npy")),
                "parameter 'Y' of kernel 'scale_add_rows' has rank 1 (bf16[N]), the array has "
                "rank 2 (shape (1, 45))");
  std::vector<uint16_t> short_y(y_bits_.begin(), y_bits_.end() - 1);
  Write("y44.npy", Array("<V2", {kN - 1}, short_y));
  ExpectRefused(Flags("--in=Y", "--in=Y=" + Path("y44.npy")),
                "dimension 'N' is 45 by " + Path("x.npy") +
                    " (parameter 'X', shape (37, 45)) but 44 by " + Path("y44.npy") +
                    " (parameter 'Y', shape (44,))");
  std::vector<std::string> shapes = Flags();
  shapes.push_back("--shapes=N=46");
  ExpectRefused(shapes, "dimension 'N' is 46 by --shapes but 45 by " + Path("x.npy"));
}

TEST_F(TileRunNpyCpuTest, BindsADimensionNoArrayHasFromShapes) {
  // Only Y is read: M appears in no given array (X and Z are outputs here).
  std::vector<std::string> flags = {"--in=Y=" + Path("y.npy"), "--out=X=" + Path("xo.npy"),
                                    "--out=Z=" + Path("zo.npy"), "--scalars=alpha=1"};
  ExpectRefused(flags,
                "dimension 'M' is the extent of no given array's dimension; give it with "
                "--shapes M=N");
  flags.push_back("--shapes=M=3");
  Result r = Run(flags);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  absl::StatusOr<npy::NpyArray> z = npy::ReadNpyFile(Path("zo.npy"));
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->shape, (std::vector<int64_t>{3, kN}));
}

TEST_F(TileRunNpyCpuTest, RefusesNamesAndFilesThatDoNotFit) {
  std::vector<std::string> unknown = Flags();
  unknown.push_back("--in=W=" + Path("x.npy"));
  ExpectRefused(unknown,
                "--in W=" + Path("x.npy") +
                    ": kernel 'scale_add_rows' has no buffer parameter 'W' (its buffers: X, Y, Z)");
  ExpectRefused(Flags("--expect", ""),
                "parameter 'Z' of kernel 'scale_add_rows' has no file: give every buffer --in");
  std::vector<std::string> twice = Flags();
  twice.push_back("--in=X=" + Path("z.npy"));
  ExpectRefused(twice, "--in names parameter 'X' twice");
  ExpectRefused(Flags("--in=X", "--in=X"), "--in: expected NAME=FILE.npy, got 'X'");

  absl::StatusOr<npy::NpyArray> x = npy::ReadNpyFile(Path("x.npy"));
  ASSERT_TRUE(x.ok());
  absl::StatusOr<std::string> bytes = npy::SerializeNpy(*x);
  ASSERT_TRUE(bytes.ok());
  std::ofstream(Path("cut.npy"), std::ios::binary) << bytes->substr(0, bytes->size() - 4);
  ExpectRefused(Flags("--in=X", "--in=X=" + Path("cut.npy")),
                Path("cut.npy") +
                    ": truncated data: shape (37, 45) of '<f4' is 6660 bytes, the "
                    "file has 6656");
  std::ofstream(Path("text.npy")) << "1,2,3\n";
  ExpectRefused(Flags("--in=X", "--in=X=" + Path("text.npy")),
                Path("text.npy") + ": not a .npy file (bad magic");
  ExpectRefused(Flags("--in=X", "--in=X=" + Path("absent.npy")),
                Path("absent.npy") + ": cannot open");
  ExpectRefused(Flags("--in=X", "--in=X=tools/npy/testdata/f16_fortran.npy"), "Fortran order");
}

// A double holds integers exactly only up to 2^53: an i64 scalar must arrive as given.
TEST_F(TileRunNpyCpuTest, PassesIntegerScalarsExactly) {
  for (int64_t value : {int64_t{9007199254740993}, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max()}) {
    Result r =
        Run({"--shapes=N=5", absl::StrCat("--scalars=v=", value), "--out=Y=" + Path("filled.npy")},
            "tools/tile_run/testdata/fill_i64.tile");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    absl::StatusOr<npy::NpyArray> y = npy::ReadNpyFile(Path("filled.npy"));
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(y->descr, "<i8");
    std::vector<int64_t> got(5);
    ASSERT_EQ(y->data.size(), sizeof(int64_t) * got.size());
    std::memcpy(got.data(), y->data.data(), y->data.size());
    EXPECT_EQ(got, std::vector<int64_t>(5, value));
  }
}

TEST_F(TileRunNpyCpuTest, RefusesAnInputThatIsADeviceWithoutReadingIt) {
  const std::string zero = Path("zero.npy");
  ::unlink(zero.c_str());
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  ExpectRefused(Flags("--in=X", "--in=X=" + zero),
                zero + ": is a character device, not a regular file; give a file");
}

TEST_F(TileRunNpyCpuTest, RefusesSuiteFlagsAndAMissingScalar) {
  std::vector<std::string> check = Flags();
  check.push_back("--check");
  ExpectRefused(check, "--check works on the suite's random inputs");
  Result r = Run(Flags("--scalars", ""));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("no value for the scalar parameter 'alpha'"));
  std::vector<std::string> rtol = {"--rtol=0.1"};
  ExpectRefused(rtol, "--rtol is the tolerance of --expect, which is absent");
}

}  // namespace
}  // namespace tile_ir::tools
