"""Row softmax in one pass over the row for its log-sum-exp and one to write Y, as TileLang's
examples/online_softmax/online_softmax.py writes it in @tilelang.jit's eager form: each tile's
max and sum of exp2 fold into a running base-2 log-sum-exp, then Y = exp2(x * log2(e) - lse).
TileLang's reads M and N from module globals and annotates `dtype: T.dtype`; here they are
T.const sizes and dtype is a plain default (tile.language has no T.dtype). TileLang's pads a
ragged last tile with zeros, which join the max and the sum; here the padding is set to -inf
by its column first, so N need not divide BLOCK_N.
Run it: python3 python/examples/tilelang/softmax.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def softmax_kernel(X, BLOCK_M=1, BLOCK_N=8192, dtype=T.float16):
    M, N = T.const("M, N")
    X: T.Tensor([M, N], dtype)
    Y = T.empty([M, N], dtype)

    accum_dtype = T.float32

    scale = 1.44269504  # log2(e)

    with T.Kernel(T.ceildiv(M, BLOCK_M), threads=128) as (i_m):
        x = T.alloc_fragment([BLOCK_M, BLOCK_N], dtype)
        y = T.alloc_fragment([BLOCK_M, BLOCK_N], dtype)
        lse = T.alloc_fragment([BLOCK_M], accum_dtype)
        max_x = T.alloc_fragment([BLOCK_M], dtype)
        exp_x = T.alloc_fragment([BLOCK_M, BLOCK_N], accum_dtype)
        sum_exp_x = T.alloc_fragment([BLOCK_M], accum_dtype)
        T.fill(lse, -T.infinity(accum_dtype))

        for i_n in T.Pipelined(T.ceildiv(N, BLOCK_N)):
            T.copy(X[i_m * BLOCK_M, i_n * BLOCK_N], x)
            for i, j in T.Parallel(BLOCK_M, BLOCK_N):
                x[i, j] = T.if_then_else(i_n * BLOCK_N + j < N, x[i, j], -T.infinity(dtype))
            T.reduce_max(x, max_x, dim=1, clear=True)

            for i, j in T.Parallel(BLOCK_M, BLOCK_N):
                exp_x[i, j] = T.exp2(x[i, j] * scale - max_x[i] * scale)

            T.reduce_sum(exp_x, sum_exp_x, dim=1, clear=True)

            for i in T.Parallel(BLOCK_M):
                lse[i] = max_x[i] * scale + T.log2(T.exp2(lse[i] - max_x[i] * scale) +
                                                   sum_exp_x[i])

        for i_n in T.Pipelined(T.ceildiv(N, BLOCK_N)):
            T.copy(X[i_m * BLOCK_M, i_n * BLOCK_N], x)

            for i, j in T.Parallel(BLOCK_M, BLOCK_N):
                y[i, j] = T.exp2(x[i, j] * scale - lse[i])

            T.copy(y, Y[i_m * BLOCK_M, i_n * BLOCK_N])

    return Y


def ref_program(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# BLOCK_N = 128 rather than TileLang's 8192, so that a row takes several tiles. The ragged shape
# is one row whose last tile holds 44 of 128 columns.
SHAPES = {"default": dict(M=64, N=512), "ragged": dict(M=1, N=300)}


def run(M, N, framework="numpy", dtype="float16", BLOCK_N=128):
    """Runs the kernel on fresh inputs; the largest error against float64."""
    x = Inputs(framework).randn((M, N), dtype, scale=2.0)
    y = softmax_kernel(x, BLOCK_N=BLOCK_N, dtype=dtype)
    return check("Y", y, ref_program(f64(x)), rtol=1e-2, atol=1e-3)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
