"""2-D convolution as an implicit GEMM, as TileLang's examples/convolution/example_convolution.py
writes it: the eager @tilelang.jit form, data NHWC (N, H, W, C), weight (KH, KW, C, F), out
(N, OH, OW, F); the GEMM's rows are the output pixels (N * OH * OW), its columns the filters,
its reduction KH * KW * C. TileLang gathers the data tile with T.im2col and reads the weight
and the output through flat views (T.Tensor(shape, dtype, buffer.data)); tile.language has
neither, so the data and weight tiles are gathered by index arithmetic in T.Parallel loads
into shared memory (zero outside the image and past the sizes), and the output tile is
scattered by the same arithmetic. (TileLang names the weight `kernel`, a word the IR's text
form keeps for itself, so it is `weight` here.)
Run it: python3 python/examples/tilelang/convolution.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def convolution(data, weight, S, D, P, block_M, block_N, block_K, num_stages, threads,
                dtype=T.float16, accum_dtype=T.float32):
    N, C, H, W, F, K = T.const("N, C, H, W, F, K")
    KH, KW = K, K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    data: T.Tensor((N, H, W, C), dtype)
    weight: T.Tensor((KH, KW, C, F), dtype)
    out = T.empty((N, OH, OW, F), dtype)

    with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M),
                  threads=threads) as (bx, by):
        data_shared = T.alloc_shared((block_M, block_K), dtype)
        weight_shared = T.alloc_shared((block_K, block_N), dtype)
        out_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        out_shared = T.alloc_shared((block_M, block_N), dtype)

        T.clear(out_local)
        for k_iter in T.Pipelined(T.ceildiv(KH * KW * C, block_K), num_stages=num_stages):
            # im2col: row m is output pixel (n, oh, ow), column k is tap (kh, kw, c).
            for i, j in T.Parallel(block_M, block_K):
                m = by * block_M + i
                k = k_iter * block_K + j
                n, oh, ow = m // (OH * OW), m // OW % OH, m % OW
                kh, kw, c = k // (KW * C), k // C % KW, k % C
                h, w = oh * S + kh * D - P, ow * S + kw * D - P
                inside = ((m < N * OH * OW) & (k < KH * KW * C) & (h >= 0) & (h < H) & (w >= 0)
                          & (w < W))
                data_shared[i, j] = T.if_then_else(inside, data[n, h, w, c], 0)
            for j, f in T.Parallel(block_K, block_N):
                k = k_iter * block_K + j
                kh, kw, c = k // (KW * C), k // C % KW, k % C
                inside = (k < KH * KW * C) & (bx * block_N + f < F)
                weight_shared[j, f] = T.if_then_else(inside, weight[kh, kw, c, bx * block_N + f], 0)
            T.gemm(data_shared, weight_shared, out_local)

        T.copy(out_local, out_shared)
        for i, f in T.Parallel(block_M, block_N):
            m = by * block_M + i
            if m < N * OH * OW and bx * block_N + f < F:
                out[m // (OH * OW), m // OW % OH, m % OW, bx * block_N + f] = out_shared[i, f]

    return out


def ref_program(stride, padding, dilation):
    """out[n, oh, ow, f] = sum over kh, kw, c of data[n, h, w, c] * weight[kh, kw, c, f]."""

    def main(A, B):
        KH, KW = B.shape[:2]
        N, H, W, _ = A.shape
        OH = (H + 2 * padding - dilation * (KH - 1) - 1) // stride + 1
        OW = (W + 2 * padding - dilation * (KW - 1) - 1) // stride + 1
        padded = np.pad(A, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
        out = np.zeros((N, OH, OW, B.shape[3]))
        for kh in range(KH):
            for kw in range(KW):
                h0, w0 = kh * dilation, kw * dilation
                window = padded[:, h0:h0 + stride * (OH - 1) + 1:stride,
                                w0:w0 + stride * (OW - 1) + 1:stride, :]
                out += window @ B[kh, kw]
        return out

    return main


SHAPES = {"default": dict(N=2, C=32, H=16, W=16, F=64, K=3, S=1, D=1, P=1),
          "ragged": dict(N=3, C=13, H=11, W=9, F=21, K=3, S=2, D=2, P=1)}


def run(N, C, H, W, F, K, S, D, P, framework="numpy"):
    """Runs the kernel on fresh inputs; the largest error against float64."""
    inputs = Inputs(framework)
    a, b = inputs.randn((N, H, W, C), "float16"), inputs.randn((K, K, C, F), "float16")
    out = convolution(a, b, S, D, P, 64, 64, 32, num_stages=2, threads=128)
    return check("out", out, ref_program(S, P, D)(f64(a), f64(b)), rtol=1e-2, atol=5e-2)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
