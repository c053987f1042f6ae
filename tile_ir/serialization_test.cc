// The .tilepb and JSON forms: round trips, version and unknown-field refusal, and malformed
// input (random, truncated, mutated, deeply nested) that must give errors, never crashes.
#include "tile_ir/serialization.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "testdata/compat/sample_modules.h"
#include "tile_ir/nesting_limit.h"
#include "tile_ir/printer.h"
#include "tile_ir/proto/json_writer.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/proto_convert.h"

namespace tile_ir {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendTag(int field, int wire_type, std::string* out) {
  AppendVarint(static_cast<uint64_t>(field) << 3 | wire_type, out);
}

size_t VarintSize(uint64_t value) {
  std::string bytes;
  AppendVarint(value, &bytes);
  return bytes.size();
}

// Message bytes for a length-delimited field: tag, length, contents.
std::string Field(int field, const std::string& contents) {
  std::string out;
  AppendTag(field, 2, &out);
  AppendVarint(contents.size(), &out);
  return out + contents;
}

// Module{ir_version: 1, kernels: [Kernel{name: "deep", body: Stmt{evaluate: {value: E}}}]},
// where E is `depth` negations of the i32 literal 1. Encoded from the outside in, so that
// building it costs linear time however deep it is.
std::string DeeplyNestedModule(int depth) {
  std::string data_type;
  AppendTag(1, 0, &data_type);
  AppendVarint(v1::SCALAR_TYPE_I32, &data_type);
  std::string int_imm = Field(1, data_type);
  AppendTag(2, 0, &int_imm);
  AppendVarint(1, &int_imm);
  const std::string leaf = Field(1, int_imm);  // Expr.int_imm

  // expr_sizes[k]: the size of the Expr with k negations; unary_sizes[k]: of its Unary.
  std::vector<size_t> expr_sizes = {leaf.size()}, unary_sizes = {0};
  for (int k = 1; k <= depth; ++k) {
    size_t unary = 2 + 1 + VarintSize(expr_sizes[k - 1]) + expr_sizes[k - 1];
    unary_sizes.push_back(unary);
    expr_sizes.push_back(1 + VarintSize(unary) + unary);
  }
  const size_t evaluate = 1 + VarintSize(expr_sizes[depth]) + expr_sizes[depth];
  const size_t stmt = 1 + VarintSize(evaluate) + evaluate;
  const std::string name = Field(1, "deep");
  const size_t kernel = name.size() + 1 + VarintSize(stmt) + stmt;

  std::string out;
  AppendTag(1, 0, &out);  // Module.ir_version
  AppendVarint(kIrVersion, &out);
  AppendTag(4, 2, &out);  // Module.kernels
  AppendVarint(kernel, &out);
  out += name;
  AppendTag(5, 2, &out);  // Kernel.body
  AppendVarint(stmt, &out);
  AppendTag(8, 2, &out);  // Stmt.evaluate
  AppendVarint(evaluate, &out);
  AppendTag(1, 2, &out);  // Evaluate.value
  AppendVarint(expr_sizes[depth], &out);
  for (int k = depth; k >= 1; --k) {
    AppendTag(4, 2, &out);  // Expr.unary
    AppendVarint(unary_sizes[k], &out);
    AppendTag(1, 0, &out);  // Unary.op
    AppendVarint(v1::UNARY_OP_NEG, &out);
    AppendTag(2, 2, &out);  // Unary.a
    AppendVarint(expr_sizes[k - 1], &out);
  }
  return out + leaf;
}

std::string ReadError(std::string_view bytes) {
  absl::StatusOr<Module> module = ReadModuleProto(bytes, "in.tilepb");
  EXPECT_FALSE(module.ok());
  return module.ok() ? "" : std::string(module.status().message());
}

std::string JsonError(std::string_view json) {
  absl::StatusOr<Module> module = ReadModuleJson(json, "in.json");
  EXPECT_FALSE(module.ok());
  return module.ok() ? "" : std::string(module.status().message());
}

std::string Repeat(std::string_view piece, int times) {
  std::string result;
  for (int i = 0; i < times; ++i) result.append(piece);
  return result;
}

const std::vector<compat::SampleModule>& Samples() {
  static const auto* const kSamples =
      new std::vector<compat::SampleModule>(compat::SampleModules());
  return *kSamples;
}

const Module& Sample(int index) { return Samples()[index].module; }

// The sample that needs ir_version 2 ('^').
const Module& XorSample() { return Sample(3); }

TEST(SerializationTest, ProtoRoundTripKeepsTheText) {
  for (int i = 0; i < static_cast<int>(Samples().size()); ++i) {
    absl::StatusOr<Module> read = ReadModuleProto(WriteModuleProto(Sample(i)), "sample");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(Print(*read, {.print_locs = true}), Print(Sample(i), {.print_locs = true}));
  }
}

TEST(SerializationTest, JsonRoundTripKeepsTheText) {
  for (int i = 0; i < static_cast<int>(Samples().size()); ++i) {
    absl::StatusOr<Module> read = ReadModuleJson(WriteModuleJson(Sample(i)), "sample");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(Print(*read, {.print_locs = true}), Print(Sample(i), {.print_locs = true}));
  }
}

TEST(SerializationTest, JsonIsPrettyWithTheSchemaFieldNames) {
  std::string json = WriteModuleJson(Sample(0));
  EXPECT_THAT(json,
              AllOf(StartsWith("{\n"), HasSubstr("\"ir_version\": \"1\""),
                    HasSubstr("\"producer_version\": \"1\""), HasSubstr("\"transpose_a\": true")));
}

TEST(SerializationTest, WritersStampTheOldestVersionThatHasTheFeaturesUsed) {
  ASSERT_EQ(Samples()[3].name, "swizzle");
  EXPECT_THAT(WriteModuleJson(Sample(1)), HasSubstr("\"ir_version\": \"1\""));
  EXPECT_THAT(WriteModuleJson(XorSample()),
              AllOf(HasSubstr("\"ir_version\": \"2\""), HasSubstr("\"BINARY_OP_XOR\"")));
  v1::Module proto;
  ASSERT_TRUE(proto.ParseFromString(WriteModuleProto(Sample(1))));
  EXPECT_EQ(proto.ir_version(), 1);
  ASSERT_TRUE(proto.ParseFromString(WriteModuleProto(XorSample())));
  EXPECT_EQ(proto.ir_version(), 2);
}

TEST(SerializationTest, ReadModulesKeepTheVersionTheirFileDeclared) {
  absl::StatusOr<Module> v1 = ReadModuleProto(WriteModuleProto(Sample(1)), "v1");
  absl::StatusOr<Module> v2 = ReadModuleJson(WriteModuleJson(XorSample()), "v2");
  ASSERT_TRUE(v1.ok()) << v1.status();
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v1->ir_version, 1);
  EXPECT_EQ(v2->ir_version, 2);
  // A version-1 module that is given '^' is written as version 2.
  v1->kernels = v2->kernels;
  EXPECT_THAT(Print(*v1), StartsWith("ir_version 2;\n"));
}

TEST(SerializationTest, XorInAVersion1FileIsRefusedNamingTheVersion) {
  v1::Module proto = ModuleToProto(XorSample());
  proto.set_ir_version(1);
  EXPECT_THAT(ReadError(proto.SerializeAsString()),
              AllOf(StartsWith("in.tilepb: kernels[0]."), HasSubstr(".layout.outputs[1]"),
                    HasSubstr("BINARY_OP_XOR needs ir_version 2, but the module declares "
                              "ir_version 1")));
  std::string json = absl::StrReplaceAll(WriteModuleJson(XorSample()),
                                         {{"\"ir_version\": \"2\"", "\"ir_version\": \"1\""}});
  EXPECT_THAT(JsonError(json), AllOf(StartsWith("in.json: kernels[0]."),
                                     HasSubstr("BINARY_OP_XOR needs ir_version 2")));
}

TEST(SerializationTest, EmptyInput) {
  EXPECT_EQ(ReadError(""), "in.tilepb: empty input: not a tile IR module");
  EXPECT_EQ(JsonError(" \n"), "in.json: empty input: not a tile IR module");
}

TEST(SerializationTest, UnknownTopLevelFieldIsAnError) {
  std::string bytes = WriteModuleProto(Sample(0));
  AppendTag(99, 0, &bytes);
  AppendVarint(1, &bytes);
  EXPECT_EQ(ReadError(bytes),
            "in.tilepb: unknown field 99 (varint) in tile_ir.v1.Module at the top level; the "
            "module was written by a newer producer or is corrupt");
}

TEST(SerializationTest, UnknownNestedFieldNamesTheMessageAndPath) {
  v1::Module proto = ModuleToProto(Sample(0));
  v1::Stmt* stmt = proto.mutable_kernels(1)->mutable_body()->mutable_seq()->mutable_stmts(2);
  stmt->GetReflection()->MutableUnknownFields(stmt)->AddLengthDelimited(77, "new");
  EXPECT_THAT(ReadError(proto.SerializeAsString()),
              HasSubstr("unknown field 77 (length-delimited) in tile_ir.v1.Stmt at "
                        "kernels[1].body.seq.stmts[2];"));
}

TEST(SerializationTest, NewerVersionNamesBothVersionsBeforeItsUnknownFields) {
  v1::Module proto = ModuleToProto(Sample(0));
  proto.set_ir_version(kIrVersion + 1);
  proto.GetReflection()->MutableUnknownFields(&proto)->AddVarint(50, 1);
  EXPECT_EQ(ReadError(proto.SerializeAsString()),
            absl::StrCat("in.tilepb: module has ir_version ", kIrVersion + 1,
                         ", newer than this reader's ", kIrVersion, "; upgrade the toolkit"));
}

TEST(SerializationTest, MissingVersion) {
  v1::Module proto = ModuleToProto(Sample(0));
  proto.clear_ir_version();
  EXPECT_THAT(ReadError(proto.SerializeAsString()),
              StartsWith("in.tilepb: module has no ir_version (0 or unset)"));
}

TEST(SerializationTest, ConversionErrorsCarryTheSourceName) {
  v1::Module proto = ModuleToProto(Sample(0));
  proto.mutable_kernels(0)
      ->mutable_body()
      ->mutable_seq()
      ->mutable_stmts(0)
      ->mutable_allocate()
      ->mutable_buffer()
      ->set_scope(v1::MEMORY_SCOPE_UNSPECIFIED);
  EXPECT_THAT(ReadError(proto.SerializeAsString()),
              AllOf(StartsWith("in.tilepb: kernels[0].body.seq.stmts[0].allocate.buffer.scope "
                               "in kernel 'gemm' at gemm.tile:4:3: "),
                    HasSubstr("MEMORY_SCOPE_UNSPECIFIED (unset); expected one of")));
}

TEST(SerializationTest, MalformedBytesSayWhereAndWhy) {
  std::string bytes = WriteModuleProto(Sample(0));
  EXPECT_THAT(
      ReadError(bytes.substr(0, bytes.size() - 1)),
      AllOf(StartsWith("in.tilepb: not a tile IR module: truncated: "), HasSubstr("at byte")));
  EXPECT_THAT(ReadError("\x0f"), HasSubstr("not a tile IR module: invalid wire type 7 at byte 0"));
  std::string producer_as_number;
  AppendTag(2, 0, &producer_as_number);
  AppendVarint(5, &producer_as_number);
  EXPECT_THAT(ReadError(producer_as_number),
              HasSubstr("tile_ir.v1.Module.producer at byte 0 is encoded as varint, which does "
                        "not fit its type string"));
  std::string bad_utf8;
  AppendTag(1, 0, &bad_utf8);
  AppendVarint(1, &bad_utf8);
  bad_utf8 += Field(2, "\xff\xfe");
  EXPECT_THAT(ReadError(bad_utf8),
              HasSubstr("not a tile IR module: tile_ir.v1.Module.producer at byte 2 is not "
                        "valid UTF-8"));
}

TEST(SerializationTest, RandomBytesAreErrors) {
  std::mt19937 random(20261129);
  std::uniform_int_distribution<int> length(1, 200), byte(0, 255);
  for (int i = 0; i < 10000; ++i) {
    std::string bytes(length(random), '\0');
    for (char& c : bytes) c = static_cast<char>(byte(random));
    absl::StatusOr<Module> module = ReadModuleProto(bytes, "random");
    ASSERT_FALSE(module.ok()) << i;
    EXPECT_THAT(std::string(module.status().message()), StartsWith("random: "));
  }
}

TEST(SerializationTest, EveryTruncationIsAnErrorOrDropsWholeKernels) {
  const Module& sample = Sample(0);
  std::string bytes = WriteModuleProto(sample);
  for (size_t size = 0; size < bytes.size(); ++size) {
    absl::StatusOr<Module> module = ReadModuleProto(bytes.substr(0, size), "cut");
    // Cutting between top-level fields leaves a shorter but well-formed module.
    if (module.ok()) {
      EXPECT_LT(module->kernels.size(), sample.kernels.size()) << size;
    }
  }
}

TEST(SerializationTest, MutatedBytesNeverCrash) {
  std::mt19937 random(7);
  const std::string original = WriteModuleProto(Sample(2));
  std::uniform_int_distribution<size_t> position(0, original.size() - 1);
  std::uniform_int_distribution<int> bit(0, 7), flips(1, 4);
  int read = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string bytes = original;
    for (int f = flips(random); f > 0; --f) bytes[position(random)] ^= 1 << bit(random);
    absl::StatusOr<Module> module = ReadModuleProto(bytes, "mutated");
    if (!module.ok()) continue;
    ++read;
    // What reads must print and write again.
    EXPECT_FALSE(Print(*module).empty());
    EXPECT_TRUE(ReadModuleProto(WriteModuleProto(*module), "rewritten").ok());
  }
  EXPECT_GT(read, 0);
  EXPECT_LT(read, 10000);
}

TEST(SerializationTest, DeepNestingIsAnErrorNotAStackOverflow) {
  EXPECT_THAT(ReadError(DeeplyNestedModule(100000)),
              AllOf(StartsWith(absl::StrCat("in.tilepb: not a tile IR module: messages nest more "
                                            "than ",
                                            kMaxProtoMessageDepth, " deep (at byte ")),
                    HasSubstr("tile_ir.v1.Expr.unary")));
}

TEST(SerializationTest, NestingLimitIsTheConvertersOnceParsingAllowsIt) {
  // The evaluate statement, the block the text form puts around it and the literal take three
  // of the levels.
  EXPECT_TRUE(ReadModuleProto(DeeplyNestedModule(kMaxNestingDepth - 3), "deep").ok());
  EXPECT_THAT(ReadError(DeeplyNestedModule(kMaxNestingDepth - 2)),
              HasSubstr("statements and expressions nest more than 1000 deep"));
}

TEST(SerializationTest, JsonUnknownFieldIsAnError) {
  std::string json = WriteModuleJson(Sample(1));
  json.insert(1, "\"mystery\": 3,");
  EXPECT_THAT(JsonError(json),
              AllOf(StartsWith("in.json: not a tile IR module in JSON: "), HasSubstr("mystery")));
}

TEST(SerializationTest, JsonNewerVersionIsReportedByVersion) {
  std::string json = WriteModuleJson(Sample(1));
  json = absl::StrReplaceAll(json, {{"\"ir_version\": \"1\"", "\"ir_version\": \"9\""}});
  json.insert(1, "\"a_field_from_version_9\": true,");
  EXPECT_THAT(JsonError(json), HasSubstr("in.json: module has ir_version 9, newer than"));
}

TEST(SerializationTest, MalformedJson) {
  EXPECT_THAT(JsonError("{\"ir_version\": "), StartsWith("in.json: not a tile IR module in JSON"));
  EXPECT_THAT(JsonError("[1, 2]"), StartsWith("in.json: not a tile IR module in JSON"));
}

// The JSON text without the whitespace between tokens.
std::string Compact(const std::string& json) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string && c == '\\') {
      out += json.substr(i++, 2);
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (in_string || (c != ' ' && c != '\n')) out.push_back(c);
  }
  return out;
}

TEST(SerializationTest, JsonMatchesProtobufsOwnMapping) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  for (int i = 0; i < static_cast<int>(Samples().size()); ++i) {
    std::string protobufs;
    ASSERT_TRUE(
        google::protobuf::util::MessageToJsonString(ModuleToProto(Sample(i)), &protobufs, options)
            .ok());
    EXPECT_EQ(Compact(WriteModuleJson(Sample(i))), protobufs);
  }
}

TEST(SerializationTest, JsonKeepsSpecialDoubles) {
  const std::vector<double> values = {0.1, -0.0, 1e300, 5e-324, std::nan(""), INFINITY, -INFINITY};
  Buffer out = BufferNode::Make("Out", kF64, {Int(8)}, MemoryScope::kGlobal);
  std::vector<Stmt> stores;
  for (size_t i = 0; i < values.size(); ++i) {
    stores.push_back(Store::Make(out, {Int(static_cast<int64_t>(i))}, Float(values[i], kF64)));
  }
  Launch launch;
  launch.grid = {{Var::Make("bx"), Int(1)}};
  launch.threads = {1};
  Module module;
  module.kernels = {KernelNode::Make("k", {}, {{out, nullptr}}, launch, Seq::Make(stores))};
  absl::StatusOr<Module> read = ReadModuleJson(WriteModuleJson(module), "doubles");
  ASSERT_TRUE(read.ok()) << read.status();
  const auto& read_stores = As<Seq>(read->kernels[0]->body)->stmts;
  for (size_t i = 0; i < values.size(); ++i) {
    double value = As<FloatImm>(As<Store>(read_stores[i])->value)->value;
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(value));
    } else {
      EXPECT_EQ(value, values[i]);
      EXPECT_EQ(std::signbit(value), std::signbit(values[i]));
    }
  }
}

TEST(SerializationTest, JsonTakesTheModulesTheBinaryFormTakes) {
  // protobuf's own JSON reader stopped at 100 nested objects, about 45 levels here.
  absl::StatusOr<Module> deep = ReadModuleProto(DeeplyNestedModule(kMaxNestingDepth - 3), "deep");
  ASSERT_TRUE(deep.ok()) << deep.status();
  std::string json = WriteModuleJson(*deep);
  EXPECT_THAT(json, HasSubstr("\"UNARY_OP_NEG\""));
  absl::StatusOr<Module> read = ReadModuleJson(json, "deep.json");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(Print(*read), Print(*deep));

  // One level more: the converter's message after the path, as for the binary form.
  std::string proto_error = ReadError(DeeplyNestedModule(kMaxNestingDepth - 2));
  v1::Module proto = ModuleToProto(*deep);
  v1::Expr* innermost =
      proto.mutable_kernels(0)->mutable_body()->mutable_evaluate()->mutable_value();
  while (innermost->has_unary()) innermost = innermost->mutable_unary()->mutable_a();
  v1::Expr literal = *innermost;
  innermost->mutable_unary()->set_op(v1::UNARY_OP_NEG);
  *innermost->mutable_unary()->mutable_a() = literal;
  std::string json_error = JsonError(proto_json::MessageToPrettyJson(proto));
  EXPECT_THAT(json_error, HasSubstr(NestingTooDeepMessage()));
  EXPECT_EQ(json_error.substr(json_error.find(": ")), proto_error.substr(proto_error.find(": ")));
}

TEST(SerializationTest, JsonTooDeepForTheBinaryFormIsAnErrorNotAStackOverflow) {
  std::string json = absl::StrCat("{\"kernels\": [{\"body\": {\"evaluate\": {\"value\": ",
                                  Repeat("{\"unary\": {\"a\": ", 100000));
  EXPECT_THAT(
      JsonError(json),
      AllOf(StartsWith("in.json: not a tile IR module in JSON: line 1, column "),
            HasSubstr(absl::StrCat("objects nest more than ", kMaxProtoMessageDepth, " deep"))));
}

}  // namespace
}  // namespace tile_ir
