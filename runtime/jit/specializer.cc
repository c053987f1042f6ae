// The two-level dispatch table: dtype families, then static dimension values.
#include "runtime/jit/specializer.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/host_buffer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::runtime::jit {
namespace {

constexpr ScalarType kScalarTypes[] = {
    ScalarType::kBool,   ScalarType::kI4,  ScalarType::kI8,   ScalarType::kI16,
    ScalarType::kI32,    ScalarType::kI64, ScalarType::kU8,   ScalarType::kF8E4M3,
    ScalarType::kF8E5M2, ScalarType::kF16, ScalarType::kBF16, ScalarType::kF32,
    ScalarType::kF64,    ScalarType::kU16, ScalarType::kU32,  ScalarType::kU64};

std::optional<DataType> FromDlpack(const DLDataType& dl) {
  for (ScalarType scalar : kScalarTypes) {
    DLDataType ours;
    if (ToDLDataType(DataType(scalar), &ours) && ours.code == dl.code && ours.bits == dl.bits &&
        ours.lanes == dl.lanes) {
      return DataType(scalar);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string TemplateArgs::ToString() const {
  std::vector<std::string> parts;
  for (const auto& [name, value] : ints) parts.push_back(absl::StrCat(name, "=", value));
  for (const auto& [name, dtype] : dtypes)
    parts.push_back(absl::StrCat(name, ":", dtype.ToString()));
  return absl::StrJoin(parts, ",");
}

KernelTemplate KernelTemplate::FromModule(Module module, std::string kernel_name) {
  KernelTemplate t;
  t.kernel_name = kernel_name;
  t.build = [module = std::move(module)](const TemplateArgs&) -> absl::StatusOr<Module> {
    return module;
  };
  return t;
}

JitFunction::JitFunction(KernelTemplate kernel_template, TemplateArgs args, KernelCache& cache)
    : template_(std::move(kernel_template)), args_(std::move(args)), cache_(cache) {}

absl::StatusOr<JitFunction::Family*> JitFunction::GetFamily(const std::vector<KernelArg>& args,
                                                            const Values& dtypes) {
  {
    absl::ReaderMutexLock lock(&mutex_);
    auto it = families_.find(dtypes);
    if (it != families_.end()) return it->second.get();
  }
  TemplateArgs build_args = args_;
  for (size_t i = 0; i < template_.dtype_params.size(); ++i) {
    build_args.dtypes[template_.dtype_params[i].second] =
        DataType(static_cast<ScalarType>(dtypes[i]));
  }
  absl::StatusOr<Module> module = template_.build(build_args);
  if (!module.ok()) return module.status();
  auto family = std::make_unique<Family>();
  for (const Kernel& kernel : module->kernels) {
    if (kernel->name == template_.kernel_name) family->kernel = kernel;
  }
  if (!family->kernel) {
    return absl::NotFoundError(
        absl::StrCat("the template builds no kernel named '", template_.kernel_name, "'"));
  }
  family->generic = *std::move(module);
  // The plan decides which dims are static (fragment-sizing ones whatever the template says) and
  // which select by their divisibility class.
  absl::StatusOr<SpecializationPlan> plan =
      PlanSpecialization(*family->kernel, cache_.backend().target().info().get(),
                         {template_.all_static, template_.static_dims});
  if (!plan.ok()) return plan.status();
  for (const PlannedDim& dim : plan->compiled_in) {
    if (!dim.source) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", template_.kernel_name, "': static dimension '", dim.name,
          "' is not the extent of any parameter's axis, so no call can give its value"));
    }
  }
  family->plan = *std::move(plan);
  absl::WriterMutexLock lock(&mutex_);
  auto [it, inserted] = families_.emplace(dtypes, std::move(family));
  return it->second.get();
}

absl::StatusOr<JitFunction::Values> JitFunction::StaticValues(
    const Family& family, const std::vector<KernelArg>& args) const {
  Values values;
  for (const PlannedDim& dim : family.plan.compiled_in) {
    auto [param, axis] = *dim.source;
    if (static_cast<size_t>(param) >= args.size() || args[param].tensor == nullptr ||
        axis >= args[param].tensor->ndim) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", template_.kernel_name, "': argument ", param, " must be a tensor of rank > ",
          axis, " (it gives dimension '", dim.name, "')"));
    }
    values.push_back(args[param].tensor->shape[axis]);
  }
  // A tensor too small to give a dynamic dim is the launch's to refuse, with its own message.
  for (const PlannedDim& dim : family.plan.classed) {
    auto [param, axis] = *dim.source;
    const bool given = static_cast<size_t>(param) < args.size() && args[param].tensor != nullptr &&
                       axis < args[param].tensor->ndim;
    values.push_back(given ? family.plan.ClassOf(args[param].tensor->shape[axis]) : 1);
  }
  return values;
}

absl::StatusOr<std::pair<CacheContext, Module>> JitFunction::SpecializedModule(
    Family& family, const Values& values) {
  // The key's values as shapes: a class is a value of its own class.
  std::map<std::string, int64_t> bound;
  std::map<std::string, int64_t> dims;
  for (size_t i = 0; i < family.plan.compiled_in.size(); ++i) {
    bound[family.plan.compiled_in[i].name] = values[i];
  }
  for (size_t i = 0; i < family.plan.classed.size(); ++i) {
    dims[family.plan.classed[i].name] = values[family.plan.compiled_in.size() + i];
  }
  dims.insert(bound.begin(), bound.end());
  absl::StatusOr<SpecializedKernel> specialized =
      ApplySpecialization(family.plan, family.kernel, dims);
  if (!specialized.ok()) return specialized.status();
  const Kernel& kernel = specialized->kernel;
  Module module{family.generic.ir_version,
                family.generic.producer,
                family.generic.producer_version,
                {kernel}};
  if (absl::Status status = Verify(module); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", template_.kernel_name, "' specialized to ",
        absl::StrJoin(bound, ",", absl::PairFormatter("=")), " is not valid: ", status.message()));
  }
  CacheContext context = KernelContext(cache_.backend(), module, template_.kernel_name);
  return std::make_pair(std::move(context), std::move(module));
}

absl::StatusOr<std::string> JitFunction::KeyFor(const std::vector<KernelArg>& args) {
  Values dtypes;
  for (const auto& [position, name] : template_.dtype_params) {
    if (static_cast<size_t>(position) >= args.size() || args[position].tensor == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", position, " must be a tensor"));
    }
    std::optional<DataType> dtype = FromDlpack(args[position].tensor->dtype);
    if (!dtype)
      return absl::InvalidArgumentError(absl::StrCat("argument ", position, ": unsupported dtype"));
    dtypes.push_back(static_cast<int64_t>(dtype->scalar()));
  }
  absl::StatusOr<Family*> family = GetFamily(args, dtypes);
  if (!family.ok()) return family.status();
  absl::StatusOr<Values> values = StaticValues(**family, args);
  if (!values.ok()) return values.status();
  absl::StatusOr<std::pair<CacheContext, Module>> specialized =
      SpecializedModule(**family, *values);
  if (!specialized.ok()) return specialized.status();
  return specialized->first.Key();
}

absl::StatusOr<LoadedKernel*> JitFunction::Specialize(const std::vector<KernelArg>& args,
                                                      CacheSource* source) {
  Values dtypes;
  for (const auto& [position, name] : template_.dtype_params) {
    if (static_cast<size_t>(position) >= args.size() || args[position].tensor == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", template_.kernel_name,
                                                     "': argument ", position,
                                                     " must be a tensor (its dtype picks the "
                                                     "specialization)"));
    }
    std::optional<DataType> dtype = FromDlpack(args[position].tensor->dtype);
    if (!dtype) {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", template_.kernel_name,
                                                     "': argument ", position,
                                                     " has a dtype no kernel takes"));
    }
    dtypes.push_back(static_cast<int64_t>(dtype->scalar()));
  }
  absl::StatusOr<Family*> family = GetFamily(args, dtypes);
  if (!family.ok()) return family.status();
  absl::StatusOr<Values> values = StaticValues(**family, args);
  if (!values.ok()) return values.status();
  {
    absl::ReaderMutexLock lock(&mutex_);
    auto it = (*family)->specializations.find(*values);
    if (it != (*family)->specializations.end()) {
      if (source) *source = CacheSource::kMemory;
      return it->second;
    }
  }
  // Built only on a miss of both tables: the context needs the IR's text.
  absl::StatusOr<std::pair<CacheContext, Module>> specialized =
      SpecializedModule(**family, *values);
  if (!specialized.ok()) return specialized.status();
  const Module& module = specialized->second;
  absl::StatusOr<CachedKernel> cached = cache_.Get(
      specialized->first, [&]() -> absl::StatusOr<Module> { return module; },
      template_.kernel_name);
  if (!cached.ok()) return cached.status();
  if (source) *source = cached->source;
  absl::WriterMutexLock lock(&mutex_);
  (*family)->specializations[*values] = cached->kernel;
  return cached->kernel;
}

absl::Status JitFunction::operator()(const std::vector<KernelArg>& args) {
  absl::StatusOr<LoadedKernel*> kernel = Specialize(args);
  if (!kernel.ok()) return kernel.status();
  return (*kernel)->Launch(args);
}

}  // namespace tile_ir::runtime::jit
