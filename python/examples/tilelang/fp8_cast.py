"""Per-token (per row and 128-column group) cast to float8_e4m3, as TileLang's
examples/cast/example_per_token_cast_to_fp8.py writes it in @tilelang.jit's eager form: a block
takes blk_m rows of one group, finds each row's absolute max, scales by amax / 448 (amax at
least 1e-4), clamps to [-448, 448] and casts to float8_e4m3fn through a fragment; X_amax holds
the scales. numpy has no float8 arrays, so on the CPU the output dtype is float32 (out_dtype),
holding the float8 fragment's values exactly; torch runs keep TileLang's float8 output.
Run it: python3 python/examples/tilelang/fp8_cast.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def per_token_cast_to_fp8(X, blk_m, out_dtype=T.float8_e4m3fn):
    M, N = T.const("M, N")
    dtype = T.float
    group_size = 128
    fp8_min = -448.0
    fp8_max = 448.0

    X: T.Tensor((M, N), dtype)
    X_fp8 = T.empty((M, N), out_dtype)
    X_amax = T.empty((M, T.ceildiv(N, group_size)), dtype)

    with T.Kernel(T.ceildiv(M, blk_m), T.ceildiv(N, group_size), threads=128) as (bx, by):
        row = bx
        row_g_id = by
        y_local = T.alloc_fragment((blk_m, group_size), dtype)
        y_amax_local = T.alloc_fragment((blk_m,), dtype)
        y_s_local = T.alloc_fragment((blk_m,), dtype)
        y_q_local = T.alloc_fragment((blk_m, group_size), dtype)
        y_q_local_fp8 = T.alloc_fragment((blk_m, group_size), T.float8_e4m3fn)

        T.copy(X[row * blk_m:(row + 1) * blk_m,
                 row_g_id * group_size:(row_g_id + 1) * group_size], y_local)
        T.reduce_absmax(y_local, y_amax_local, dim=1)
        for i in T.Parallel(blk_m):
            y_amax_local[i] = T.max(y_amax_local[i], 1e-4)
            y_s_local[i] = y_amax_local[i] / fp8_max
        for i, j in T.Parallel(blk_m, group_size):
            y_q_local[i, j] = T.clamp(y_local[i, j] / y_s_local[i], fp8_min, fp8_max)
        T.copy(y_q_local, y_q_local_fp8)
        for i in T.Parallel(blk_m):
            X_amax[row * blk_m + i, row_g_id] = y_s_local[i]
        T.copy(y_q_local_fp8, X_fp8[row * blk_m:(row + 1) * blk_m,
                                    row_g_id * group_size:(row_g_id + 1) * group_size])

    return X_fp8, X_amax


def ref_program(x, group_size=128):
    """float64 scales (amax / 448 per row and group) and x / scale before rounding."""
    m, n = x.shape
    groups = -(-n // group_size)
    padded = np.zeros((m, groups * group_size))
    padded[:, :n] = x
    amax = np.abs(padded.reshape(m, groups, group_size)).max(axis=2).clip(min=1e-4)
    scale = amax / 448.0
    return np.repeat(scale, group_size, axis=1)[:, :n], scale


def round_to_e4m3(v):
    """v rounded to the nearest float8_e4m3fn value (ties to even; 3 mantissa bits, normals
    from 2^-6, subnormals in steps of 2^-9)."""
    exponent = np.floor(np.log2(np.maximum(np.abs(v), 2.0**-6)))
    step = 2.0**(exponent - 3)
    return np.clip(np.round(v / step) * step, -448.0, 448.0)


# The ragged shape is one row (of a block of 8) whose second group holds 72 of 128 columns.
SHAPES = {"default": dict(M=64, N=512), "ragged": dict(M=1, N=200)}


def run(M, N, framework="numpy", blk_m=8):
    """Runs the kernel on fresh inputs; the scales' error against float64, after checking that
    X_fp8 holds float8_e4m3 values and that X_fp8 * scale is x within float8's rounding (half a
    step: 2^-4 relative, 2^-10 * scale for subnormals)."""
    x = Inputs(framework).randn((M, N), "float32")
    out_dtype = "float32" if framework == "numpy" else "float8_e4m3fn"
    x_fp8, x_amax = per_token_cast_to_fp8(x, blk_m, out_dtype=out_dtype)
    x64, q = f64(x), f64(x_fp8)
    scale_per_column, scale = ref_program(x64)
    check("X_fp8 (float8_e4m3 values)", q, round_to_e4m3(q), rtol=0, atol=0)
    check("X_fp8 * scale", q * scale_per_column, x64, rtol=2.0**-4,
          atol=2.0**-10 * scale.max())
    return check("X_amax", x_amax, scale, rtol=1e-6, atol=0)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
