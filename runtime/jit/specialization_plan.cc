// The plan's rules over passes::SpecializeDims and passes::SpecializeDivisibility.
#include "runtime/jit/specialization_plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/transforms/specialize_dims.h"
#include "passes/transforms/specialize_divisibility.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

// The parameter and axis whose extent is `dim` itself, which a call's tensors give.
std::optional<std::pair<int, int>> SourceOf(const KernelNode& kernel, const Var& dim) {
  for (size_t p = 0; p < kernel.params.size(); ++p) {
    const Param& param = kernel.params[p];
    if (!param.is_buffer()) continue;
    for (int axis = 0; axis < param.buffer->rank(); ++axis) {
      if (As<Var>(param.buffer->shape[axis]) == &dim)
        return std::make_pair(static_cast<int>(p), axis);
    }
  }
  return std::nullopt;
}

std::vector<std::string> Names(const std::vector<PlannedDim>& dims) {
  std::vector<std::string> names;
  for (const PlannedDim& dim : dims) names.push_back(dim.name);
  return names;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<std::string> SpecializationPlan::CompiledInNames() const { return Names(compiled_in); }
std::vector<std::string> SpecializationPlan::ClassedNames() const { return Names(classed); }

int64_t SpecializationPlan::ClassOf(int64_t value) const {
  return passes::DivisibilityClass(value, max_divisor);
}

std::string SpecializationPlan::Describe() const {
  std::vector<std::string> parts;
  if (!compiled_in.empty()) {
    bool all_sizing = true;
    for (const PlannedDim& dim : compiled_in) all_sizing &= dim.sizes_fragment;
    parts.push_back(absl::StrCat("at each call's values of ",
                                 absl::StrJoin(CompiledInNames(), ", "),
                                 all_sizing ? " (they size fragments)" : ""));
  }
  if (!classed.empty()) {
    parts.push_back(absl::StrCat("for each call's divisibility of ",
                                 absl::StrJoin(ClassedNames(), ", "), " by powers of two up to ",
                                 max_divisor));
  }
  return absl::StrJoin(parts, " and ");
}

absl::StatusOr<SpecializationPlan> PlanSpecialization(const KernelNode& kernel,
                                                      const passes::TargetInfo* target,
                                                      const SpecializationPolicy& policy) {
  for (const std::string& name : policy.static_dims) {
    bool found = false;
    for (const VarRef& dim : kernel.dims) found |= dim->name == name;
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", kernel.name, "' has no dimension '", name, "'"));
    }
  }
  SpecializationPlan plan;
  plan.kernel = kernel.name;
  plan.max_divisor = target != nullptr ? target->dim_divisibility_specialization(kernel) : 1;
  const std::vector<std::string> sizing = passes::DimsSizingRegisters(kernel);
  for (const VarRef& dim : kernel.dims) {
    PlannedDim planned{dim->name, Contains(sizing, dim->name), SourceOf(kernel, *dim)};
    if (policy.all_static || planned.sizes_fragment || Contains(policy.static_dims, dim->name)) {
      plan.compiled_in.push_back(std::move(planned));
    } else if (plan.max_divisor > 1 && planned.source) {
      // A class is read from a call's tensors; a dim none of them gives stays unclassed.
      plan.classed.push_back(std::move(planned));
    }
  }
  return plan;
}

absl::StatusOr<SpecializedKernel> ApplySpecialization(const SpecializationPlan& plan,
                                                      const Kernel& kernel,
                                                      const std::map<std::string, int64_t>& dims) {
  SpecializedKernel result;
  result.kernel = kernel;
  for (const PlannedDim& dim : plan.compiled_in) {
    auto it = dims.find(dim.name);
    if (it == dims.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", plan.kernel, "': dim ", dim.name,
                       dim.sizes_fragment ? " sizes a fragment, so it is compiled in as a constant"
                                          : " is compiled in as a constant",
                       ", and no value was given for it"));
    }
    result.constants.insert(*it);
  }
  if (!result.constants.empty()) {
    absl::StatusOr<Kernel> specialized = passes::SpecializeDims(kernel, result.constants);
    if (!specialized.ok()) return specialized.status();
    result.kernel = *std::move(specialized);
  }
  std::map<std::string, int64_t> required;  // the classes above 1, as the pass takes them
  for (const PlannedDim& dim : plan.classed) {
    auto it = dims.find(dim.name);
    const int64_t divisor = it == dims.end() ? 1 : plan.ClassOf(it->second);
    result.classes[dim.name] = divisor;
    if (divisor > 1) required[dim.name] = divisor;
  }
  const size_t before = result.kernel->requirements.size();
  // A class is a value divisible by exactly the power of two it names (or by the cap), so it
  // gives itself as its requirement.
  absl::StatusOr<Kernel> classed =
      passes::SpecializeDivisibility(result.kernel, required, plan.max_divisor);
  if (!classed.ok()) return classed.status();
  result.kernel = *std::move(classed);
  for (size_t i = before; i < result.kernel->requirements.size(); ++i) {
    result.requirements.push_back(Print(result.kernel->requirements[i].condition));
  }
  std::vector<std::string> steps;
  if (!result.constants.empty()) {
    steps.push_back(absl::StrCat("specialize-dims{values=\"",
                                 absl::StrJoin(result.constants, ",", absl::PairFormatter("=")),
                                 "\"}"));
  }
  if (!result.requirements.empty()) {
    steps.push_back(absl::StrCat("specialize-divisibility{values=\"",
                                 absl::StrJoin(required, ",", absl::PairFormatter("=")),
                                 "\",max=", plan.max_divisor, "}"));
  }
  result.pipeline_prefix = absl::StrJoin(steps, ",");
  return result;
}

absl::StatusOr<Module> SpecializeModule(Module module, const passes::TargetInfo* target,
                                        const std::map<std::string, int64_t>& dims,
                                        const SpecializationPolicy& policy) {
  for (Kernel& kernel : module.kernels) {
    absl::StatusOr<SpecializationPlan> plan = PlanSpecialization(*kernel, target, policy);
    if (!plan.ok()) return plan.status();
    absl::StatusOr<SpecializedKernel> specialized = ApplySpecialization(*plan, kernel, dims);
    if (!specialized.ok()) return specialized.status();
    kernel = std::move(specialized->kernel);
  }
  return module;
}

}  // namespace tile_ir::runtime::jit
