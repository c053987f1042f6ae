// The target families whose compile needs no LLVM in the binary: the list
// both LinkedTargets() definitions share (target_registry.h).
#ifndef TARGETS_TARGETS_WITHOUT_LLVM_H_
#define TARGETS_TARGETS_WITHOUT_LLVM_H_

#include "targets/target_registry.h"

namespace tile_ir::targets {

// Adds cuda, hip and metal.
void AddTargetsWithoutLlvm(TargetRegistry& registry);

}  // namespace tile_ir::targets

#endif  // TARGETS_TARGETS_WITHOUT_LLVM_H_
