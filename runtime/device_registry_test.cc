// The device registry: lookup by the name before ':', the factory seeing the
// whole target, the errors, and a family listed twice.
#include "runtime/device_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/status/status.h"
#include "runtime/testing/pass_through_target.h"

namespace tile_ir::runtime {
namespace {

class NamedDevice final : public Device {
 public:
  explicit NamedDevice(std::string target)
      : target_(std::move(target)), compiler_(testing::MakePassThroughTarget("fake")) {}
  std::string name() const override { return "fake"; }
  std::string description() const override { return "fake opened as " + target_; }
  const targets::Target& target() const override { return *compiler_; }
  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadCompiled(targets::CompiledKernel) override {
    return absl::UnimplementedError("fake devices load nothing");
  }

 private:
  std::string target_;
  std::unique_ptr<targets::Target> compiler_;
};

absl::StatusOr<std::unique_ptr<Device>> OpenFake(std::string_view target) {
  return std::make_unique<NamedDevice>(std::string(target));
}

absl::StatusOr<std::unique_ptr<Device>> OpenBroken(std::string_view) {
  return absl::UnavailableError("broken: no hardware");
}

TEST(DeviceRegistryTest, OpensByNameAndPassesTheWholeTarget) {
  DeviceRegistry registry;
  registry.Add("fake", OpenFake);
  registry.Add("broken", OpenBroken);
  EXPECT_THAT(registry.Names(), ::testing::ElementsAre("broken", "fake"));

  absl::StatusOr<std::unique_ptr<Device>> plain = registry.Open("fake");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->description(), "fake opened as fake");
  absl::StatusOr<std::unique_ptr<Device>> suffixed = registry.Open("fake:v2");
  ASSERT_TRUE(suffixed.ok()) << suffixed.status();
  EXPECT_EQ((*suffixed)->description(), "fake opened as fake:v2");

  absl::StatusOr<std::unique_ptr<Device>> broken = registry.Open("broken");
  EXPECT_EQ(broken.status(), absl::UnavailableError("broken: no hardware"));

  absl::StatusOr<std::unique_ptr<Device>> unknown = registry.Open("tpu:v5");
  EXPECT_EQ(unknown.status(),
            absl::NotFoundError("unknown device 'tpu:v5'; this program has: broken, fake"));
  EXPECT_EQ(registry.Open("fake:").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DeviceRegistryTest, AnEmptyListSaysSo) {
  EXPECT_EQ(DeviceRegistry().Open("cpu").status(),
            absl::NotFoundError("unknown device 'cpu'; this program has: no devices"));
}

TEST(DeviceRegistryDeathTest, AFamilyListedTwiceIsABug) {
  DeviceRegistry registry;
  registry.Add("fake", OpenFake);
  EXPECT_DEATH(registry.Add("fake", OpenBroken), "device 'fake' listed twice");
}

}  // namespace
}  // namespace tile_ir::runtime
