// The HIP runtime without an AMD GPU (every machine here): a missing library
// and a missing device are clear errors, and a launch says why it cannot run.
#include "runtime/hip/hip_runtime.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace tile_ir::runtime::hip {
namespace {

TEST(HipRuntimeTest, MissingLibraryIsAClearError) {
  absl::StatusOr<HipApi> api = LoadHipRuntimeFrom("libamdhip64-does-not-exist.so");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(api.status().message(), "cannot load the HIP runtime"));
}

TEST(HipRuntimeTest, LaunchWithoutAGpuSaysSo) {
  absl::StatusOr<const HipApi*> api = LoadHipRuntime();
  if (!api.ok()) {
    // No ROCm installed: the error names the library and how to get it.
    EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(absl::StrContains(api.status().message(), "libamdhip64")) << api.status();
    GTEST_SKIP() << api.status().message();
  }
  if (HipDeviceAvailable(**api).ok()) GTEST_SKIP() << "an AMD GPU is present";
  HipLaunch launch;
  launch.kernel = "k";
  absl::Status launched = LaunchHipKernel(**api, "not a code object", launch);
  ASSERT_FALSE(launched.ok());
  EXPECT_EQ(launched.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(launched.message(), "no AMD GPU")) << launched;
}

}  // namespace
}  // namespace tile_ir::runtime::hip
