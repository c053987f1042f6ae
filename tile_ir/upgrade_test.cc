// The version policy: one upgrader per step up to kIrVersion, and the versions refused.
#include "tile_ir/upgrade.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tile_ir/module.h"

namespace tile_ir {
namespace {

using ::testing::HasSubstr;

// Raising kIrVersion without an upgrader from the previous version fails here.
TEST(UpgradeTest, EveryStepToTheCurrentVersionHasOneUpgrader) {
  const std::vector<IrUpgrader>& upgraders = IrUpgraders();
  ASSERT_EQ(static_cast<int64_t>(upgraders.size()), kIrVersion - kOldestSupportedIrVersion);
  for (size_t i = 0; i < upgraders.size(); ++i) {
    EXPECT_EQ(upgraders[i].from_version, kOldestSupportedIrVersion + static_cast<int64_t>(i));
    EXPECT_NE(upgraders[i].upgrade, nullptr);
  }
}

TEST(UpgradeTest, EverySupportedVersionEndsAtTheCurrentOne) {
  for (int64_t version = kOldestSupportedIrVersion; version <= kIrVersion; ++version) {
    v1::Module module;
    module.set_ir_version(version);
    EXPECT_TRUE(UpgradeToCurrentVersion(module).ok()) << version;
    EXPECT_EQ(module.ir_version(), kIrVersion);
  }
}

// Version 2 only added BINARY_OP_XOR, so its upgrader changes nothing (the driver sets the
// version).
TEST(UpgradeTest, Version1MessagesAreVersion2Messages) {
  v1::Module module;
  module.set_ir_version(1);
  module.set_producer("old");
  v1::Binary* sum =
      module.add_kernels()->mutable_body()->mutable_evaluate()->mutable_value()->mutable_binary();
  sum->set_op(v1::BINARY_OP_ADD);
  const std::string before = module.SerializeAsString();
  const IrUpgrader& step = IrUpgraders().at(0);
  ASSERT_EQ(step.from_version, 1);
  ASSERT_TRUE(step.upgrade(module).ok());
  EXPECT_EQ(module.SerializeAsString(), before);
}

TEST(UpgradeTest, NewerVersionNamesBothVersions) {
  v1::Module module;
  module.set_ir_version(kIrVersion + 6);
  absl::Status status = UpgradeToCurrentVersion(module);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      std::string(status.message()),
      HasSubstr(absl::StrCat("module has ir_version ", kIrVersion + 6,
                             ", newer than this reader's ", kIrVersion, "; upgrade the toolkit")));
}

TEST(UpgradeTest, MissingAndInvalidVersions) {
  v1::Module module;
  absl::Status missing = UpgradeToCurrentVersion(module);
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(missing.message()), HasSubstr("module has no ir_version (0 or unset)"));
  module.set_ir_version(-3);
  EXPECT_THAT(std::string(UpgradeToCurrentVersion(module).message()),
              HasSubstr("module has ir_version -3; this reader reads ir_version 1 to"));
}

}  // namespace
}  // namespace tile_ir
