// CpuDevice and its loaded kernels: link the object code, bind the arguments,
// lay them out by the CPU calling convention (docs/LOWERING.md) and run every
// block of the grid.
#include "runtime/cpu/cpu_device.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "llvm/Config/llvm-config.h"
#include "runtime/cpu/object_linker.h"
#include "runtime/cpu/thread_pool.h"
#include "targets/cpu/cpu_target.h"
#include "targets/cpu/host_cpu.h"
#include "targets/target_registry.h"

namespace tile_ir::runtime {
namespace {

using tile_ir::cpu::BlockFn;

class CpuKernel final : public LoadedKernel {
 public:
  // `kernel` is the lowered kernel, the signature the code was generated from
  // (its dims and grid variables are the ones the code uses).
  CpuKernel(Kernel kernel, std::unique_ptr<cpu::LinkedObject> code,
            std::shared_ptr<cpu::ThreadPool> pool)
      : kernel_(std::move(kernel)),
        code_(std::move(code)),
        fn_(code_->block_fn()),
        pool_(std::move(pool)) {}

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
  Kernel kernel_;
  std::unique_ptr<cpu::LinkedObject> code_;
  BlockFn fn_;  // in code_
  std::shared_ptr<cpu::ThreadPool> pool_;
};

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(std::shared_ptr<cpu::ThreadPool> pool)
      : pool_(std::move(pool)), target_(tile_ir::cpu::MakeCpuTarget()) {}

  std::string name() const override { return "cpu"; }

  std::string description() const override {
    return absl::StrCat("cpu: ", tile_ir::cpu::HostCpuName(), ", ", pool_->num_threads(),
                        pool_->num_threads() == 1 ? " thread" : " threads");
  }

  const targets::Target& target() const override { return *target_; }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadCompiled(
      targets::CompiledKernel compiled) override {
    if (compiled.binary.format != "object") {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", compiled.kernel, "': a ",
                                                     compiled.binary.format,
                                                     " binary; the cpu device loads object code"));
    }
    Kernel kernel;
    for (const Kernel& each : compiled.lowered.kernels) {
      if (each->name == compiled.kernel) kernel = each;
    }
    if (kernel == nullptr) {
      return absl::InternalError(
          absl::StrCat("cpu: the lowered module has no kernel '", compiled.kernel, "'"));
    }
    absl::StatusOr<std::unique_ptr<cpu::LinkedObject>> code =
        cpu::LinkedObject::Link(compiled.binary.bytes, compiled.binary.entry, compiled.kernel);
    if (!code.ok()) return code.status();
    return std::make_unique<CpuKernel>(std::move(kernel), *std::move(code), pool_);
  }

  // The object code is made for this host's CPU and its features, by this LLVM.
  std::vector<std::pair<std::string, std::string>> CacheFields() const override {
    return {{"arch", tile_ir::cpu::HostCpuName()},
            {"cpu_features", tile_ir::cpu::HostCpuFeatures()},
            {"llvm", LLVM_VERSION_STRING}};
  }

 private:
  std::shared_ptr<cpu::ThreadPool> pool_;
  std::unique_ptr<targets::Target> target_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> OpenCpuDevice(const CpuDeviceOptions& options) {
  int threads = options.num_threads;
  if (threads <= 0) {
    absl::StatusOr<int> default_threads = cpu::DefaultThreadCount();
    if (!default_threads.ok()) return default_threads.status();
    threads = *default_threads;
  }
  return std::make_unique<CpuDevice>(std::make_shared<cpu::ThreadPool>(threads));
}

absl::StatusOr<std::unique_ptr<Device>> OpenCpuTarget(std::string_view target) {
  // A registry of the CPU family alone parses the name and checks it as tile-opt and tile-run
  // do (an unknown option, an architecture), without tying this device to the binary's list.
  static const targets::TargetRegistry* const cpu_only = [] {
    auto* registry = new targets::TargetRegistry();
    registry->Add(tile_ir::cpu::MakeCpuFamily());
    return registry;
  }();
  absl::StatusOr<std::shared_ptr<const targets::Target>> resolved = cpu_only->Resolve(target);
  if (!resolved.ok()) return resolved.status();
  return OpenCpuDevice();
}

}  // namespace tile_ir::runtime
