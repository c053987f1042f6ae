// The JSON reader against protobuf's own on what both accept, and its errors on what neither
// should: they say where (line, column and field path) and what.
#include "tile_ir/proto/json_reader.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tile_ir/proto/tile_ir.pb.h"

namespace tile_ir::proto_json {
namespace {

using ::testing::HasSubstr;

// What protobuf's JsonStringToMessage makes of `json`, as bytes (nullopt when it refuses).
std::optional<std::string> ProtobufReads(const std::string& json) {
  v1::Module module;
  if (!google::protobuf::util::JsonStringToMessage(json, &module).ok()) return std::nullopt;
  return module.SerializeAsString();
}

std::string OursReads(const std::string& json) {
  v1::Module module;
  absl::Status status = JsonToMessage(json, {}, &module);
  EXPECT_TRUE(status.ok()) << status;
  return module.SerializeAsString();
}

std::string ErrorOf(const std::string& json, JsonReadOptions options = {}) {
  v1::Module module;
  absl::Status status = JsonToMessage(json, options, &module);
  return status.ok() ? "(read)" : std::string(status.message());
}

TEST(JsonReaderTest, ReadsWhatProtobufReads) {
  for (const std::string json : {
           R"({"ir_version": "2", "producer": "p\u00e9\ud83d\ude00\n", "kernels": [
                {"name": "k", "body": {"evaluate": {"value": {"binary": {"op": "BINARY_OP_ADD",
                  "a": {"int_imm": {"value": "-7", "dtype": {"scalar": "SCALAR_TYPE_I32",
                  "lanes": 1}}}, "b": {"float_imm": {"value": "NaN"}}}}}}}]})",
           // JSON names, numbers for int64 and enums, exponent forms, null for "not set".
           R"({"irVersion": 1, "producerVersion": null, "kernels": [{"body": {"evaluate":
                {"value": {"binary": {"op": 1, "a": {"intImm": {"value": 1e2}},
                "b": {"floatImm": {"value": -2.5E-3}}}}}}}, {}]})",
           R"({})",
       }) {
    SCOPED_TRACE(json);
    std::optional<std::string> expected = ProtobufReads(json);
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(OursReads(json), *expected);
  }
}

TEST(JsonReaderTest, ErrorsSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf("{\n  \"kernels\": [{\"name\": 3}]}"),
            "line 2, column 24 (kernels[0].name): expected a string, found the number 3");
  EXPECT_EQ(ErrorOf(R"({"mystery": 1})"),
            "line 1, column 2: unknown field \"mystery\" in tile_ir.v1.Module");
  EXPECT_EQ(
      ErrorOf(R"({"mystery": {"a": [1, {}]}, "ir_version": "1"})", {.ignore_unknown_fields = true}),
      "(read)");
  EXPECT_THAT(ErrorOf(R"({"kernels": [{"body": {"barrier": {}, "seq": {}}}]})"),
              HasSubstr("(kernels[0].body.seq): fields \"barrier\" and \"seq\" of oneof"));
  EXPECT_THAT(ErrorOf(R"({"ir_version": "1.5"})"), HasSubstr("expected an integer"));
  EXPECT_THAT(ErrorOf(R"({"ir_version": 1e40})"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf(R"({"producer": "\ud800"})"), HasSubstr("high surrogate"));
  EXPECT_THAT(ErrorOf("{\"producer\": \"\xff\"}"), HasSubstr("not valid UTF-8"));
  EXPECT_THAT(ErrorOf(R"({"producer": "a\qb"})"), HasSubstr("unknown escape"));
  EXPECT_THAT(ErrorOf(R"({"producer": "a", "producer": "b"})"), HasSubstr("appears twice"));
  EXPECT_THAT(ErrorOf(R"({"ir_version": 01})"), HasSubstr("not a JSON number"));
  EXPECT_THAT(ErrorOf(R"({} x)"), HasSubstr("after the top-level object"));
  EXPECT_THAT(ErrorOf(R"([])"), HasSubstr("expected '{' for tile_ir.v1.Module, found '['"));
  EXPECT_THAT(ErrorOf(R"({"kernels": [{"body": {"evaluate": {"value": {"unary": {}}}}}]})",
                      {.max_message_depth = 5}),
              HasSubstr("objects nest more than 5 deep"));
}

}  // namespace
}  // namespace tile_ir::proto_json
