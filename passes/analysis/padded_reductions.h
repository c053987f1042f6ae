// The `padded-reductions` analysis: reductions that may silently combine the zeros a copy
// padded a tile with past a tensor's edge (docs/TEXT_FORMAT.md "Edges"). It changes nothing;
// it says where, so that tile-run and tile.compile can warn by default.
#ifndef PASSES_ANALYSIS_PADDED_REDUCTIONS_H_
#define PASSES_ANALYSIS_PADDED_REDUCTIONS_H_

#include <string>
#include <vector>

#include "passes/pass/pass.h"
#include "tile_ir/module.h"
#include "tile_ir/source_loc.h"

namespace tile_ir::passes {

struct PaddedReduction {
  SourceLoc loc;  // of the reduce
  std::string kernel;
  std::string message;  // what may be wrong, the buffer, the tensor's dim, and the remedy
};

// The reduces of `kernel` that may combine padding, in program order. A tile is padded along a
// dim when a copy filled it from a global region that may pass the tensor's edge there: not
// when the region is constant and inside the tensor, nor when its extent E is constant, divides
// the tensor's size (a constant, or a dim that a `require D % c == 0` with E | c, or a power of
// two the requirements give, divides) and divides its start. Copies between tiles, gemms (A's
// rows and B's columns; an accumulating gemm adds zeros there, so C keeps what it held) and
// element-wise parallel loops carry the padding to the tiles they write; a fill clears it, and so
// does any parallel loop that writes the tile under an `if` or through a `select` (taken for a
// mask, whatever it tests: fewer false alarms). A reduce along a padded dim is reported when its
// kind is max, min, prod or bitand, or when the padded elements are no longer 0 (sum, abssum,
// absmax, bitor, bitxor of exp(x - m), where the zeros are neutral only while they are zeros).
// Loops are walked once in program order; the branches of an `if` keep only the padding both leave.
// Not covered (no remark): elements loaded from global memory inside a parallel loop, padding that
// reaches a tile only around a loop's back edge, and the zeros an accumulating gemm adds to a
// filled tile (fill 0, gemm, reduce max).
std::vector<PaddedReduction> FindPaddedReductions(const KernelNode& kernel);

// "FILE:LINE:COL: kernel 'k': MESSAGE" (without the location where the reduce has none).
std::string FormatPaddedReduction(const PaddedReduction& finding);

// The analysis as a pass: the module unchanged, a remark per finding.
PassInfo PaddedReductionsPass();

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_PADDED_REDUCTIONS_H_
