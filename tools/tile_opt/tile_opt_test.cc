// tile-opt end to end through its library entry point: formats, pipelines,
// and that every kind of bad input ends in a message and a non-zero status.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tile_ir/version.h"
#include "tools/tile_opt/linked_pipeline_targets.h"
#include "tools/tile_opt/tile_opt_main.h"

namespace tile_ir::tools {
namespace {

struct Result {
  int status;
  std::string out;
  std::string err;
};

Result RunTileOpt(std::vector<std::string> args, const std::string& stdin_text = "") {
  args.insert(args.begin(), "tile-opt");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int status = TileOptMain(static_cast<int>(argv.size()), argv.data(), in, out, err,
                           LinkedPipelineTargets());
  return {status, out.str(), err.str()};
}

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

constexpr char kKernel[] = R"(ir_version 1;
producer "test" "1";

kernel scale<N: i32>(X: f32[N], Y: f32[N]) grid(bx: ceildiv(N, 128)) threads(128) {
  for i in 0 +: 128 parallel {
    if (bx * 128 + i < N) {
      Y[bx * 128 + i + 0 * 7] = X[bx * 128 + i] * 2.0;
    }
  }
}
)";

TEST(TileOptTest, HelpAndListPasses) {
  Result help = RunTileOpt({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--pass-pipeline"), std::string::npos);
  EXPECT_NE(help.out.find("--ir-version"), std::string::npos);
  Result list = RunTileOpt({"--list-passes"});
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("simplify"), std::string::npos);
  EXPECT_NE(list.out.find("remove-dead-code"), std::string::npos);
}

// Issue 45: --list-passes said it lists every pass, yet without --target it leaves out the
// target's own; and a target's pass named without --target was "unknown" with no hint.
TEST(TileOptTest, ListPassesSaysWhereATargetsOwnPassesAre) {
  Result list = RunTileOpt({"--list-passes"});
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("a target's own passes are listed with --target=NAME"),
            std::string::npos)
      << list.out;
  EXPECT_EQ(list.out.find("pad-shared-rows"), std::string::npos) << list.out;
  Result cuda = RunTileOpt({"--list-passes", "--target=cuda"});
  EXPECT_EQ(cuda.status, 0);
  EXPECT_NE(cuda.out.find("Passes, with cuda:sm_90a's own:"), std::string::npos) << cuda.out;
  EXPECT_NE(cuda.out.find("pad-shared-rows"), std::string::npos) << cuda.out;
}

TEST(TileOptTest, ATargetsPassWithoutTheTargetNamesIt) {
  Result r = RunTileOpt({"-", "--input-format=tile", "--pass-pipeline=pad-shared-rows"}, kKernel);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("unknown pass 'pad-shared-rows'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'pad-shared-rows' is a pass of target cuda: pass --target=cuda"),
            std::string::npos)
      << r.err;
}

TEST(TileOptTest, TextProtoJsonRoundTripThroughStdin) {
  Result proto = RunTileOpt({"-", "--input-format=tile", "--emit=proto"}, kKernel);
  ASSERT_EQ(proto.status, 0) << proto.err;
  Result json = RunTileOpt({"-", "--input-format=tilepb", "--emit=json"}, proto.out);
  ASSERT_EQ(json.status, 0) << json.err;
  Result text = RunTileOpt({"-", "--input-format=json"}, json.out);
  ASSERT_EQ(text.status, 0) << text.err;
  Result direct = RunTileOpt({"-", "--input-format=tile"}, kKernel);
  ASSERT_EQ(direct.status, 0) << direct.err;
  EXPECT_EQ(text.out, direct.out);
}

TEST(TileOptTest, RunsAPipelineAndWritesAFile) {
  std::string in = TempPath("k.tile");
  std::string out = TempPath("k.out.tile");
  WriteBytes(in, kKernel);
  Result r = RunTileOpt({in, "--pass-pipeline=simplify,remove-dead-code", "-o", out, "--timing"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("simplify"), std::string::npos) << "timing report expected";
  std::ifstream file(out);
  std::string written((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(written.find("Y[bx * 128 + i] = X[bx * 128 + i] * 2.0;"), std::string::npos) << written;
}

TEST(TileOptTest, UsageErrorsExitNonZeroWithAMessage) {
  Result no_input = RunTileOpt({});
  EXPECT_EQ(no_input.status, 2);
  EXPECT_NE(no_input.err.find("INPUT"), std::string::npos);
  Result bad_option = RunTileOpt({"--pass-pipline=simplify", "x.tile"});
  EXPECT_NE(bad_option.status, 0);
  EXPECT_NE(bad_option.err.find("did you mean '--pass-pipeline'"), std::string::npos)
      << bad_option.err;
  Result stdin_without_format = RunTileOpt({"-"}, kKernel);
  EXPECT_NE(stdin_without_format.status, 0);
  EXPECT_NE(stdin_without_format.err.find("--input-format"), std::string::npos);
  Result unknown_pass = RunTileOpt({"-", "--input-format=tile", "--pass-pipeline=simplfy"}, kKernel);
  EXPECT_NE(unknown_pass.status, 0);
  EXPECT_NE(unknown_pass.err.find("simplify"), std::string::npos) << unknown_pass.err;
  Result missing = RunTileOpt({TempPath("does-not-exist.tile")});
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.err.find("does-not-exist.tile"), std::string::npos);
}

TEST(TileOptTest, BadInputsNameTheInput) {
  std::string empty = TempPath("empty.tilepb");
  WriteBytes(empty, "");
  Result r = RunTileOpt({empty});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("empty.tilepb"), std::string::npos) << r.err;

  std::string empty_text = TempPath("empty.tile");
  WriteBytes(empty_text, "");
  r = RunTileOpt({empty_text});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("empty.tile:"), std::string::npos) << r.err;

  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    std::string path = TempPath("random.tilepb");
    WriteBytes(path, bytes);
    r = RunTileOpt({path});
    if (r.status == 0) continue;  // random bytes can happen to decode to a valid empty module
    EXPECT_NE(r.err.find("random.tilepb"), std::string::npos) << r.err;
  }
}

TEST(TileOptTest, RefusesADeviceOrAFifoNamingThePath) {
  const std::string zero = TempPath("zero.tile");
  ::unlink(zero.c_str());
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  Result r = RunTileOpt({zero});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "tile-opt: error: " + zero +
                       ": is a character device, not a regular file; give a file\n");
  const std::string fifo = TempPath("pipe.tilepb");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = RunTileOpt({fifo});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "tile-opt: error: " + fifo +
                       ": is a FIFO (named pipe), not a regular file; give a file\n");
}

TEST(TileOptTest, InvalidInputIrIsRejectedUnlessVerificationIsOff) {
  // A store of an f16 value into an f32 buffer parses but does not verify.
  const std::string bad = R"(ir_version 1;
producer "test" "1";

kernel k(Y: f32[4]) grid(bx: 1) threads(1) {
  Y[0] = 1.0_f16;
}
)";
  Result r = RunTileOpt({"-", "--input-format=tile"}, bad);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("invalid input IR"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("<stdin>:5:3"), std::string::npos) << r.err;
  EXPECT_EQ(RunTileOpt({"-", "--input-format=tile", "--no-verify"}, bad).status, 0);
}

TEST(TileOptTest, SplitInputFileKeepsLineNumbers) {
  std::string two = std::string(kKernel) + "// -----\n" + "ir_version 1;\nproducer \"t\" \"1\";\nbogus\n";
  Result r = RunTileOpt({"-", "--input-format=tile", "--split-input-file"}, two);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("<stdin>:14:1"), std::string::npos) << r.err;
}

// Uses '^' (ir_version 2) at line 7, column 7.
constexpr char kXorKernel[] = R"(ir_version 2;
producer "test" "1";

kernel mask<N: i32>(X: i32[N], Y: i32[N]) grid(bx: ceildiv(N, 128)) threads(128) {
  for i in 0 +: 128 parallel {
    if (bx * 128 + i < N) {
      Y[bx * 128 + i] = X[bx * 128 + i] ^ 5;
    }
  }
}
)";

// The version a written module declares, read back through its text form.
std::string DeclaredVersion(const std::string& bytes, const std::string& format) {
  Result text = RunTileOpt({"-", "--input-format=" + format}, bytes);
  EXPECT_EQ(text.status, 0) << text.err;
  return text.out.substr(0, text.out.find('\n'));
}

TEST(TileOptTest, IrVersionWritesForAnOlderReader) {
  Result v1 = RunTileOpt({"-", "--input-format=tile", "--emit=proto", "--ir-version=1"}, kKernel);
  ASSERT_EQ(v1.status, 0) << v1.err;
  EXPECT_EQ(DeclaredVersion(v1.out, "tilepb"), "ir_version 1;");
  Result v2 =
      RunTileOpt({"-", "--input-format=tile", "--emit=proto", "--ir-version=2"}, kXorKernel);
  ASSERT_EQ(v2.status, 0) << v2.err;
  EXPECT_EQ(DeclaredVersion(v2.out, "tilepb"), "ir_version 2;");
  // A module that needs nothing new declares the oldest version, which every later reader reads.
  Result newest = RunTileOpt(
      {"-", "--input-format=tile", "--emit=json", absl::StrCat("--ir-version=", kIrVersion)},
      kKernel);
  ASSERT_EQ(newest.status, 0) << newest.err;
  EXPECT_EQ(DeclaredVersion(newest.out, "json"), "ir_version 1;");
}

TEST(TileOptTest, IrVersionRefusesNamingTheFeatureThatNeedsNewer) {
  Result r = RunTileOpt({"-", "--input-format=tile", "--emit=proto", "--ir-version=1"}, kXorKernel);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("tile-opt: error: <stdin>: --ir-version=1: the module cannot be written "
                       "as ir_version 1: the xor operator in kernel 'mask' at <stdin>:7:7 needs "
                       "ir_version 2"),
            std::string::npos)
      << r.err;

  const std::string requirements = R"(ir_version 3;
producer "test" "1";

kernel rows<K: i32>(X: f32[K]) grid(bx: 1) threads(1) {
  require K % 32 == 0;
  X[0] = 1.0;
}
)";
  r = RunTileOpt({"-", "--input-format=tile", "--emit=proto", "--ir-version=2"}, requirements);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("the shape requirements ('require ...;') of kernel 'rows' at "
                       "<stdin>:5:3 needs ir_version 3"),
            std::string::npos)
      << r.err;
}

TEST(TileOptTest, IrVersionOutOfRangeIsAUsageError) {
  for (const std::string& version :
       {std::string("0"), std::string("-1"), absl::StrCat(kIrVersion + 1)}) {
    Result r = RunTileOpt({"-", "--input-format=tile", "--emit=proto", "--ir-version=" + version},
                          kKernel);
    EXPECT_EQ(r.status, 2) << version;
    EXPECT_NE(r.err.find(absl::StrCat("--ir-version=", version, ": ir_version ", version,
                                      " cannot be written: this build writes ir_version 1 to ",
                                      kIrVersion)),
              std::string::npos)
        << r.err;
  }
  Result r = RunTileOpt({"-", "--input-format=tile", "--ir-version=two"}, kKernel);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--ir-version: 'two' is not an integer"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tile_ir::tools
