// The `pad-shared-rows` pass: pads the rows of shared tiles that gemm reads so that the
// eight 16-byte rows one matrix-load instruction fetches (ldmatrix on NVIDIA GPUs) fall in
// eight different groups of memory banks instead of queueing on the same ones.
#ifndef TARGETS_CUDA_PASSES_PAD_SHARED_ROWS_H_
#define TARGETS_CUDA_PASSES_PAD_SHARED_ROWS_H_

#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// Every dense shared buffer that is an operand A or B of a gemm, with constant shape and a
// last dimension of a whole number of 16-byte chunks, gets explicit strides whose row
// (last-dimension) stride is that number of chunks rounded up to the next odd one: rows
// of 64 bytes become 80, of 128 bytes 144, of 256 bytes 272; an odd number of chunks stays.
// Outer dimensions stay dense over the padded rows. Indices are unchanged (they are
// logical); only the addresses they map to move, so every access stays correct. Buffers
// with strides, or whose rows are not whole 16-byte chunks, are left alone. Runs on
// tile-level IR, after inject-software-pipeline has multi-buffered the tiles and before
// lower-tile-ops hands the operands to the target's gemm.
Kernel PadSharedRows(const Kernel& kernel);
bool PadSharedRows(Module& module);

// The pass: `pad-shared-rows`.
PassInfo PadSharedRowsPass();

}  // namespace tile_ir::passes

#endif  // TARGETS_CUDA_PASSES_PAD_SHARED_ROWS_H_
