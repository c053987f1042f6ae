"""RMS normalization B = A * rsqrt(mean(A^2, row) + 1e-12), as TileLang's examples/norm/rms_norm.py
writes it, in @tilelang.jit's eager form (T.const sizes, T.empty output): rms_norm holds blk_m
whole rows in a fragment; rms_norm_splitk walks a row in blk_k-wide tiles twice, summing squares
on the first pass and scaling on the second (in reverse, as TileLang's does, for cache reuse).
Run it: python3 python/examples/tilelang/rms_norm.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(pass_configs={"tl.disable_tma_lower": True})
def rms_norm_splitk(A, blk_m, blk_k):
    M, N = T.const("M, N")
    dtype = T.float

    A: T.Tensor((M, N), dtype)
    B = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
        A_shared = T.alloc_shared((blk_m, blk_k), dtype)
        A_local = T.alloc_fragment((blk_m, blk_k), dtype)
        A_powsum = T.alloc_fragment((blk_m,), dtype)

        num_k_step = T.ceildiv(N, blk_k)
        T.clear(A_local)
        for k in T.Serial(num_k_step):
            T.copy(A[bx * blk_m, k * blk_k], A_shared)
            for i, j in T.Parallel(blk_m, blk_k):
                A_local[i, j] += A_shared[i, j] * A_shared[i, j]
        T.reduce_sum(A_local, A_powsum, dim=1)
        for i in T.Parallel(blk_m):
            A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)

        for k in T.Serial(num_k_step):
            T.copy(A[bx * blk_m, (num_k_step - 1 - k) * blk_k], A_shared)
            for i, j in T.Parallel(blk_m, blk_k):
                A_shared[i, j] *= A_powsum[i]
            T.copy(A_shared, B[bx * blk_m, (num_k_step - 1 - k) * blk_k])

    return B


@tilelang.jit(pass_configs={"tl.disable_tma_lower": True})
def rms_norm(A, blk_m):
    M, N = T.const("M, N")
    dtype = T.float

    A: T.Tensor((M, N), dtype)
    B = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
        A_local = T.alloc_fragment((blk_m, N), dtype)
        A_pow_local = T.alloc_fragment((blk_m, N), dtype)
        A_powsum = T.alloc_fragment((blk_m,), dtype)

        T.copy(A[bx * blk_m:(bx + 1) * blk_m, :], A_local)
        for i, j in T.Parallel(blk_m, N):
            A_pow_local[i, j] = A_local[i, j] * A_local[i, j]
        T.reduce_sum(A_pow_local, A_powsum, dim=1)
        for i in T.Parallel(blk_m):
            A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)
        for i, j in T.Parallel(blk_m, N):
            A_local[i, j] *= A_powsum[i]
        T.copy(A_local, B[bx * blk_m:(bx + 1) * blk_m, :])

    return B


def ref_program(x):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-12)


# blk_m = 4 rather than TileLang's 1, so that M can be ragged too. The ragged shape is one row
# of a width blk_k does not divide.
SHAPES = {"default": dict(M=256, N=512), "ragged": dict(M=1, N=300)}


def run(M, N, framework="numpy", blk_m=4, blk_k=128):
    """Runs both kernels on fresh inputs; the largest error against float64."""
    a = Inputs(framework).randn((M, N), "float32")
    want = ref_program(f64(a))
    full = rms_norm(a, blk_m)
    split = rms_norm_splitk(a, blk_m, blk_k)
    return max(check("B (rms_norm)", full, want, rtol=1e-5, atol=1e-5),
               check("B (rms_norm_splitk)", split, want, rtol=1e-5, atol=1e-5))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
