"""FP8 GEMM, as TileLang's examples/gemm_fp8/example_tilelang_gemm_fp8.py writes it: the eager
@tilelang.jit form (sizes by T.const, C made by T.empty), float8_e4m3 A (M, K) and B (N, K)
staged in shared memory, T.gemm(transpose_B=True) accumulating in float32; C is float32 here
(TileLang's example rounds it back to fp8). numpy has no fp8 arrays, so on the CPU the operands
are stored as float32 holding fp8-exact values (storage_dtype) and T.copy converts them into
the fp8 shared tiles, exactly; with torch they are float8_e4m3fn tensors.
Run it: python3 python/examples/tilelang/gemm_fp8.py"""

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def matmul(A, B, block_M, block_N, block_K, dtype=T.float8_e4m3fn, storage_dtype=None,
           accum_dtype=T.float32, out_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    storage_dtype = storage_dtype or dtype

    A: T.Tensor((M, K), storage_dtype)
    B: T.Tensor((N, K), storage_dtype)
    C = T.empty((M, N), out_dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_N, block_K), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[bx * block_N, k * block_K], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=True)

        T.copy(C_local, C[by * block_M, bx * block_N])

    return C


def ref_program(A, B):
    return A @ B.T


SHAPES = {"default": dict(M=256, N=256, K=128), "ragged": dict(M=200, N=130, K=70)}


def run(M, N, K, framework="numpy", dtype="float8_e4m3fn"):
    """Runs the kernel on fresh fp8-exact inputs; the largest error against float64."""
    inputs = Inputs(framework)
    storage = dtype if framework == "torch" else "float32"
    # Integers of at most 4 significant bits (|k| <= 16) are exact in e4m3 and e5m2.
    a = inputs.integers((M, K), storage, low=-16, high=17)
    b = inputs.integers((N, K), storage, low=-16, high=17)
    c = matmul(a, b, 128, 128, 64, dtype, storage)
    return check("C", c, ref_program(f64(a), f64(b)), rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
