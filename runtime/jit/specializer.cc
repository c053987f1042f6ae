// The two-level dispatch table: dtype families, then static dimension values.
#include "runtime/jit/specializer.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/transforms/specialize_dims.h"
#include "passes/transforms/specialize_divisibility.h"
#include "runtime/host_buffer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::runtime::jit {
namespace {

constexpr ScalarType kScalarTypes[] = {
    ScalarType::kBool, ScalarType::kI4,  ScalarType::kI8,     ScalarType::kI16,    ScalarType::kI32,
    ScalarType::kI64,  ScalarType::kU8,  ScalarType::kF8E4M3, ScalarType::kF8E5M2, ScalarType::kF16,
    ScalarType::kBF16, ScalarType::kF32, ScalarType::kF64};

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
  // Dims that size fragments are static whatever the template says: a thread's registers
  // are fixed when the kernel is compiled.
  const std::vector<std::string> sizing = passes::DimsSizingRegisters(*family->kernel);
  family->max_divisor =
      cache_.backend().target().info()->dim_divisibility_specialization(*family->kernel);
  for (const VarRef& dim : family->kernel->dims) {
    bool wanted = template_.all_static;
    for (const std::string& name : template_.static_dims) wanted |= name == dim->name;
    for (const std::string& name : sizing) wanted |= name == dim->name;
    std::optional<std::pair<int, int>> source = SourceOf(*family->kernel, *dim);
    if (!wanted) {
      // A dynamic dim: its divisibility class selects, where the target asks for classes.
      if (family->max_divisor > 1 && source) {
        family->divisible_names.push_back(dim->name);
        family->divisible_sources.push_back(*source);
      }
      continue;
    }
    if (!source) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", template_.kernel_name, "': static dimension '", dim->name,
          "' is not the extent of any parameter's axis, so no call can give its value"));
    }
    family->static_names.push_back(dim->name);
    family->static_sources.push_back(*source);
  }
  for (const std::string& name : template_.static_dims) {
    bool found = false;
    for (const std::string& known : family->static_names) found |= known == name;
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", template_.kernel_name, "' has no dimension '", name, "'"));
    }
  }
  absl::WriterMutexLock lock(&mutex_);
  auto [it, inserted] = families_.emplace(dtypes, std::move(family));
  return it->second.get();
}

absl::StatusOr<JitFunction::Values> JitFunction::StaticValues(
    const Family& family, const std::vector<KernelArg>& args) const {
  Values values;
  for (size_t i = 0; i < family.static_sources.size(); ++i) {
    auto [param, axis] = family.static_sources[i];
    if (static_cast<size_t>(param) >= args.size() || args[param].tensor == nullptr ||
        axis >= args[param].tensor->ndim) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", template_.kernel_name, "': argument ", param, " must be a tensor of rank > ",
          axis, " (it gives dimension '", family.static_names[i], "')"));
    }
    values.push_back(args[param].tensor->shape[axis]);
  }
  // A tensor too small to give a dynamic dim is the launch's to refuse, with its own message.
  for (auto [param, axis] : family.divisible_sources) {
    const bool given = static_cast<size_t>(param) < args.size() && args[param].tensor != nullptr &&
                       axis < args[param].tensor->ndim;
    values.push_back(
        given ? passes::DivisibilityClass(args[param].tensor->shape[axis], family.max_divisor) : 1);
  }
  return values;
}

absl::StatusOr<std::pair<CacheContext, Module>> JitFunction::SpecializedModule(
    Family& family, const Values& values) {
  std::map<std::string, int64_t> bound;
  for (size_t i = 0; i < family.static_names.size(); ++i) bound[family.static_names[i]] = values[i];
  std::map<std::string, int64_t> classes;
  for (size_t i = 0; i < family.divisible_names.size(); ++i) {
    classes[family.divisible_names[i]] = values[family.static_names.size() + i];
  }
  absl::StatusOr<Kernel> kernel = passes::SpecializeDims(family.kernel, bound);
  if (!kernel.ok()) return kernel.status();
  // A class is a value divisible by exactly the power of two it names (or by the cap), so it
  // gives itself as its requirement.
  kernel = passes::SpecializeDivisibility(*kernel, classes, family.max_divisor);
  if (!kernel.ok()) return kernel.status();
  Module module{family.generic.ir_version,
                family.generic.producer,
                family.generic.producer_version,
                {*kernel}};
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
