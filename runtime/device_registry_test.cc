// The device registry: registration, lookup by the name before ':', the
// factory seeing the whole target, and the errors.
#include "runtime/device_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/status/status.h"

namespace tile_ir::runtime {
namespace {

class NamedDevice final : public Device {
 public:
  explicit NamedDevice(std::string target) : target_(std::move(target)) {}
  std::string name() const override { return "fake"; }
  std::string description() const override { return "fake opened as " + target_; }
  absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(const Module&, std::string_view) override {
    return absl::UnimplementedError("fake devices load nothing");
  }

 private:
  std::string target_;
};

TEST(DeviceRegistryTest, OpensByNameAndPassesTheWholeTarget) {
  ASSERT_TRUE(
      RegisterDeviceFactory("fake",
                            [](std::string_view target) -> absl::StatusOr<std::unique_ptr<Device>> {
                              return std::make_unique<NamedDevice>(std::string(target));
                            })
          .ok());
  ASSERT_TRUE(
      RegisterDeviceFactory("broken",
                            [](std::string_view) -> absl::StatusOr<std::unique_ptr<Device>> {
                              return absl::UnavailableError("broken: no hardware");
                            })
          .ok());
  EXPECT_THAT(RegisteredDeviceNames(), ::testing::ElementsAre("broken", "fake"));

  absl::StatusOr<std::unique_ptr<Device>> plain = OpenDevice("fake");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->description(), "fake opened as fake");
  absl::StatusOr<std::unique_ptr<Device>> suffixed = OpenDevice("fake:v2");
  ASSERT_TRUE(suffixed.ok()) << suffixed.status();
  EXPECT_EQ((*suffixed)->description(), "fake opened as fake:v2");

  absl::StatusOr<std::unique_ptr<Device>> broken = OpenDevice("broken");
  EXPECT_EQ(broken.status(), absl::UnavailableError("broken: no hardware"));

  absl::StatusOr<std::unique_ptr<Device>> unknown = OpenDevice("tpu:v5");
  EXPECT_EQ(unknown.status(),
            absl::NotFoundError("unknown device 'tpu:v5'; this program has: broken, fake"));

  absl::Status again = RegisterDeviceFactory("fake", nullptr);
  EXPECT_EQ(again, absl::AlreadyExistsError("a device named 'fake' is already registered"));
}

}  // namespace
}  // namespace tile_ir::runtime
