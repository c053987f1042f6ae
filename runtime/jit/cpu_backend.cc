// Object code out of the CPU code generator, and ORC linking it back in.
#include "runtime/jit/cpu_backend.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/jit/cache_entry.h"
#include "targets/cpu/cpu_compiler.h"
#include "targets/cpu/cpu_target_info.h"
#include "targets/cpu/llvm_backend.h"
#include "targets/cpu/llvm_codegen.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

constexpr int kOptLevel = 3;

absl::Status LlvmError(const std::string& what, llvm::Error error) {
  return absl::InternalError(
      absl::StrCat("cpu jit: ", what, ": ", llvm::toString(std::move(error))));
}

// Position-independent code for the host: the object is linked at whatever
// address ORC gives it.
absl::StatusOr<llvm::orc::JITTargetMachineBuilder> ObjectMachineBuilder() {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder = cpu::HostMachineBuilder(kOptLevel);
  if (!builder.ok()) return builder.status();
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder;
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
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> machine = ObjectMachineBuilder();
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

absl::StatusOr<std::string> EmitObject(const Module& lowered) {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder = ObjectMachineBuilder();
  if (!builder.ok()) return builder.status();
  auto machine = builder->createTargetMachine();
  if (!machine) return LlvmError("no target machine for the host", machine.takeError());
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      cpu::GenerateLlvmModule(lowered, context, **machine);
  if (!module.ok()) return module.status();
  if (absl::Status status = cpu::OptimizeModule(**module, **machine, kOptLevel); !status.ok()) {
    return status;
  }
  llvm::SmallString<0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, stream, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError("cpu jit: the host target machine cannot emit object files");
  }
  codegen.run(**module);
  return std::string(object.str());
}

class CpuJitBackend final : public JitBackend {
 public:
  explicit CpuJitBackend(std::unique_ptr<Device> device) : device_(std::move(device)) {
    cpu::RegisterCpuTarget();  // so that callers can query the target (passes::FindTarget)
    context_.Set("target", "cpu");
    context_.Set("arch", cpu::HostCpuName());
    context_.Set("cpu_features", cpu::HostCpuFeatures());
    context_.Set("llvm", LLVM_VERSION_STRING);
    context_.Set("pipeline", cpu::DefaultCpuPipeline());
    context_.Set("options", absl::StrCat("opt_level=", kOptLevel, ",reloc=pic,object"));
    context_.Set("project_version", ProjectVersion());
    AddCompileEnvironment(context_);
  }

  Device& device() override { return *device_; }
  CacheContext BaseContext() const override { return context_; }

  absl::StatusOr<CompiledKernel> Compile(const Module& module,
                                         std::string_view kernel_name) override {
    absl::StatusOr<Module> single = SingleKernelModule(module, kernel_name);
    if (!single.ok()) return single.status();
    cpu::CpuCompileOptions options;
    options.opt_level = kOptLevel;
    absl::StatusOr<Module> lowered = cpu::LowerForCpu(*single, options);
    if (!lowered.ok()) return lowered.status();
    absl::StatusOr<std::string> object = EmitObject(*lowered);
    if (!object.ok()) return object.status();
    CompiledKernel compiled;
    compiled.artifact = PackSections({{"lowered", Print(*lowered)}, {"object", *object}});
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> executable =
        LinkObject(*std::move(lowered), *object);
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
    // A new process may read entries before anything in it has lowered for the
    // CPU: register the target (and what its lowering emits) before parsing.
    cpu::RegisterCpuTarget();
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
  CacheContext context_;
};

const bool kRegistered = RegisterJitBackend(
    "cpu", [](std::string_view target) -> absl::StatusOr<std::unique_ptr<JitBackend>> {
      if (target != "cpu") {
        return absl::InvalidArgumentError(absl::StrCat("target '", std::string(target),
                                                       "': the cpu backend takes no architecture"));
      }
      return OpenCpuJitBackend();
    });

}  // namespace

absl::StatusOr<std::unique_ptr<JitBackend>> OpenCpuJitBackend() {
  absl::StatusOr<std::unique_ptr<Device>> device = OpenCpuDevice();
  if (!device.ok()) return device.status();
  return std::make_unique<CpuJitBackend>(*std::move(device));
}

}  // namespace tile_ir::runtime::jit
