// LinkedTargets() for the GPU machine's binaries: every family but the CPU,
// whose code generator is LLVM (target_registry.h).
#include "targets/target_registry.h"
#include "targets/targets_without_llvm.h"

namespace tile_ir::targets {

const TargetRegistry& LinkedTargets() {
  static const TargetRegistry* registry = [] {
    auto* made = new TargetRegistry;
    AddTargetsWithoutLlvm(*made);
    return made;
  }();
  return *registry;
}

}  // namespace tile_ir::targets
