// tile-translate's library: options, reading, lowering per target, and emission.
#include "tools/tile_translate/tile_translate_main.h"

#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/io/module_io.h"
#include "passes/transforms/specialize_dims.h"
#include "targets/target.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"
#include "tools/common/assignments.h"
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
              "cuda:sm_90a | cuda:sm_80 | cuda:sm_90a{gemm=wgmma|mma} | hip:gfx90a | hip:gfx940 | "
              "metal | cpu (all spellings: --list-targets)",
              "cuda:sm_90a"});
  parser.Add({"list-targets", "", "print the targets this tile-translate knows"});
  parser.Add({"lowered-ir", "", "print the thread-level IR instead of the generated source"});
  parser.Add({"kernel", "NAME", "print only this kernel"});
  parser.Add({"self-contained", "",
              "paste the device library into the source instead of including tl/common.cuh "
              "(cuda) or tl/common.h (hip) or tl/metal.h (metal), so that it compiles as it is: "
              "nvcc -c -gencode=arch=compute_90a,code=sm_90a k.cu, hipcc --offload-arch=gfx90a "
              "--genco k.hip (LLVM IR for cpu is self-contained anyway)"});
  parser.Add({"thread-level", "",
              "FILE is thread-level IR already (hand-written or lowered): do not lower it"});
  parser.Add({"shapes", "NAME=VALUE,...",
              "compile these dims in as constants (as specialize-dims does) before lowering: "
              "a fragment sized by a dim (a whole row, fragment f32[1, N]) needs its value, "
              "and constants make bound checks fall away and wide accesses provable"});
  parser.Add({"remarks", "",
              "print to stderr where the lowering moves data the program did not ask to move "
              "(a fragment read by threads that do not hold it, staged through shared memory)"});
  parser.Add({"help", "", "show this help"});
  return parser;
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

// Each kernel with the dims of `text` ("M=4096,N=8192") specialized on them.
absl::Status SpecializeShapes(Module& module, const std::string& text) {
  absl::StatusOr<std::map<std::string, std::string>> given = cli::ParseAssignments("shapes", text);
  if (!given.ok()) return given.status();
  for (const auto& [name, value] : *given) {
    if (!cli::LooksLikeInteger(value)) {
      return absl::InvalidArgumentError(absl::StrCat("--shapes: expected NAME=INTEGER, got '", name,
                                                     "=", cli::ShownValue(value), "'"));
    }
  }
  std::map<std::string, bool> used;
  for (Kernel& kernel : module.kernels) {
    // Each value within its dimension's dtype in this kernel.
    absl::StatusOr<std::map<std::string, int64_t>> checked = cli::ShapeValues(*kernel, *given);
    if (!checked.ok()) return checked.status();
    std::map<std::string, int64_t> own;
    for (const VarRef& dim : kernel->dims) {
      auto it = checked->find(dim->name);
      if (it == checked->end()) continue;
      own.insert(*it);
      used[dim->name] = true;
    }
    if (own.empty()) continue;
    absl::StatusOr<Kernel> specialized = passes::SpecializeDims(kernel, own);
    if (!specialized.ok()) return specialized.status();
    kernel = *std::move(specialized);
  }
  for (const auto& [name, value] : *given) {
    if (!used.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shapes: no kernel of the module has a dim '", name, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Translate(Module module, const targets::Target& target,
                                      const cli::ArgParser& parser, std::ostream& err) {
  if (parser.Has("kernel")) {
    if (absl::Status kept = KeepKernel(module, parser.Get("kernel")); !kept.ok()) return kept;
  }
  if (parser.Has("shapes")) {
    if (absl::Status status = SpecializeShapes(module, parser.Get("shapes")); !status.ok()) {
      return status;
    }
  }
  if (parser.Has("thread-level")) {
    if (absl::Status valid = Verify(module); !valid.ok()) return valid;
  } else {
    std::vector<std::string> remarks;
    absl::StatusOr<Module> lowered =
        target.Lower(module, "", parser.Has("remarks") ? &remarks : nullptr);
    for (const std::string& remark : remarks) err << "remark: " << remark << "\n";
    if (!lowered.ok()) return lowered.status();
    module = *std::move(lowered);
  }
  if (parser.Has("lowered-ir")) return Print(module);
  targets::EmitOptions options;
  options.self_contained = parser.Has("self-contained");
  return target.Emit(module, options);
}

}  // namespace

int TileTranslateMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                      const targets::TargetRegistry& targets) {
  cli::ArgParser parser = MakeParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    err << "tile-translate: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  if (parser.Has("list-targets")) {
    out << "Targets (--target=NAME):\n" << targets.Describe();
    return 0;
  }
  if (parser.positional().size() != 1) {
    err << "tile-translate: error: expected exactly one FILE; see --help\n";
    return 2;
  }
  absl::StatusOr<std::shared_ptr<const targets::Target>> target =
      targets.Resolve(parser.Get("target"));
  if (!target.ok()) {
    err << "tile-translate: error: --target: " << target.status().message() << "\n";
    return 2;
  }
  const std::string& input = parser.positional().front();
  absl::StatusOr<Module> module = io::ReadModuleFile(input);
  if (!module.ok()) {
    err << "tile-translate: error: " << module.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> output = Translate(*std::move(module), **target, parser, err);
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
