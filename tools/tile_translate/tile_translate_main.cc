// tile-translate's library: options, reading, lowering per target, and emission.
#include "tools/tile_translate/tile_translate_main.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/io/module_io.h"
#include "targets/cpu/cpu_compiler.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_lowering.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/hip/hip_codegen.h"
#include "targets/hip/hip_lowering.h"
#include "targets/metal/metal_codegen.h"
#include "targets/metal/metal_lowering.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"
#include "tools/common/cli.h"

namespace tile_ir::tools {
namespace {

cli::ArgParser MakeParser() {
  cli::ArgParser parser(
      "tile-translate", "[options] FILE",
      "Reads a tile IR module (FILE is a .tile, .tilepb or .json file), lowers it with the\n"
      "target's default pipeline and prints the source the target compiles: CUDA C++ for\n"
      "cuda:<arch>, HIP C++ for hip:<arch>, the Metal Shading Language for metal, LLVM IR\n"
      "(optimized for the host) for cpu.\n"
      "Example: tile-translate gemm.tile --target=cuda:sm_80 --kernel=gemm");
  parser.Add({"target", "TARGET",
              "cuda:sm_90a | cuda:sm_80 | cuda (sm_90a) | cuda:sm_90a-wgmma | cuda:sm_90a-mma "
              "(every gemm on wgmma where it can run, or on mma.sync) | hip:gfx90a | hip:gfx940 | "
              "hip (gfx90a) | metal | cpu",
              "cuda:sm_90a"});
  parser.Add({"lowered-ir", "", "print the thread-level IR instead of the generated source"});
  parser.Add({"kernel", "NAME", "print only this kernel"});
  parser.Add({"self-contained", "",
              "paste the device library into the source instead of including tl/common.cuh "
              "(cuda) or tl/common.h (hip) or tl/metal.h (metal), so that it compiles as it is: "
              "nvcc -c -gencode=arch=compute_90a,code=sm_90a k.cu, hipcc --offload-arch=gfx90a "
              "--genco k.hip (LLVM IR for cpu is self-contained anyway)"});
  parser.Add({"thread-level", "",
              "FILE is thread-level IR already (hand-written or lowered): do not lower it"});
  parser.Add({"help", "", "show this help"});
  return parser;
}

enum class Family { kCpu, kCuda, kHip, kMetal };

struct Target {
  Family family = Family::kCuda;
  std::string arch;  // for cuda and hip
  // A CUDA target variant's registered name (cuda::kWgmmaTargetName, cuda::kMmaTargetName),
  // whose default pipeline lowers instead of the architecture's; empty for the others.
  std::string cuda_variant = "";
};

absl::StatusOr<Target> ParseTarget(const std::string& text) {
  if (text == "cpu") return Target{Family::kCpu, ""};
  if (text == "metal") return Target{Family::kMetal, ""};
  if (text == "cuda") return Target{Family::kCuda, "sm_90a"};
  if (text == "hip") return Target{Family::kHip, "gfx90a"};
  if (text == cuda::kWgmmaTargetName || text == cuda::kMmaTargetName) {
    return Target{Family::kCuda, "sm_90a", text};
  }
  if (absl::StartsWith(text, "cuda:")) {
    std::string arch = text.substr(5);
    if (absl::Status known = cuda::CheckCudaArch(arch); !known.ok()) return known;
    return Target{Family::kCuda, arch};
  }
  if (absl::StartsWith(text, "hip:")) {
    std::string arch = text.substr(4);
    if (absl::Status known = hip::CheckHipArch(arch); !known.ok()) return known;
    return Target{Family::kHip, arch};
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --target '", text,
                   "'; expected cuda:sm_90a, cuda:sm_80, cuda:sm_90a-wgmma, cuda:sm_90a-mma, "
                   "hip:gfx90a, hip:gfx940, metal or cpu"));
}

absl::StatusOr<Module> Lower(const Module& module, const Target& target) {
  switch (target.family) {
    case Family::kCpu: return cpu::LowerForCpu(module);
    case Family::kHip: return hip::LowerForHip(module, target.arch);
    case Family::kMetal: return metal::LowerForMetal(module);
    case Family::kCuda: break;
  }
  if (!target.cuda_variant.empty()) {
    return cuda::LowerForCuda(module, target.arch,
                              cuda::DefaultCudaPipeline(target.cuda_variant));
  }
  return cuda::LowerForCuda(module, target.arch);
}

// Keeps only the kernel named `name`; NotFound when the module has none.
absl::Status KeepKernel(Module& module, const std::string& name) {
  std::vector<Kernel> kept;
  for (Kernel& kernel : module.kernels) {
    if (kernel->name == name) kept.push_back(std::move(kernel));
  }
  if (kept.empty())
    return absl::NotFoundError(absl::StrCat("the module has no kernel '", name, "'"));
  module.kernels = std::move(kept);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Translate(Module module, const Target& target,
                                      const cli::ArgParser& parser) {
  if (parser.Has("kernel")) {
    if (absl::Status kept = KeepKernel(module, parser.Get("kernel")); !kept.ok()) return kept;
  }
  if (parser.Has("thread-level")) {
    if (absl::Status valid = Verify(module); !valid.ok()) return valid;
  } else {
    absl::StatusOr<Module> lowered = Lower(module, target);
    if (!lowered.ok()) return lowered.status();
    module = *std::move(lowered);
  }
  if (parser.Has("lowered-ir")) return Print(module);
  const bool self_contained = parser.Has("self-contained");
  switch (target.family) {
    case Family::kCpu: return cpu::EmitLlvmIr(module, /*optimize=*/true);
    case Family::kHip:
      return hip::EmitHipSource(module, {.arch = target.arch, .embed_library = self_contained});
    case Family::kMetal: return metal::EmitMetalSource(module, {.embed_library = self_contained});
    case Family::kCuda: break;
  }
  cuda::CudaCodegenOptions options;
  options.arch = target.arch;
  options.embed_library = self_contained;
  return cuda::EmitCudaSource(module, options);
}

}  // namespace

int TileTranslateMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  cli::ArgParser parser = MakeParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    err << "tile-translate: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  if (parser.positional().size() != 1) {
    err << "tile-translate: error: expected exactly one FILE; see --help\n";
    return 2;
  }
  absl::StatusOr<Target> target = ParseTarget(parser.Get("target"));
  if (!target.ok()) {
    err << "tile-translate: error: " << target.status().message() << "\n";
    return 2;
  }
  const std::string& input = parser.positional().front();
  absl::StatusOr<Module> module = io::ReadModuleFile(input);
  if (!module.ok()) {
    err << "tile-translate: error: " << module.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> output = Translate(*std::move(module), *target, parser);
  if (!output.ok()) {
    err << "tile-translate: error: " << input << ": " << output.status().message() << "\n";
    return 1;
  }
  out << *output;
  out.flush();
  if (!out) {
    err << "tile-translate: error: writing the output failed\n";
    return 1;
  }
  return 0;
}

}  // namespace tile_ir::tools
