// Object code out of the CPU code generator, and ORC linking it back in.
#include "runtime/jit/cpu_backend.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/jit/cache_entry.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/object_code.h"
#include "targets/target_registry.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

absl::Status LlvmError(const std::string& what, llvm::Error error) {
  return absl::InternalError(
      absl::StrCat("cpu jit: ", what, ": ", llvm::toString(std::move(error))));
}

// The kernels of one linked object file.
class ObjectExecutable final : public cpu::CpuExecutable {
 public:
  ObjectExecutable(Module lowered, std::unique_ptr<llvm::orc::LLJIT> jit,
                   absl::flat_hash_map<std::string, cpu::BlockFn> functions)
      : lowered_(std::move(lowered)), jit_(std::move(jit)), functions_(std::move(functions)) {}

  absl::StatusOr<cpu::BlockFn> Lookup(std::string_view kernel_name) const override {
    auto it = functions_.find(std::string(kernel_name));
    if (it != functions_.end()) return it->second;
    return absl::NotFoundError(
        absl::StrCat("cpu jit: no kernel named '", std::string(kernel_name), "' in the object"));
  }
  const Module& lowered() const override { return lowered_; }

 private:
  Module lowered_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  absl::flat_hash_map<std::string, cpu::BlockFn> functions_;
};

absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> LinkObject(Module lowered,
                                                               std::string_view object) {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> machine = cpu::ObjectMachineBuilder();
  if (!machine.ok()) return machine.status();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*machine)).create();
  if (!jit) return LlvmError("cannot create the JIT", jit.takeError());
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return LlvmError("cannot search the process for symbols", process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(object.data(), object.size()), "tile-cache-object");
  if (llvm::Error error = (*jit)->addObjectFile(std::move(buffer))) {
    return LlvmError("cannot add the object code", std::move(error));
  }
  absl::flat_hash_map<std::string, cpu::BlockFn> functions;
  for (const Kernel& kernel : lowered.kernels) {
    auto address = (*jit)->lookup(kernel->name + "_block");
    if (!address) {
      return LlvmError(absl::StrCat("cannot link kernel '", kernel->name, "'"),
                       address.takeError());
    }
    functions[kernel->name] = address->toPtr<cpu::BlockFn>();
  }
  return std::make_unique<ObjectExecutable>(std::move(lowered), std::move(*jit),
                                            std::move(functions));
}

class CpuJitBackend final : public JitBackend {
 public:
  CpuJitBackend(std::unique_ptr<Device> device, std::shared_ptr<const targets::Target> target)
      : device_(std::move(device)), target_(std::move(target)) {
    // What the target's code depends on (target, pipeline, options), then the host.
    AddTargetFields(context_, *target_);
    context_.Set("arch", cpu::HostCpuName());
    context_.Set("cpu_features", cpu::HostCpuFeatures());
    context_.Set("llvm", LLVM_VERSION_STRING);
    context_.Set("project_version", ProjectVersion());
    AddCompileEnvironment(context_);
  }

  Device& device() override { return *device_; }
  const targets::Target& target() const override { return *target_; }
  CacheContext BaseContext() const override { return context_; }

  absl::StatusOr<CompiledKernel> Compile(const Module& module,
                                         std::string_view kernel_name) override {
    absl::StatusOr<Module> single = SingleKernelModule(module, kernel_name);
    if (!single.ok()) return single.status();
    absl::StatusOr<Module> lowered = target_->Lower(*single);
    if (!lowered.ok()) return lowered.status();
    absl::StatusOr<targets::Binary> object = target_->Compile(*lowered, "", kernel_name);
    if (!object.ok()) return object.status();
    CompiledKernel compiled;
    compiled.artifact = PackSections({{"lowered", Print(*lowered)}, {"object", object->bytes}});
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> executable =
        LinkObject(*std::move(lowered), object->bytes);
    if (!executable.ok()) return executable.status();
    absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
        LoadCpuExecutable(*device_, *std::move(executable), kernel_name);
    if (!kernel.ok()) return kernel.status();
    compiled.kernel = *std::move(kernel);
    return compiled;
  }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadArtifact(
      std::string_view artifact, std::string_view kernel_name) override {
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> sections =
        UnpackSections(artifact);
    if (!sections.ok()) return sections.status();
    if (sections->size() != 2 || (*sections)[0].first != "lowered" ||
        (*sections)[1].first != "object") {
      return absl::DataLossError("cpu jit: the artifact is not 'lowered' then 'object'");
    }
    absl::StatusOr<Module> lowered =
        text::ParseModule((*sections)[0].second, "<cached lowered module>");
    if (!lowered.ok()) return lowered.status();
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> executable =
        LinkObject(*std::move(lowered), (*sections)[1].second);
    if (!executable.ok()) return executable.status();
    return LoadCpuExecutable(*device_, *std::move(executable), kernel_name);
  }

 private:
  std::unique_ptr<Device> device_;
  std::shared_ptr<const targets::Target> target_;
  CacheContext context_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JitBackend>> OpenCpuJitBackend(std::string_view target_name) {
  // "cpu" with an architecture or options is refused, naming what it takes.
  absl::StatusOr<std::shared_ptr<const targets::Target>> target =
      targets::LinkedTargets().Resolve(target_name);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::unique_ptr<Device>> device = OpenCpuDevice();
  if (!device.ok()) return device.status();
  return std::make_unique<CpuJitBackend>(*std::move(device), *std::move(target));
}

}  // namespace tile_ir::runtime::jit
