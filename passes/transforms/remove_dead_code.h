// The `remove-dead-code` pass: deletes statements whose effects nothing observes.
#ifndef PASSES_TRANSFORMS_REMOVE_DEAD_CODE_H_
#define PASSES_TRANSFORMS_REMOVE_DEAD_CODE_H_

#include "passes/pass/pass.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// Removes, in one linear walk (each block back to front, so that removing one
// statement can make earlier ones dead in the same walk):
// - lets whose variable is never used and whose value is pure (no call of an
//   impure intrinsic),
// - allocations of buffers that are never used,
// - evaluations of pure expressions,
// - loops (except pipelined ones) whose body is empty,
// - ifs whose branches are both empty; an empty then-branch with a non-empty
//   else becomes `if (!cond) else-branch`, and an empty else is dropped,
// - empty blocks, and nested blocks that declare nothing are spliced into
//   their parent.
// Returns an empty Seq when nothing is left.
Stmt RemoveDeadCode(const Stmt& stmt);

// The same pointer when nothing changed.
Kernel RemoveDeadCode(const Kernel& kernel);

// Returns whether anything changed.
bool RemoveDeadCode(Module& module);

PassInfo RemoveDeadCodePass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_REMOVE_DEAD_CODE_H_
