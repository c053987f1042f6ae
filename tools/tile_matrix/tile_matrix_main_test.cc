// tile-matrix's subcommands over a fake backend and two operators of the
// real suite: the statuses the level walk gives, run --out and merge, query's
// exit codes, render and render --check, and bad records files.
#include "tools/tile_matrix/tile_matrix_main.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "tools/tile_matrix/record.h"

namespace tile_ir::matrix {
namespace {

// "fake:a" compiles and runs; "fake:b" has no compiler. gemm_f16 is refused
// on both; on "fake:a", add_f32 runs outside the tolerance when told to.
class FakeProber final : public BackendProber {
 public:
  explicit FakeProber(bool add_fails) : add_fails_(add_fails) {}
  std::string backend() const override { return "fake"; }
  std::vector<TargetSpec> Targets() const override {
    return {{"fake:a", "a", "pipeline-a"}, {"fake:b", "b", "pipeline-b"}};
  }
  MachineFacts Discover(const TargetSpec& target) override {
    MachineFacts facts;
    if (target.target == "fake:a") {
      facts.compiler = "fakecc 1.0";
      facts.toolkit = "fakecc 1.0";
      facts.hardware = "Fake GPU";
    } else {
      facts.no_compiler = "no fakecc for b here";
    }
    return facts;
  }
  absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& target) override {
    if (module.kernels.front()->name == "gemm_f16" && target.target == "fake:b")
      return absl::ResourceExhaustedError("the kernel needs 80000 bytes of shared memory");
    if (module.kernels.front()->name == "gemm_f16")
      return absl::UnimplementedError("fake target: gemm on f16 needs matrix units");
    return std::string("source");
  }
  absl::StatusOr<CompileOutput> Compile(const Module&, const std::string&,
                                        const TargetSpec&) override {
    return CompileOutput{"fakecc: ok", "fakecc 1.0.1"};
  }
  absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec&, uint64_t) override {
    RunFigures figures;
    figures.passed = !add_fails_;
    figures.max_abs_error = add_fails_ ? 0.5 : 1e-7;
    figures.max_rel_error = 1e-7;
    figures.shapes = "M=8,N=8";
    figures.report = "C: PASS";
    return figures;
  }

 private:
  bool add_fails_;
};

class TileMatrixMainTest : public testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"add_f32", "gemm_f16"}) suite_.push_back(*ops::FindOp(name));
    dir_ = std::filesystem::path(std::getenv("TEST_TMPDIR")) /
           testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_ / "docs/support_matrix");
    env_.program = "tile-matrix";
    env_.suite = &suite_;
    env_.root = dir_.string();
    env_.commit = [] { return std::string("abc1234"); };
    env_.now = [this] { return now_; };
    env_.machine = [] { return std::string("testhost"); };
    env_.make_probers = [this] {
      Probers probers;
      probers.push_back(std::make_unique<FakeProber>(add_fails_));
      return probers;
    };
  }

  int Run(std::vector<std::string> args) {
    args.insert(args.begin(), "tile-matrix");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    out_.str("");
    err_.str("");
    return TileMatrixMain(static_cast<int>(argv.size()), argv.data(), out_, err_, env_);
  }

  std::string Path(const std::string& relative) { return (dir_ / relative).string(); }

  std::vector<ops::OpCase> suite_;
  std::filesystem::path dir_;
  TileMatrixEnvironment env_;
  std::string now_ = "2026-12-01T00:00:00Z";
  bool add_fails_ = false;
  std::ostringstream out_, err_;
};

TEST_F(TileMatrixMainTest, RunRecordsEachLevelItReached) {
  ASSERT_EQ(Run({"run"}), 0) << err_.str();
  EXPECT_TRUE(absl::StrContains(err_.str(), "[1/4, ")) << err_.str();
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(Path(kRecordsPath));
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u);
  // Sorted: add_f32 @ fake:a, add_f32 @ fake:b, gemm_f16 @ fake:a, gemm_f16 @ fake:b.
  EXPECT_EQ((*records)[0].status, Status::kVerified);
  EXPECT_EQ((*records)[0].hardware, "Fake GPU");
  EXPECT_EQ((*records)[0].max_abs_error, 1e-7);
  EXPECT_EQ((*records)[0].commit, "abc1234");
  EXPECT_EQ((*records)[0].toolkit, "fakecc 1.0.1");  // the version the compile reported
  EXPECT_EQ((*records)[1].status, Status::kGenerated);
  EXPECT_TRUE(absl::StrContains((*records)[1].detail, "no fakecc for b here"));
  EXPECT_EQ((*records)[2].status, Status::kUnsupported);
  EXPECT_TRUE(absl::StrContains((*records)[2].detail, "needs matrix units"));
  EXPECT_EQ((*records)[3].status, Status::kUnsupported);
  EXPECT_TRUE(absl::StrContains((*records)[3].detail, "80000 bytes of shared memory"));
  // The pages were rendered and are up to date.
  EXPECT_EQ(Run({"render", "--check"}), 0) << err_.str();
}

TEST_F(TileMatrixMainTest, AFailedCheckIsRecordedWithItsFiguresAndExitsOne) {
  add_fails_ = true;
  EXPECT_EQ(Run({"run", "--ops=add_f32", "--no-render"}), 1);
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(Path(kRecordsPath));
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ((*records)[0].status, Status::kFailed);
  EXPECT_EQ((*records)[0].max_abs_error, 0.5);
  EXPECT_TRUE(absl::StrContains((*records)[0].detail, "outside the tolerance on Fake GPU"));
}

TEST_F(TileMatrixMainTest, RunOutThenMergeFoldsNewerRecordsIn) {
  ASSERT_EQ(Run({"run", "--no-render"}), 0) << err_.str();
  now_ = "2026-12-02T00:00:00Z";
  add_fails_ = true;
  std::string elsewhere = Path("elsewhere.json");
  EXPECT_EQ(Run({"run", "--ops=add_f32", "--out=" + elsewhere}), 1);
  ASSERT_EQ(Run({"merge", elsewhere}), 0) << err_.str();
  EXPECT_TRUE(absl::StrContains(out_.str(), "0 added, 2 replaced, 0 kept")) << out_.str();
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(Path(kRecordsPath));
  ASSERT_TRUE(records.ok());
  EXPECT_EQ((*records)[0].status, Status::kFailed);
  EXPECT_EQ((*records)[0].date, "2026-12-02T00:00:00Z");
  EXPECT_EQ((*records)[1].status, Status::kGenerated);  // same status, newer: replaced too
  EXPECT_EQ(Run({"render", "--check"}), 0) << err_.str();
}

TEST_F(TileMatrixMainTest, QueryExitCodes) {
  ASSERT_EQ(Run({"run", "--no-render"}), 0) << err_.str();
  EXPECT_EQ(Run({"query", "--op=add"}), 0);
  EXPECT_TRUE(absl::StrContains(out_.str(), "add_f32 @ fake:a: verified, max abs err 1e-07"))
      << out_.str();
  EXPECT_TRUE(absl::StrContains(out_.str(), "hardware: Fake GPU")) << out_.str();
  EXPECT_TRUE(absl::StrContains(out_.str(), "commit: abc1234")) << out_.str();
  EXPECT_EQ(Run({"query", "--op=gemm", "--target=fake:b"}), 0);
  EXPECT_TRUE(absl::StrContains(out_.str(), "unsupported")) << out_.str();
  EXPECT_EQ(Run({"query", "--op=add", "--dtype=f32", "--backend=fake"}), 0);
  EXPECT_EQ(Run({"query", "--op=conv"}), 1);
  EXPECT_TRUE(absl::StrContains(err_.str(), "no record")) << err_.str();
  EXPECT_EQ(Run({"query", "--op=add", "--backend=hip"}), 1);
  EXPECT_EQ(Run({"query", "--opp=add"}), 2);
  EXPECT_TRUE(absl::StrContains(err_.str(), "did you mean '--op'")) << err_.str();
  EXPECT_EQ(Run({"query", "--help"}), 0);
  EXPECT_TRUE(absl::StrContains(out_.str(), "Usage: tile-matrix query")) << out_.str();
  EXPECT_EQ(Run({"frobnicate"}), 2);
  EXPECT_EQ(Run({}), 2);
}

TEST_F(TileMatrixMainTest, StaleRecordsAreMarked) {
  ASSERT_EQ(Run({"run", "--no-render"}), 0) << err_.str();
  // The committed record of add_f32 was made from other code.
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(Path(kRecordsPath));
  ASSERT_TRUE(records.ok());
  (*records)[0].ir_hash = "0000000000000000";
  ASSERT_TRUE(WriteRecordsFile(Path(kRecordsPath), *records).ok());
  EXPECT_EQ(Run({"query", "--op=add_f32", "--target=fake:a", "--brief"}), 0);
  EXPECT_TRUE(absl::StrContains(out_.str(), "(stale: the kernel's IR changed")) << out_.str();
  ASSERT_EQ(Run({"render"}), 0) << err_.str();
  std::ifstream markdown(Path(kMarkdownPath));
  std::stringstream text;
  text << markdown.rdbuf();
  EXPECT_TRUE(absl::StrContains(text.str(), "| add_f32 | f32 | verified 1e-07 *(stale)* |"))
      << text.str();
}

TEST_F(TileMatrixMainTest, RenderCheckFailsOnAnEditedPage) {
  ASSERT_EQ(Run({"run"}), 0) << err_.str();
  std::ofstream(Path(kMarkdownPath), std::ios::app) << "edited\n";
  EXPECT_EQ(Run({"render", "--check"}), 1);
  EXPECT_TRUE(absl::StrContains(err_.str(), "SUPPORT_MATRIX.md differs")) << err_.str();
}

TEST_F(TileMatrixMainTest, ABadRecordsFileIsAClearErrorNamingIt) {
  std::ofstream(Path(kRecordsPath)) << "{\"format\": \"tile-matrix records v1\", \"records\": [\n{";
  for (auto args : std::vector<std::vector<std::string>>{
           {"query", "--op=add"}, {"render"}, {"run", "--ops=add_f32"}}) {
    EXPECT_EQ(Run(args), 1) << args[0];
    EXPECT_TRUE(absl::StrContains(err_.str(), Path(kRecordsPath) + ":2:")) << err_.str();
    EXPECT_TRUE(absl::StrContains(err_.str(), "not valid JSON")) << err_.str();
  }
  std::filesystem::remove(Path(kRecordsPath));
  EXPECT_EQ(Run({"merge", Path("missing.json")}), 1);
  EXPECT_TRUE(absl::StrContains(err_.str(), "missing.json")) << err_.str();
}

TEST_F(TileMatrixMainTest, RunRefusesUnknownBackendsAndOps) {
  EXPECT_EQ(Run({"run", "--backends=hip"}), 2);
  EXPECT_TRUE(absl::StrContains(err_.str(), "no backend 'hip'; it has: fake")) << err_.str();
  EXPECT_EQ(Run({"run", "--ops=nope"}), 2);
  EXPECT_TRUE(absl::StrContains(err_.str(), "no operator 'nope'")) << err_.str();
}

}  // namespace
}  // namespace tile_ir::matrix
