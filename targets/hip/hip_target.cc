// The HIP family and its Target: lowering, HIP C++, hipcc.
#include "targets/hip/hip_target.h"

#include "absl/strings/str_cat.h"
#include "targets/hip/gemm_mfma.h"
#include "targets/hip/hip_codegen.h"
#include "targets/hip/hip_device_headers.h"
#include "targets/hip/hip_target_info.h"
#include "targets/hip/hipcc_compiler.h"

namespace tile_ir::hip {
namespace {

class HipTarget final : public targets::Target {
 public:
  explicit HipTarget(targets::TargetName name)
      : Target(name), info_(std::make_shared<HipTargetInfo>(name.arch)) {}

  std::shared_ptr<const passes::TargetInfo> info() const override { return info_; }
  std::string DefaultPipeline() const override { return DefaultHipPipeline(); }
  std::string source_extension() const override { return "hip"; }

  absl::StatusOr<std::string> Emit(const Module& lowered,
                                   const targets::EmitOptions& options) const override {
    HipCodegenOptions codegen;
    codegen.arch = name().arch;
    codegen.kernel = options.kernel;
    codegen.embed_library = options.self_contained;
    return EmitHipSource(lowered, codegen);
  }

  absl::StatusOr<std::string> FindCompiler() const override {
    absl::StatusOr<std::string> hipcc = FindHipcc();
    if (!hipcc.ok()) return absl::UnavailableError(hipcc.status().message());
    return absl::StrCat("hipcc (", *hipcc, ")");
  }

  absl::StatusOr<targets::Binary> Compile(const Module& lowered, const std::string& source,
                                          std::string_view kernel) const override {
    absl::StatusOr<HipCodeObject> object = CompileHipCodeObject(source, name().arch);
    if (!object.ok()) return object.status();
    targets::Binary binary;
    binary.format = "hsaco";
    binary.entry = HipKernelSymbol(lowered, kernel);
    binary.compiler = object->compiler_version;
    binary.log = absl::StrCat("code object ", object->bytes.size(), " bytes for ", name().arch);
    binary.bytes = std::move(object->bytes);
    return binary;
  }

  std::vector<std::pair<std::string, std::string>> CacheFields() const override {
    std::vector<std::pair<std::string, std::string>> fields = Target::CacheFields();
    fields.emplace_back("device_library",
                        absl::StrCat(absl::Hex(HipDeviceLibraryFingerprint(), absl::kZeroPad16)));
    return fields;
  }

 private:
  std::shared_ptr<const HipTargetInfo> info_;
};

class HipFamily final : public targets::TargetFamily {
 public:
  std::string name() const override { return "hip"; }
  std::string description() const override {
    return "HIP C++ for AMD CDNA over tile's device library, compiled with hipcc";
  }
  std::vector<std::string> archs() const override { return KnownHipArchs(); }
  std::string default_arch() const override { return "gfx90a"; }
  void RegisterIntrinsics() const override {
    RegisterGemmMfmaIntrinsic().IgnoreError();  // fails only if another component took the name
  }
  absl::StatusOr<std::unique_ptr<targets::Target>> Create(
      const targets::TargetName& name) const override {
    return std::unique_ptr<targets::Target>(std::make_unique<HipTarget>(name));
  }
};

}  // namespace

std::unique_ptr<targets::TargetFamily> MakeHipFamily() { return std::make_unique<HipFamily>(); }

std::unique_ptr<targets::Target> MakeHipTarget(const std::string& arch) {
  HipFamily().RegisterIntrinsics();
  return std::make_unique<HipTarget>(targets::TargetName{"hip", arch, {}});
}

}  // namespace tile_ir::hip
