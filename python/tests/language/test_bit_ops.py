"""Integer bit operations (& | ^ ~ << >>), T.reinterpret and T.atomic_max / T.atomic_min on
small kernels run on the CPU against numpy, and what each writes into the IR."""

import numpy as np
import pytest

import tile.language as T

N = T.symbolic("N")


def shl(a, b, bits):
    """The IR's shift: the amount modulo the width, the result wrapped to the type."""
    return a << (b & (bits - 1))


def test_bitwise_operators_on_signed_and_unsigned_integers():
    @T.prim_func
    def bits(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32"),
             U: T.Tensor((N,), "uint8"), S: T.Tensor((N,), "int8"),
             OUT: T.Tensor((N, 6), "int32"), UOUT: T.Tensor((N, 4), "uint8"),
             SOUT: T.Tensor((N, 2), "int8")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i in T.Parallel(32):
                n = bx * 32 + i
                with T.If(n < N):
                    OUT[n, 0] = A[n] & B[n]
                    OUT[n, 1] = A[n] | 0xF0
                    OUT[n, 2] = A[n] ^ B[n]
                    OUT[n, 3] = ~A[n]
                    OUT[n, 4] = A[n] << (B[n] & 31)
                    OUT[n, 5] = A[n] >> 3
                    UOUT[n, 0] = U[n] >> 3  # logical: u8 is unsigned
                    UOUT[n, 1] = U[n] << 2
                    UOUT[n, 2] = ~U[n]
                    UOUT[n, 3] = 0x0F & U[n]
                    SOUT[n, 0] = S[n] >> 2  # arithmetic
                    SOUT[n, 1] = S[n] << 3

    rng = np.random.default_rng(11)
    n = 70
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    u = rng.integers(0, 256, n, dtype=np.int64).astype(np.uint8)
    s = rng.integers(-128, 128, n, dtype=np.int64).astype(np.int8)
    out = np.zeros((n, 6), np.int32)
    uout = np.zeros((n, 4), np.uint8)
    sout = np.zeros((n, 2), np.int8)
    bits(a, b, u, s, out, uout, sout)
    np.testing.assert_array_equal(out[:, 0], a & b)
    np.testing.assert_array_equal(out[:, 1], a | 0xF0)
    np.testing.assert_array_equal(out[:, 2], a ^ b)
    np.testing.assert_array_equal(out[:, 3], ~a)
    np.testing.assert_array_equal(out[:, 4], (a.astype(np.int64) << (b & 31)).astype(np.int32))
    np.testing.assert_array_equal(out[:, 5], a >> 3)
    np.testing.assert_array_equal(uout[:, 0], u >> 3)
    np.testing.assert_array_equal(uout[:, 1], (u.astype(np.int64) << 2).astype(np.uint8))
    np.testing.assert_array_equal(uout[:, 2], ~u)
    np.testing.assert_array_equal(uout[:, 3], u & 0x0F)
    np.testing.assert_array_equal(sout[:, 0], s >> 2)
    np.testing.assert_array_equal(sout[:, 1], (s.astype(np.int64) << 3).astype(np.int8))
    ir = bits.compile().ir()
    assert ir.startswith("ir_version 5;")
    assert "= A[bx * 32 + i] & B[bx * 32 + i];" in ir
    assert "= A[bx * 32 + i] ^ -1;" in ir  # ~a: the IR has no bitwise-not node


def test_shift_amounts_wrap_modulo_the_width():
    @T.prim_func
    def shifts(A: T.Tensor((8,), "int32"), B: T.Tensor((8,), "int32"),
               OUT: T.Tensor((8, 2), "int32")):
        with T.Kernel(1, threads=8) as bx:
            for i in T.Parallel(8):
                OUT[i, 0] = A[i] << B[i]
                OUT[i, 1] = A[i] >> B[i]

    a = np.array([1, -1, 5, -100, 7, 2**30, -2**31, 123], np.int32)
    b = np.array([0, 1, 31, 32, 33, 63, -1, 4], np.int32)
    out = np.zeros((8, 2), np.int32)
    shifts(a, b, out)
    np.testing.assert_array_equal(out[:, 0], shl(a.astype(np.int64), b, 32).astype(np.int32))
    np.testing.assert_array_equal(out[:, 1], a >> (b & 31))


def test_conditions_keep_their_logical_and_or_not():
    @T.prim_func
    def mask(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i in T.Parallel(32):
                n = bx * 32 + i
                with T.If((n < N) & ~(X[n] < 0.0) | (n == 0)):
                    Y[n] = 1.0

    x = np.linspace(-1, 1, 40).astype(np.float32)
    y = np.zeros(40, np.float32)
    mask(x, y)
    expected = ((x >= 0) | (np.arange(40) == 0)).astype(np.float32)
    np.testing.assert_array_equal(y, expected)
    assert "&&" in mask.compile().ir() and "||" in mask.compile().ir()


def test_reinterpret_reads_the_bits():
    @T.prim_func
    def exponent(X: T.Tensor((N,), "float32"), E: T.Tensor((N,), "int32"),
                 Y: T.Tensor((N,), "float32"), H: T.Tensor((N,), "float16"),
                 HB: T.Tensor((N,), "int16")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i in T.Parallel(32):
                n = bx * 32 + i
                with T.If(n < N):
                    E[n] = (T.reinterpret(X[n], "int32") >> 23) & 0xFF
                    Y[n] = T.reinterpret(T.reinterpret(X[n], T.int32) | 1, "float32")
                    HB[n] = T.reinterpret(H[n], "int16")

    x = np.array([1.0, 2.0, 0.5, -3.0, 1e-30, 6e4, 0.0, -0.0] * 5, np.float32)
    h = x.astype(np.float16)
    e = np.zeros(40, np.int32)
    y = np.zeros(40, np.float32)
    hb = np.zeros(40, np.int16)
    exponent(x, e, y, h, hb)
    bits = x.view(np.int32)
    np.testing.assert_array_equal(e, (bits >> 23) & 0xFF)
    np.testing.assert_array_equal(y.view(np.int32), bits | 1)
    np.testing.assert_array_equal(hb, h.view(np.int16))
    assert "reinterpret<i32>(X[" in exponent.compile().ir()


def test_reinterpret_refuses_another_width_by_name():
    with pytest.raises(TypeError, match=r"T.reinterpret: f32 has 32 bits and f16 16"):
        @T.prim_func
        def bad(X: T.Tensor((4,), "float32"), Y: T.Tensor((4,), "float16")):
            with T.Kernel(1, threads=4) as bx:
                for i in T.Parallel(4):
                    Y[i] = T.reinterpret(X[i], "float16")


def test_bitwise_operators_refuse_floats():
    with pytest.raises(TypeError, match=r"'<<': on f32: bitwise operators take integers"):
        @T.prim_func
        def bad(X: T.Tensor((4,), "float32")):
            with T.Kernel(1, threads=4) as bx:
                for i in T.Parallel(4):
                    X[i] = X[i] << 1


def test_atomic_max_and_min_of_elements():
    @T.prim_func
    def extremes(X: T.Tensor((N,), "float32"), I: T.Tensor((N,), "int32"),
                 M: T.Tensor((2,), "float32"), K: T.Tensor((2,), "int32")):
        with T.Kernel(T.ceildiv(N, 16), threads=16) as bx:
            for i in T.Parallel(16):
                n = bx * 16 + i
                with T.If(n < N):
                    T.atomic_max(M[0], X[n])
                    T.atomic_min(M[1], X[n])
                    T.atomic_max(K[0], I[n], memory_order="relaxed")
                    T.atomic_min(K[1], I[n] >> 1)

    rng = np.random.default_rng(5)
    x = rng.standard_normal(100).astype(np.float32)
    ints = rng.integers(-1000, 1000, 100, dtype=np.int64).astype(np.int32)
    m = np.array([-np.inf, np.inf], np.float32)
    k = np.array([-2**31, 2**31 - 1], np.int32)
    extremes(x, ints, m, k)
    assert m[0] == x.max() and m[1] == x.min()
    assert k[0] == ints.max() and k[1] == (ints >> 1).min()
    ir = extremes.compile().ir()
    assert "atomic_max_at(M[0]" in ir and "atomic_min_at(K[1]" in ir


def test_atomic_max_refuses_what_the_ir_lacks_by_name():
    with pytest.raises(NotImplementedError, match=r"T.atomic_max: return_prev"):
        @T.prim_func
        def prev(M: T.Tensor((1,), "float32")):
            with T.Kernel(1, threads=1) as bx:
                T.atomic_max(M[0], 1.0, return_prev=True)
    with pytest.raises(ValueError, match=r"T.atomic_min: the tiles' extents differ: \[16\] "
                                         r"and \[8\]"):
        @T.prim_func
        def tile(X: T.Tensor((16,), "float32"), M: T.Tensor((16,), "float32")):
            with T.Kernel(1, threads=16) as bx:
                T.atomic_min(M[0:16], X[0:8])


def test_atomic_max_and_min_of_tiles():
    # TileLang's tile form: a region and a tile of the same extents, or one value for all.
    @T.prim_func
    def tiles(X: T.Tensor((N, 8), "float32"), M: T.Tensor((4, 8), "float32"),
              L: T.Tensor((8,), "float32")):
        with T.Kernel(T.ceildiv(N, 4), threads=32) as bx:
            S = T.alloc_shared((4, 8), "float32")
            T.copy(X[bx * 4, 0], S)
            T.atomic_max(M, S)
            T.atomic_min(L[0:8], S[0, 0:8])
            T.atomic_max(M[3, 0:8], 100.0)

    rng = np.random.default_rng(9)
    x = rng.standard_normal((36, 8)).astype(np.float32)
    m = np.full((4, 8), -np.inf, np.float32)
    low = np.full(8, np.inf, np.float32)
    tiles(x, m, low)
    want = x.reshape(9, 4, 8).max(axis=0)
    want[3] = 100.0
    np.testing.assert_array_equal(m, want)
    np.testing.assert_array_equal(low, x.reshape(9, 4, 8)[:, 0, :].min(axis=0))
