"""2-D convolution as an implicit GEMM, as TileLang's examples/convolution/example_convolution.py
writes it: the eager @tilelang.jit form, data NHWC (N, H, W, C), kernel (KH, KW, C, F), out
(N, OH, OW, F); the GEMM's rows are the output pixels (N * OH * OW), its columns the filters,
its reduction KH * KW * C. T.im2col gathers each data tile (zero in the padding and past the
sizes); the filter and the output are read and written through flat views
(T.Tensor(shape, dtype, buffer.data)), each bound at the call to its tensor's memory.
Run it: python3 python/examples/tilelang/convolution.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64


@tilelang.jit
def convolution(data, kernel, S, D, P, block_M, block_N, block_K, num_stages, threads,
                dtype=T.float16, accum_dtype=T.float32):
    N, C, H, W, F, K = T.const("N, C, H, W, F, K")
    KH, KW = K, K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    data: T.Tensor((N, H, W, C), dtype)
    kernel: T.Tensor((KH, KW, C, F), dtype)
    out = T.empty((N, OH, OW, F), dtype)

    with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M),
                  threads=threads) as (bx, by):
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
