// The records file (writing, reading, refusing bad files with the file and
// line named), evidence checks, merging and staleness.
#include "tools/tile_matrix/record.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/json.h"
#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {
namespace {

Record Verified(const std::string& op, const std::string& target, const std::string& date) {
  Record r;
  r.op = op;
  r.target = target;
  r.backend = target.substr(0, target.find(':'));
  r.dtype = "f16";
  r.status = Status::kVerified;
  r.detail = "within tolerance";
  r.arch = "sm_90a";
  r.hardware = "NVIDIA H200";
  r.toolkit = "NVRTC 13.0, driver 13.0";
  r.commit = "abc1234";
  r.date = date;
  r.machine = "gpu";
  r.ir_hash = "1111";
  r.lowering_hash = "2222";
  r.max_abs_error = 1.5e-6;
  r.max_rel_error = 2e-4;
  r.atol = 0;
  r.rtol = 1e-3;
  r.shapes = "M=1024";
  r.seed = 7;
  r.log = "C: ... PASS\nline \"two\"\ttab";
  return r;
}

Record WithStatus(Record r, Status status, const std::string& date) {
  r.status = status;
  r.date = date;
  r.hardware.clear();
  r.max_abs_error.reset();
  r.max_rel_error.reset();
  r.detail = "compiled by NVRTC";
  return r;
}

TEST(RecordsJsonTest, RoundTripsSortedOneFieldPerLine) {
  Record a = Verified("softmax_f16", "cuda:sm_90a", "2026-12-01T00:00:00Z");
  a.code_hash = "5555";
  Record b = WithStatus(Verified("gemm_f16", "cuda:sm_80", "2026-12-01T00:00:00Z"),
                        Status::kCompiled, "2026-12-01T00:00:00Z");
  std::string text = WriteRecordsJson({a, b});
  EXPECT_LT(text.find("gemm_f16"), text.find("softmax_f16"));
  EXPECT_TRUE(absl::StrContains(text, "\n      \"max_abs_error\": 1.5e-06,\n")) << text;
  absl::StatusOr<std::vector<Record>> back = ParseRecordsJson(text, "r.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].log, a.log);
  EXPECT_EQ((*back)[1].max_abs_error, a.max_abs_error);
  EXPECT_EQ((*back)[1].seed, a.seed);
  EXPECT_EQ((*back)[1].code_hash, "5555");
  EXPECT_EQ((*back)[0].status, Status::kCompiled);
  EXPECT_EQ(WriteRecordsJson(*back), text);
}

TEST(RecordsJsonTest, EmptyMatrix) {
  absl::StatusOr<std::vector<Record>> back = ParseRecordsJson(WriteRecordsJson({}), "r.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->empty());
}

void ExpectError(const std::string& text, const std::string& want) {
  absl::StatusOr<std::vector<Record>> parsed = ParseRecordsJson(text, "docs/records.json");
  ASSERT_FALSE(parsed.ok()) << text;
  EXPECT_TRUE(absl::StartsWith(parsed.status().message(), "docs/records.json:")) << parsed.status();
  EXPECT_TRUE(absl::StrContains(parsed.status().message(), want)) << parsed.status();
}

TEST(RecordsJsonTest, CorruptFilesAreRefusedNamingFileAndLine) {
  std::string good = WriteRecordsJson({Verified("gemm_f16", "cuda:sm_90a", "2026-12-01")});
  ExpectError(good.substr(0, good.size() / 2), "not valid JSON");
  ExpectError(absl::StrReplaceAll(good, {{"\"op\":", "\"op\" "}}), "5:");
  ExpectError("", "1:1: expected a value");
  ExpectError("[]", "must hold a JSON object");
  ExpectError("{\"format\": \"other\", \"records\": []}", "tile-matrix records v1");
  ExpectError(absl::StrReplaceAll(good, {{"\"machine\"", "\"machin\""}}),
              "unknown record field \"machin\"");
  ExpectError(absl::StrReplaceAll(good, {{"\"verified\"", "\"ok\""}}), "\"status\" must be one of");
  ExpectError(absl::StrReplaceAll(good, {{"\"seed\": 7", "\"seed\": \"7\""}}),
              "\"seed\" must be a non-negative integer");
  ExpectError(
      absl::StrReplaceAll(good, {{"\"max_abs_error\": 1.5e-06", "\"max_abs_error\": \"x\""}}),
      "\"max_abs_error\" must be a number");
}

TEST(RecordsJsonTest, DuplicateCellsAreRefused) {
  Record a = Verified("gemm_f16", "cuda:sm_90a", "2026-12-01");
  std::string one = WriteRecordsJson({a});
  std::string object = one.substr(one.find("    {"), one.rfind("    }") + 5 - one.find("    {"));
  std::string two = absl::StrReplaceAll(one, {{object, object + ",\n" + object}});
  ExpectError(two, "a second record for gemm_f16 @ cuda:sm_90a");
}

TEST(ValidateRecordTest, VerifiedNeedsItsEvidence) {
  Record r = Verified("gemm_f16", "cuda:sm_90a", "2026-12-01");
  EXPECT_TRUE(ValidateRecord(r).ok());
  r.hardware.clear();
  r.max_abs_error.reset();
  absl::Status status = ValidateRecord(r);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "gemm_f16 @ cuda:sm_90a")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "missing hardware, max_abs_error")) << status;
  // The file reader refuses such a record too.
  ExpectError(WriteRecordsJson({r}), "missing hardware");
}

TEST(ValidateRecordTest, OtherStatusesNeedTheirs) {
  Record r = Verified("gemm_f16", "hip:gfx90a", "2026-12-01");
  r.status = Status::kCompiled;
  r.toolkit.clear();
  EXPECT_TRUE(absl::StrContains(ValidateRecord(r).message(), "missing toolkit"));
  r.status = Status::kUnsupported;
  r.detail.clear();
  EXPECT_TRUE(absl::StrContains(ValidateRecord(r).message(), "missing detail"));
  r.status = Status::kGenerated;
  r.commit.clear();
  EXPECT_TRUE(absl::StrContains(ValidateRecord(r).message(), "missing commit"));
  r.commit = "x";
  r.backend = "cuda";
  EXPECT_TRUE(absl::StrContains(ValidateRecord(r).message(), "is not of backend"));
}

TEST(MergeTest, NewerReplacesOlderAndOlderIsIgnored) {
  std::vector<Record> matrix = {Verified("gemm_f16", "cuda:sm_90a", "2026-12-01T00:00:00Z")};
  Record newer = Verified("gemm_f16", "cuda:sm_90a", "2026-12-02T00:00:00Z");
  newer.max_abs_error = 3e-6;
  std::vector<MergeEvent> events = MergeRecords(matrix, {newer});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].action, MergeAction::kReplaced);
  EXPECT_EQ(matrix[0].max_abs_error, 3e-6);

  Record older = Verified("gemm_f16", "cuda:sm_90a", "2026-11-01T00:00:00Z");
  events = MergeRecords(matrix, {older});
  EXPECT_EQ(events[0].action, MergeAction::kKeptOlder);
  EXPECT_EQ(matrix[0].date, "2026-12-02T00:00:00Z");

  events = MergeRecords(matrix, {Verified("add_f32", "cpu", "2026-11-01T00:00:00Z")});
  EXPECT_EQ(events[0].action, MergeAction::kAdded);
  ASSERT_EQ(matrix.size(), 2u);
  EXPECT_EQ(matrix[0].op, "add_f32");  // sorted
}

TEST(MergeTest, WeakerSuccessForTheSameCodeKeepsTheStrongerEvidence) {
  std::vector<Record> matrix = {Verified("gemm_f16", "cuda:sm_90a", "2026-12-01T00:00:00Z")};
  Record compiled = WithStatus(matrix[0], Status::kCompiled, "2026-12-05T00:00:00Z");
  EXPECT_EQ(MergeRecords(matrix, {compiled})[0].action, MergeAction::kKeptStronger);
  EXPECT_EQ(matrix[0].status, Status::kVerified);

  // Other code: the verified evidence is about the old kernel.
  compiled.ir_hash = "3333";
  EXPECT_EQ(MergeRecords(matrix, {compiled})[0].action, MergeAction::kReplaced);
  EXPECT_EQ(matrix[0].status, Status::kCompiled);
}

TEST(MergeTest, AFailureReplacesASuccess) {
  std::vector<Record> matrix = {Verified("gemm_f16", "cuda:sm_90a", "2026-12-01T00:00:00Z")};
  Record failed = WithStatus(matrix[0], Status::kFailed, "2026-12-02T00:00:00Z");
  failed.detail = "compiling with NVRTC 13.0: error";
  EXPECT_EQ(MergeRecords(matrix, {failed})[0].action, MergeAction::kReplaced);
  EXPECT_EQ(matrix[0].status, Status::kFailed);
}

TEST(StaleTest, ChangedKernelOrLoweringMarksARecordStale) {
  CurrentCode code;
  code.ops = {"gemm_f16"};
  code.ir_hash["gemm_f16"] = "1111";
  code.lowering_hash["cuda:sm_90a"] = "2222";
  Record r = Verified("gemm_f16", "cuda:sm_90a", "2026-12-01");
  EXPECT_EQ(StaleReason(r, code), "");
  code.ir_hash["gemm_f16"] = "9999";
  EXPECT_TRUE(absl::StrContains(StaleReason(r, code), "kernel's IR changed"));
  code.ir_hash["gemm_f16"] = "1111";
  code.lowering_hash["cuda:sm_90a"] = "9999";
  EXPECT_TRUE(absl::StrContains(StaleReason(r, code), "lowering"));
  r.op = "gone";
  EXPECT_TRUE(absl::StrContains(StaleReason(r, code), "not in the suite"));
}

TEST(StaleTest, ChangedGeneratedCodeMarksARecordStaleOnItsOwnArch) {
  CurrentCode code;
  code.ops = {"gemm_f16"};
  code.ir_hash["gemm_f16"] = "1111";
  code.lowering_hash["cuda:sm_90a"] = "2222";
  code.arch["cuda:sm_90a"] = "sm_90a";
  code.code_hash[{"gemm_f16", "cuda:sm_90a"}] = "3333";
  Record r = Verified("gemm_f16", "cuda:sm_90a", "2026-12-01");
  // A record from before code hashes existed is judged by the other two alone.
  EXPECT_EQ(StaleReason(r, code), "");
  r.code_hash = "3333";
  EXPECT_EQ(StaleReason(r, code), "");
  code.code_hash[{"gemm_f16", "cuda:sm_90a"}] = "4444";
  EXPECT_TRUE(absl::StrContains(StaleReason(r, code), "code generated for it changed"));
  // Code made for another arch (a CPU record from another host) cannot be compared.
  r.arch = "znver3";
  EXPECT_EQ(StaleReason(r, code), "");
}

TEST(MergeTest, ADifferentCodeHashIsDifferentCode) {
  std::vector<Record> matrix = {Verified("gemm_f16", "cuda:sm_90a", "2026-12-01T00:00:00Z")};
  matrix[0].code_hash = "3333";
  Record compiled = WithStatus(matrix[0], Status::kCompiled, "2026-12-02T00:00:00Z");
  // Same code: the verified record stays over a weaker, later one.
  EXPECT_EQ(MergeRecords(matrix, {compiled})[0].action, MergeAction::kKeptStronger);
  // A record without a code hash (older, or of a target whose code follows the host) is judged
  // by the other two hashes alone.
  compiled.code_hash.clear();
  EXPECT_EQ(MergeRecords(matrix, {compiled})[0].action, MergeAction::kKeptStronger);
  compiled.code_hash = "4444";
  EXPECT_EQ(MergeRecords(matrix, {compiled})[0].action, MergeAction::kReplaced);
  EXPECT_EQ(matrix[0].status, Status::kCompiled);
}

TEST(JsonTest, EscapesAndUnicode) {
  absl::StatusOr<JsonValue> value =
      ParseJson("{\"a\": \"x\\u00e9\\n\", \"b\": [1, -2.5e3, true, null]}");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->object[0].second.string, "x\xc3\xa9\n");
  EXPECT_EQ(value->object[1].second.array[1].number, -2500);
  EXPECT_TRUE(value->object[1].second.array[2].boolean);
  EXPECT_EQ(JsonQuote("a\"b\\\x01"), "\"a\\\"b\\\\\\u0001\"");
  EXPECT_FALSE(ParseJson("{\"a\": 1, \"a\": 2}").ok());
  EXPECT_FALSE(ParseJson("[1,]").ok());
}

TEST(ExcerptTest, KeepsTheLastLinesAsText) {
  EXPECT_EQ(Excerpt(std::string("ptxas info\n\0\ncubin", 18)), "ptxas info\n\ncubin");
  EXPECT_EQ(Excerpt("1\n2\n3\n4\n", 2), "...\n3\n4");
  EXPECT_EQ(Excerpt("abcdef", 20, 3), "...\ndef");
}

}  // namespace
}  // namespace tile_ir::matrix
