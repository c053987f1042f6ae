// Which dims of a call are compiled in, decided in one place. Every caller that compiles a
// tile-level kernel for a call's shapes (the JIT's JitFunction, libtile, tile-run's runs, suite
// checks, autotuner and --explain, tile-matrix's prober, the suite's tests) asks
// PlanSpecialization for the plan and ApplySpecialization for the kernel at given shapes, as
// Triton binds a call in one place (python/triton/runtime/jit.py).
//
// The rules: a dim that sizes a fragment or local allocation is always compiled in as a
// constant (a thread's registers are fixed when the kernel is compiled,
// passes::DimsSizingRegisters); with `all_static` every dim is, and any dim the policy names is.
// The dims left symbolic carry their divisibility class (passes::SpecializeDivisibility:
// `require K % 16 == 0`) up to the target's TargetInfo::dim_divisibility_specialization for the
// kernel, where a call's tensors give the dim's value.
#ifndef RUNTIME_JIT_SPECIALIZATION_PLAN_H_
#define RUNTIME_JIT_SPECIALIZATION_PLAN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime::jit {

// What a caller asks beyond the rules: --static-shapes, KernelTemplate's static dims.
struct SpecializationPolicy {
  bool all_static = false;               // every dim compiled in
  std::vector<std::string> static_dims;  // these compiled in (each must be a dim of the kernel)
};

struct PlannedDim {
  std::string name;
  bool sizes_fragment = false;
  // The buffer parameter and axis whose extent is the dim itself, so that a call's tensors give
  // its value; nullopt where no axis is (a tool gives such a value with its shapes).
  std::optional<std::pair<int, int>> source;
};

struct SpecializationPlan {
  std::string kernel;                   // its name
  std::vector<PlannedDim> compiled_in;  // constants of each binary, in the kernel's dim order
  std::vector<PlannedDim> classed;      // symbolic, each with its divisibility class compiled in
  int64_t max_divisor = 1;              // the target's cap on the classes; 1: none

  // Whether a call's shapes select the binary (else one binary serves every call).
  bool PerCall() const { return !compiled_in.empty() || !classed.empty(); }
  std::vector<std::string> CompiledInNames() const;
  std::vector<std::string> ClassedNames() const;
  // The divisibility class of a classed dim of value `value` (passes::DivisibilityClass).
  int64_t ClassOf(int64_t value) const;
  // "at each call's values of N (they size fragments) and for each call's divisibility of M, K by
  // powers of two up to 16"; empty when not PerCall.
  std::string Describe() const;
};

// The plan for `kernel` (tile level) on `target` (null: one that asks for no classes). An error
// names a dim of `policy.static_dims` the kernel does not have.
absl::StatusOr<SpecializationPlan> PlanSpecialization(const KernelNode& kernel,
                                                      const passes::TargetInfo* target,
                                                      const SpecializationPolicy& policy = {});

// A kernel as the plan compiles it for a call of given shapes, and the facts that key it.
struct SpecializedKernel {
  Kernel kernel;
  std::map<std::string, int64_t> constants;  // the compiled-in dims' values
  std::map<std::string, int64_t> classes;    // each classed dim's class (1: no requirement)
  std::vector<std::string> requirements;     // the `require` lines added, printed
  // The same specialization as a pipeline prefix tile-opt replays on the generic kernel:
  // `specialize-dims{values="N=4096"},specialize-divisibility{values="K=16,M=16",max=16}`
  // (empty when the plan changes nothing).
  std::string pipeline_prefix;
};

// `kernel` (the one planned) with the plan's compiled-in dims bound to their values in `dims`
// (a compiled-in dim without one is an error naming it) and the classed dims' classes, from
// their values in `dims`, required; other entries of `dims` are ignored.
absl::StatusOr<SpecializedKernel> ApplySpecialization(const SpecializationPlan& plan,
                                                      const Kernel& kernel,
                                                      const std::map<std::string, int64_t>& dims);

// `module` with each kernel planned (on `target`, under `policy`) and applied at `dims`.
absl::StatusOr<Module> SpecializeModule(Module module, const passes::TargetInfo* target,
                                        const std::map<std::string, int64_t>& dims,
                                        const SpecializationPolicy& policy = {});

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_SPECIALIZATION_PLAN_H_
