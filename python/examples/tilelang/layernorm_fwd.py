"""LayerNorm forward, as TileLang's examples/norm/layernorm.py writes _layernorm_fwd: a
@tilelang.jit(out_idx=[-3, -2, -1]) factory whose blocks each normalize blk_m rows of X held in
shared memory, in float32 fragments, and write Y with the rows' Mean and Rstd (all three made by
the call). python/examples/layernorm.py is the same kernel as a plain prim_func.
Run it: python3 python/examples/tilelang/layernorm_fwd.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[-3, -2, -1])
def layernorm_fwd(N, D, eps=1e-5, blk_m=1, threads=256, in_dtype="bfloat16",
                  out_dtype="bfloat16"):
    accum_dtype = "float"

    @T.prim_func
    def main(X: T.Tensor((N, D), in_dtype), gamma: T.Tensor((D,), in_dtype),
             beta: T.Tensor((D,), in_dtype), Y: T.Tensor((N, D), out_dtype),
             Mean: T.Tensor((N,), accum_dtype), Rstd: T.Tensor((N,), accum_dtype)):
        with T.Kernel(T.ceildiv(N, blk_m), threads=threads) as bx:
            X_smem = T.alloc_shared((blk_m, D), in_dtype)
            G_smem = T.alloc_shared((D,), in_dtype)
            B_smem = T.alloc_shared((D,), in_dtype)
            X_local = T.alloc_fragment((blk_m, D), accum_dtype)
            X_sq_local = T.alloc_fragment((blk_m, D), accum_dtype)
            sum_row = T.alloc_fragment((blk_m,), accum_dtype)
            sumsq_row = T.alloc_fragment((blk_m,), accum_dtype)
            mean_row = T.alloc_fragment((blk_m,), accum_dtype)
            rstd_row = T.alloc_fragment((blk_m,), accum_dtype)

            T.copy(X[bx * blk_m, 0], X_smem)
            T.copy(gamma, G_smem)
            T.copy(beta, B_smem)
            for i, j in T.Parallel(blk_m, D):
                X_local[i, j] = T.Cast(accum_dtype, X_smem[i, j])
            for i, j in T.Parallel(blk_m, D):
                X_sq_local[i, j] = X_local[i, j] * X_local[i, j]
            T.reduce_sum(X_local, sum_row, dim=1)
            T.reduce_sum(X_sq_local, sumsq_row, dim=1)

            inv_D = T.float32(1.0) / T.Cast(accum_dtype, D)
            for i in T.Parallel(blk_m):
                mean_row[i] = sum_row[i] * inv_D
                rstd_row[i] = T.rsqrt(sumsq_row[i] * inv_D - mean_row[i] * mean_row[i] +
                                      T.Cast(accum_dtype, eps))
                # Rows past N in the last block are not stored (TileLang's runs blk_m = 1).
                if bx * blk_m + i < N:
                    Mean[bx * blk_m + i] = mean_row[i]
                    Rstd[bx * blk_m + i] = rstd_row[i]

            for i, j in T.Parallel(blk_m, D):
                norm = (X_local[i, j] - mean_row[i]) * rstd_row[i]
                X_smem[i, j] = T.Cast(out_dtype, norm * T.Cast(accum_dtype, G_smem[j]) +
                                      T.Cast(accum_dtype, B_smem[j]))
            T.copy(X_smem, Y[bx * blk_m, 0])

    return main


def ref_program(x, gamma, beta, eps=1e-5):
    """float64 LayerNorm: Y, Mean, Rstd."""
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(x.var(axis=1) + eps)
    return (x - mean[:, None]) * rstd[:, None] * gamma + beta, mean, rstd


# blk_m = 4 rather than TileLang's 1, so that N can be ragged. The ragged shape is one column,
# where every row's variance is 0 and Y is beta.
SHAPES = {"default": dict(N=256, D=512), "ragged": dict(N=37, D=1)}


def run(N, D, framework="numpy", dtype="float16", blk_m=4):
    """Runs the kernel on fresh inputs (TileLang's bfloat16 where the framework has it: pass
    dtype="bfloat16" with torch); the largest error against float64."""
    inputs = Inputs(framework)
    x = inputs.randn((N, D), dtype)
    gamma, beta = inputs.randn((D,), dtype), inputs.randn((D,), dtype)
    kernel = layernorm_fwd(N, D, blk_m=blk_m, in_dtype=dtype, out_dtype=dtype)
    y, mean, rstd = kernel(x, gamma, beta)
    want_y, want_mean, want_rstd = ref_program(f64(x), f64(gamma), f64(beta))
    return max(check("Y", y, want_y, rtol=1e-2, atol=2e-2),
               check("Mean", mean, want_mean, rtol=1e-5, atol=1e-5),
               check("Rstd", rstd, want_rstd, rtol=1e-3, atol=1e-3))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
