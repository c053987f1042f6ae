// Kernel templates and their specializations. A template is a C++ frontend
// function of compile-time arguments (tile sizes, stages, dtypes) or a module
// with symbolic shapes; a call binds DLPack tensors, and the template
// specializes on what the call determines: the dtypes of the parameters it
// declares generic, and the values of the dimensions it marks static (all,
// or some; the others stay parameters of one binary). Each specialization is
// a KernelCache entry; repeated calls find it in a table keyed by those
// values alone, without printing or hashing IR. Which dims are static and which, on targets
// that ask for it, select by their divisibility class (`require K % 16 == 0` compiled in, so one
// binary serves each class) is the specialization plan's to say (specialization_plan.h), as it
// is for every other caller.
#ifndef RUNTIME_JIT_SPECIALIZER_H_
#define RUNTIME_JIT_SPECIALIZER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specialization_plan.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime::jit {

// Compile-time arguments of a template, by name.
struct TemplateArgs {
  std::map<std::string, int64_t> ints;     // block_m=128, num_stages=3, ...
  std::map<std::string, DataType> dtypes;  // by parameter name, for dtype-generic templates
  std::string ToString() const;            // "block_m=128,num_stages=3,A:f16"
};

struct KernelTemplate {
  std::string kernel_name;
  std::function<absl::StatusOr<Module>(const TemplateArgs&)> build;
  // Dimensions that become constants of each specialization: every one when
  // all_static, otherwise those named, and always those that size a fragment
  // (SpecializationPlan). Each must be a bare entry of some buffer parameter's shape, so a
  // call's tensors give its value.
  bool all_static = false;
  std::vector<std::string> static_dims;
  // Arguments whose tensor's dtype the call decides, as (argument position,
  // name): the builder sees it in TemplateArgs::dtypes[name].
  std::vector<std::pair<int, std::string>> dtype_params;

  // A module with symbolic shapes as a template (it ignores TemplateArgs).
  static KernelTemplate FromModule(Module module, std::string kernel_name);
};

// One template with fixed compile-time integers, called with tensors.
class JitFunction {
 public:
  JitFunction(KernelTemplate kernel_template, TemplateArgs args, KernelCache& cache);

  // The specialization the arguments select, from this object's table, else
  // from the cache (memory, disk) or compiled. `source`, when given, says which.
  absl::StatusOr<LoadedKernel*> Specialize(const std::vector<KernelArg>& args,
                                           CacheSource* source = nullptr);
  // Specialize, then Launch.
  absl::Status operator()(const std::vector<KernelArg>& args);

  // The key of the cache entry the arguments select (compiling nothing).
  absl::StatusOr<std::string> KeyFor(const std::vector<KernelArg>& args);

 private:
  using Values = absl::InlinedVector<int64_t, 8>;
  // One dtype combination: the template built for it, where each static
  // dimension is read from, and its specializations by static values.
  struct Family {
    Module generic;
    Kernel kernel;
    // Its key's values are the compiled-in dims' values, then the classed dims' classes.
    SpecializationPlan plan;
    absl::flat_hash_map<Values, LoadedKernel*> specializations;
  };
  absl::StatusOr<Family*> GetFamily(const std::vector<KernelArg>& args, const Values& dtypes);
  absl::StatusOr<Values> StaticValues(const Family& family,
                                      const std::vector<KernelArg>& args) const;
  absl::StatusOr<std::pair<CacheContext, Module>> SpecializedModule(Family& family,
                                                                    const Values& values);

  KernelTemplate template_;
  TemplateArgs args_;
  KernelCache& cache_;
  absl::Mutex mutex_;
  absl::flat_hash_map<Values, std::unique_ptr<Family>> families_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_SPECIALIZER_H_
