// The schema guard catches each kind of break: each test applies one to a copy of the
// compiled-in schema and checks the guard names the message and field. A guard that misses
// one fails here, not months later on a user's file.
#include "tile_ir/proto/schema_guard.h"

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "tile_ir/proto/descriptor_set.h"
#include "tile_ir/proto/tile_ir.pb.h"

namespace tile_ir::schema_guard {
namespace {

using google::protobuf::DescriptorProto;
using google::protobuf::EnumDescriptorProto;
using google::protobuf::FieldDescriptorProto;
using google::protobuf::FileDescriptor;
using google::protobuf::FileDescriptorProto;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using Edit = std::function<void(FileDescriptorProto&)>;

const FileDescriptor& CompiledSchema() { return *v1::Module::descriptor()->file(); }

// The compiled-in schema with `edit` applied, in a pool of its own.
std::unique_ptr<google::protobuf::DescriptorPool> EditedPool(const Edit& edit) {
  google::protobuf::FileDescriptorSet set = DescriptorSetOf(CompiledSchema());
  edit(*set.mutable_file(set.file_size() - 1));
  absl::StatusOr<std::unique_ptr<google::protobuf::DescriptorPool>> pool =
      BuildDescriptorPool(set, "edited schema");
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? std::move(*pool) : nullptr;
}

// The breaks of the edited schema against the compiled-in one as frozen.
std::vector<std::string> BreaksOf(const Edit& edit) {
  std::unique_ptr<google::protobuf::DescriptorPool> pool = EditedPool(edit);
  if (pool == nullptr) return {"edited schema does not build"};
  return FindBreakingChanges(CompiledSchema(), *pool->FindFileByName(CompiledSchema().name()));
}

DescriptorProto& Message(FileDescriptorProto& file, const std::string& name) {
  for (DescriptorProto& message : *file.mutable_message_type()) {
    if (message.name() == name) return message;
  }
  ADD_FAILURE() << "no message " << name;
  return *file.add_message_type();
}

FieldDescriptorProto& Field(DescriptorProto& message, const std::string& name) {
  for (FieldDescriptorProto& field : *message.mutable_field()) {
    if (field.name() == name) return field;
  }
  ADD_FAILURE() << "no field " << message.name() << "." << name;
  return *message.add_field();
}

void RemoveField(DescriptorProto& message, const std::string& name) {
  auto& fields = *message.mutable_field();
  for (int i = 0; i < fields.size(); ++i) {
    if (fields[i].name() == name) {
      fields.DeleteSubrange(i, 1);
      return;
    }
  }
  ADD_FAILURE() << "no field " << message.name() << "." << name;
}

EnumDescriptorProto& Enum(FileDescriptorProto& file, const std::string& name) {
  for (EnumDescriptorProto& type : *file.mutable_enum_type()) {
    if (type.name() == name) return type;
  }
  ADD_FAILURE() << "no enum " << name;
  return *file.add_enum_type();
}

void RemoveValue(EnumDescriptorProto& type, const std::string& name) {
  auto& values = *type.mutable_value();
  for (int i = 0; i < values.size(); ++i) {
    if (values[i].name() == name) {
      values.DeleteSubrange(i, 1);
      return;
    }
  }
  ADD_FAILURE() << "no value " << type.name() << "." << name;
}

TEST(SchemaGuardTest, UnchangedSchemaHasNoBreaks) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto&) {}), IsEmpty());
}

// What every feature (ir_version 4's replicated layouts among them) does: add, never change.
TEST(SchemaGuardTest, AddedFieldsValuesAndMessagesAreNotBreaks) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                FieldDescriptorProto& added = *Message(file, "Layout").add_field();
                added.set_name("extra_flag");
                added.set_json_name("extraFlag");
                added.set_number(15);
                added.set_label(FieldDescriptorProto::LABEL_OPTIONAL);
                added.set_type(FieldDescriptorProto::TYPE_BOOL);
                auto& value = *Enum(file, "BinaryOp").add_value();
                value.set_name("BINARY_OP_NAND");
                value.set_number(99);
                file.add_message_type()->set_name("Extra");
              }),
              IsEmpty());
}

TEST(SchemaGuardTest, RemovedFieldWithoutReservedIsABreak) {
  EXPECT_THAT(
      BreaksOf([](FileDescriptorProto& file) { RemoveField(Message(file, "Kernel"), "body"); }),
      ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): removed without "
                            "`reserved 5; reserved \"body\";`")));
}

TEST(SchemaGuardTest, RemovedFieldNeedsBothNumberAndNameReserved) {
  auto reserve_number = [](FileDescriptorProto& file) {
    DescriptorProto& kernel = Message(file, "Kernel");
    RemoveField(kernel, "body");
    auto& range = *kernel.add_reserved_range();
    range.set_start(5);
    range.set_end(6);
  };
  EXPECT_THAT(BreaksOf(reserve_number),
              ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): removed without")));
  EXPECT_THAT(BreaksOf([&](FileDescriptorProto& file) {
                reserve_number(file);
                Message(file, "Kernel").add_reserved_name("body");
              }),
              IsEmpty());
}

TEST(SchemaGuardTest, RenumberedFieldIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                Field(Message(file, "Kernel"), "body").set_number(9);
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): renumbered to 9")));
}

TEST(SchemaGuardTest, RetypedScalarFieldIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                Field(Message(file, "IntImm"), "value").set_type(FieldDescriptorProto::TYPE_INT32);
              }),
              ElementsAre(HasSubstr("tile_ir.v1.IntImm.value (field 2): retyped from int64 to "
                                    "int32")));
}

TEST(SchemaGuardTest, FieldOfAnotherMessageTypeIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                Field(Message(file, "Kernel"), "body").set_type_name(".tile_ir.v1.Expr");
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): retyped from "
                                    "tile_ir.v1.Stmt to tile_ir.v1.Expr")));
}

TEST(SchemaGuardTest, RepeatedMadeSingularIsABreak) {
  EXPECT_THAT(
      BreaksOf([](FileDescriptorProto& file) {
        Field(Message(file, "Module"), "kernels").set_label(FieldDescriptorProto::LABEL_OPTIONAL);
      }),
      ElementsAre(HasSubstr("tile_ir.v1.Module.kernels (field 4): retyped from repeated "
                            "to singular")));
}

TEST(SchemaGuardTest, DroppedOptionalPresenceIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                DescriptorProto& allocate = Message(file, "Allocate");
                FieldDescriptorProto& offset = Field(allocate, "shared_offset");
                offset.clear_proto3_optional();
                offset.clear_oneof_index();
                allocate.clear_oneof_decl();  // its one oneof is shared_offset's synthetic one
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Allocate.shared_offset (field 2): presence "
                                    "changed (proto3 `optional` removed)")));
}

TEST(SchemaGuardTest, RenamedFieldIsAJsonBreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                FieldDescriptorProto& body = Field(Message(file, "Kernel"), "body");
                body.set_name("main_body");
                body.set_json_name("mainBody");
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): renamed to main_body"),
                          HasSubstr("tile_ir.v1.Kernel.body (field 5): json_name changed from "
                                    "body to mainBody")));
}

TEST(SchemaGuardTest, ChangedJsonNameIsAJsonBreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                Field(Message(file, "Module"), "ir_version").set_json_name("version");
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Module.ir_version (field 1): json_name changed "
                                    "from irVersion to version")));
}

TEST(SchemaGuardTest, FieldMovedOutOfOneofIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                Field(Message(file, "Stmt"), "seq").clear_oneof_index();
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Stmt.seq (field 1): moved out of oneof node")));
}

TEST(SchemaGuardTest, FieldMovedIntoOneofIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                Field(Message(file, "Stmt"), "loc").set_oneof_index(0);
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Stmt.loc (field 15): moved into oneof node")));
}

TEST(SchemaGuardTest, FieldMovedBetweenOneofsIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                DescriptorProto& kernel = Message(file, "Kernel");
                kernel.add_oneof_decl()->set_name("entry");
                Field(kernel, "body").set_oneof_index(0);
              }),
              ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): moved into oneof entry")));
}

TEST(SchemaGuardTest, RemovedEnumValueWithoutReservedIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                RemoveValue(Enum(file, "BinaryOp"), "BINARY_OP_XOR");
              }),
              ElementsAre(HasSubstr("tile_ir.v1.BinaryOp.BINARY_OP_XOR (value 19): removed "
                                    "without `reserved 19; reserved \"BINARY_OP_XOR\";`")));
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                EnumDescriptorProto& op = Enum(file, "BinaryOp");
                RemoveValue(op, "BINARY_OP_XOR");
                auto& range = *op.add_reserved_range();  // enum ranges are inclusive
                range.set_start(19);
                range.set_end(19);
                op.add_reserved_name("BINARY_OP_XOR");
              }),
              IsEmpty());
}

TEST(SchemaGuardTest, RenumberedEnumValueIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                for (auto& value : *Enum(file, "BinaryOp").mutable_value()) {
                  if (value.name() == "BINARY_OP_XOR") value.set_number(90);
                }
              }),
              ElementsAre(HasSubstr("tile_ir.v1.BinaryOp.BINARY_OP_XOR (value 19): renumbered "
                                    "to 90")));
}

TEST(SchemaGuardTest, EnumNumberReusedWithAnotherNameIsABreak) {
  EXPECT_THAT(BreaksOf([](FileDescriptorProto& file) {
                for (auto& value : *Enum(file, "BinaryOp").mutable_value()) {
                  if (value.name() == "BINARY_OP_XOR") value.set_name("BINARY_OP_NAND");
                }
              }),
              ElementsAre(HasSubstr("tile_ir.v1.BinaryOp.BINARY_OP_XOR (value 19): number 19 is "
                                    "now named BINARY_OP_NAND")));
}

TEST(SchemaGuardTest, RemovedMessageIsABreak) {
  EXPECT_THAT(
      BreaksOf([](FileDescriptorProto& file) {
        Message(file, "ShapeRequirement").set_name("ShapeContract");
        Field(Message(file, "Kernel"), "requirements").set_type_name(".tile_ir.v1.ShapeContract");
      }),
      ElementsAre(HasSubstr("tile_ir.v1.Kernel.requirements (field 7): retyped from "
                            "tile_ir.v1.ShapeRequirement to tile_ir.v1.ShapeContract"),
                  HasSubstr("message tile_ir.v1.ShapeRequirement: removed")));
}

// Reusing a retired number or name: the frozen schema reserved them, the current one uses them.
TEST(SchemaGuardTest, ReusedReservedNumberAndNameAreBreaks) {
  std::unique_ptr<google::protobuf::DescriptorPool> frozen =
      EditedPool([](FileDescriptorProto& file) {
        DescriptorProto& kernel = Message(file, "Kernel");
        RemoveField(kernel, "body");
        auto& range = *kernel.add_reserved_range();
        range.set_start(5);
        range.set_end(6);
        kernel.add_reserved_name("body");
      });
  ASSERT_NE(frozen, nullptr);
  EXPECT_THAT(
      FindBreakingChanges(*frozen->FindFileByName(CompiledSchema().name()), CompiledSchema()),
      ElementsAre(HasSubstr("tile_ir.v1.Kernel.body (field 5): reuses number 5"),
                  HasSubstr("tile_ir.v1.Kernel.body (field 5): reuses name body")));
}

}  // namespace
}  // namespace tile_ir::schema_guard
