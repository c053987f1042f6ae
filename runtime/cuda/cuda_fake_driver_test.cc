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
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_replace.h"
#include "frontends/text/parser.h"
#include "ops/op_suite.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_kernel.h"
#include "runtime/cuda/fake_cuda_driver.h"
#include "runtime/host_buffer.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specializer.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/target_name.h"

namespace tile_ir::runtime::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

// {persistent=on} kernels launch a block per SM of the GPU opened: its count goes into the
// target's name (and so the cache key) unless it is the target's default, 132.
TEST_F(CudaFakeDriverTest, PersistentTargetsNameTheGpusSmCount) {
  for (const auto& [sms, expected] :
       {std::pair<int, const char*>{132, "cuda:sm_90a{persistent=on}"},
        {114, "cuda:sm_90a{persistent=on,sms=114}"}}) {
    control_->set_multiprocessors(sms);
    CudaDeviceOptions options;
    options.driver = driver_;
    options.target = *targets::ParseTargetName("cuda{persistent=on}");
    absl::StatusOr<std::unique_ptr<CudaDevice>> device = OpenCudaDevice(options);
    control_->set_multiprocessors(132);
    ASSERT_TRUE(device.ok()) << device.status();
    EXPECT_EQ((*device)->target().ToString(), expected);
  }
  // Without {persistent=on} the count changes nothing, and is not named.
  control_->set_multiprocessors(114);
  CudaDeviceOptions options;
  options.driver = driver_;
  absl::StatusOr<std::unique_ptr<CudaDevice>> device = OpenCudaDevice(options);
  control_->set_multiprocessors(132);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->target().ToString(), "cuda:sm_90a");
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

// A call with the last call's signature reuses its laid-out launch with the new data
// pointers; any other shape binds again; a misaligned tensor is still refused by name.
TEST_F(CudaFakeDriverTest, RepeatedCallsRebindOnlyTheDataPointers) {
  std::unique_ptr<LoadedKernel> kernel = LoadScale();
  ASSERT_NE(kernel, nullptr);
  for (int64_t n : {300, 300, 1, 300}) {
    for (double alpha : {3.0, 3.0, -2.0}) {
      HostBuffer x(kF32, {n}), y(kF32, {n});
      for (int64_t i = 0; i < n; ++i) x.Set(i, i * 0.5 - 7);
      std::unique_ptr<DeviceBuffer> dx = Allocate(n), dy = Allocate(n);
      ASSERT_TRUE(dx && dy);
      ASSERT_TRUE(dx->CopyFromHost(x).ok());
      ASSERT_TRUE(dy->Fill(0xFF).ok());
      absl::Status status = kernel->LaunchAsync({KernelArg::Tensor(dx->tensor()),
                                                 KernelArg::Tensor(dy->tensor()),
                                                 KernelArg::Scalar(alpha)},
                                                nullptr);
      ASSERT_TRUE(status.ok()) << status;
      EXPECT_EQ(control_->last_launch()->grid[0], static_cast<unsigned int>((n + 127) / 128));
      ASSERT_TRUE(dy->CopyToHost(y).ok());
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(y.Get(i), alpha * x.Get(i)) << "n=" << n << " alpha=" << alpha << " i=" << i;
      }
    }
  }
  std::unique_ptr<DeviceBuffer> dx = Allocate(300), dy = Allocate(300);
  ASSERT_TRUE(dx && dy);
  DLTensor shifted = *dx->tensor();
  shifted.byte_offset = 0;
  shifted.data = static_cast<char*>(shifted.data) + 4;  // same signature, misaligned data
  EXPECT_THAT(std::string(kernel->LaunchAsync({KernelArg::Tensor(&shifted),
                                               KernelArg::Tensor(dy->tensor()),
                                               KernelArg::Scalar(3.0)},
                                              nullptr)
                              .message()),
              HasSubstr("is not aligned to 16 bytes"));
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
  // The launch was queued behind a write of twice the L2 (the fake's is 1 MiB), as do_bench does.
  EXPECT_EQ(control_->last_memset_bytes(), 2u << 20);
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

// A kernel of clusters (warp-specialize's pairs, {cluster=2}) states their shape in its source
// and launches like any other; a grid that is not whole clusters is refused before the driver
// sees it.
TEST_F(CudaFakeDriverTest, ClusterKernelsLaunchOnWholeClusters) {
  absl::StatusOr<Module> module = text::ParseModule(
      absl::StrReplaceAll(kModule, {{"threads(128) {", "threads(128) cluster(2) {"}}),
      "cuda_fake_driver_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device_->Load(*module, "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<KernelArtifact> artifacts = (*kernel)->artifacts();
  ASSERT_FALSE(artifacts.empty());
  EXPECT_THAT(artifacts[0].contents, HasSubstr("__cluster_dims__(2, 1, 1) scale("));
  std::unique_ptr<DeviceBuffer> dx = Allocate(256), dy = Allocate(256);
  ASSERT_TRUE(dx && dy);
  EXPECT_TRUE((*kernel)
                  ->Launch({KernelArg::Tensor(dx->tensor()), KernelArg::Tensor(dy->tensor()),
                            KernelArg::Scalar(2.0)})
                  .ok());
  EXPECT_EQ(control_->last_launch()->grid[0], 2u);
  std::unique_ptr<DeviceBuffer> ex = Allocate(300), ey = Allocate(300);
  ASSERT_TRUE(ex && ey);
  EXPECT_EQ((*kernel)
                ->Launch({KernelArg::Tensor(ex->tensor()), KernelArg::Tensor(ey->tensor()),
                          KernelArg::Scalar(2.0)})
                .message(),
            "kernel 'scale': its grid has 3 blocks along x, not a whole number of its clusters "
            "of 2");
}

// Issue 37: the grid's limits are the device's (the fake one answers what every CUDA GPU does:
// 2^31 - 1 along x, 65535 along y and z); a launch beyond them is refused naming the axis.
TEST_F(CudaFakeDriverTest, GridBeyondTheDevicesLimitsIsRefusedNamingTheAxis) {
  EXPECT_EQ(device_->context()->info().max_grid[1], 65535);
  absl::StatusOr<Module> module = text::ParseModule(
      absl::StrReplaceAll(kModule,
                          {{"grid(bx: ceildiv(N, 128))", "grid(bx: 1, by: ceildiv(N, 128))"}}),
      "cuda_fake_driver_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device_->Load(*module, "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::unique_ptr<DeviceBuffer> dx = Allocate(256), dy = Allocate(256);
  ASSERT_TRUE(dx && dy);
  // Only the shapes are read before the refusal.
  DLTensor x = *dx->tensor(), y = *dy->tensor();
  int64_t shape[] = {int64_t{128} * 65536};
  x.shape = shape;
  y.shape = shape;
  EXPECT_EQ((*kernel)
                ->Launch({KernelArg::Tensor(&x), KernelArg::Tensor(&y), KernelArg::Scalar(2.0)})
                .message(),
            "kernel 'scale': grid axis by (y) has ceildiv(N, 128) = 65536 blocks; Fake H200 "
            "allows at most 65535");
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

// A warp-specialized gemm (sm_90a, TMA loads): the launch passes the tensor maps of A and B
// after the buffers, each encoded from its tensor at launch.
constexpr char kTmaGemm[] = R"(ir_version 3;
producer "test" "1";

kernel tma_gemm<M: i32>(A: bf16[M, 128], B: bf16[128, 256], C: f32[M, 256])
    grid(bx: 1, by: ceildiv(M, 128)) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: 2 pipelined(num_stages=2) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, 0 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, 0 +: 256];
}
)";

// The tensor maps (parameters 4 and 5, after A, B, C and M) of the last launch.
uint64_t g_maps[2][16];
void RecordTensorMaps(const char* entry, const FakeCudaLaunch*, void** params) {
  ASSERT_STREQ(entry, "tma_gemm");
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(reinterpret_cast<uintptr_t>(params[4 + i]) % 64, 0u);
    std::memcpy(g_maps[i], params[4 + i], sizeof g_maps[i]);
  }
}

TEST_F(CudaFakeDriverTest, TmaLoadsGetTheirTensorMapsEncodedWhenTheirTensorsMove) {
  absl::StatusOr<Module> module = text::ParseModule(kTmaGemm, "tma_gemm.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device_->Load(*module, "tma_gemm");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_THAT((*kernel)->artifacts()[0].contents,
              HasSubstr("int M, const __grid_constant__ tl::TensorMap tl_tensor_map_0, "
                        "const __grid_constant__ tl::TensorMap tl_tensor_map_1"));
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> a = device_->Allocate(kBF16, {200, 128});
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> b = device_->Allocate(kBF16, {128, 256});
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> c = device_->Allocate(kF32, {200, 256});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  control_->set_kernel(RecordTensorMaps);
  std::vector<KernelArg> args = {KernelArg::Tensor((*a)->tensor()),
                                 KernelArg::Tensor((*b)->tensor()),
                                 KernelArg::Tensor((*c)->tensor())};
  ASSERT_TRUE((*kernel)->Launch(args).ok());
  // A: 200 rows of 128 bf16 (256 bytes), boxes of 64 x 128; B: 128 rows of 256, boxes 64 x 64.
  const struct {
    const DeviceBuffer* buffer;
    uint64_t inner, outer, box_outer;
  } expected[2] = {{a->get(), 128, 200, 128}, {b->get(), 256, 128, 64}};
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(g_maps[i][kFakeTensorMapAddress],
              reinterpret_cast<uintptr_t>(expected[i].buffer->tensor()->data));
    EXPECT_EQ(g_maps[i][kFakeTensorMapDataType], 9u);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
    EXPECT_EQ(g_maps[i][kFakeTensorMapInnerDim], expected[i].inner);
    EXPECT_EQ(g_maps[i][kFakeTensorMapOuterDim], expected[i].outer);
    EXPECT_EQ(g_maps[i][kFakeTensorMapRowBytes], expected[i].inner * 2);
    EXPECT_EQ(g_maps[i][kFakeTensorMapBoxInner], 64u);  // one 128-byte swizzle row
    EXPECT_EQ(g_maps[i][kFakeTensorMapBoxOuter], expected[i].box_outer);
    EXPECT_EQ(g_maps[i][kFakeTensorMapSwizzle], 3u);  // CU_TENSOR_MAP_SWIZZLE_128B
    EXPECT_EQ(g_maps[i][kFakeTensorMapElementStrides], 11u);
    EXPECT_EQ(g_maps[i][kFakeTensorMapOther], 30u);  // no interleave, L2 256B, zeros
  }
  // The same tensors again: the kept launch, its maps as they were (no encode to fail).
  control_->fail_next("cuTensorMapEncodeTiled", 1);
  EXPECT_TRUE((*kernel)->Launch(args).ok());
  // A moved: its map is encoded again, with the new address, and the driver's refusal is
  // reported.
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> a2 = device_->Allocate(kBF16, {200, 128});
  ASSERT_TRUE(a2.ok());
  args[0] = KernelArg::Tensor((*a2)->tensor());
  EXPECT_THAT(std::string((*kernel)->Launch(args).message()),
              HasSubstr("kernel 'tma_gemm': cuda: cuTensorMapEncodeTiled('A') failed: "));
  g_maps[0][kFakeTensorMapAddress] = 0;
  ASSERT_TRUE((*kernel)->Launch(args).ok());
  EXPECT_EQ(g_maps[0][kFakeTensorMapAddress], reinterpret_cast<uintptr_t>((*a2)->tensor()->data));
  EXPECT_EQ(g_maps[1][kFakeTensorMapAddress], reinterpret_cast<uintptr_t>((*b)->tensor()->data));
}

// A batch of matrices: the TMA loads of A name a coordinate per dimension, and its tensor map
// has rank 3 with a box of one matrix.
constexpr char kTmaBatchedGemm[] = R"(ir_version 3;
producer "test" "1";

kernel tma_gemm<M: i32>(A: bf16[3, M, 128], B: bf16[128, 256], C: f32[3, M, 256])
    grid(bx: 1, by: ceildiv(M, 128), bz: 3) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: 2 pipelined(num_stages=2) {
    copy A[bz +: 1, by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, 0 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[bz +: 1, by * 128 +: 128, 0 +: 256];
}
)";

TEST_F(CudaFakeDriverTest, TensorMapsOfBatchedTensorsHaveTheirRank) {
  absl::StatusOr<Module> module = text::ParseModule(kTmaBatchedGemm, "tma_batched.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device_->Load(*module, "tma_gemm");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_THAT((*kernel)->artifacts()[0].contents, HasSubstr("tl::tma_load_3d<128, 64>("));
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> a = device_->Allocate(kBF16, {3, 200, 128});
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> b = device_->Allocate(kBF16, {128, 256});
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> c = device_->Allocate(kF32, {3, 200, 256});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  control_->set_kernel(RecordTensorMaps);
  std::vector<KernelArg> args = {KernelArg::Tensor((*a)->tensor()),
                                 KernelArg::Tensor((*b)->tensor()),
                                 KernelArg::Tensor((*c)->tensor())};
  ASSERT_TRUE((*kernel)->Launch(args).ok());
  EXPECT_EQ(g_maps[0][kFakeTensorMapRank], 3u);
  EXPECT_EQ(g_maps[0][kFakeTensorMapInnerDim], 128u);
  EXPECT_EQ(g_maps[0][kFakeTensorMapOuterDim], 200u);
  EXPECT_EQ(g_maps[0][kFakeTensorMapDim2], 3u);
  EXPECT_EQ(g_maps[0][kFakeTensorMapRowBytes], 256u);
  EXPECT_EQ(g_maps[0][kFakeTensorMapStride2], 200u * 256u);  // one matrix of A, in bytes
  EXPECT_EQ(g_maps[0][kFakeTensorMapBoxInner], 64u);
  EXPECT_EQ(g_maps[0][kFakeTensorMapBoxOuter], 128u);
  EXPECT_EQ(g_maps[1][kFakeTensorMapRank], 2u);
}

// TMA stores (the default on sm_90a): the consumers store C with the TMA, so the launch passes C's
// tensor map too (parameter 6), its box one staging tile's 128 rows of 64 bf16.
constexpr char kTmaStoreGemm[] = R"(ir_version 3;
producer "test" "1";

kernel tma_gemm<M: i32>(A: bf16[M, 128], B: bf16[128, 256], C: bf16[M, 256])
    grid(bx: 1, by: ceildiv(M, 128)) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: 2 pipelined(num_stages=2) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, 0 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, 0 +: 256];
}
)";

uint64_t g_store_map[16];
void RecordStoreTensorMap(const char* entry, const FakeCudaLaunch*, void** params) {
  ASSERT_STREQ(entry, "tma_gemm");
  ASSERT_EQ(reinterpret_cast<uintptr_t>(params[6]) % 64, 0u);
  std::memcpy(g_store_map, params[6], sizeof g_store_map);
}

TEST_F(CudaFakeDriverTest, TmaStoresGetTheOutputsTensorMap) {
  CudaDeviceOptions options;
  options.driver = driver_;
  options.target = *targets::ParseTargetName("cuda");
  absl::StatusOr<std::unique_ptr<CudaDevice>> device = OpenCudaDevice(options);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->target().ToString(), "cuda:sm_90a");
  absl::StatusOr<Module> module = text::ParseModule(kTmaStoreGemm, "tma_store.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = (*device)->Load(*module, "tma_gemm");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_THAT((*kernel)->artifacts()[0].contents,
              HasSubstr("tl::tma_store_2d<128, 256>(&tl_tensor_map_2, "));
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> a = (*device)->Allocate(kBF16, {200, 128});
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> b = (*device)->Allocate(kBF16, {128, 256});
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> c = (*device)->Allocate(kBF16, {200, 256});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  control_->set_kernel(RecordStoreTensorMap);
  std::vector<KernelArg> args = {KernelArg::Tensor((*a)->tensor()),
                                 KernelArg::Tensor((*b)->tensor()),
                                 KernelArg::Tensor((*c)->tensor())};
  ASSERT_TRUE((*kernel)->Launch(args).ok());
  EXPECT_EQ(g_store_map[kFakeTensorMapAddress], reinterpret_cast<uintptr_t>((*c)->tensor()->data));
  EXPECT_EQ(g_store_map[kFakeTensorMapDataType], 9u);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(g_store_map[kFakeTensorMapInnerDim], 256u);
  EXPECT_EQ(g_store_map[kFakeTensorMapOuterDim], 200u);
  EXPECT_EQ(g_store_map[kFakeTensorMapBoxInner], 64u);
  EXPECT_EQ(g_store_map[kFakeTensorMapBoxOuter], 128u);
  EXPECT_EQ(g_store_map[kFakeTensorMapSwizzle], 3u);  // CU_TENSOR_MAP_SWIZZLE_128B
}

}  // namespace
// A gemm whose K and N are dynamic: its row pitches are proved only by requirements.
constexpr char kDynamicGemm[] = R"(ir_version 3;
producer "test" "1";

kernel dyn_gemm<M: i32, N: i32, K: i32>(A: bf16[M, K], B: bf16[K, N], C: f32[M, N])
    grid(bx: ceildiv(N, 256), by: ceildiv(M, 128)) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: ceildiv(K, 64) pipelined(num_stages=2) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, bx * 256 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 256 +: 256];
}
)";

void IgnoreLaunch(const char*, const FakeCudaLaunch*, void**) {}

// On sm_90a the JIT specializes dynamic dims on their divisibility by powers of two up to 16:
// a call whose K and N are multiples of 8 bf16 (16 bytes) gets the TMA pipeline, one whose N is
// not keeps its copies in the compute warps, and calls of one class share a binary.
TEST_F(CudaFakeDriverTest, TheJitSpecializesDynamicDimsOnTheirDivisibility) {
  ASSERT_EQ(device_->target().ToString(), "cuda:sm_90a");
  absl::StatusOr<Module> module = text::ParseModule(kDynamicGemm, "dyn_gemm.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  control_->set_kernel(IgnoreLaunch);
  jit::JitBackend backend(std::move(device_));
  jit::KernelCache cache(backend, jit::KernelCacheOptions{});
  jit::JitFunction gemm(jit::KernelTemplate::FromModule(*module, "dyn_gemm"), {}, cache);
  std::vector<std::unique_ptr<DeviceBuffer>> keep;
  auto call = [&](int64_t m, int64_t n, int64_t k, jit::CacheSource* source) {
    std::vector<KernelArg> args;
    for (auto [rows, cols, dtype] :
         {std::tuple(m, k, kBF16), std::tuple(k, n, kBF16), std::tuple(m, n, kF32)}) {
      absl::StatusOr<std::unique_ptr<DeviceBuffer>> buffer =
          backend.device().Allocate(dtype, {rows, cols});
      EXPECT_TRUE(buffer.ok()) << buffer.status();
      if (!buffer.ok()) return static_cast<LoadedKernel*>(nullptr);
      args.push_back(KernelArg::Tensor((*buffer)->tensor()));
      keep.push_back(*std::move(buffer));
    }
    absl::StatusOr<LoadedKernel*> kernel = gemm.Specialize(args, source);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok()) return static_cast<LoadedKernel*>(nullptr);
    EXPECT_TRUE((*kernel)->Launch(args).ok());
    return *kernel;
  };
  jit::CacheSource source;
  LoadedKernel* classes_16 = call(200, 512, 128, &source);
  ASSERT_NE(classes_16, nullptr);
  EXPECT_EQ(source, jit::CacheSource::kCompiled);
  const std::string& split = classes_16->artifacts()[0].contents;
  EXPECT_THAT(split, HasSubstr("__grid_constant__ tl::TensorMap"));
  // Another shape of the same classes (M = 72 is a multiple of 8 like 200): the same binary, from
  // this function's table.
  EXPECT_EQ(call(72, 1024, 4096, &source), classes_16);
  EXPECT_EQ(source, jit::CacheSource::kMemory);
  // N = 264 is a multiple of 8 (its class): a binary of its own, split as well.
  LoadedKernel* n_class_8 = call(200, 264, 128, &source);
  ASSERT_NE(n_class_8, nullptr);
  EXPECT_NE(n_class_8, classes_16);
  EXPECT_THAT(n_class_8->artifacts()[0].contents, HasSubstr("__grid_constant__ tl::TensorMap"));
  // N = 260 proves only 8-byte rows of B: no TMA, the copies stay in the compute warps.
  LoadedKernel* n_class_4 = call(200, 260, 128, &source);
  ASSERT_NE(n_class_4, nullptr);
  EXPECT_THAT(n_class_4->artifacts()[0].contents, Not(HasSubstr("tl::TensorMap")));
  // A binary of one class refuses a call of another, naming the requirement.
  std::vector<KernelArg> args;
  for (auto [rows, cols, dtype] :
       {std::tuple(200, 128, kBF16), std::tuple(128, 260, kBF16), std::tuple(200, 260, kF32)}) {
    absl::StatusOr<std::unique_ptr<DeviceBuffer>> buffer =
        backend.device().Allocate(dtype, {rows, cols});
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    args.push_back(KernelArg::Tensor((*buffer)->tensor()));
    keep.push_back(*std::move(buffer));
  }
  EXPECT_THAT(std::string(classes_16->Launch(args).message()), HasSubstr("N % 16 == 0"));
}

}  // namespace tile_ir::runtime::cuda
