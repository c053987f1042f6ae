// Replicated fragment layouts (`layout((i) replicate(r: 4) -> (...))`) through every form:
// parsed and printed back, carried by the protobuf and JSON forms, gated on ir_version 4, and
// checked by the verifier (the replica only in the thread output, only on fragments).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frontends/text/parser.h"
#include "gmock/gmock.h"
#include "tile_ir/printer.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"
#include "tile_ir/version.h"

namespace tile_ir::text {
namespace {

using ::testing::HasSubstr;

constexpr char kRows[] = R"(ir_version 4;
producer "p" "v";

kernel rows(Out: f32[64])
    grid(bx: 1) threads(128) {
  alloc row_max: fragment f32[64] layout((i) replicate(r: 4) -> (floormod(i, 32) * 4 + r, floordiv(i, 32)));
  fill row_max = 0.5;
  copy row_max -> Out;
}
)";

TEST(ReplicatedLayoutTest, ParsesVerifiesAndPrintsBack) {
  absl::StatusOr<Module> module = ParseModule(kRows, "rows.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const Layout& layout =
      *As<Allocate>(As<Seq>(module->kernels[0]->body)->stmts[0])->buffer->layout;
  ASSERT_TRUE(layout.replicated());
  EXPECT_EQ(layout.replicate, 4);
  EXPECT_EQ(layout.replica->name, "r");
  EXPECT_TRUE(Verify(*module).ok()) << Verify(*module);
  EXPECT_EQ(Print(*module), kRows);
  EXPECT_EQ(RequiredIrVersion(*module), kReplicatedLayoutIrVersion);
}

TEST(ReplicatedLayoutTest, SurvivesProtobufAndJson) {
  absl::StatusOr<Module> module = ParseModule(kRows, "rows.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Module> from_proto = ReadModuleProto(WriteModuleProto(*module), "rows.tilepb");
  ASSERT_TRUE(from_proto.ok()) << from_proto.status();
  absl::StatusOr<Module> from_json = ReadModuleJson(WriteModuleJson(*module), "rows.json");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(Print(*from_proto), kRows);
  EXPECT_EQ(Print(*from_json), kRows);
}

TEST(ReplicatedLayoutTest, AProtobufDeclaringVersion3IsRefused) {
  absl::StatusOr<Module> module = ParseModule(kRows, "rows.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  v1::Module proto;
  ASSERT_TRUE(proto.ParseFromString(WriteModuleProto(*module)));
  proto.set_ir_version(3);
  absl::StatusOr<Module> read = ReadModuleProto(proto.SerializeAsString(), "rows.tilepb");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(),
              HasSubstr("a replicated layout needs ir_version 4, but the module declares "
                        "ir_version 3"));
}

// The replica is an i32 taking every value below the count: a protobuf's count beyond that is
// refused by the verifier (the text form could not hold it: a verified module must print and
// read back; the verifier fuzzer found one that did not).
TEST(ReplicatedLayoutTest, AReplicaCountBeyondI32IsRefused) {
  absl::StatusOr<Module> module = ParseModule(kRows, "rows.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  v1::Module proto;
  ASSERT_TRUE(proto.ParseFromString(WriteModuleProto(*module)));
  // Every LayoutReplica in the message, wherever the allocation sits.
  int changed = 0;
  std::function<void(google::protobuf::Message&)> visit = [&](google::protobuf::Message& m) {
    if (auto* replica = dynamic_cast<v1::LayoutReplica*>(&m)) {
      replica->set_count(int64_t{1} << 33);
      ++changed;
    }
    const google::protobuf::Reflection* reflection = m.GetReflection();
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    reflection->ListFields(m, &fields);
    for (const google::protobuf::FieldDescriptor* field : fields) {
      if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(m, field); ++i) {
          visit(*reflection->MutableRepeatedMessage(&m, field, i));
        }
      } else {
        visit(*reflection->MutableMessage(&m, field));
      }
    }
  };
  visit(proto);
  ASSERT_EQ(changed, 1);
  absl::StatusOr<Module> read = ReadModuleProto(proto.SerializeAsString(), "rows.tilepb");
  const absl::Status verified = read.ok() ? Verify(*read) : read.status();
  ASSERT_FALSE(verified.ok());
  EXPECT_THAT(verified.message(),
              HasSubstr("replicates 8589934592 times; the count must be from 1 to 2147483647 "
                        "(its replica is an i32)"));
}

std::string VerifierError(const std::string& alloc) {
  const std::string text = std::string("ir_version 4;\nproducer \"p\" \"v\";\n\n") +
                           "kernel k() grid(bx: 1) threads(128) {\n  " + alloc + "\n}\n";
  absl::StatusOr<Module> module = ParseModule(text, "t.tile");
  if (!module.ok()) return std::string(module.status().message());
  return std::string(Verify(*module).message());
}

TEST(ReplicatedLayoutTest, TheVerifierKeepsTheReplicaInTheThreadOutputOfFragments) {
  EXPECT_THAT(VerifierError("alloc f: fragment f32[32] layout((i) replicate(r: 4) -> (i * 4 + r, "
                            "r));"),
              HasSubstr("variable 'r' cannot be used here: only the layout's input variables "
                        "(its replica 'r' only in the thread output) may appear"));
  EXPECT_THAT(VerifierError("alloc s: shared f32[32] layout((i) replicate(r: 4) -> (i + r));"),
              HasSubstr("the layout of 's' replicates, but only fragment layouts may"));
  EXPECT_EQ(VerifierError("alloc f: fragment f32[32] layout((i) replicate(r: 4) -> (i * 4 + r, "
                          "0));"),
            "");
}

}  // namespace
}  // namespace tile_ir::text
