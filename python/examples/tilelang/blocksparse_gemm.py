"""Block-sparse GEMM, as TileLang's examples/blocksparse_gemm/example_blocksparse_gemm.py writes
it: the eager @tilelang.jit form, and a bool BlockMask (M tiles, N tiles, K tiles) that says
which block_M x block_K by block_K x block_N products C's tile takes; a Python `if` on the
mask element (made a branch of the kernel) skips the others' copies and T.gemm. numpy's
DLPack export refuses bool arrays, so on the CPU the mask is uint8, and the condition is
written `!= 0` (tile.language takes a bool condition only). The tiles are
staged through C_shared and T.use_swizzle rasterizes the blocks, as TileLang's does. TileLang
sizes the mask by floor division (M // block_M); here by T.ceildiv, so ragged sizes have a
mask entry for their partial tiles. (TileLang's example also wraps the factory in
@tilelang.autotune over 216 configs; gemm_autotune.py shows the tuner.)
Run it: python3 python/examples/tilelang/blocksparse_gemm.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def blocksparse_matmul(A, B, BlockMask, block_M, block_N, block_K, num_stages, thread_num,
                       enable_rasteration, dtype=T.float16, accum_dtype=T.float32,
                       mask_dtype="bool"):
    M, N, K = T.const("M, N, K")
    block_mask_shape = (T.ceildiv(M, block_M), T.ceildiv(N, block_N), T.ceildiv(K, block_K))

    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    BlockMask: T.Tensor(block_mask_shape, mask_dtype)
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        C_shared = T.alloc_shared((block_M, block_N), dtype)

        T.use_swizzle(panel_size=10, enable=enable_rasteration)
        T.clear(C_local)

        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            if BlockMask[by, bx, k] != 0:  # TileLang: `if BlockMask[by, bx, k]:` (bool only)
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

        T.copy(C_local, C_shared)
        T.copy(C_shared, C[by * block_M, bx * block_N])

    return C


def ref_program(A, B, BlockMask, block_M, block_N, block_K):
    """A @ B over the tile products the mask keeps."""
    rows = np.arange(A.shape[0]) // block_M
    keep = BlockMask[:, :, np.arange(A.shape[1]) // block_K]  # (M tiles, N tiles, K)
    C = np.zeros((A.shape[0], B.shape[1]))
    for j in range(BlockMask.shape[1]):
        cols = slice(j * block_N, (j + 1) * block_N)
        C[:, cols] = (A * keep[rows, j, :]) @ B[:, cols]  # A's columns the mask drops are 0
    return C


SHAPES = {"default": dict(M=256, N=256, K=256), "ragged": dict(M=200, N=130, K=170)}


def run(M, N, K, framework="numpy", sparsity=0.5, block_M=64, block_N=64, block_K=32):
    """Runs the kernel with a random mask; the largest error against float64."""
    inputs = Inputs(framework)
    a, b = inputs.randn((M, K), "float16"), inputs.randn((K, N), "float16")
    mask_shape = (-(-M // block_M), -(-N // block_N), -(-K // block_K))
    mask_dtype = "bool" if framework == "torch" else "uint8"
    block_mask = inputs.uniform(mask_shape, "float32", 0.0, 1.0) > sparsity
    if mask_dtype != "bool":
        block_mask = block_mask.astype(mask_dtype)
    c = blocksparse_matmul(a, b, block_mask, block_M, block_N, block_K, num_stages=2,
                           thread_num=128, enable_rasteration=True, mask_dtype=mask_dtype)
    return check("C", c, ref_program(f64(a), f64(b), f64(block_mask) != 0, block_M, block_N,
                                     block_K), rtol=1e-2, atol=5e-2)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
