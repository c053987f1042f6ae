// LinkedTargets(): every target family (the one list; target_registry.h).
#include "targets/cpu/cpu_target.h"
#include "targets/target_registry.h"
#include "targets/targets_without_llvm.h"

namespace tile_ir::targets {

const TargetRegistry& LinkedTargets() {
  static const TargetRegistry* registry = [] {
    auto* made = new TargetRegistry;
    made->Add(cpu::MakeCpuFamily());
    AddTargetsWithoutLlvm(*made);
    return made;
  }();
  return *registry;
}

}  // namespace tile_ir::targets
