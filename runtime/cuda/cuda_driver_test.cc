// The driver loader without a GPU: a missing library, the toolkit's stub
// library (which loads but refuses cuInit), and architecture names.
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "runtime/cuda/cuda_context.h"

namespace tile_ir::runtime::cuda {
namespace {

TEST(CudaDriverTest, AMissingLibraryIsUnavailable) {
  absl::StatusOr<std::unique_ptr<CudaDriver>> driver = CudaDriver::Load("libtile_no_driver.so.1");
  EXPECT_EQ(driver.status(),
            absl::UnavailableError(
                "cuda: libtile_no_driver.so.1 not found (no NVIDIA driver on this machine)"));
}

TEST(CudaDriverTest, GetOnAMachineWithoutTheDriverSaysSo) {
  if (void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); handle != nullptr) {
    dlclose(handle);
    GTEST_SKIP() << "this machine has an NVIDIA driver (libcuda.so.1)";
  }
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  EXPECT_EQ(
      driver.status(),
      absl::UnavailableError("cuda: libcuda.so.1 not found (no NVIDIA driver on this machine)"));
  // The answer is kept: asking again does not retry.
  EXPECT_EQ(CudaDriver::Get().status(), driver.status());
}

// The toolkit ships a stub libcuda for linking; it loads, resolves every
// entry point and answers CUDA_ERROR_STUB_LIBRARY, like a broken driver.
TEST(CudaDriverTest, TheToolkitsStubLibraryFailsInitWithAnError) {
  const char* home = std::getenv("CUDA_HOME");
  std::string stub =
      std::string(home != nullptr ? home : "/usr/local/cuda") + "/lib64/stubs/libcuda.so";
  if (access(stub.c_str(), R_OK) != 0) GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  absl::StatusOr<std::unique_ptr<CudaDriver>> driver = CudaDriver::Load(stub);
  EXPECT_EQ(driver.status(),
            absl::UnavailableError("cuda: cuInit failed: CUDA_ERROR_STUB_LIBRARY (error 34: the "
                                   "CUDA toolkit's stub libcuda, not a driver)"));
}

TEST(CudaArchTest, ArchitectureSpecificSuffixFromHopperOn) {
  EXPECT_EQ(ArchForComputeCapability(8, 0), "sm_80");
  EXPECT_EQ(ArchForComputeCapability(8, 9), "sm_89");
  EXPECT_EQ(ArchForComputeCapability(9, 0), "sm_90a");
  EXPECT_EQ(ArchForComputeCapability(10, 0), "sm_100a");
}

}  // namespace
}  // namespace tile_ir::runtime::cuda
