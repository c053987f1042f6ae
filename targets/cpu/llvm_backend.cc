// Target machine creation, the new pass manager's O0-O3 pipelines and the
// legacy code generation pipeline (still the only one in LLVM 16) for assembly.
#include "targets/cpu/llvm_backend.h"

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "targets/cpu/host_cpu.h"

namespace tile_ir::cpu {
namespace {

void InitializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

absl::Status CheckOptLevel(int opt_level) {
  if (opt_level >= 0 && opt_level <= 3) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("cpu target: opt_level must be 0 to 3, not ", opt_level));
}

}  // namespace

absl::StatusOr<llvm::orc::JITTargetMachineBuilder> HostMachineBuilder(int opt_level) {
  absl::Status valid = CheckOptLevel(opt_level);
  if (!valid.ok()) return valid;
  InitializeHostTarget();
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(llvm::sys::getProcessTriple())};
  builder.setCPU(HostCpuName());
  std::vector<std::string> features = HostCpuFeatureList();
  builder.addFeatures(features);
  static constexpr llvm::CodeGenOpt::Level kLevels[] = {
      llvm::CodeGenOpt::None, llvm::CodeGenOpt::Less, llvm::CodeGenOpt::Default,
      llvm::CodeGenOpt::Aggressive};
  builder.setCodeGenOptLevel(kLevels[opt_level]);
  return builder;
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(int opt_level) {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder = HostMachineBuilder(opt_level);
  if (!builder.ok()) return builder.status();
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine = builder->createTargetMachine();
  if (!machine) {
    return absl::InternalError(absl::StrCat("cpu target: no LLVM target machine for the host: ",
                                            llvm::toString(machine.takeError())));
  }
  return std::move(*machine);
}

absl::Status OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  absl::Status valid = CheckOptLevel(opt_level);
  if (!valid.ok()) return valid;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder passes(&machine, tuning);
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(cgscc);
  passes.registerFunctionAnalyses(functions);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functions, cgscc, modules);
  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  llvm::ModulePassManager pipeline = opt_level == 0
                                         ? passes.buildO0DefaultPipeline(kLevels[0])
                                         : passes.buildPerModuleDefaultPipeline(kLevels[opt_level]);
  pipeline.run(module, modules);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitAssemblyText(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream stream(text);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, stream, nullptr, llvm::CGFT_AssemblyFile)) {
    return absl::InternalError("cpu target: the host target machine cannot emit assembly");
  }
  codegen.run(module);
  return std::string(text.str());
}

std::string PrintLlvmIr(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return stream.str();
}

}  // namespace tile_ir::cpu
