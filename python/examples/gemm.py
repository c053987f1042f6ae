"""TileLang's GEMM example in tile.language: C = A @ B in tiles of
block_M x block_N, K streamed through shared memory in a pipelined loop,
accumulated in a float32 fragment. Run it: python3 python/examples/gemm.py"""

import numpy as np

import tile.language as T


def matmul(block_M=128, block_N=128, block_K=64, dtype="float16", accum_dtype="float32",
           num_stages=3, threads=128, name="gemm", out_dtype=None, shape=None):
    """out_dtype: C's type (the accumulators' when None, else rounded to it in the store);
    shape: (M, N, K) as constants, else symbolic dims."""
    M, N, K = shape or (T.symbolic("M"), T.symbolic("N"), T.symbolic("K"))

    @T.prim_func(name=name)
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), out_dtype or accum_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            T.use_swizzle(panel_size=8)
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            C_l = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return gemm


def main(M=257, N=191, K=97, seed=0):
    """Runs the kernel on the CPU at shapes that do not divide its tiles, with C poisoned,
    and returns the largest error against numpy in float64."""
    kernel = matmul()
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float32)
    kernel(a, b, c)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, reference, rtol=1e-3, atol=1e-3)
    return float(np.max(np.abs(c - reference)))


if __name__ == "__main__":
    print(f"gemm 257x191x97 on the CPU: max error {main():.3g} against float64 numpy")
