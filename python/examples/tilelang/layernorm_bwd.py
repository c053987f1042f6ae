"""LayerNorm backward, as TileLang's examples/norm/layernorm.py writes _layernorm_bwd: a
@tilelang.jit(out_idx=[-3]) factory whose blocks walk blk_m rows one at a time, compute DX (made
by the call) and accumulate their rows' share of DGamma and DBeta in two fragments of width D,
added into the float32 outputs with atomics (the caller zeroes them, as TileLang's autograd
function does). TileLang asserts N % blk_m == 0; here a Python `if` skips the last block's rows
past N instead. python/examples/layernorm.py is the same kernel written with `with T.If`.
Run it: python3 python/examples/tilelang/layernorm_bwd.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit(out_idx=[-3])
def layernorm_bwd(N, D, blk_m=32, threads=256, in_dtype="bfloat16"):
    accum_dtype = "float"

    @T.prim_func
    def main(DY: T.Tensor((N, D), in_dtype), X: T.Tensor((N, D), in_dtype),
             gamma: T.Tensor((D,), in_dtype), Mean: T.Tensor((N,), accum_dtype),
             Rstd: T.Tensor((N,), accum_dtype), DX: T.Tensor((N, D), in_dtype),
             DGamma: T.Tensor((D,), accum_dtype), DBeta: T.Tensor((D,), accum_dtype)):
        with T.Kernel(T.ceildiv(N, blk_m), threads=threads) as bx:
            DY_smem = T.alloc_shared((1, D), in_dtype)
            X_smem = T.alloc_shared((1, D), in_dtype)
            G_smem = T.alloc_shared((D,), in_dtype)
            DX_smem = T.alloc_shared((1, D), in_dtype)

            x_hat = T.alloc_fragment((1, D), accum_dtype)
            dx_hat = T.alloc_fragment((1, D), accum_dtype)
            dx_hat_x_hat = T.alloc_fragment((1, D), accum_dtype)
            sum_dx_hat = T.alloc_fragment((1,), accum_dtype)
            sum_dx_hat_x_hat = T.alloc_fragment((1,), accum_dtype)
            dgamma_acc = T.alloc_fragment((D,), accum_dtype)
            dbeta_acc = T.alloc_fragment((D,), accum_dtype)

            T.copy(gamma, G_smem)
            T.clear(dgamma_acc)
            T.clear(dbeta_acc)

            inv_D = T.float32(1.0) / T.Cast(accum_dtype, D)

            for k in T.serial(blk_m):
                row = bx * blk_m + k
                if row < N:
                    T.copy(DY[row, 0], DY_smem)
                    T.copy(X[row, 0], X_smem)
                    m_v = Mean[row]
                    r_v = Rstd[row]

                    for i, j in T.Parallel(1, D):
                        xv = T.Cast(accum_dtype, X_smem[i, j])
                        dy_v = T.Cast(accum_dtype, DY_smem[i, j])
                        g_v = T.Cast(accum_dtype, G_smem[j])
                        x_hat[i, j] = (xv - m_v) * r_v
                        dx_hat[i, j] = dy_v * g_v
                        dx_hat_x_hat[i, j] = dx_hat[i, j] * x_hat[i, j]

                    T.reduce_sum(dx_hat, sum_dx_hat, dim=1)
                    T.reduce_sum(dx_hat_x_hat, sum_dx_hat_x_hat, dim=1)

                    for i, j in T.Parallel(1, D):
                        c1 = sum_dx_hat_x_hat[0] * inv_D
                        c2 = sum_dx_hat[0] * inv_D
                        dx_v = r_v * (dx_hat[i, j] - c2 - x_hat[i, j] * c1)
                        DX_smem[i, j] = T.Cast(in_dtype, dx_v)
                        dy_v = T.Cast(accum_dtype, DY_smem[i, j])
                        dgamma_acc[j] += dy_v * x_hat[i, j]
                        dbeta_acc[j] += dy_v

                    T.copy(DX_smem, DX[row, 0])

            for j in T.Parallel(D):
                T.atomic_add(DGamma[j], dgamma_acc[j], memory_order="relaxed")
                T.atomic_add(DBeta[j], dbeta_acc[j], memory_order="relaxed")

    return main


def ref_program(dy, x, gamma, mean, rstd):
    """float64 LayerNorm backward from the forward's Mean and Rstd: DX, DGamma, DBeta."""
    x_hat = (x - mean[:, None]) * rstd[:, None]
    dx_hat = dy * gamma
    dx = rstd[:, None] * (dx_hat - dx_hat.mean(axis=1, keepdims=True) -
                          x_hat * (dx_hat * x_hat).mean(axis=1, keepdims=True))
    return dx, (dy * x_hat).sum(axis=0), dy.sum(axis=0)


# N = 45 leaves the second block 13 rows of 32. At one column x_hat is 0, so DX and DGamma are 0
# and DBeta is DY's column sum (where the atomics once added 256 times on sm_90a).
SHAPES = {"default": dict(N=256, D=384), "ragged": dict(N=45, D=1)}


def run(N, D, framework="numpy", dtype="float16", eps=1e-5):
    """Runs the kernel on fresh inputs and the float64 forward's Mean and Rstd (TileLang's
    bfloat16 where the framework has it: pass dtype="bfloat16" with torch); the largest error
    against float64."""
    inputs = Inputs(framework)
    dy, x = inputs.randn((N, D), dtype), inputs.randn((N, D), dtype)
    gamma = inputs.randn((D,), dtype)
    x64 = f64(x)
    mean64, rstd64 = x64.mean(axis=1), 1.0 / np.sqrt(x64.var(axis=1) + eps)
    mean = inputs._place(mean64, "float32")  # pylint: disable=protected-access
    rstd = inputs._place(rstd64, "float32")  # pylint: disable=protected-access
    dgamma, dbeta = inputs.zeros((D,), "float32"), inputs.zeros((D,), "float32")
    kernel = layernorm_bwd(N, D, in_dtype=dtype)
    dx = kernel(dy, x, gamma, mean, rstd, dgamma, dbeta)
    want_dx, want_dgamma, want_dbeta = ref_program(f64(dy), x64, f64(gamma), f64(mean),
                                                   f64(rstd))
    return max(check("DX", dx, want_dx, rtol=1e-2, atol=5e-2),
               check("DGamma", dgamma, want_dgamma, rtol=1e-3, atol=1e-3),
               check("DBeta", dbeta, want_dbeta, rtol=1e-3, atol=1e-3))


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
