// tile-run --autotune and --explain: an operator's config space
// (ops/ OpConfigSpace) through runtime/jit's autotuner. Each
// candidate is compiled through the kernel cache, checked against the
// operator's float64 reference at small shapes, timed at the run's shapes;
// the fastest is stored with the evidence as a cache record keyed like a
// binary, which a later run reads instead of tuning again.
#ifndef TOOLS_TILE_RUN_AUTOTUNE_OP_H_
#define TOOLS_TILE_RUN_AUTOTUNE_OP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "runtime/jit/autotuner.h"
#include "runtime/jit/kernel_cache.h"
#include "targets/target.h"

namespace tile_ir::tools {

struct AutotuneRequest {
  ops::Shapes dims;                                // timed at these
  std::map<std::string, double> scalars;           // a value for every scalar parameter
  std::map<std::string, int64_t> integer_scalars;  // RunOptions::integer_scalars
  uint64_t seed = 0;
  int warmup = 3;
  int iters = 20;
  bool retune = false;  // ignore a stored choice
  // Time each candidate compiled for `dims` as constants (specialize-dims), as
  // --static-shapes runs it; the check still runs the dynamic-shape binary.
  // Without it, on a target that specializes on divisibility (TargetInfo::
  // dim_divisibility_specialization), each candidate compiles with the dims' classes as
  // requirements, as a dynamic-shape run compiles it, and is checked at shapes of those classes.
  bool static_shapes = false;
  std::function<void(int done, int total, const std::string& what)> progress;
};

// The op's space as the autotuner takes it (its candidates, in order).
runtime::jit::ConfigSpace ToJitSpace(const ops::OpConfigSpace& space);

// The shapes candidates are checked at: each dimension at most 97 (not a
// multiple of any tile, so the bounds are exercised), batch-like dimensions
// at most 2. With max_divisor > 1, a dimension is cut to a multiple of its
// divisibility class instead (96 for a class of 16), so that a binary compiled
// for the class runs there.
ops::Shapes CheckShapes(const ops::Shapes& dims, int64_t max_divisor = 1);

// The shapes AutotuneOp checks the candidates at, on the cache's target: CheckShapes under the
// divisibility cap of the dynamic-shape binary the check runs (with --static-shapes too), the
// dims that binary compiles in (they size fragments) kept at their values.
ops::Shapes TuningCheckShapes(runtime::jit::KernelCache& cache, const ops::OpCase& op,
                              const AutotuneRequest& request);

// Tunes `op` (which must have candidates) on the cache's backend.
absl::StatusOr<runtime::jit::TuningResult> AutotuneOp(runtime::jit::KernelCache& cache,
                                                      const ops::OpCase& op,
                                                      const AutotuneRequest& request);

// The choice a tuning of `op` for `request` (its dims and static_shapes) stored in the cache,
// found without tuning; nullopt when there is none.
std::optional<runtime::jit::TuningResult> StoredTuningOp(runtime::jit::KernelCache& cache,
                                                         const ops::OpCase& op,
                                                         const AutotuneRequest& request);

// One row per candidate: name, its values, time, throughput, and what
// happened ("best", "ok", "refused by the target: ...", "wrong: ...").
std::string FormatTuningTable(const ops::OpCase& op, const runtime::jit::TuningResult& result,
                              const ops::Shapes& dims);

// The candidate's name ("128x128x32_s3"), or its values when it has none.
std::string ConfigName(const ops::OpCase& op, const runtime::jit::Config& config);

// What `target` adds to the default-config heuristics for `op` at `dims` (runtime::jit::
// TargetPreferences): its asynchronous copies, its preferred block threads, each candidate's
// threads from its build, and whether its lowering (shaped as the run compiles it: constants
// with `static_shapes`, else divisibility classes) takes the target's fastest path. Where
// `remarks` is given, each candidate lowered for that answer leaves its lowering remarks there,
// so that --explain does not lower the chosen one again.
using LoweringRemarksByConfig = std::map<runtime::jit::Config, std::vector<std::string>>;
runtime::jit::TargetPreferences PreferencesOf(const ops::OpCase& op, const targets::Target& target,
                                              const ops::Shapes& dims, bool static_shapes,
                                              LoweringRemarksByConfig* remarks = nullptr);

// The module holding the op's kernel for `config`.
absl::StatusOr<Module> BuildConfig(const ops::OpCase& op, const runtime::jit::Config& config);
// The same with `dims` compiled in as constants (specialize-dims), as --static-shapes runs it.
absl::StatusOr<Module> BuildSpecializedConfig(const ops::OpCase& op,
                                              const runtime::jit::Config& config,
                                              const ops::Shapes& dims);
// The same as a dynamic-shape run compiles it on `target` (runtime/jit/specialization_plan.h): the
// dims that size fragments compiled in, the others symbolic, each with its divisibility class
// required where `target` asks for classes; BuildConfig's module where the plan changes nothing.
absl::StatusOr<Module> BuildClassedConfig(const ops::OpCase& op, const runtime::jit::Config& config,
                                          const ops::Shapes& dims,
                                          const passes::TargetInfo& target);

// A kernel as a run compiles it at `dims`, by the specialization plan
// (runtime/jit/specialization_plan.h): with `static_shapes`, every dim a constant; else the dims
// that size fragments as constants and the others symbolic, each with its divisibility class
// compiled in as a requirement where `target` asks for one (null: none). `compiled_in` names the
// dims made constants, `requirements` the added lines.
struct RunSpecialization {
  Kernel kernel;
  std::vector<std::string> compiled_in;
  std::vector<std::string> requirements;
};
absl::StatusOr<RunSpecialization> SpecializeAsRun(const Kernel& kernel, const ops::Shapes& dims,
                                                  bool static_shapes,
                                                  const passes::TargetInfo* target);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_AUTOTUNE_OP_H_
