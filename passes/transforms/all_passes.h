// The built-in passes, registered by name in one explicit list.
#ifndef PASSES_TRANSFORMS_ALL_PASSES_H_
#define PASSES_TRANSFORMS_ALL_PASSES_H_

#include "passes/pass/registry.h"

namespace tile_ir::passes {

// Adds every built-in pass to `registry`. The registry must not already hold
// one of their names (that is a bug in the caller, and aborts with a message).
void RegisterBuiltinPasses(PassRegistry& registry);

// A registry holding exactly the built-in passes, built on first use.
const PassRegistry& BuiltinPassRegistry();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_ALL_PASSES_H_
