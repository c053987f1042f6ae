// Divisibility specialization: one `require D % d == 0` per dim whose class is above 1.
#include "passes/transforms/specialize_divisibility.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/divisibility.h"
#include "passes/utils/dim_values.h"
#include "tile_ir/op_shorthand.h"

namespace tile_ir::passes {

int64_t DivisibilityClass(int64_t value, int64_t max_divisor) {
  if (max_divisor <= 1) return 1;
  if (value == 0) return max_divisor;
  uint64_t magnitude = value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  uint64_t lowest_bit = magnitude & (~magnitude + 1);
  return lowest_bit >= static_cast<uint64_t>(max_divisor) ? max_divisor
                                                          : static_cast<int64_t>(lowest_bit);
}

absl::StatusOr<Kernel> SpecializeDivisibility(const Kernel& kernel,
                                              const std::map<std::string, int64_t>& values,
                                              int64_t max_divisor) {
  if (max_divisor > 1 && (max_divisor & (max_divisor - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("specialize-divisibility: max must be a power of two, got ", max_divisor));
  }
  if (max_divisor <= 1) return kernel;
  // What the kernel's own requirements prove already needs no second line.
  Divisibility known;
  known.AddRequirements(*kernel);
  std::vector<ShapeRequirement> requirements = kernel->requirements;
  for (const VarRef& dim : kernel->dims) {
    auto it = values.find(dim->name);
    if (it == values.end()) continue;
    const int64_t divisor = DivisibilityClass(it->second, max_divisor);
    if (divisor <= 1 || known.Of(dim) >= divisor) continue;
    requirements.push_back({Op(BinaryOp::kEq, Op(BinaryOp::kMod, dim, Int(divisor, dim->dtype())),
                               Int(0, dim->dtype())),
                            kernel->loc});
  }
  if (requirements.size() == kernel->requirements.size()) return kernel;
  return kernel->WithRequirements(std::move(requirements));
}

PassInfo SpecializeDivisibilityPass() {
  PassInfo info;
  info.name = "specialize-divisibility";
  info.description =
      "requires each named dim divisible by the largest power of two (at most max) that its "
      "value (values=\"K=520\") is divisible by, leaving the dim symbolic";
  info.options = {
      {"values", OptionType::kString, "", "comma-separated NAME=INTEGER shapes of a call"},
      {"max", OptionType::kInt, "16", "the largest divisor to require (a power of two)"}};
  info.run_kernel = [](const PassOptions& options) -> absl::StatusOr<KernelRewrite> {
    absl::StatusOr<std::map<std::string, int64_t>> values =
        ParseDimValues(options.GetString("values"), "specialize-divisibility");
    if (!values.ok()) return values.status();
    const int64_t max = options.GetInt("max");
    return KernelRewrite([values = *std::move(values), max](const Kernel& kernel) {
      return SpecializeDivisibility(kernel, values, max);
    });
  };
  return info;
}

}  // namespace tile_ir::passes
