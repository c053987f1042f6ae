// First-call latency of a kernel through the JIT cache, cold (compile) and
// cached on disk in a new process, and the in-process dispatch cost of a
// cached specialization. The parent runs itself as a child process twice
// over an empty cache folder (cold, then disk), --runs times, and reports
// medians; then measures dispatch in-process. Each child times three things
// apart: opening the device (for CUDA: loading the driver, cuInit and the
// context, which any CUDA program pays once whatever it caches), setting up
// the call (the kernel template and its buffers), and the first call after
// that (Specialize and one synchronized Launch: the compile, or the disk
// lookup and load), which is what the cache can make fast.
//
// With TILE_CACHE_URL set (bench/remote_cache_latency.sh starts a private
// redis-server and sets it), each run adds a third child on an empty folder
// that must get the kernel from the remote cache, and then removes that one
// key from the server (runs use a key file of their own under the temporary
// folder, so entries of other runs or users are refused, never timed).
//
//   jit_latency [--target=cpu|cuda] [--op=gemm_f16] [--runs=5] [--iters=200000]
//
// One binary per backend: //bench:jit_latency (CPU, LLVM) and
// //bench:jit_latency_cuda (CUDA only, no LLVM, for the GPU machine).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/remote_cache.h"
#include "runtime/jit/specializer.h"
#include "runtime/remote_cache/open_remote_store.h"
#include "ops/op_suite.h"

namespace tile_ir::bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace tile_ir::runtime;
using namespace tile_ir::runtime::jit;

std::string Flag(int argc, char** argv, const std::string& name, const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
  }
  return fallback;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

struct Call {
  std::unique_ptr<JitBackend> backend;
  std::unique_ptr<KernelCache> cache;
  std::unique_ptr<JitFunction> function;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<KernelArg> args;
};

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The op's kernel as a template with every dimension dynamic, its buffers
// allocated on the backend's device at the op's default shapes.
absl::StatusOr<Call> Prepare(std::unique_ptr<JitBackend> backend, const std::string& op_name) {
  Call call;
  const ops::OpCase* op = ops::FindOp(op_name);
  if (op == nullptr) return absl::NotFoundError(absl::StrCat("no operator '", op_name, "'"));
  call.backend = std::move(backend);
  call.cache = std::make_unique<KernelCache>(*call.backend, KernelCacheOptions::FromEnvironment());
  absl::StatusOr<Kernel> kernel = op->build();
  if (!kernel.ok()) return kernel.status();
  KernelTemplate t =
      KernelTemplate::FromModule(Module{kIrVersion, "jit_latency", "0", {*kernel}}, op_name);
  call.function = std::make_unique<JitFunction>(t, TemplateArgs{}, *call.cache);
  absl::flat_hash_map<const Var*, int64_t> dims;
  for (const VarRef& dim : (*kernel)->dims) dims[dim.get()] = op->default_shapes.at(dim->name);
  for (const Param& param : (*kernel)->params) {
    if (!param.is_buffer()) {
      call.args.push_back(
          KernelArg::Scalar(op->scalars.count(param.name()) ? op->scalars.at(param.name()) : 1.0));
      continue;
    }
    std::vector<int64_t> shape;
    for (const Expr& extent : param.buffer->shape) {
      absl::StatusOr<int64_t> value = EvaluateInt(extent, dims);
      if (!value.ok()) return value.status();
      shape.push_back(*value);
    }
    absl::StatusOr<std::unique_ptr<DeviceBuffer>> buffer =
        call.backend->device().Allocate(param.buffer->dtype, shape);
    if (!buffer.ok()) return buffer.status();
    call.args.push_back(KernelArg::Tensor((*buffer)->tensor()));
    call.buffers.push_back(*std::move(buffer));
  }
  return call;
}

absl::StatusOr<Call> OpenAndPrepare(const std::string& target, const std::string& op) {
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend(target);
  if (!backend.ok()) return backend.status();
  return Prepare(*std::move(backend), op);
}

// The child: opens the device, sets the call up, makes one first call.
// Prints "open_ms=<ms> setup_ms=<ms> first_call_ms=<ms> source=<source>".
int Child(const std::string& target, const std::string& op) {
  const Clock::time_point open_start = Clock::now();
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend(target);
  if (!backend.ok()) {
    std::cerr << "jit_latency: " << backend.status() << "\n";
    return 1;
  }
  const double open_ms = MsSince(open_start);
  const Clock::time_point setup_start = Clock::now();
  absl::StatusOr<Call> call = Prepare(*std::move(backend), op);
  if (!call.ok()) {
    std::cerr << "jit_latency: " << call.status() << "\n";
    return 1;
  }
  const double setup_ms = MsSince(setup_start);
  const Clock::time_point start = Clock::now();
  CacheSource source;
  absl::StatusOr<LoadedKernel*> kernel = call->function->Specialize(call->args, &source);
  if (!kernel.ok()) {
    std::cerr << "jit_latency: " << kernel.status() << "\n";
    return 1;
  }
  if (absl::Status status = (*kernel)->Launch(call->args); !status.ok()) {
    std::cerr << "jit_latency: " << status << "\n";
    return 1;
  }
  const double first_call_ms = MsSince(start);
  std::cout << "open_ms=" << open_ms << " setup_ms=" << setup_ms
            << " first_call_ms=" << first_call_ms << " source=" << CacheSourceName(source)
            << " key=" << call->function->KeyFor(call->args).value_or("?") << std::endl;
  return 0;
}

struct ChildTimes {
  double open_ms = 0;
  double setup_ms = 0;
  double first_call_ms = 0;
  double process_ms = 0;  // the whole child, as the parent sees it
  std::string key;
};

// The number after "<name>=" in the child's output.
absl::StatusOr<double> ReadField(const std::string& out, const std::string& name) {
  const size_t at = out.find(name + "=");
  double value = 0;
  if (at == std::string::npos) {
    return absl::InternalError(absl::StrCat("no ", name, " in the child's output: ", out));
  }
  const size_t begin = at + name.size() + 1;
  const size_t end = out.find_first_of(" \n", begin);
  if (!absl::SimpleAtod(out.substr(begin, end - begin), &value)) {
    return absl::InternalError(absl::StrCat("unreadable ", name, " in: ", out));
  }
  return value;
}

// Runs this binary as a child that must report `want_source`.
absl::StatusOr<ChildTimes> RunChild(const std::string& self, const std::string& target,
                                    const std::string& op, const std::string& want_source) {
  const std::string command = absl::StrCat("'", self, "' --child --target=", target, " --op=", op);
  const Clock::time_point start = Clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("cannot start the child");
  std::string out;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = pclose(pipe);
  ChildTimes times;
  times.process_ms = MsSince(start);
  if (status != 0) return absl::InternalError(absl::StrCat("the child failed: ", out));
  if (out.find("source=" + want_source) == std::string::npos) {
    return absl::InternalError(absl::StrCat("expected source=", want_source, ", got: ", out));
  }
  for (auto [name, field] :
       {std::make_pair("open_ms", &times.open_ms), std::make_pair("setup_ms", &times.setup_ms),
        std::make_pair("first_call_ms", &times.first_call_ms)}) {
    absl::StatusOr<double> value = ReadField(out, name);
    if (!value.ok()) return value.status();
    *field = *value;
  }
  if (const size_t at = out.find("key="); at != std::string::npos) {
    times.key = out.substr(at + 4, out.find_first_of(" \n", at) - at - 4);
  }
  return times;
}

int Main(int argc, char** argv) {
  const std::string target = Flag(argc, argv, "target", "cpu");
  const std::string op = Flag(argc, argv, "op", "gemm_f16");
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--child") return Child(target, op);
  }
  int runs = 5;
  int64_t iters = 200000;
  if (!absl::SimpleAtoi(Flag(argc, argv, "runs", "5"), &runs) || runs < 1 ||
      !absl::SimpleAtoi(Flag(argc, argv, "iters", "200000"), &iters) || iters < 1) {
    std::cerr << "jit_latency: --runs and --iters take positive integers\n";
    return 2;
  }
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string root =
      absl::StrCat(std::filesystem::temp_directory_path().string(), "/jit_latency_", getpid());
  std::vector<double> open, setup, cold, cold_process, disk, disk_process, remote, remote_process;
  const std::optional<std::string> url = RemoteCacheUrlFromEnvironment();
  std::unique_ptr<remote_cache::RemoteStore> store;
  if (url) {
    absl::StatusOr<std::unique_ptr<remote_cache::RemoteStore>> opened =
        remote_cache::OpenRemoteStore(*url);
    if (!opened.ok()) {
      std::cerr << "jit_latency: " << opened.status() << "\n";
      return 1;
    }
    store = *std::move(opened);
    setenv("TILE_CACHE_REMOTE_KEY", absl::StrCat(root, "/remote.key").c_str(), 1);
  }
  for (int run = 0; run < runs; ++run) {
    const std::string dir = absl::StrCat(root, "/", run);
    std::filesystem::remove_all(dir);
    setenv("TILE_CACHE_DIR", dir.c_str(), 1);
    unsetenv("TILE_DISABLE_CACHE");
    absl::StatusOr<ChildTimes> first = RunChild(self, target, op, "compiled");
    absl::StatusOr<ChildTimes> second = RunChild(self, target, op, "disk");
    absl::StatusOr<ChildTimes> third = ChildTimes{};
    if (store) {
      setenv("TILE_CACHE_DIR", absl::StrCat(dir, "-remote").c_str(), 1);
      third = RunChild(self, target, op, "remote");
      if (first.ok()) {
        if (absl::StatusOr<int64_t> removed =
                store->Remove({absl::StrCat(kRemoteKeyPrefix, first->key)});
            !removed.ok()) {
          third = removed.status();
        }
      }
    }
    for (const auto* result : {&first, &second, &third}) {
      if (!result->ok()) {
        std::cerr << "jit_latency: " << result->status() << "\n";
        return 1;
      }
    }
    if (store) {
      remote.push_back(third->first_call_ms);
      remote_process.push_back(third->process_ms);
    }
    for (const ChildTimes& times : {*first, *second}) {
      open.push_back(times.open_ms);
      setup.push_back(times.setup_ms);
    }
    cold.push_back(first->first_call_ms);
    cold_process.push_back(first->process_ms);
    disk.push_back(second->first_call_ms);
    disk_process.push_back(second->process_ms);
  }

  // In-process: the specialization is in this JitFunction's table.
  absl::StatusOr<Call> call = OpenAndPrepare(target, op);
  if (!call.ok()) {
    std::cerr << "jit_latency: " << call.status() << "\n";
    return 1;
  }
  if (absl::StatusOr<LoadedKernel*> warm = call->function->Specialize(call->args); !warm.ok()) {
    std::cerr << "jit_latency: " << warm.status() << "\n";
    return 1;
  }
  const Clock::time_point start = Clock::now();
  LoadedKernel* sink = nullptr;
  for (int64_t i = 0; i < iters; ++i) sink = *call->function->Specialize(call->args);
  const double dispatch_us =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iters;
  std::filesystem::remove_all(root);

  std::cout << "jit_latency: target " << target << " (" << call->backend->device().description()
            << "), op " << op << ", " << runs << " runs, "
            << absl::FormatTime("%Y-%m-%d", absl::Now(), absl::UTCTimeZone()) << "\n";
  std::cout << absl::StrFormat(
      "  open device (backend, driver, context), new process %9.2f ms median\n", Median(open));
  std::cout << absl::StrFormat(
      "  set up the call (template, buffers)                 %9.2f ms median\n", Median(setup));
  std::cout << absl::StrFormat(
      "  first call after open, cold (compile)               %9.2f ms median  (process %.1f ms)\n",
      Median(cold), Median(cold_process));
  std::cout << absl::StrFormat(
      "  first call after open, cached on disk               %9.2f ms median  (process %.1f ms; "
      "target < 50 ms)\n",
      Median(disk), Median(disk_process));
  if (store) {
    std::cout << absl::StrFormat(
        "  first call after open, from the remote cache        %9.2f ms median  (process %.1f ms; "
        "%s)\n",
        Median(remote), Median(remote_process), store->name());
  }
  std::cout << absl::StrFormat(
      "  dispatch of a cached specialization                 %9.3f us host time per call (%d "
      "calls%s)\n",
      dispatch_us, iters, sink ? "" : "?");
  return 0;
}

}  // namespace
}  // namespace tile_ir::bench

int main(int argc, char** argv) { return tile_ir::bench::Main(argc, argv); }
