// The `simplify` pass: arithmetic simplification with loop ranges, and the
// control flow it decides (dead branches, loops of 0 or 1 iterations), over the
// statement simplifier of passes/utils/stmt_simplifier.h.
#ifndef PASSES_TRANSFORMS_SIMPLIFY_H_
#define PASSES_TRANSFORMS_SIMPLIFY_H_

#include <cstdint>

#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// Simplifies `kernel` again (SimplifyKernel) until it no longer changes, at most
// `max_iterations` times. The same pointer when nothing changed.
Kernel SimplifyRepeatedly(const Kernel& kernel, int64_t max_iterations);

// SimplifyRepeatedly on each kernel. Returns whether anything changed.
bool SimplifyModule(Module& module, int64_t max_iterations = 4);

// The pass: `simplify{max-iterations=4}`.
PassInfo SimplifyPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_SIMPLIFY_H_
