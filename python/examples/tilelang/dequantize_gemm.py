"""Weight-only quantized GEMM, C = A @ dequant(B).T, in the tile-level form of TileLang's
examples/dequantize_gemm (example_dequant_gemm_w4a8.py's T.Parallel dequantization,
example_dequant_gemm_fine_grained.py's dequantized shared tile before T.gemm): A is float16
(M, K); B is int8 (N, K) with one float16 scale per row and group of group_size columns
(Scale (N, ceil(K / group_size))); TileLang's examples pack int4 pairs in uint8 and unpack them
with >> and &, which tile.language's operators do not take yet, hence int8. Each K-step
stages B's tile and its scales in shared memory, dequantizes in a fragment (B * scale, in
T.Parallel), stores the float16 tile to shared memory and runs T.gemm(transpose_B=True)
accumulating in float32.
Run it: python3 python/examples/tilelang/dequantize_gemm.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, group_size, in_dtype=T.float16,
           out_dtype=T.float16, accum_dtype=T.float32, num_stages=2, threads=128):
    storage_dtype = T.int8
    assert block_K % group_size == 0, "a K-step covers whole scale groups"
    groups_per_block = block_K // group_size
    A_shape = (M, K)
    B_shape = (N, K)
    Scale_shape = (N, T.ceildiv(K, group_size))

    @T.prim_func
    def main(A: T.Tensor(A_shape, in_dtype), B: T.Tensor(B_shape, storage_dtype),
             Scale: T.Tensor(Scale_shape, in_dtype), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K), storage_dtype)
            Scale_shared = T.alloc_shared((block_N, groups_per_block), in_dtype)
            B_local = T.alloc_fragment((block_N, block_K), storage_dtype)
            B_dequantize_local = T.alloc_fragment((block_N, block_K), in_dtype)
            B_dequantize_shared = T.alloc_shared((block_N, block_K), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.copy(Scale[bx * block_N, k * groups_per_block], Scale_shared)
                T.copy(B_shared, B_local)
                for i, j in T.Parallel(block_N, block_K):  # TileLang: B_local[i, j].astype(...)
                    B_dequantize_local[i, j] = (T.cast(B_local[i, j], in_dtype)
                                                * Scale_shared[i, j // group_size])
                T.copy(B_dequantize_local, B_dequantize_shared)
                T.gemm(A_shared, B_dequantize_shared, C_local, transpose_B=True)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, qB, Scale, group_size):
    B = qB * np.repeat(Scale, group_size, axis=1)[:, :qB.shape[1]]
    return A @ B.T


SHAPES = {"default": dict(M=256, N=256, K=256), "ragged": dict(M=200, N=130, K=170)}


def run(M, N, K, framework="numpy", group_size=32):
    """Runs the kernel on fresh int8 weights and scales; the largest error against float64."""
    inputs = Inputs(framework)
    a = inputs.randn((M, K), "float16")
    qb = inputs.integers((N, K), "int8", low=-127, high=128)
    scale = inputs.uniform((N, -(-K // group_size)), "float16", low=0.001, high=0.02)
    kernel = matmul(M, N, K, 128, 128, 64, group_size)
    c = kernel(a, qb, scale)
    return check("C", c, ref_program(f64(a), f64(qb), f64(scale), group_size), rtol=1e-2,
                 atol=5e-2)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
