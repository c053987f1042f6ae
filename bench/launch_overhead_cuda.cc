// Host time per launch of an already loaded CUDA kernel, to compare with the
// peers' figures on the same GPU (CuPy's raw-kernel launch: 5.2 us on the
// H200): many launches, one wait, wall clock over the count; and host only (128 launches
// with no wait in the timed span, the GPU kept out: see HostOnlyMicroseconds). Three paths:
// enqueue alone (arguments bound once), bind + enqueue, and LoadedKernel::
// Launch (bind + enqueue + wait), which tile-run uses.
// Usage: launch_overhead_cuda [LAUNCHES]   (default 10000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "runtime/cuda/cuda_buffer.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_kernel.h"
#include "runtime/host_buffer.h"

namespace tile_ir::bench {
namespace {

using runtime::KernelArg;
using runtime::cuda::CudaKernel;
using runtime::cuda::CudaLaunch;

constexpr char kModule[] = R"(ir_version 1;
producer "launch_overhead_cuda" "1";

kernel add<N: i32>(X: f32[N], Y: f32[N], Z: f32[N]) grid(bx: ceildiv(N, 128)) threads(128) {
  for i in 0 +: 128 parallel {
    if (bx * 128 + i < N) {
      Z[bx * 128 + i] = X[bx * 128 + i] + Y[bx * 128 + i];
    }
  }
}
)";
constexpr int64_t kElements = 1024;
constexpr int kWarmup = 200;

// Microseconds of host time per call of `launch`, over `count` calls and one
// final wait.
absl::StatusOr<double> MicrosecondsPerLaunch(const CudaKernel& kernel, int count,
                                             const std::function<absl::Status()>& launch) {
  for (int i = 0; i < kWarmup; ++i) {
    if (absl::Status status = launch(); !status.ok()) return status;
  }
  if (absl::Status status = kernel.Synchronize(); !status.ok()) return status;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    if (absl::Status status = launch(); !status.ok()) return status;
  }
  if (absl::Status status = kernel.Synchronize(); !status.ok()) return status;
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(end - start).count() / count;
}

// Microseconds of host time per call with the GPU kept out: kHostOnlyCalls calls timed with no
// wait inside the timed span (fewer than the launch queue holds, so no call waits for the GPU
// to retire an earlier kernel), the median of kHostOnlyRuns such runs, each after a wait.
// MicrosecondsPerLaunch's `count` calls fill the queue: where the GPU retires these tiny
// kernels more slowly than the host enqueues them, it measures the GPU's pace.
constexpr int kHostOnlyCalls = 128;
constexpr int kHostOnlyRuns = 51;
absl::StatusOr<double> HostOnlyMicroseconds(const CudaKernel& kernel,
                                            const std::function<absl::Status()>& launch) {
  std::vector<double> runs;
  for (int r = 0; r < kHostOnlyRuns; ++r) {
    if (absl::Status status = kernel.Synchronize(); !status.ok()) return status;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kHostOnlyCalls; ++i) {
      if (absl::Status status = launch(); !status.ok()) return status;
    }
    auto end = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::micro>(end - start).count() /
                   kHostOnlyCalls);
  }
  if (absl::Status status = kernel.Synchronize(); !status.ok()) return status;
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

absl::Status Run(int count) {
  absl::StatusOr<std::unique_ptr<runtime::cuda::CudaDevice>> device =
      runtime::cuda::OpenCudaDevice();
  if (!device.ok()) return device.status();
  absl::StatusOr<Module> module = text::ParseModule(kModule, "launch_overhead_cuda.tile");
  if (!module.ok()) return module.status();
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> loaded = (*device)->Load(*module, "add");
  if (!loaded.ok()) return loaded.status();
  CudaKernel& kernel = static_cast<CudaKernel&>(**loaded);

  std::vector<std::unique_ptr<runtime::DeviceBuffer>> buffers;
  std::vector<KernelArg> args;
  runtime::HostBuffer ones(kF32, {kElements});
  for (int64_t i = 0; i < kElements; ++i) ones.Set(i, 1.0);
  for (int b = 0; b < 3; ++b) {
    absl::StatusOr<std::unique_ptr<runtime::DeviceBuffer>> buffer =
        (*device)->Allocate(kF32, {kElements});
    if (!buffer.ok()) return buffer.status();
    if (absl::Status status = (*buffer)->CopyFromHost(ones); !status.ok()) return status;
    args.push_back(KernelArg::Tensor((*buffer)->tensor()));
    buffers.push_back(*std::move(buffer));
  }
  absl::StatusOr<CudaLaunch> prepared = kernel.Prepare(args);
  if (!prepared.ok()) return prepared.status();
  if (absl::Status status = kernel.context().MakeCurrent(); !status.ok()) return status;

  struct Path {
    const char* name;
    std::function<absl::Status()> launch;
  };
  const std::vector<Path> paths = {
      {"enqueue (arguments bound once)", [&] { return kernel.Enqueue(*prepared); }},
      {"bind + enqueue",
       [&]() -> absl::Status {
         absl::StatusOr<CudaLaunch> launch = kernel.Prepare(args);
         return launch.ok() ? kernel.Enqueue(*launch) : launch.status();
       }},
      {"Launch (bind + enqueue + wait)", [&] { return kernel.Launch(args); }},
  };
  std::printf("%s\n%d launches of add<N=%lld> (%lld blocks of 128 threads, %d registers each)\n\n",
              (*device)->description().c_str(), count, static_cast<long long>(kElements),
              static_cast<long long>(kElements / 128), kernel.registers_per_thread());
  std::printf("%-34s %12s %12s\n", "path", "us/launch", "host only");
  for (const Path& path : paths) {
    absl::StatusOr<double> us = MicrosecondsPerLaunch(kernel, count, path.launch);
    if (!us.ok()) return us.status();
    absl::StatusOr<double> host = HostOnlyMicroseconds(kernel, path.launch);
    if (!host.ok()) return host.status();
    std::printf("%-34s %12.2f %12.2f\n", path.name, *us, *host);
  }
  absl::StatusOr<double> device_seconds = kernel.TimedLaunch(args);
  if (!device_seconds.ok()) return device_seconds.status();
  std::printf("%-34s %12.2f\n", "kernel time on the GPU (events)", *device_seconds * 1e6);

  runtime::HostBuffer result(kF32, {kElements});
  if (absl::Status status = buffers[2]->CopyToHost(result); !status.ok()) return status;
  for (int64_t i = 0; i < kElements; ++i) {
    if (result.Get(i) != 2.0) {
      return absl::InternalError(
          absl::StrCat("add computed Z[", i, "] = ", result.Get(i), ", not 2"));
    }
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace tile_ir::bench

int main(int argc, char** argv) {
  int count = 10000;
  if (argc > 2 || (argc == 2 && (!absl::SimpleAtoi(argv[1], &count) || count < 1))) {
    std::fprintf(stderr, "usage: launch_overhead_cuda [LAUNCHES]  (a positive count)\n");
    return 2;
  }
  absl::Status status = tile_ir::bench::Run(count);
  if (!status.ok()) {
    std::fprintf(stderr, "launch_overhead_cuda: error: %s\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
