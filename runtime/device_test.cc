// OpenDevice with every runtime family linked (//runtime:linked_runtime), and
// the CPU device end to end:
// compile, bind, lay out the calling convention and run every block of 1-D
// and 2-D grids on 1 and several threads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/device_registry.h"
#include "runtime/host_buffer.h"
#include "runtime/jit/jit_backend.h"

namespace tile_ir::runtime {
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

kernel index_2d<M: i32, N: i64>(Y: f32[M, N]) grid(bx: cast<i32>(N), by: M) threads(1) {
  Y[by, cast<i64>(bx)] = cast<f32>(by * 1000 + bx) + cast<f32>(N) * 0.0;
}
)";

Module TestModule() {
  absl::StatusOr<Module> module = text::ParseModule(kModule, "device_test.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

TEST(OpenDeviceTest, CpuOpensAndDescribesItself) {
  absl::StatusOr<std::unique_ptr<Device>> device = OpenDevice("cpu");
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->name(), "cpu");
  EXPECT_THAT((*device)->description(), StartsWith("cpu: "));
  EXPECT_THAT((*device)->description(), HasSubstr("thread"));
}

TEST(OpenDeviceTest, EveryDeviceIsLinkedAndUnknownNamesAreNotFound) {
  EXPECT_THAT(LinkedDevices().Names(), ::testing::ElementsAre("cpu", "cuda"));
  for (const char* target : {"hip", "tpu"}) {
    absl::StatusOr<std::unique_ptr<Device>> unknown = OpenDevice(target);
    EXPECT_EQ(unknown.status(), absl::NotFoundError(absl::StrCat(
                                    "unknown device '", target, "'; this program has: cpu, cuda")));
  }
  EXPECT_EQ(OpenDevice("cpu:znver3").status().code(), absl::StatusCode::kInvalidArgument);
  // An option the CPU does not take is named once, as tile-opt names it (issue 37: it said "the
  // cpu device takes no architecture", twice).
  absl::StatusOr<std::unique_ptr<Device>> option = OpenDevice("cpu{foo=1}");
  ASSERT_FALSE(option.ok());
  EXPECT_THAT(option.status().message(), ::testing::HasSubstr("unknown option 'foo'"));
  EXPECT_THAT(option.status().message(), ::testing::Not(::testing::HasSubstr("architecture")));
}

// The JIT backend opens over the same list's devices; its base context is the
// target's fields, then the device's, then the project's and the environment's.
TEST(OpenDeviceTest, JitBackendsOpenOverTheLinkedDevices) {
  EXPECT_EQ(jit::OpenJitBackend("hip:gfx90a").status(),
            absl::NotFoundError("unknown device 'hip:gfx90a'; this program has: cpu, cuda"));
  absl::StatusOr<std::unique_ptr<jit::JitBackend>> cpu = jit::OpenJitBackend("cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ((*cpu)->target().ToString(), "cpu");
  EXPECT_EQ((*cpu)->device().name(), "cpu");
  std::vector<std::string> fields;
  for (const auto& [field, value] : (*cpu)->BaseContext().fields()) {
    if (!absl::StartsWith(field, "env.")) fields.push_back(field);
  }
  EXPECT_THAT(fields, ::testing::ElementsAre("target", "pipeline", "options", "arch",
                                             "cpu_features", "llvm", "project_version"));
  EXPECT_EQ(jit::OpenJitBackend("cpu:znver3").status().code(), absl::StatusCode::kInvalidArgument);
}

class CpuDeviceTest : public ::testing::TestWithParam<int> {
 protected:
  std::unique_ptr<Device> Open() {
    CpuDeviceOptions options;
    options.num_threads = GetParam();
    absl::StatusOr<std::unique_ptr<Device>> device = OpenCpuDevice(options);
    EXPECT_TRUE(device.ok()) << device.status();
    return device.ok() ? *std::move(device) : nullptr;
  }
};

TEST_P(CpuDeviceTest, RunsEveryBlockOfA1DGrid) {
  std::unique_ptr<Device> device = Open();
  ASSERT_NE(device, nullptr);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->Load(TestModule(), "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->signature().name, "scale");
  for (int64_t n : {1, 127, 1000}) {
    HostBuffer x(kF32, {n});
    HostBuffer y(kF32, {n});
    for (int64_t i = 0; i < n; ++i) x.Set(i, i * 0.25 - 3);
    y.Poison();
    absl::Status status =
        (*kernel)->Launch({KernelArg::Tensor(x.AsDLTensor()), KernelArg::Tensor(y.AsDLTensor()),
                           KernelArg::Scalar(-2)});
    ASSERT_TRUE(status.ok()) << status;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.Get(i), -2 * x.Get(i)) << "n=" << n << " i=" << i;
  }
}

TEST_P(CpuDeviceTest, PassesBlockIndicesOfA2DGridAndI64Dims) {
  std::unique_ptr<Device> device = Open();
  ASSERT_NE(device, nullptr);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->Load(TestModule(), "index_2d");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  HostBuffer y(kF32, {7, 13});
  y.Poison();
  ASSERT_TRUE((*kernel)->Launch({KernelArg::Tensor(y.AsDLTensor())}).ok());
  for (int64_t m = 0; m < 7; ++m) {
    for (int64_t n = 0; n < 13; ++n) ASSERT_EQ(y.Get(m * 13 + n), m * 1000 + n);
  }
}

TEST_P(CpuDeviceTest, ConcurrentLaunchesOfOneKernel) {
  std::unique_ptr<Device> device = Open();
  ASSERT_NE(device, nullptr);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->Load(TestModule(), "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<std::thread> callers;
  std::vector<int> failures(3, 0);
  for (int c = 0; c < 3; ++c) {
    callers.emplace_back([&, c] {
      HostBuffer x(kF32, {999});
      HostBuffer y(kF32, {999});
      for (int64_t i = 0; i < 999; ++i) x.Set(i, i + c);
      for (int round = 0; round < 20; ++round) {
        y.Poison();
        absl::Status status =
            (*kernel)->Launch({KernelArg::Tensor(x.AsDLTensor()), KernelArg::Tensor(y.AsDLTensor()),
                               KernelArg::Scalar(c)});
        if (!status.ok()) ++failures[c];
        for (int64_t i = 0; i < 999; ++i) {
          if (y.Get(i) != static_cast<double>((i + c) * c)) ++failures[c];
        }
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0, 0}));
}

INSTANTIATE_TEST_SUITE_P(Threads, CpuDeviceTest, ::testing::Values(1, 3));

TEST(CpuDeviceErrorsTest, LoadAndLaunchErrorsNameTheProblem) {
  absl::StatusOr<std::unique_ptr<Device>> device = OpenDevice("cpu");
  ASSERT_TRUE(device.ok());
  absl::StatusOr<std::unique_ptr<LoadedKernel>> missing = (*device)->Load(TestModule(), "gemm");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "no kernel named 'gemm' in the module (kernels: scale, index_2d)");
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = (*device)->Load(TestModule(), "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  HostBuffer x(kF16, {4});
  HostBuffer y(kF32, {4});
  absl::Status status = (*kernel)->Launch(
      {KernelArg::Tensor(x.AsDLTensor()), KernelArg::Tensor(y.AsDLTensor()), KernelArg::Scalar(1)});
  EXPECT_EQ(status.message(), "kernel 'scale': argument 1 ('X'): expected f32, got f16");
}

}  // namespace
}  // namespace tile_ir::runtime
