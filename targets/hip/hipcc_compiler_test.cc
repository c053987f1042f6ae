// hipcc as a subprocess: a code object for both architectures, hipcc's own
// diagnostics without the enumerator's traceback, and clear errors without
// hipcc or for an unknown architecture.
#include "targets/hip/hipcc_compiler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "absl/strings/match.h"

namespace tile_ir::hip {
namespace {

constexpr char kSource[] = R"(#include "tl/common.h"
extern "C" __global__ void __launch_bounds__(64) scale(float* x, float a) {
  x[threadIdx.x] = tl::wave_reduce_sum(x[threadIdx.x] * a);
}
)";

TEST(HipccCompilerTest, CompilesForBothArchitectures) {
  if (absl::Status available = HipccAvailable(); !available.ok()) {
    GTEST_SKIP() << available.message();
  }
  for (const char* arch : {"gfx90a", "gfx940"}) {
    absl::StatusOr<HipCodeObject> object = CompileHipCodeObject(kSource, arch);
    ASSERT_TRUE(object.ok()) << object.status();
    EXPECT_TRUE(absl::StartsWith(object->bytes, "__CLANG_OFFLOAD_BUNDLE__")) << arch;
    EXPECT_TRUE(absl::StrContains(object->bytes, "scale")) << arch;
    EXPECT_TRUE(absl::StrContains(object->compiler_version, "HIP version"))
        << object->compiler_version;
  }
}

TEST(HipccCompilerTest, ReportsCompileErrorsWithoutTheEnumeratorTraceback) {
  if (absl::Status available = HipccAvailable(); !available.ok()) {
    GTEST_SKIP() << available.message();
  }
  absl::StatusOr<HipCodeObject> object =
      CompileHipCodeObject("extern \"C\" __global__ void k() { undeclared(); }\n", "gfx90a");
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(object.status().message(), "undeclared")) << object.status();
  EXPECT_FALSE(absl::StrContains(object.status().message(), "Traceback")) << object.status();
}

TEST(HipccCompilerTest, UnknownArchitectureIsAnError) {
  absl::StatusOr<HipCodeObject> object = CompileHipCodeObject(kSource, "gfx942");
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(object.status().message(), "gfx90a, gfx940"));
}

TEST(HipccCompilerTest, MissingHipccIsAClearError) {
  setenv("HIPCC", "/nonexistent/hipcc", 1);
  absl::StatusOr<HipCodeObject> object = CompileHipCodeObject(kSource, "gfx90a");
  unsetenv("HIPCC");
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(object.status().message(), "/nonexistent/hipcc"));
}

}  // namespace
}  // namespace tile_ir::hip
