// Lower, emit and compile one kernel, each error prefixed with the step that failed.
#include "runtime/cuda/cuda_compile.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::runtime::cuda {
namespace {

absl::Status StepError(const std::string& step, const std::string& kernel_name,
                       const targets::Target& target, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(target.ToString(), ": ", step, " kernel '",
                                                  kernel_name, "': ", status.message()));
}

}  // namespace

absl::StatusOr<CudaKernelImage> CompileCudaKernel(const Module& module,
                                                  const std::string& kernel_name,
                                                  const targets::Target& target) {
  absl::StatusOr<Module> lowered = target.Lower(module);
  if (!lowered.ok()) return StepError("lowering", kernel_name, target, lowered.status());
  targets::EmitOptions emit;
  emit.kernel = kernel_name;
  absl::StatusOr<std::string> source = target.Emit(*lowered, emit);
  if (!source.ok()) return StepError("emitting CUDA C++ for", kernel_name, target, source.status());
  absl::StatusOr<targets::Binary> binary = target.Compile(*lowered, *source, kernel_name);
  if (!binary.ok()) return StepError("compiling", kernel_name, target, binary.status());

  CudaKernelImage image;
  image.kernel_name = kernel_name;
  image.entry = binary->entry;
  image.dynamic_shared_bytes = binary->dynamic_shared_bytes;
  image.cubin = binary->bytes;
  image.artifacts = {{"cu", *std::move(source)}};
  for (auto& [extension, contents] : binary->files) {
    image.artifacts.push_back({extension, std::move(contents)});
  }
  image.artifacts.push_back({"cubin", std::move(binary->bytes)});
  image.lowered = *std::move(lowered);
  return image;
}

}  // namespace tile_ir::runtime::cuda
