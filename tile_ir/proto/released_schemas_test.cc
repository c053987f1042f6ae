// The compiled-in schema keeps every promise of every released one: released/v<N>.binpb,
// frozen by scripts/freeze_ir_schema.sh when version N was released, never rewritten.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/proto/descriptor_set.h"
#include "tile_ir/proto/schema_guard.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/version.h"

namespace tile_ir::schema_guard {
namespace {

using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;

const FileDescriptor& CompiledSchema() { return *v1::Module::descriptor()->file(); }

std::string FrozenPath(int64_t version) {
  return absl::StrCat("tile_ir/proto/released/v", version, ".binpb");
}

std::unique_ptr<DescriptorPool> FrozenPool(int64_t version) {
  absl::StatusOr<google::protobuf::FileDescriptorSet> set = ReadDescriptorSet(FrozenPath(version));
  if (!set.ok()) {
    ADD_FAILURE() << set.status() << "; version " << version << " is released (kIrVersion is "
                  << kIrVersion << "): freeze its schema with scripts/freeze_ir_schema.sh";
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<DescriptorPool>> pool =
      BuildDescriptorPool(*set, FrozenPath(version));
  if (!pool.ok()) {
    ADD_FAILURE() << pool.status();
    return nullptr;
  }
  return std::move(*pool);
}

TEST(ReleasedSchemasTest, CurrentSchemaKeepsEveryReleasedOne) {
  for (int64_t version = 1; version <= kIrVersion; ++version) {
    std::unique_ptr<DescriptorPool> frozen = FrozenPool(version);
    if (frozen == nullptr) continue;
    const FileDescriptor* file = frozen->FindFileByName(CompiledSchema().name());
    ASSERT_NE(file, nullptr) << FrozenPath(version) << " has no " << CompiledSchema().name();
    std::vector<std::string> breaks = FindBreakingChanges(*file, CompiledSchema());
    EXPECT_TRUE(breaks.empty()) << CompiledSchema().name() << " breaks ir_version " << version
                                << " (" << FrozenPath(version) << "):\n  "
                                << absl::StrJoin(breaks, "\n  ")
                                << "\nsee docs/COMPATIBILITY.md for the rules";
  }
}

// A set frozen ahead of its release would pin a schema still being designed.
TEST(ReleasedSchemasTest, NothingIsFrozenBeyondTheNewestVersion) {
  for (const auto& entry : std::filesystem::directory_iterator("tile_ir/proto/released")) {
    if (entry.path().extension() != ".binpb") continue;
    const std::string stem = entry.path().stem().string();
    int64_t version = 0;
    ASSERT_TRUE(stem.size() > 1 && stem[0] == 'v' && absl::SimpleAtoi(stem.substr(1), &version))
        << entry.path() << ": frozen sets are named v<N>.binpb";
    EXPECT_LE(version, kIrVersion)
        << entry.path() << " is frozen, but kIrVersion is " << kIrVersion;
  }
}

// Each set is the version it claims: what each version added is there, and not before.
TEST(ReleasedSchemasTest, EachFrozenSetHoldsItsVersionsFeatures) {
  std::unique_ptr<DescriptorPool> v1 = FrozenPool(1), v2 = FrozenPool(2), v3 = FrozenPool(3),
                                  v4 = FrozenPool(4);
  ASSERT_TRUE(v1 && v2 && v3 && v4);
  auto has_xor = [](const DescriptorPool& pool) {
    return pool.FindEnumValueByName("tile_ir.v1.BINARY_OP_XOR") != nullptr;
  };
  auto has_requirements = [](const DescriptorPool& pool) {
    return pool.FindFieldByName("tile_ir.v1.Kernel.requirements") != nullptr;
  };
  EXPECT_FALSE(has_xor(*v1));
  EXPECT_TRUE(has_xor(*v2));
  EXPECT_FALSE(has_requirements(*v2));
  EXPECT_TRUE(has_requirements(*v3));
  auto has_replica = [](const DescriptorPool& pool) {
    return pool.FindFieldByName("tile_ir.v1.Layout.replica") != nullptr;
  };
  EXPECT_FALSE(has_replica(*v3));
  EXPECT_TRUE(has_replica(*v4));
}

// The guard on real history: version 1's schema, were it current, breaks version 2's promise.
TEST(ReleasedSchemasTest, GoingBackToAnOlderSchemaIsCaught) {
  std::unique_ptr<DescriptorPool> v1 = FrozenPool(1), v2 = FrozenPool(2);
  ASSERT_TRUE(v1 && v2);
  EXPECT_THAT(FindBreakingChanges(*v2->FindFileByName(CompiledSchema().name()),
                                  *v1->FindFileByName(CompiledSchema().name())),
              ::testing::ElementsAre(::testing::HasSubstr(
                  "tile_ir.v1.BinaryOp.BINARY_OP_XOR (value 19): removed without")));
}

}  // namespace
}  // namespace tile_ir::schema_guard
