// The simplify pass: the statement simplifier (passes/utils/stmt_simplifier.h) over each
// kernel until it no longer changes.
#include "passes/transforms/simplify.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/utils/stmt_simplifier.h"

namespace tile_ir::passes {

Kernel SimplifyRepeatedly(const Kernel& kernel, int64_t max_iterations) {
  Kernel result = kernel;
  for (int64_t i = 0; i < max_iterations; ++i) {
    Kernel simplified = SimplifyKernel(result);
    if (simplified == result) break;
    result = std::move(simplified);
  }
  return result;
}

bool SimplifyModule(Module& module, int64_t max_iterations) {
  return *MapKernels(module, [max_iterations](const Kernel& kernel) {
    return SimplifyRepeatedly(kernel, max_iterations);
  });
}

PassInfo SimplifyPass() {
  PassInfo info;
  info.name = "simplify";
  info.description =
      "folds constants, applies arithmetic identities and loop ranges, and removes decided "
      "branches and loops of 0 or 1 iterations";
  info.options = {{"max-iterations", OptionType::kInt, "4",
                   "how many times to re-simplify a kernel that is still changing"}};
  info.run_kernel = [](const PassOptions& options) -> absl::StatusOr<KernelRewrite> {
    int64_t max_iterations = options.GetInt("max-iterations");
    if (max_iterations < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "option 'max-iterations' of pass 'simplify' must be at least 1, got ", max_iterations));
    }
    return KernelRewrite([max_iterations](const Kernel& kernel) {
      return SimplifyRepeatedly(kernel, max_iterations);
    });
  };
  return info;
}

}  // namespace tile_ir::passes
