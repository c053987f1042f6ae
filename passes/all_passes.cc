// The list of built-in passes. A new pass is one more line here.
#include "passes/all_passes.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "passes/async_copies.h"
#include "passes/bound_predication.h"
#include "passes/core_matrix_tiles.h"
#include "passes/inject_software_pipeline.h"
#include "passes/insert_barriers.h"
#include "passes/layout_inference.h"
#include "passes/lower_tile_ops.h"
#include "passes/pad_shared_rows.h"
#include "passes/pipeline_planning.h"
#include "passes/plan_shared_memory.h"
#include "passes/rasterize_blocks.h"
#include "passes/remove_dead_code.h"
#include "passes/simplify.h"
#include "passes/specialize_dims.h"
#include "passes/thread_binding.h"
#include "passes/vectorize.h"

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
  RegisterOrDie(registry, RasterizeBlocksPass());
  RegisterOrDie(registry, LayoutInferencePass());
  RegisterOrDie(registry, LowerTileOpsPass());
  RegisterOrDie(registry, BoundPredicationPass());
  RegisterOrDie(registry, PipelinePlanningPass());
  RegisterOrDie(registry, InjectSoftwarePipelinePass());
  RegisterOrDie(registry, PadSharedRowsPass());
  RegisterOrDie(registry, ThreadBindingPass());
  RegisterOrDie(registry, VectorizePass());
  RegisterOrDie(registry, AsyncCopiesPass());
  RegisterOrDie(registry, CoreMatrixTilesPass());
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
