// The CUDA device through the registry. Here (no driver) opening it must fail
// with the driver's absence named; on a GPU machine the same test compiles,
// launches and times kernels end to end on GPU tensors.
#include "runtime/cuda/cuda_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontends/text/parser.h"
#include "runtime/cuda/cuda_kernel.h"
#include "runtime/device_registry.h"
#include "runtime/host_buffer.h"

namespace tile_ir::runtime::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kModule[] = R"(ir_version 1;
producer "test" "1";

kernel scale<N: i32>(X: f32[N], Y: f32[N], alpha: f32) grid(bx: ceildiv(N, 128)) threads(128) {
  for i in 0 +: 128 parallel {
    if (bx * 128 + i < N) {
      Y[bx * 128 + i] = X[bx * 128 + i] * alpha;
    }
  }
}
)";

// The GPU device, or nullptr (and the test skipped) where there is none.
std::unique_ptr<Device> OpenGpuOrSkip() {
  absl::StatusOr<std::unique_ptr<Device>> device = OpenDevice("cuda");
  if (!device.ok() && device.status().code() == absl::StatusCode::kUnavailable) return nullptr;
  EXPECT_TRUE(device.ok()) << device.status();
  return device.ok() ? *std::move(device) : nullptr;
}

TEST(CudaDeviceTest, WithoutADriverOpeningSaysWhy) {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (driver.ok()) GTEST_SKIP() << "this machine has an NVIDIA driver " << (*driver)->version();
  for (const char* target : {"cuda", "cuda:sm_90a"}) {
    absl::StatusOr<std::unique_ptr<Device>> device = OpenDevice(target);
    EXPECT_EQ(
        device.status(),
        absl::UnavailableError("cuda: libcuda.so.1 not found (no NVIDIA driver on this machine)"))
        << target;
  }
}

TEST(CudaDeviceTest, ScalesOnTheGpu) {
  std::unique_ptr<Device> device = OpenGpuOrSkip();
  if (device == nullptr) GTEST_SKIP() << "no GPU here";
  EXPECT_THAT(device->description(), StartsWith("cuda: "));
  absl::StatusOr<Module> module = text::ParseModule(kModule, "cuda_device_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->Load(*module, "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<KernelArtifact> artifacts = (*kernel)->artifacts();
  ASSERT_EQ(artifacts.size(), 3u);
  EXPECT_EQ(artifacts[0].extension, "cu");
  EXPECT_EQ(artifacts[1].extension, "ptx");
  EXPECT_EQ(artifacts[2].extension, "cubin");
  for (int64_t n : {1, 127, 100000}) {
    HostBuffer x(kF32, {n}), y(kF32, {n});
    for (int64_t i = 0; i < n; ++i) x.Set(i, i * 0.25 - 3);
    absl::StatusOr<std::unique_ptr<DeviceBuffer>> dx = device->Allocate(kF32, {n});
    absl::StatusOr<std::unique_ptr<DeviceBuffer>> dy = device->Allocate(kF32, {n});
    ASSERT_TRUE(dx.ok() && dy.ok()) << dx.status() << dy.status();
    ASSERT_TRUE((*dx)->CopyFromHost(x).ok());
    ASSERT_TRUE((*dy)->Fill(0xFF).ok());
    std::vector<KernelArg> args = {KernelArg::Tensor((*dx)->tensor()),
                                   KernelArg::Tensor((*dy)->tensor()), KernelArg::Scalar(-2)};
    absl::StatusOr<double> seconds = (*kernel)->TimedLaunch(args);
    ASSERT_TRUE(seconds.ok()) << seconds.status();
    EXPECT_GT(*seconds, 0);
    ASSERT_TRUE((*dy)->CopyToHost(y).ok());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.Get(i), -2 * x.Get(i)) << "n=" << n << " i=" << i;
  }
}

TEST(CudaDeviceTest, HostTensorsAndOtherArchitecturesAreRefused) {
  std::unique_ptr<Device> device = OpenGpuOrSkip();
  if (device == nullptr) GTEST_SKIP() << "no GPU here";
  absl::StatusOr<Module> module = text::ParseModule(kModule, "cuda_device_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->Load(*module, "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  HostBuffer x(kF32, {4}), y(kF32, {4});
  absl::Status status = (*kernel)->Launch(
      {KernelArg::Tensor(x.AsDLTensor()), KernelArg::Tensor(y.AsDLTensor()), KernelArg::Scalar(1)});
  EXPECT_EQ(status.message(),
            "kernel 'scale': argument 1 ('X'): expected a tensor on cuda, got one on cpu");
  absl::StatusOr<std::unique_ptr<Device>> other = OpenDevice("cuda:sm_1");
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(other.status().message()), HasSubstr("not sm_1"));
}

}  // namespace
}  // namespace tile_ir::runtime::cuda
