// The CUDA device over a fake driver (libfake_cuda.so: host memory, kernels
// as host callbacks), so that everything but the GPU itself is tested here:
// GPU tensors and copies, the calling convention's parameter layout, grid,
// block and shared memory of launches, event timing and error reports.
// Compiling kernels needs NVRTC; without it the tests skip.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "frontends/text/parser.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_kernel.h"
#include "runtime/cuda/fake_cuda_driver.h"
#include "runtime/host_buffer.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "ops/op_suite.h"

namespace tile_ir::runtime::cuda {
namespace {

using ::testing::HasSubstr;

constexpr char kFakeDriver[] = "runtime/cuda/libfake_cuda.so";

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

// What the fake GPU runs for "scale": the calling convention's parameters are
// X, Y (device pointers), alpha (f32 by value), then N (i32).
void RunScale(const char* entry, const FakeCudaLaunch* launch, void** params) {
  ASSERT_STREQ(entry, "scale");
  const float* x = *static_cast<const float* const*>(params[0]);
  float* y = *static_cast<float* const*>(params[1]);
  float alpha = *static_cast<const float*>(params[2]);
  int32_t n = *static_cast<const int32_t*>(params[3]);
  for (unsigned int block = 0; block < launch->grid[0]; ++block) {
    for (unsigned int thread = 0; thread < launch->block[0]; ++thread) {
      int64_t i = int64_t{block} * launch->block[0] + thread;
      if (i < n) y[i] = x[i] * alpha;
    }
  }
}

class CudaFakeDriverTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<CudaDriver>> driver = CudaDriver::Load(kFakeDriver);
    ASSERT_TRUE(driver.ok()) << driver.status();
    driver_ = driver->release();
    void* handle = dlopen(kFakeDriver, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle, nullptr);
    auto control =
        reinterpret_cast<const FakeCudaControl* (*)()>(dlsym(handle, "fake_cuda_control"));
    ASSERT_NE(control, nullptr);
    control_ = control();
  }

  void SetUp() override {
    ASSERT_NE(control_, nullptr);
    if (absl::Status nvrtc = tile_ir::cuda::NvrtcAvailable(); !nvrtc.ok()) {
      GTEST_SKIP() << nvrtc.message();
    }
    control_->set_kernel(RunScale);
    control_->set_max_threads(1024);
    CudaDeviceOptions options;
    options.driver = driver_;
    absl::StatusOr<std::unique_ptr<CudaDevice>> device = OpenCudaDevice(options);
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = *std::move(device);
  }

  std::unique_ptr<LoadedKernel> LoadScale() {
    absl::StatusOr<Module> module = text::ParseModule(kModule, "cuda_fake_driver_test.tile");
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device_->Load(*module, "scale");
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    return kernel.ok() ? *std::move(kernel) : nullptr;
  }

  std::unique_ptr<DeviceBuffer> Allocate(int64_t n) {
    absl::StatusOr<std::unique_ptr<DeviceBuffer>> buffer = device_->Allocate(kF32, {n});
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    return buffer.ok() ? *std::move(buffer) : nullptr;
  }

  static const CudaDriver* driver_;
  static const FakeCudaControl* control_;
  std::unique_ptr<CudaDevice> device_;
};

const CudaDriver* CudaFakeDriverTest::driver_ = nullptr;
const FakeCudaControl* CudaFakeDriverTest::control_ = nullptr;

TEST_F(CudaFakeDriverTest, DescribesTheGpuFromItsAttributes) {
  EXPECT_EQ(device_->description(), "cuda: Fake H200 (sm_90a, 132 SMs, 141 GiB), driver 13.0");
  EXPECT_EQ(device_->context()->info().max_shared_memory_per_block, 232448);
}

TEST_F(CudaFakeDriverTest, LaunchesWithTheCallingConventionAndCopiesBack) {
  std::unique_ptr<LoadedKernel> kernel = LoadScale();
  ASSERT_NE(kernel, nullptr);
  for (int64_t n : {1, 300}) {
    HostBuffer x(kF32, {n}), y(kF32, {n});
    for (int64_t i = 0; i < n; ++i) x.Set(i, i * 0.5 - 7);
    std::unique_ptr<DeviceBuffer> dx = Allocate(n), dy = Allocate(n);
    ASSERT_TRUE(dx && dy);
    EXPECT_EQ(dx->tensor()->device.device_type, kDLCUDA);
    ASSERT_TRUE(dx->CopyFromHost(x).ok());
    ASSERT_TRUE(dy->Fill(0xFF).ok());
    absl::Status status = kernel->Launch(
        {KernelArg::Tensor(dx->tensor()), KernelArg::Tensor(dy->tensor()), KernelArg::Scalar(3)});
    ASSERT_TRUE(status.ok()) << status;
    const FakeCudaLaunch& launch = *control_->last_launch();
    EXPECT_EQ(launch.grid[0], static_cast<unsigned int>((n + 127) / 128));
    EXPECT_EQ(launch.grid[1], 1u);
    EXPECT_EQ(launch.block[0], 128u);
    EXPECT_EQ(launch.block[1], 1u);
    EXPECT_EQ(launch.shared_bytes, 0u);
    ASSERT_TRUE(dy->CopyToHost(y).ok());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.Get(i), 3 * x.Get(i)) << "n=" << n << " i=" << i;
  }
}

TEST_F(CudaFakeDriverTest, TimesWithEventsAndKeepsArtifacts) {
  std::unique_ptr<LoadedKernel> kernel = LoadScale();
  ASSERT_NE(kernel, nullptr);
  std::unique_ptr<DeviceBuffer> dx = Allocate(10), dy = Allocate(10);
  ASSERT_TRUE(dx && dy);
  absl::StatusOr<double> seconds = kernel->TimedLaunch(
      {KernelArg::Tensor(dx->tensor()), KernelArg::Tensor(dy->tensor()), KernelArg::Scalar(1)});
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_DOUBLE_EQ(*seconds, 0.25e-3);
  std::vector<KernelArtifact> artifacts = kernel->artifacts();
  ASSERT_EQ(artifacts.size(), 3u);
  EXPECT_THAT(artifacts[0].contents, HasSubstr("void __launch_bounds__(128) scale("));
}

TEST_F(CudaFakeDriverTest, ErrorsNameTheKernelTheCallAndTheDriversWords) {
  std::unique_ptr<LoadedKernel> kernel = LoadScale();
  ASSERT_NE(kernel, nullptr);
  std::unique_ptr<DeviceBuffer> dx = Allocate(10), dy = Allocate(10);
  ASSERT_TRUE(dx && dy);
  std::vector<KernelArg> args = {KernelArg::Tensor(dx->tensor()), KernelArg::Tensor(dy->tensor()),
                                 KernelArg::Scalar(1)};
  control_->fail_next("cuLaunchKernel", 719);
  EXPECT_EQ(kernel->Launch(args),
            absl::InternalError("kernel 'scale': cuda: cuLaunchKernel failed: "
                                "CUDA_ERROR_LAUNCH_FAILED (failure injected by the fake driver)"));
  control_->fail_next("cuCtxSynchronize", 700);
  EXPECT_EQ(kernel->Launch(args).message(),
            "kernel 'scale': cuda: cuCtxSynchronize failed: CUDA_ERROR_FAKE (failure injected by "
            "the fake driver)");
  EXPECT_TRUE(kernel->Launch(args).ok());

  HostBuffer host(kF32, {10});
  absl::Status on_host = kernel->Launch({KernelArg::Tensor(host.AsDLTensor()),
                                         KernelArg::Tensor(dy->tensor()), KernelArg::Scalar(1)});
  EXPECT_EQ(on_host.message(),
            "kernel 'scale': argument 1 ('X'): expected a tensor on cuda, got one on cpu");

  control_->fail_next("cuMemAlloc", 2);
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> full = device_->Allocate(kF32, {1 << 20});
  EXPECT_EQ(full.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(full.status().message()), HasSubstr("allocating 4194304 bytes"));
}

TEST_F(CudaFakeDriverTest, LoadRefusesMoreThreadsThanTheCodeCanRun) {
  control_->set_max_threads(64);
  absl::StatusOr<Module> module = text::ParseModule(kModule, "cuda_fake_driver_test.tile");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device_->Load(*module, "scale");
  EXPECT_EQ(kernel.status().message(),
            "kernel 'scale' launches 128 threads per block, but its code uses 40 registers per "
            "thread, so at most 64 threads per block can run on the Fake H200");
  EXPECT_EQ(device_->Load(*module, "gemm").status().message(),
            "no kernel named 'gemm' in the module (kernels: scale)");
}

TEST_F(CudaFakeDriverTest, SharedMemoryOver48KiBIsOptedInto) {
  const ops::OpCase* op = ops::FindOp("gemm_f16");
  ASSERT_NE(op, nullptr);
  absl::StatusOr<Kernel> gemm = op->build();
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      device_->Load(Module{1, "test", "1", {*gemm}}, "gemm_f16");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const int64_t shared = static_cast<CudaKernel&>(**kernel).dynamic_shared_bytes();
  EXPECT_GT(shared, 0);
  EXPECT_EQ(control_->dynamic_shared_limit(), shared > 48 * 1024 ? shared : -1);
}

}  // namespace
}  // namespace tile_ir::runtime::cuda
