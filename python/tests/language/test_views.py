"""Views of global buffers under another shape (TileLang's `T.Tensor(shape, dtype, buf.data)`,
T.reshape, T.view): each is bound at the call to its base's memory, on the CPU against numpy."""

import numpy as np
import pytest

import tile as tilelang
import tile.language as T

RNG = np.random.default_rng(11)


def test_a_filter_read_as_a_matrix_and_an_output_written_flat():
    # TileLang's convolution: kernel_flat = T.Tensor((KH * KW * C, F), dtype, kernel.data)
    # and out_flat over the T.empty output.
    @tilelang.jit(target="cpu")
    def matvec(weights, x, block=16):
        KH, KW, C, F = T.const("KH, KW, C, F")
        weights: T.Tensor((KH, KW, C, F), T.float32)
        x: T.Tensor((KH * KW * C,), T.float32)
        out = T.empty((F, 1, 1), T.float32)
        with T.Kernel(T.ceildiv(F, block), threads=32) as bx:
            flat = T.Tensor((KH * KW * C, F), T.float32, weights.data)
            out_flat = T.reshape(out, (F,))
            acc = T.alloc_fragment((block,), T.float32)
            T.clear(acc)
            for r in T.serial(KH * KW * C):
                for j in T.Parallel(block):
                    if bx * block + j < F:
                        acc[j] += flat[r, bx * block + j] * x[r]
            for j in T.Parallel(block):
                if bx * block + j < F:
                    out_flat[bx * block + j] = acc[j]
        return out

    w = RNG.standard_normal((3, 3, 5, 37)).astype(np.float32)
    x = RNG.standard_normal(45).astype(np.float32)
    out = matvec(w, x)
    assert out.shape == (37, 1, 1)
    want = w.reshape(45, 37).astype(np.float64).T @ x.astype(np.float64)
    np.testing.assert_allclose(out[:, 0, 0], want, rtol=1e-5, atol=1e-5)
    text = matvec.compile(KH=3, KW=3, C=5, F=37).ir()
    assert "weights_view: f32[45, 37]" in text and "out_view: f32[37]" in text


def test_views_are_refused_where_they_would_be_wrong():
    with pytest.raises(ValueError, match=r"T.reshape: a view of 60 elements of 'A', which has "
                                         r"64"):
        @T.prim_func
        def k1(A: T.Tensor((8, 8), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                T.reshape(A, (6, 10))
    with pytest.raises(NotImplementedError, match=r"T.view: 'S' is a shared buffer: views here "
                                                  r"are of kernel parameters"):
        @T.prim_func
        def k2(A: T.Tensor((8, 8), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                S = T.alloc_shared((8, 8), "float32")
                T.view(S, (64,))
    with pytest.raises(ValueError, match=r"A, A_view are one buffer's memory under two shapes, "
                                         r"and the kernel writes through A_view"):
        @T.prim_func
        def k3(A: T.Tensor((8, 8), "float32")):  # pylint: disable=unused-variable
            with T.Kernel(1, threads=32):
                flat = T.reshape(A, (64,))
                for i in T.Parallel(64):
                    flat[i] = A[i // 8, i % 8] + 1.0


def test_a_view_of_a_non_contiguous_array_is_refused_at_the_call():
    @T.prim_func
    def k(A: T.Tensor((4, 6), "float32"), B: T.Tensor((24,), "float32")):
        with T.Kernel(1, threads=32):
            flat = T.reshape(A, (24,))
            for i in T.Parallel(24):
                B[i] = flat[i] * 2.0

    a = RNG.standard_normal((6, 4)).astype(np.float32).T  # (4, 6), not contiguous
    b = np.full(24, np.nan, np.float32)
    with pytest.raises(ValueError, match=r"view 'A_view': the array of shape \(4, 6\) cannot be "
                                         r"viewed as \(24,\) without a copy"):
        tilelang.compile(k, target="cpu")(a, b)
    a = np.ascontiguousarray(a)
    tilelang.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a.reshape(24) * 2.0)
    with pytest.raises(ValueError, match="views a buffer under another shape; tile.compile"):
        k.compile()
