// The committed support matrix (docs/support_matrix/records.json): every
// operator of the suite has a record for every target of every backend,
// each record carries the evidence its status claims, and the committed
// pages are exactly what `tile-matrix render` writes from it.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"
#include "ops/op_suite.h"
#include "tools/tile_matrix/all_probers.h"
#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/record.h"
#include "tools/tile_matrix/render.h"
#include "tools/tile_matrix/tile_matrix_main.h"

namespace tile_ir::matrix {
namespace {

constexpr char kRerun[] =
    "bazel run -c opt //tools:tile-matrix -- run --merge (and the GPU machine's tile-matrix-gpu "
    "run --out=FILE, merged with tile-matrix merge)";

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class SupportMatrixTest : public testing::Test {
 protected:
  // Once for the suite: describing the current code generates every operator's code.
  static void SetUpTestSuite() {
    code_ = new CurrentCode(DescribeCurrentCode(ops::OperatorSuite(), AllProbers()));
  }
  static void TearDownTestSuite() { delete code_; }

  void SetUp() override {
    absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(kRecordsPath);
    ASSERT_TRUE(records.ok()) << records.status();
    records_ = *std::move(records);
  }

  std::vector<Record> records_;
  static const CurrentCode* code_;
};

const CurrentCode* SupportMatrixTest::code_ = nullptr;

TEST_F(SupportMatrixTest, EveryOperatorHasARecordForEveryTarget) {
  std::set<std::pair<std::string, std::string>> cells;
  for (const Record& record : records_) cells.insert({record.op, record.target});
  std::vector<std::string> missing;
  for (const std::string& op : code_->ops) {
    for (const TargetSpec& target : code_->targets) {
      if (!cells.count({op, target.target})) missing.push_back(op + " @ " + target.target);
    }
  }
  EXPECT_TRUE(missing.empty()) << "no record in " << kRecordsPath
                               << " for: " << absl::StrJoin(missing, ", ") << "\nprobe them with "
                               << kRerun;
}

TEST_F(SupportMatrixTest, EveryRecordCarriesItsEvidence) {
  for (const Record& record : records_) {
    EXPECT_TRUE(ValidateRecord(record).ok()) << ValidateRecord(record);
    if (record.status != Status::kVerified) continue;
    EXPECT_FALSE(record.hardware.empty()) << CellName(record);
    EXPECT_TRUE(record.max_abs_error.has_value()) << CellName(record);
    EXPECT_FALSE(record.arch.empty()) << CellName(record);
    EXPECT_FALSE(record.date.empty()) << CellName(record);
    EXPECT_FALSE(record.commit.empty()) << CellName(record);
  }
}

TEST_F(SupportMatrixTest, CommittedPagesAreWhatRenderWrites) {
  EXPECT_EQ(ReadFile(kMarkdownPath), RenderMarkdown(records_, *code_, kRecordsPath))
      << kMarkdownPath << " is not what render writes; run bazel run //tools:tile-matrix -- render";
  EXPECT_EQ(ReadFile(kHtmlPath), RenderHtml(records_, *code_, kRecordsPath))
      << kHtmlPath << " is not what render writes; run bazel run //tools:tile-matrix -- render";
}

}  // namespace
}  // namespace tile_ir::matrix
