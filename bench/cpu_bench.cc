// CPU target throughput against references measured in the same run: the
// suite's gemm_f32 next to OpenBLAS's sgemm, the suite's softmax_f32 next to
// memcpy, each with one worker thread and with all of them, plus the vector
// FMAs in the inner loop of the generated gemm (evidence that it uses SIMD).
// Run: bazel run -c opt //bench:cpu_bench  (prints Markdown).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bench/asm_loops.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/host_buffer.h"
#include "targets/cpu/cpu_compiler.h"
#include "ops/op_suite.h"

namespace tile_ir {
namespace {

constexpr int kGemmSize = 1024;
constexpr int kSoftmaxRows = 4096;
constexpr int kSoftmaxCols = 4096;
constexpr int kWarmup = 2;
constexpr int kRepeats = 11;

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double Seconds(const std::function<void()>& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Median seconds of each function over kRepeats rounds after kWarmup untimed
// ones; the functions alternate within a round so that both see the same load.
std::vector<double> MedianSeconds(const std::vector<std::function<void()>>& fns) {
  std::vector<std::vector<double>> times(fns.size());
  for (int round = 0; round < kWarmup + kRepeats; ++round) {
    for (size_t f = 0; f < fns.size(); ++f) {
      double t = Seconds(fns[f]);
      if (round >= kWarmup) times[f].push_back(t);
    }
  }
  std::vector<double> medians;
  for (auto& t : times) medians.push_back(Median(std::move(t)));
  return medians;
}

void FillUniform(runtime::HostBuffer& buffer, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* data = static_cast<float*>(buffer.data());
  for (int64_t i = 0; i < buffer.num_elements(); ++i) data[i] = dist(rng);
}

// The suite's operator `name`, compiled for a CPU device with `threads` workers.
struct SuiteKernel {
  const ops::OpCase* op = nullptr;
  std::unique_ptr<runtime::Device> device;
  std::unique_ptr<runtime::LoadedKernel> kernel;
};

absl::StatusOr<SuiteKernel> LoadSuiteKernel(const std::string& name, int threads) {
  SuiteKernel result;
  result.op = ops::FindOp(name);
  if (result.op == nullptr) return absl::NotFoundError(absl::StrCat("no suite op ", name));
  absl::StatusOr<Kernel> kernel = result.op->build();
  if (!kernel.ok()) return kernel.status();
  runtime::CpuDeviceOptions options;
  options.num_threads = threads;
  absl::StatusOr<std::unique_ptr<runtime::Device>> device = runtime::OpenCpuDevice(options);
  if (!device.ok()) return device.status();
  Module module;
  module.producer = "cpu_bench";
  module.kernels = {*kernel};
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> loaded = (*device)->Load(module, name);
  if (!loaded.ok()) return loaded.status();
  result.device = *std::move(device);
  result.kernel = *std::move(loaded);
  return result;
}

// Launches with the buffers bound to the kernel's parameters by name.
absl::Status Launch(runtime::LoadedKernel& kernel,
                    const std::map<std::string, runtime::HostBuffer*>& buffers) {
  std::vector<runtime::KernelArg> args;
  for (const Param& param : kernel.signature().params) {
    args.push_back(runtime::KernelArg::Tensor(buffers.at(param.name())->AsDLTensor()));
  }
  return kernel.Launch(args);
}

bool RunGemm(const std::vector<int>& thread_counts) {
  const int n = kGemmSize;
  runtime::HostBuffer a(kF32, {n, n}), b(kF32, {n, n}), c(kF32, {n, n}), ref(kF32, {n, n});
  FillUniform(a, 1);
  FillUniform(b, 2);
  const double flops = 2.0 * n * n * n;
  std::printf("## GEMM fp32 %dx%dx%d (row-major, C = A * B)\n\n", n, n, n);
  std::printf("| threads | ours (gemm_f32) | OpenBLAS sgemm | ours / OpenBLAS | max abs diff |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  bool ok = true;
  for (int threads : thread_counts) {
    absl::StatusOr<SuiteKernel> gemm = LoadSuiteKernel("gemm_f32", threads);
    if (!gemm.ok()) {
      std::fprintf(stderr, "cpu_bench: %s\n", std::string(gemm.status().message()).c_str());
      return false;
    }
    openblas_set_num_threads(threads);
    c.Poison();  // NaN: a launch that writes nothing fails the check below
    absl::Status launched = absl::OkStatus();
    auto ours = [&] { launched.Update(Launch(*gemm->kernel, {{"A", &a}, {"B", &b}, {"C", &c}})); };
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                  static_cast<const float*>(a.data()), n, static_cast<const float*>(b.data()), n,
                  0.0f, static_cast<float*>(ref.data()), n);
    };
    std::vector<double> seconds = MedianSeconds({ours, blas});
    if (!launched.ok()) {
      std::fprintf(stderr, "cpu_bench: %s\n", std::string(launched.message()).c_str());
      return false;
    }
    // Each result is within the suite's tolerance of the exact product, so
    // they differ by at most twice that.
    double max_diff = 0;
    bool close = true;
    const float* got = static_cast<const float*>(c.data());
    const float* want = static_cast<const float*>(ref.data());
    for (int64_t i = 0; i < c.num_elements(); ++i) {
      double diff = std::fabs(double{got[i]} - want[i]);
      max_diff = std::max(max_diff, diff);
      close &= diff <= 2 * (gemm->op->atol + gemm->op->rtol * std::fabs(want[i]));
    }
    ok &= close;
    double ours_gflops = flops / seconds[0] / 1e9;
    double blas_gflops = flops / seconds[1] / 1e9;
    std::printf("| %d | %.1f GFLOP/s (%.2f ms) | %.1f GFLOP/s (%.2f ms) | %.0f%% | %.2e%s |\n",
                threads, ours_gflops, seconds[0] * 1e3, blas_gflops, seconds[1] * 1e3,
                100 * ours_gflops / blas_gflops, max_diff, close ? "" : " MISMATCH");
  }
  std::printf("\n");
  return ok;
}

// memcpy of `bytes` split into one contiguous chunk per thread.
void ParallelCopy(char* dst, const char* src, int64_t bytes, int threads) {
  if (threads == 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  std::vector<std::thread> workers;
  const int64_t chunk = (bytes + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    int64_t begin = std::min(bytes, t * chunk);
    int64_t size = std::min(bytes, begin + chunk) - begin;
    workers.emplace_back([=] { std::memcpy(dst + begin, src + begin, size); });
  }
  for (std::thread& worker : workers) worker.join();
}

bool RunSoftmax(const std::vector<int>& thread_counts) {
  const int m = kSoftmaxRows;
  const int n = kSoftmaxCols;
  runtime::HostBuffer x(kF32, {m, n}), y(kF32, {m, n}), copy(kF32, {m, n});
  FillUniform(x, 3);
  // Read once and written once: the least any softmax moves.
  const double bytes = 2.0 * x.size_bytes();
  std::printf("## Softmax fp32 %dx%d (bytes = read X once + write Y once = %.0f MB)\n\n", m, n,
              bytes / 1e6);
  std::printf("| threads | ours (softmax_f32) | memcpy of the same bytes | ours / memcpy |\n");
  std::printf("| --- | --- | --- | --- |\n");
  for (int threads : thread_counts) {
    absl::StatusOr<SuiteKernel> softmax = LoadSuiteKernel("softmax_f32", threads);
    if (!softmax.ok()) {
      std::fprintf(stderr, "cpu_bench: %s\n", std::string(softmax.status().message()).c_str());
      return false;
    }
    absl::Status launched = absl::OkStatus();
    auto ours = [&] { launched.Update(Launch(*softmax->kernel, {{"X", &x}, {"Y", &y}})); };
    auto copy_x = [&] {
      ParallelCopy(static_cast<char*>(copy.data()), static_cast<const char*>(x.data()),
                   x.size_bytes(), threads);
    };
    std::vector<double> seconds = MedianSeconds({ours, copy_x});
    if (!launched.ok()) {
      std::fprintf(stderr, "cpu_bench: %s\n", std::string(launched.message()).c_str());
      return false;
    }
    double ours_gbs = bytes / seconds[0] / 1e9;
    double copy_gbs = bytes / seconds[1] / 1e9;
    std::printf("| %d | %.2f GB/s (%.1f ms) | %.2f GB/s (%.1f ms) | %.1f%% |\n", threads, ours_gbs,
                seconds[0] * 1e3, copy_gbs, seconds[1] * 1e3, 100 * ours_gbs / copy_gbs);
  }
  std::printf("\n");
  return true;
}

// The generated gemm's assembly: vector FMA counts and its hottest loop.
bool ShowGemmSimd() {
  const ops::OpCase* op = ops::FindOp("gemm_f32");
  absl::StatusOr<Kernel> kernel = op->build();
  if (!kernel.ok()) return false;
  Module module;
  module.producer = "cpu_bench";
  module.kernels = {*kernel};
  absl::StatusOr<Module> lowered = cpu::LowerForCpu(module);
  if (!lowered.ok()) return false;
  absl::StatusOr<std::string> assembly = cpu::EmitAssembly(*lowered);
  if (!assembly.ok()) return false;
  bench::AsmLoop loop = bench::HottestFmaLoop(*assembly);
  std::printf("## SIMD: the generated gemm_f32 (%s)\n\n", cpu::HostCpuName().c_str());
  std::printf("Vector FMAs in the whole kernel: %d on zmm, %d on ymm, %d on xmm. Its innermost\n",
              bench::CountVectorFmas(*assembly, "zmm"), bench::CountVectorFmas(*assembly, "ymm"),
              bench::CountVectorFmas(*assembly, "xmm"));
  std::printf("loop with the most of them (%d lines, %d vector FMAs, %d of them on zmm):\n\n",
              loop.num_lines, loop.fmas, bench::CountVectorFmas(loop.text, "zmm"));
  std::printf("```\n%s```\n", bench::Excerpt(loop.text, 40).c_str());
  return true;
}

int Run() {
  const int all_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("# cpu_bench: %s, %d hardware threads, median of %d after %d warm-up runs\n\n",
              cpu::HostCpuName().c_str(), all_threads, kRepeats, kWarmup);
  // OpenBLAS picks its kernels by CPUID when loaded; a CPU newer than its
  // tables gets a generic SSE kernel unless OPENBLAS_CORETYPE names one.
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("OpenBLAS: %s; kernels for %s (%s)\n\n", openblas_get_config(),
              openblas_get_corename(),
              coretype ? "chosen by OPENBLAS_CORETYPE" : "detected; OPENBLAS_CORETYPE unset");
  std::vector<int> thread_counts = {1};
  if (all_threads > 1) thread_counts.push_back(all_threads);
  bool ok = RunGemm(thread_counts);
  ok &= RunSoftmax(thread_counts);
  ok &= ShowGemmSimd();
  if (!ok) std::fprintf(stderr, "cpu_bench: FAILED (see above)\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace tile_ir

int main() { return tile_ir::Run(); }
