"""Split-K GEMM, as TileLang's examples/gemm_splitk/example_tilelang_gemm_splitk.py writes it:
the eager @tilelang.jit form with C a parameter (float32, zeroed by the caller), a third grid
axis of split_k blocks each reducing one slice of K into a float32 fragment, and every element
added into C with T.atomic_add inside T.Parallel. TileLang's example takes K divisible by
split_k * block_K; here each slice is a whole number of block_K steps (the last ones read past
K as zeros) and the atomic adds are guarded, so ragged sizes work too.
Run it: python3 python/examples/tilelang/gemm_splitk.py"""

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def matmul(A, B, C, block_M, block_N, block_K, split_k, dtype=T.float16,
           accum_dtype=T.float32, out_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    splitK = T.ceildiv(K, split_k * block_K) * block_K

    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C: T.Tensor((M, N), out_dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k,
                  threads=128) as (bx, by, bz):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(splitK, block_K), num_stages=0):
            T.copy(A[by * block_M, bz * splitK + ko * block_K], A_shared)
            T.copy(B[bz * splitK + ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)

        for i, j in T.Parallel(block_M, block_N):
            if by * block_M + i < M and bx * block_N + j < N:
                T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])


def ref_program(A, B):
    return A @ B


SHAPES = {"default": dict(M=256, N=256, K=256), "ragged": dict(M=200, N=130, K=170)}


def run(M, N, K, framework="numpy", split_k=4):
    """Runs the kernel into a zeroed C; the largest error against float64."""
    inputs = Inputs(framework)
    a, b = inputs.randn((M, K), "float16"), inputs.randn((K, N), "float16")
    c = inputs.zeros((M, N), "float32")
    matmul(a, b, c, 128, 128, 32, split_k)
    return check("C", c, ref_program(f64(a), f64(b)), rtol=1e-3, atol=1e-3)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
