"""TileLang's LayerNorm forward and backward (examples/norm/layernorm.py) in tile.language.

Forward: a block normalizes blk_m rows of X (N x D, bfloat16) held in shared memory, in float32
fragments, and writes Y, the rows' Mean and Rstd. Backward: a block walks blk_m rows one at a
time, computes DX, and accumulates its rows' share of DGamma and DBeta in two fragments of
width D, which it adds into the float32 outputs with atomics (the caller zeroes them).

At D = 1 the backward's last loop has one iteration, which simplify removes: the atomic adds
then sit outside any parallel loop, where thread-binding used to let every one of the block's
256 threads add (DBeta came out 256 times too large on sm_90a). They run once now, on the
thread holding the element they add. The checks run D = 1 on the CPU here and on the GPU
(bench/python_call/torch_on_gpu.py).
Run it: python3 python/examples/layernorm.py"""

import numpy as np

import tile.language as T


def layernorm_fwd(N, D, eps=1e-5, blk_m=1, threads=256, in_dtype="bfloat16",
                  out_dtype="bfloat16"):
    accum_dtype = "float32"

    @T.prim_func(name="layernorm_fwd")
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
                X_local[i, j] = T.cast(X_smem[i, j], accum_dtype)
            for i, j in T.Parallel(blk_m, D):
                X_sq_local[i, j] = X_local[i, j] * X_local[i, j]
            T.reduce_sum(X_local, sum_row, dim=1)
            T.reduce_sum(X_sq_local, sumsq_row, dim=1)
            inv_D = 1.0 / D
            for i in T.Parallel(blk_m):
                mean_row[i] = sum_row[i] * inv_D
                rstd_row[i] = T.rsqrt(sumsq_row[i] * inv_D - mean_row[i] * mean_row[i] + eps)
                Mean[bx * blk_m + i] = mean_row[i]
                Rstd[bx * blk_m + i] = rstd_row[i]
            for i, j in T.Parallel(blk_m, D):
                norm = (X_local[i, j] - mean_row[i]) * rstd_row[i]
                X_smem[i, j] = T.cast(norm * T.cast(G_smem[j], accum_dtype) +
                                      T.cast(B_smem[j], accum_dtype), out_dtype)
            T.copy(X_smem, Y[bx * blk_m, 0])

    return main


def layernorm_bwd(N, D, blk_m=32, threads=256, in_dtype="bfloat16"):
    accum_dtype = "float32"

    @T.prim_func(name="layernorm_bwd")
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
            inv_D = 1.0 / D
            for k in T.serial(blk_m):
                # TileLang reads past N in the last block; rows beyond it are skipped here.
                row = bx * blk_m + k
                with T.If(row < N):
                    T.copy(DY[row, 0], DY_smem)
                    T.copy(X[row, 0], X_smem)
                    m_v = Mean[row]
                    r_v = Rstd[row]
                    for i, j in T.Parallel(1, D):
                        xv = T.cast(X_smem[i, j], accum_dtype)
                        dy_v = T.cast(DY_smem[i, j], accum_dtype)
                        g_v = T.cast(G_smem[j], accum_dtype)
                        x_hat[i, j] = (xv - m_v) * r_v
                        dx_hat[i, j] = dy_v * g_v
                        dx_hat_x_hat[i, j] = dx_hat[i, j] * x_hat[i, j]
                    T.reduce_sum(dx_hat, sum_dx_hat, dim=1)
                    T.reduce_sum(dx_hat_x_hat, sum_dx_hat_x_hat, dim=1)
                    for i, j in T.Parallel(1, D):
                        c1 = sum_dx_hat_x_hat[0] * inv_D
                        c2 = sum_dx_hat[0] * inv_D
                        dx_v = r_v * (dx_hat[i, j] - c2 - x_hat[i, j] * c1)
                        DX_smem[i, j] = T.cast(dx_v, in_dtype)
                        dy_v = T.cast(DY_smem[i, j], accum_dtype)
                        dgamma_acc[j] += dy_v * x_hat[i, j]
                        dbeta_acc[j] += dy_v
                    T.copy(DX_smem, DX[row, 0])
            for j in T.Parallel(D):
                T.atomic_add(DGamma[j], dgamma_acc[j])
                T.atomic_add(DBeta[j], dbeta_acc[j])

    return main


def reference(x, gamma, beta, dy, eps=1e-5):
    """float64 LayerNorm forward and backward: y, mean, rstd, dx, dgamma, dbeta."""
    x, gamma, beta, dy = (np.asarray(a, np.float64) for a in (x, gamma, beta, dy))
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(x.var(axis=1) + eps)
    x_hat = (x - mean[:, None]) * rstd[:, None]
    y = x_hat * gamma + beta
    dx_hat = dy * gamma
    D = x.shape[1]
    dx = rstd[:, None] * (dx_hat - dx_hat.mean(axis=1, keepdims=True) -
                          x_hat * (dx_hat * x_hat).sum(axis=1, keepdims=True) / D)
    return y, mean, rstd, dx, (dy * x_hat).sum(axis=0), dy.sum(axis=0)


def bf16(a):
    """a rounded to bfloat16's values (round to nearest even), kept as float32."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def main(N=300, D=129, seed=0, target="cpu"):
    """Runs both kernels on the CPU with the outputs poisoned and returns the largest error of
    each output against float64 numpy. bfloat16 travels as float32 values rounded to it:
    numpy has no bfloat16, so the kernels are built for float32 inputs here."""
    rng = np.random.default_rng(seed)
    x = bf16(rng.standard_normal((N, D)))
    gamma, beta = bf16(rng.standard_normal(D)), bf16(rng.standard_normal(D))
    dy = bf16(rng.standard_normal((N, D)))
    fwd = layernorm_fwd(N, D, in_dtype="float32", out_dtype="float32").compile(target)
    bwd = layernorm_bwd(N, D, in_dtype="float32").compile(target)
    y = np.full((N, D), np.nan, np.float32)
    mean, rstd = np.full(N, np.nan, np.float32), np.full(N, np.nan, np.float32)
    fwd(x, gamma, beta, y, mean, rstd)
    dx = np.full((N, D), np.nan, np.float32)
    dgamma, dbeta = np.zeros(D, np.float32), np.zeros(D, np.float32)
    bwd(dy, x, gamma, mean, rstd, dx, dgamma, dbeta)
    expected = reference(x, gamma, beta, dy)
    errors = {}
    for name, got, want in zip(("y", "mean", "rstd", "dx", "dgamma", "dbeta"),
                               (y, mean, rstd, dx, dgamma, dbeta), expected):
        errors[name] = float(np.max(np.abs(got - want) / (1.0 + np.abs(want))))
    return errors


if __name__ == "__main__":
    for shape in ((300, 129), (32, 1)):
        errors = main(*shape)
        print(f"layernorm {shape[0]}x{shape[1]} on the CPU, error against float64 numpy: " +
              ", ".join(f"{k} {v:.2g}" for k, v in errors.items()))
