"""GEMM over input dtypes and transposes, as TileLang's kernel tests write it
(testing/python/kernel/test_tilelang_kernel_gemm.py): a factory of the problem, the tiles,
trans_A / trans_B and the input, output and accumulation dtypes returns a prim_func that
tilelang.compile(program, out_idx=[2]) makes a kernel of. A transposed operand is stored
K-major, staged in shared memory as stored, and T.gemm reads it transposed. The run checks
float16 and bfloat16 inputs with a float32 output, once with B transposed and once with A.
numpy has no bfloat16 arrays, so on the CPU bfloat16 operands are stored as float32 holding
bfloat16 values (storage_dtype) and T.copy converts them into the bfloat16 shared tiles,
exactly; with torch they are bfloat16 tensors.
Run it: python3 python/examples/tilelang/gemm_dtypes.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


def matmul(M, N, K, block_M, block_N, block_K, trans_A, trans_B, in_dtype, out_dtype,
           accum_dtype, num_stages, threads, storage_dtype=None):
    storage_dtype = storage_dtype or in_dtype
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_shared_shape = (block_K, block_M) if trans_A else (block_M, block_K)
    B_shared_shape = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def main(A: T.Tensor(A_shape, storage_dtype), B: T.Tensor(B_shape, storage_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, in_dtype)
            B_shared = T.alloc_shared(B_shared_shape, in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, trans_A, trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, B, trans_A, trans_B):
    return (A.T if trans_A else A) @ (B.T if trans_B else B)


SHAPES = {"default": dict(M=256, N=256, K=128), "ragged": dict(M=200, N=130, K=70)}

# (input dtype, trans_A, trans_B): TileLang's tests run these layouts at each dtype.
CASES = (("float16", False, True), ("bfloat16", True, False))


def _round_to_bfloat16(x):
    """float32 `x` rounded to the nearest bfloat16 (ties to even), kept in float32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)


def run(M, N, K, framework="numpy", dtype=None):
    """Runs each case (or those of input dtype `dtype`) on fresh inputs; the largest error
    against float64."""
    inputs = Inputs(framework)
    error = 0.0
    for in_dtype, trans_A, trans_B in CASES:
        if dtype is not None and in_dtype != dtype:
            continue
        storage = "float32" if framework == "numpy" and in_dtype == "bfloat16" else in_dtype
        program = matmul(M, N, K, 128, 128, 32, trans_A, trans_B, in_dtype, T.float32,
                         T.float32, num_stages=2, threads=128, storage_dtype=storage)
        kernel = tilelang.compile(program, out_idx=[2])
        a = inputs.randn((K, M) if trans_A else (M, K), storage)
        b = inputs.randn((N, K) if trans_B else (K, N), storage)
        if storage != in_dtype:
            a, b = _round_to_bfloat16(a), _round_to_bfloat16(b)
        c = kernel(a, b)
        error = max(error, check(f"C ({in_dtype}, trans_A={trans_A}, trans_B={trans_B})", c,
                                 ref_program(f64(a), f64(b), trans_A, trans_B),
                                 rtol=1e-3, atol=1e-3))
    return error


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
