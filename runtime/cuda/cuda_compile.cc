// Lowering, CUDA C++ emission and NVRTC compilation of one kernel, each
// error prefixed with the step that failed.
#include "runtime/cuda/cuda_compile.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_lowering.h"
#include "targets/cuda/nvrtc_compiler.h"

namespace tile_ir::runtime::cuda {
namespace {

absl::Status StepError(const std::string& step, const std::string& kernel_name,
                       const std::string& arch, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("cuda (", arch, "): ", step, " kernel '",
                                                  kernel_name, "': ", status.message()));
}

}  // namespace

absl::StatusOr<CudaKernelImage> CompileCudaKernel(const Module& module,
                                                  const std::string& kernel_name,
                                                  const std::string& arch) {
  absl::StatusOr<Module> lowered = tile_ir::cuda::LowerForCuda(module, arch);
  if (!lowered.ok()) return StepError("lowering", kernel_name, arch, lowered.status());
  const KernelNode* kernel = nullptr;
  for (const Kernel& k : lowered->kernels) {
    if (k->name == kernel_name) kernel = k.get();
  }
  if (kernel == nullptr) {
    return StepError("lowering", kernel_name, arch,
                     absl::InternalError("the pipeline lost the kernel"));
  }
  tile_ir::cuda::CudaCodegenOptions codegen;
  codegen.arch = arch;
  codegen.kernel = kernel_name;
  absl::StatusOr<std::string> source = tile_ir::cuda::EmitCudaSource(*lowered, codegen);
  if (!source.ok()) return StepError("emitting CUDA C++ for", kernel_name, arch, source.status());
  tile_ir::cuda::NvrtcOptions nvrtc;
  nvrtc.arch = arch;
  nvrtc.resource_usage = false;  // the driver reports registers once loaded
  // Line tables cost nothing at run time and let compute-sanitizer and
  // cuobjdump point at lines of the .cu file.
  nvrtc.extra_options = {"-lineinfo"};
  absl::StatusOr<tile_ir::cuda::NvrtcOutput> compiled =
      tile_ir::cuda::CompileWithNvrtc(*source, kernel_name + ".cu", nvrtc);
  if (!compiled.ok()) return StepError("compiling", kernel_name, arch, compiled.status());

  CudaKernelImage image;
  image.kernel_name = kernel_name;
  image.entry = kernel_name;  // the emitter's extern "C" __global__ function
  image.dynamic_shared_bytes = tile_ir::cuda::SharedMemoryBytes(*kernel);
  image.cubin = compiled->cubin;
  image.artifacts = {{"cu", *std::move(source)},
                     {"ptx", std::move(compiled->ptx)},
                     {"cubin", std::move(compiled->cubin)}};
  image.lowered = *std::move(lowered);
  return image;
}

}  // namespace tile_ir::runtime::cuda
