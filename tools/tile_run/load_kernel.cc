// tile-run's load stage: the module read or built, verified, its kernel picked and matched to
// the suite's operator of its name.
#include "tools/tile_run/load_kernel.h"

#include <filesystem>
#include <optional>
#include <ostream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/cpp/builder.h"
#include "frontends/io/module_io.h"
#include "passes/analysis/padded_reductions.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"
#include "tools/tile_run/signature.h"

namespace tile_ir::tools {
namespace {

const ops::OpCase* FindOp(const std::vector<ops::OpCase>& suite, const std::string& name) {
  for (const ops::OpCase& op : suite) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

absl::StatusOr<Kernel> PickKernel(const Module& module, const std::string& path,
                                  const std::optional<std::string>& kernel_flag) {
  std::vector<std::string> names;
  for (const Kernel& kernel : module.kernels) names.push_back(kernel->name);
  if (kernel_flag) {
    for (const Kernel& kernel : module.kernels) {
      if (kernel->name == *kernel_flag) return kernel;
    }
    return absl::NotFoundError(absl::StrCat(path, ": no kernel named '", *kernel_flag,
                                            "' (kernels: ", absl::StrJoin(names, ", "), ")"));
  }
  if (module.kernels.size() != 1) {
    return absl::InvalidArgumentError(module.kernels.empty()
                                          ? absl::StrCat(path, ": the module has no kernel")
                                          : absl::StrCat(path, ": the module has ", names.size(),
                                                         " kernels (", absl::StrJoin(names, ", "),
                                                         "); choose one with --kernel"));
  }
  return module.kernels.front();
}

// FILE when it exists; otherwise the operator of that name, whose kernel `built` receives.
absl::StatusOr<Module> ReadInput(const std::string& path, const std::vector<ops::OpCase>& suite,
                                 Kernel& built) {
  const ops::OpCase* op = FindOp(suite, path);
  if (op == nullptr || std::filesystem::exists(path)) {
    absl::StatusOr<Module> module = io::ReadModuleFile(path);
    if (!module.ok() && op == nullptr && !std::filesystem::exists(path)) {
      return absl::Status(module.status().code(),
                          absl::StrCat(module.status().message(),
                                       " (nor is it an operator of the suite; see --list)"));
    }
    return module;
  }
  absl::StatusOr<Kernel> kernel = op->build();
  if (!kernel.ok()) return kernel.status();
  built = *kernel;
  return dsl::MakeModule({*kernel});
}

}  // namespace

int LoadKernel(const RunRequest& request, const std::vector<ops::OpCase>& suite, LoadedInput& input,
               std::ostream& err) {
  absl::StatusOr<Module> module = ReadInput(request.path, suite, input.suite_kernel);
  if (!module.ok()) {
    err << "tile-run: error: " << module.status().message() << "\n";
    return 1;
  }
  if (absl::Status status = Verify(*module); !status.ok()) {
    err << "tile-run: error: " << request.path << ": invalid input IR:\n"
        << status.message() << "\n";
    return 1;
  }
  input.from_file = !input.suite_kernel;
  input.module = *std::move(module);
  absl::StatusOr<Kernel> kernel = PickKernel(input.module, request.path, request.kernel);
  if (!kernel.ok()) {
    err << "tile-run: error: " << kernel.status().message() << "\n";
    return 2;
  }
  input.kernel = *kernel;
  input.name = input.kernel->name;
  // Shown by default, unlike the lowering's remarks (--explain): these may be wrong answers.
  for (const passes::PaddedReduction& finding : passes::FindPaddedReductions(*input.kernel)) {
    err << "tile-run: remark: " << passes::FormatPaddedReduction(finding) << "\n";
  }
  return kGoOn;
}

int MatchOperator(const RunRequest& request, const std::vector<ops::OpCase>& suite,
                  LoadedInput& input, std::ostream& err) {
  input.op = FindOp(suite, input.name);
  if (input.op == nullptr) return kGoOn;
  if (input.op->build_stages) {
    // Its other kernels write the tensors this one reads, so alone it has no reference.
    err << "tile-run: error: operator '" << input.name
        << "' runs several kernels in order and tile-run runs one; check the operator with "
           "--all (its stages are in --list)\n";
    return 2;
  }
  if (!input.suite_kernel) {
    absl::StatusOr<Kernel> own = input.op->build();
    if (!own.ok()) {
      err << "tile-run: error: building operator '" << input.name << "': " << own.status().message()
          << "\n";
      return 1;
    }
    input.suite_kernel = *own;
  }
  const KernelNode& own = *input.suite_kernel;
  if (std::optional<std::string> difference = SignatureDifference(*input.kernel, own)) {
    err << "tile-run: error: " << request.path << ": kernel '" << input.name
        << "' is named like the suite operator but " << *difference << "; "
        << (request.base.check ? "--check compares with that operator's reference"
                               : "tile-run runs it with that operator's shapes, inputs and outputs")
        << ", so the signatures must match (the operator's: " << FormatSignature(own)
        << "; rename the kernel to run it outside the suite)\n";
    return 2;
  }
  return kGoOn;
}

bool IsSuiteKernel(const LoadedInput& input) {
  return Print(*input.suite_kernel) == Print(*input.kernel);
}

}  // namespace tile_ir::tools
