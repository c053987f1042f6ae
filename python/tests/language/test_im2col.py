"""T.im2col as TileLang's convolution uses it (filter and output read through views), on the
CPU against a float64 convolution, at TileLang's padding, strides and dilations and a ragged
batch."""

import numpy as np
import pytest

import tile as tilelang
import tile.language as T

RNG = np.random.default_rng(5)


@tilelang.jit(target="cpu")
def convolution(data, kernel, S, D, P, block_M, block_N, block_K, num_stages, threads,
                dtype=T.float32, accum_dtype=T.float32):
    N, C, H, W, F, K = T.const("N, C, H, W, F, K")
    KH, KW = K, K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1
    data: T.Tensor((N, H, W, C), dtype)
    kernel: T.Tensor((KH, KW, C, F), dtype)
    out = T.empty((N, OH, OW, F), dtype)

    with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M), threads=threads) as (
            bx, by):
        data_shared = T.alloc_shared((block_M, block_K), dtype)
        kernel_shared = T.alloc_shared((block_K, block_N), dtype)
        out_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        out_shared = T.alloc_shared((block_M, block_N), dtype)
        kernel_flat = T.Tensor((KH * KW * C, F), dtype, kernel.data)
        out_flat = T.Tensor((N * OH * OW, F), dtype, out.data)
        T.clear(out_local)
        for k_iter in T.Pipelined(T.ceildiv(KH * KW * C, block_K), num_stages=num_stages):
            T.im2col(data, data_shared, by, k_iter, KH, S, D, P)
            T.copy(kernel_flat[k_iter * block_K, bx * block_N], kernel_shared)
            T.gemm(data_shared, kernel_shared, out_local)
        T.copy(out_local, out_shared)
        T.copy(out_shared, out_flat[by * block_M, bx * block_N])
    return out


def reference(a, b, stride, pad, dilation):
    """NHWC image, (KH, KW, C, F) filter, in float64."""
    n, h, w, _ = a.shape
    kh, kw, _, f = b.shape
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    padded = np.zeros((n, h + 2 * pad, w + 2 * pad, a.shape[3]))
    padded[:, pad:pad + h, pad:pad + w] = a
    out = np.zeros((n, oh, ow, f))
    for i in range(kh):
        for j in range(kw):
            patch = padded[:, i * dilation:i * dilation + stride * oh:stride,
                           j * dilation:j * dilation + stride * ow:stride]
            out += patch @ b[i, j].astype(np.float64)
    return out


@pytest.mark.parametrize("n, c, h, w, f, k, s, d, p", [
    (2, 8, 9, 9, 16, 3, 1, 1, 1),   # TileLang's defaults, scaled down
    (3, 5, 11, 7, 21, 3, 2, 1, 1),  # ragged everything, stride 2
    (1, 4, 10, 10, 8, 2, 1, 2, 0),  # dilation, no padding
])
def test_convolution_through_im2col_and_views(n, c, h, w, f, k, s, d, p):
    a = RNG.standard_normal((n, h, w, c)).astype(np.float32)
    b = RNG.standard_normal((k, k, c, f)).astype(np.float32)
    out = convolution(a, b, s, d, p, 16, 16, 16, 2, 128)
    np.testing.assert_allclose(out.astype(np.float64), reference(a, b, s, p, d), rtol=1e-4,
                               atol=1e-4)


def test_im2col_refuses_what_it_cannot_mean():
    with pytest.raises(TypeError, match=r"T.im2col: img is a 4-D \(N, H, W, C\) buffer"):
        @T.prim_func
        def k(A: T.Tensor((8, 8), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                S = T.alloc_shared((4, 4), "float32")
                T.im2col(A, S, 0, 0, 3, 1, 1, 1)
