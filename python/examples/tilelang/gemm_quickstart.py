"""Tiled GEMM with a ReLU epilogue, as TileLang's quickstart writes it: a @tilelang.jit factory
of the problem and tile sizes whose prim_func stages A and B tiles in shared memory through a
software pipeline and accumulates in a float32 register fragment; out_idx=[-1] makes C an output
the call returns. Run it: python3 python/examples/tilelang/gemm_quickstart.py"""

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype=T.float16,
           accum_dtype=T.float32, num_stages=3):

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, B):
    return (A @ B).clip(min=0)


SHAPES = {"default": dict(M=256, N=256, K=128), "ragged": dict(M=200, N=130, K=70)}


def run(M, N, K, framework="numpy", dtype="float16"):
    """Runs the kernel on fresh inputs; the largest error against float64."""
    inputs = Inputs(framework)
    a, b = inputs.randn((M, K), dtype), inputs.randn((K, N), dtype)
    kernel = matmul(M, N, K, dtype=dtype)
    c = kernel(a, b)
    return check("C", c, ref_program(f64(a), f64(b)), rtol=1e-2, atol=5e-2)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
