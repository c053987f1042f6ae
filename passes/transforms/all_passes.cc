// The list of built-in passes. A new pass is one more line here.
#include "passes/transforms/all_passes.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "passes/analysis/padded_reductions.h"
#include "passes/transforms/async_copies.h"
#include "passes/transforms/bound_predication.h"
#include "passes/transforms/inject_software_pipeline.h"
#include "passes/transforms/insert_barriers.h"
#include "passes/transforms/layout_inference.h"
#include "passes/transforms/longest_blocks_first.h"
#include "passes/transforms/lower_tile_ops.h"
#include "passes/transforms/pipeline_planning.h"
#include "passes/transforms/plan_shared_memory.h"
#include "passes/transforms/rasterize_blocks.h"
#include "passes/transforms/remove_dead_code.h"
#include "passes/transforms/simplify.h"
#include "passes/transforms/specialize_dims.h"
#include "passes/transforms/specialize_divisibility.h"
#include "passes/transforms/thread_binding.h"
#include "passes/transforms/unswitch_selects.h"
#include "passes/transforms/vectorize.h"

namespace tile_ir::passes {
namespace {

void RegisterOrDie(PassRegistry& registry, PassInfo info) {
  std::string name = info.name;
  absl::Status registered = registry.Register(std::move(info));
  if (!registered.ok()) {
    std::fprintf(stderr, "cannot register built-in pass '%s': %s\n", name.c_str(),
                 std::string(registered.message()).c_str());
    std::abort();
  }
}

}  // namespace

void RegisterBuiltinPasses(PassRegistry& registry) {
  RegisterOrDie(registry, RemoveDeadCodePass());
  RegisterOrDie(registry, SimplifyPass());
  RegisterOrDie(registry, SpecializeDimsPass());
  RegisterOrDie(registry, SpecializeDivisibilityPass());
  RegisterOrDie(registry, PaddedReductionsPass());
  RegisterOrDie(registry, LongestBlocksFirstPass());
  RegisterOrDie(registry, RasterizeBlocksPass());
  RegisterOrDie(registry, UnswitchSelectsPass());
  RegisterOrDie(registry, LayoutInferencePass());
  RegisterOrDie(registry, LowerTileOpsPass());
  RegisterOrDie(registry, BoundPredicationPass());
  RegisterOrDie(registry, PipelinePlanningPass());
  RegisterOrDie(registry, InjectSoftwarePipelinePass());
  RegisterOrDie(registry, ThreadBindingPass());
  RegisterOrDie(registry, VectorizePass());
  RegisterOrDie(registry, AsyncCopiesPass());
  RegisterOrDie(registry, PlanSharedMemoryPass());
  RegisterOrDie(registry, InsertBarriersPass());
}

const PassRegistry& BuiltinPassRegistry() {
  static const PassRegistry* registry = [] {
    auto* builtins = new PassRegistry;
    RegisterBuiltinPasses(*builtins);
    return builtins;
  }();
  return *registry;
}

}  // namespace tile_ir::passes
