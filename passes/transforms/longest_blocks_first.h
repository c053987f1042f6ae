// The `longest-blocks-first` pass: blocks whose loops run longer are launched first.
#ifndef PASSES_TRANSFORMS_LONGEST_BLOCKS_FIRST_H_
#define PASSES_TRANSFORMS_LONGEST_BLOCKS_FIRST_H_

#include <string>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// How an integer expression changes as one variable grows, the others held.
enum class Trend { kConstant, kNonDecreasing, kNonIncreasing, kUnknown };

// The trend of `e` in `var`: other variables are held (kernel dimensions, which are at least
// 1, count as positive factors); +, -, *, min, max, casts and division by a positive factor
// (truncating, floor or ceiling) combine trends, anything else that mentions `var` is
// kUnknown.
Trend TrendIn(const Expr& e, const Var* var, const KernelNode& kernel);

// A GPU launches a grid's blocks in the order of their linear index (x fastest), so a grid
// whose late blocks carry the most work ends on a tail of long blocks while the other
// multiprocessors idle: a causal attention's block over query rows i loops over i + 1 key
// blocks. Where the trip counts of a kernel's loops grow along one grid axis (each loop whose
// extent mentions the axis is kNonDecreasing in it, at least one), that axis is walked
// backwards: `let bx_reversed = extent - 1 - bx` at the start of the body replaces every use
// of bx, so the longest blocks go first and short ones fill the tail (longest processing time
// first). `why` (may be null) receives a remark naming the axis and the loop. A kernel with a
// swizzle (its block order is the panels' choice) is left alone; the same pointer is returned
// for a kernel left alone.
absl::StatusOr<Kernel> LongestBlocksFirst(const Kernel& kernel, std::string* why);

PassInfo LongestBlocksFirstPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_LONGEST_BLOCKS_FIRST_H_
