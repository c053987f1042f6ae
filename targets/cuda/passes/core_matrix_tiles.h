// The `core-matrix-tiles` pass: re-lays the shared tiles that a matrix instruction reads in
// core-matrix order (Hopper's wgmma reads its operands from shared memory as 8-row x 16-byte
// "core matrices", each 128 contiguous bytes) and rewrites every access of them.
#ifndef TARGETS_CUDA_PASSES_CORE_MATRIX_TILES_H_
#define TARGETS_CUDA_PASSES_CORE_MATRIX_TILES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// The buffers to re-lay are those named by the arguments listed in the
// CoreMatrixReads (targets/cuda/intrinsics.h) of the intrinsics the kernel calls (a target's gemm
// registers them). Each is a shared buffer of constant shape [..., R, C] (dense, or with the
// row padding of pad-shared-rows, which is dropped); R must be a multiple of 8 and C of
// E = 16 bytes / element. It gets one of two layouts, by its shape alone
// (SwizzledCoreMatrixTile), which the matrix instruction's library decides the same way:
//  - 128-byte swizzled, when a row is a whole number of 128 bytes (W = 128 bytes / element
//    divides C): [..., C / W, R, W], dense; element (.., i, j) moves to
//    (.., j / W, i, (((j % W) / E) ^ (i % 8)) * E + j % E): 16-byte chunk c of a row lands at
//    chunk c ^ (i % 8), so that every 8 rows of an atom column (1024 bytes) form the PTX ISA's
//    128-byte swizzle atom. Such buffers must start 1024-byte aligned: the CUDA target asks
//    plan-shared-memory to place every core-matrix operand at a multiple of
//    kCoreMatrixTileAlignment of its pool (CudaTargetInfo::SharedBufferAlignments), and it
//    declares the pool so aligned.
//  - interleaved otherwise: [..., C / E, R, E]: element (.., i, j) moves to (.., j / E, i, j % E),
//    so that the 16-byte chunks of a column of chunks follow each other row after row and every
//    8 rows of one chunk column form one core matrix (128 contiguous bytes). Chunk columns lie
//    ChunkColumnStrideBytes(R, C * element bytes) apart; the dimensions before them are dense
//    over that.
// Accesses (written for the interleaved layout; the swizzled one maps the last two column
// indices as above, j / W and the swizzled position, instead of j / E and j % E):
//  - scalar indices (.., i, j) -> (.., j / E, i, j % E);
//  - a vector access whose last index is ramp(b, 1, L), with L dividing E and b proved a
//    multiple of L -> (.., b / E, i, ramp(b % E, 1, L)), one run inside one chunk;
//  - loads that are arguments of calls name elements: allowed at the listed operand positions,
//    as the destination (first argument) of an asynchronous copy (aligned, at most 16
//    bytes: TargetInfo::AsyncCopy), and in pure calls (values); any other call, which would
//    take the element's address, is an error, as is any other access the rules cannot map.
// Ordinary stores to an operand tile are followed by the calls' CoreMatrixReads::fence
// (when they name one): once after each statement that stores to such a tile and calls none
// of the matrix instructions, in the innermost sequence holding it, so that the barrier that
// insert-barriers puts before the matrix instruction comes after the fence. Asynchronous
// copies get none: their wait and that barrier order them.
// Runs on thread-level IR after async-copies, before plan-shared-memory.
absl::StatusOr<Kernel> LayCoreMatrixTiles(const Kernel& kernel);

// The byte distance between chunk columns of an R-row tile whose rows are `row_bytes` long:
// R * 16 bytes, plus a pad when there are several columns. Copies deal a row's 16-byte chunks
// to consecutive threads (thread-binding's runs), and the 8 threads of one 128-byte phase of
// shared memory write chunks of min(columns, 8) columns in 8 / min(columns, 8) rows; a pad of
// 128 / min(columns, 8) bytes puts those 8 chunks in 8 different groups of banks. Matrix
// instructions read whole core matrices, which the pad does not split.
int64_t ChunkColumnStrideBytes(int64_t rows, int64_t row_bytes);

// The row length of one 128-byte swizzle atom (8 rows of it make the atom).
inline constexpr int64_t kSwizzleRowBytes = 128;

// Whether a core-matrix operand tile whose rows are `row_bytes` long is laid out 128-byte
// swizzled (rows of whole kSwizzleRowBytes) rather than interleaved.
bool SwizzledCoreMatrixTile(int64_t row_bytes);

// The alignment in bytes a core-matrix operand tile needs: the swizzle atom, 1024 bytes (for
// both layouts, so that the choice stays the instruction's).
inline constexpr int64_t kCoreMatrixTileAlignment = 1024;

// The shared buffers the kernel's intrinsic calls name at core-matrix operand positions.
std::vector<const BufferNode*> CoreMatrixOperandBuffers(const KernelNode& kernel);

// LayCoreMatrixTiles on every kernel; whether any changed.
absl::StatusOr<bool> LayCoreMatrixTiles(Module& module);

// The pass: `core-matrix-tiles`.
PassInfo CoreMatrixTilesPass();

}  // namespace tile_ir::passes

#endif  // TARGETS_CUDA_PASSES_CORE_MATRIX_TILES_H_
