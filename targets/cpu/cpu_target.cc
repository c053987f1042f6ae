// The CPU family and its Target: lowering, LLVM IR, object code.
#include "targets/cpu/cpu_target.h"

#include "absl/strings/str_cat.h"
#include "llvm/Config/llvm-config.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_target_info.h"
#include "targets/cpu/host_cpu.h"
#include "targets/cpu/object_code.h"

namespace tile_ir::cpu {
namespace {

class CpuTarget final : public targets::Target {
 public:
  CpuTarget() : Target({"cpu", "", {}}), info_(std::make_shared<CpuTargetInfo>()) {}

  std::shared_ptr<const passes::TargetInfo> info() const override { return info_; }
  std::string DefaultPipeline() const override { return DefaultCpuPipeline(); }
  std::string source_extension() const override { return "ll"; }

  // LLVM IR after LLVM's optimization for the host: what the object is made of.
  absl::StatusOr<std::string> Emit(const Module& lowered,
                                   const targets::EmitOptions& options) const override {
    return EmitLlvmIr(lowered, /*optimize=*/true);
  }

  absl::StatusOr<std::string> FindCompiler() const override {
    return absl::StrCat("LLVM ", LLVM_VERSION_STRING);
  }

  // The object is generated from `lowered` itself: Emit's text is for people.
  bool CompilesFromSource() const override { return false; }
  bool CodeFollowsHost() const override { return true; }

  absl::StatusOr<targets::Binary> Compile(const Module& lowered, const std::string& source,
                                          std::string_view kernel) const override {
    absl::StatusOr<std::string> object = EmitObjectCode(lowered);
    if (!object.ok()) return object.status();
    targets::Binary binary;
    binary.format = "object";
    binary.entry = absl::StrCat(std::string(kernel), "_block");
    binary.compiler = absl::StrCat("LLVM ", LLVM_VERSION_STRING);
    binary.log = absl::StrCat("object code ", object->size(), " bytes, optimized (O",
                              kObjectOptLevel, ") for ", HostCpuName());
    binary.bytes = *std::move(object);
    return binary;
  }

  std::vector<std::pair<std::string, std::string>> CacheFields() const override {
    std::vector<std::pair<std::string, std::string>> fields = Target::CacheFields();
    fields.emplace_back("options", kObjectOptions);
    return fields;
  }

 private:
  std::shared_ptr<const CpuTargetInfo> info_;
};

class CpuFamily final : public targets::TargetFamily {
 public:
  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return "the host CPU through LLVM (its SIMD extensions), JIT-compiled with ORC";
  }
  std::vector<std::string> archs() const override { return {}; }
  absl::StatusOr<std::unique_ptr<targets::Target>> Create(
      const targets::TargetName& name) const override {
    return std::unique_ptr<targets::Target>(std::make_unique<CpuTarget>());
  }
};

}  // namespace

std::unique_ptr<targets::TargetFamily> MakeCpuFamily() { return std::make_unique<CpuFamily>(); }

std::unique_ptr<targets::Target> MakeCpuTarget() { return std::make_unique<CpuTarget>(); }

}  // namespace tile_ir::cpu
