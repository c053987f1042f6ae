// CpuDevice and its loaded kernels: bind the arguments, lay them out by the
// CPU calling convention (docs/LOWERING.md) and run every block of the grid.
#include "runtime/cpu/cpu_device.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/cpu/thread_pool.h"

namespace tile_ir::runtime {
namespace {

using tile_ir::cpu::BlockFn;
using tile_ir::cpu::CpuExecutable;

class CpuKernel final : public LoadedKernel {
 public:
  CpuKernel(std::unique_ptr<CpuExecutable> executable, const KernelNode* kernel, BlockFn fn,
            std::shared_ptr<cpu::ThreadPool> pool)
      : executable_(std::move(executable)), kernel_(kernel), fn_(fn), pool_(std::move(pool)) {}

  const KernelNode& signature() const override { return *kernel_; }

  absl::Status Launch(const std::vector<KernelArg>& args) override {
    // The generated code reads each element at its natural alignment, which
    // BindArguments always requires; it assumes nothing more.
    absl::StatusOr<BoundArgs> bound = BindArguments(*kernel_, args, kDLCPU, 1);
    if (!bound.ok()) return bound.status();
    const size_t num_params = kernel_->params.size();
    std::vector<uint64_t> dim_slots(bound->dims.size());
    std::vector<void*> call_args(num_params + dim_slots.size());
    for (size_t i = 0; i < num_params; ++i) {
      call_args[i] = kernel_->params[i].is_buffer() ? bound->data[i] : &bound->scalar_storage[i];
    }
    for (size_t j = 0; j < dim_slots.size(); ++j) {
      int64_t value = bound->dims[j];
      if (kernel_->dims[j]->dtype() == kI64) {
        std::memcpy(&dim_slots[j], &value, sizeof value);
      } else {
        int32_t narrow = static_cast<int32_t>(value);  // BindArguments checked that it fits
        std::memcpy(&dim_slots[j], &narrow, sizeof narrow);
      }
      call_args[num_params + j] = &dim_slots[j];
    }
    const int64_t gx = bound->grid[0];
    const int64_t gy = bound->grid[1];
    const int64_t gz = bound->grid[2];
    void* const* argv = call_args.data();
    BlockFn fn = fn_;
    pool_->ParallelFor(gx * gy * gz, [=](int64_t id) {
      fn(argv, static_cast<int32_t>(id % gx), static_cast<int32_t>(id / gx % gy),
         static_cast<int32_t>(id / (gx * gy)));
    });
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<CpuExecutable> executable_;  // owns the code and the lowered module
  const KernelNode* kernel_;                   // in executable_->lowered()
  BlockFn fn_;
  std::shared_ptr<cpu::ThreadPool> pool_;
};

class CpuDevice final : public Device {
 public:
  CpuDevice(std::shared_ptr<cpu::ThreadPool> pool, tile_ir::cpu::CpuCompileOptions options)
      : pool_(std::move(pool)), options_(std::move(options)) {}

  std::string name() const override { return "cpu"; }

  std::string description() const override {
    return absl::StrCat("cpu: ", tile_ir::cpu::HostCpuName(), ", ", pool_->num_threads(),
                        pool_->num_threads() == 1 ? " thread" : " threads");
  }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(const Module& module,
                                                     std::string_view kernel_name) override {
    // Compile only the requested kernel: the others may not be meant for this
    // device, and compiling them would only cost time.
    Module single{module.ir_version, module.producer, module.producer_version, {}};
    for (const Kernel& kernel : module.kernels) {
      if (kernel->name == kernel_name) single.kernels.push_back(kernel);
    }
    if (single.kernels.empty()) {
      std::string names;
      for (const Kernel& kernel : module.kernels) {
        absl::StrAppend(&names, names.empty() ? "" : ", ", kernel->name);
      }
      return absl::NotFoundError(absl::StrCat("no kernel named '", std::string(kernel_name),
                                              "' in the module (kernels: ", names, ")"));
    }
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        tile_ir::cpu::CompileForCpu(single, options_);
    if (!executable.ok()) return executable.status();
    return Wrap(*std::move(executable), kernel_name);
  }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> Wrap(std::unique_ptr<CpuExecutable> executable,
                                                     std::string_view kernel_name) {
    absl::StatusOr<BlockFn> fn = executable->Lookup(kernel_name);
    if (!fn.ok()) return fn.status();
    // Bind against the lowered kernel: it is the signature the code was
    // generated from (its dims and grid variables are the ones the code uses).
    const KernelNode* lowered = nullptr;
    for (const Kernel& kernel : executable->lowered().kernels) {
      if (kernel->name == kernel_name) lowered = kernel.get();
    }
    if (lowered == nullptr) {
      return absl::InternalError(absl::StrCat("the CPU compiler lost kernel '",
                                              std::string(kernel_name), "' while lowering"));
    }
    return std::make_unique<CpuKernel>(std::move(executable), lowered, *fn, pool_);
  }

 private:
  std::shared_ptr<cpu::ThreadPool> pool_;
  tile_ir::cpu::CpuCompileOptions options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> OpenCpuDevice(const CpuDeviceOptions& options) {
  int threads = options.num_threads;
  if (threads <= 0) {
    absl::StatusOr<int> default_threads = cpu::DefaultThreadCount();
    if (!default_threads.ok()) return default_threads.status();
    threads = *default_threads;
  }
  return std::make_unique<CpuDevice>(std::make_shared<cpu::ThreadPool>(threads), options.compile);
}

absl::StatusOr<std::unique_ptr<Device>> OpenCpuTarget(std::string_view target) {
  if (target != "cpu") {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", std::string(target),
                     "': the cpu device takes no architecture (it compiles for the host CPU)"));
  }
  return OpenCpuDevice();
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadCpuExecutable(
    Device& device, std::unique_ptr<CpuExecutable> executable, std::string_view kernel_name) {
  auto* cpu = dynamic_cast<CpuDevice*>(&device);
  if (cpu == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a CPU executable runs on a CPU device, not on '", device.name(), "'"));
  }
  return cpu->Wrap(std::move(executable), kernel_name);
}

}  // namespace tile_ir::runtime
