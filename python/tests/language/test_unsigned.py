"""TileLang's uint16, uint32 and uint64 (IR version 7) on small kernels run on the CPU against
numpy: the packed-uint32 bit extraction of TileLang's dequantizing GEMMs, C's unsigned
arithmetic (wrap-around, unsigned division, logical shifts, ~), reductions, promotion with the
other integer types, and what the kernels write into the IR."""

import numpy as np
import pytest

import tile.language as T
from tile import _frameworks

N = T.symbolic("N")


def test_nibbles_of_packed_uint32_words():
    """TileLang's dequantize examples: eight 4-bit fields per uint32, the top one by a logical
    shift (an arithmetic one would smear the sign bit into it)."""
    @T.prim_func
    def unpack(B: T.Tensor((N,), "uint32"), OUT: T.Tensor((N, 8), "float32")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i, j in T.Parallel(32, 8):
                n = bx * 32 + i
                with T.If(n < N):
                    OUT[n, j] = T.cast((B[n] >> (j * 4).astype("uint32")) & 0xF, "float32")

    rng = np.random.default_rng(3)
    b = rng.integers(0, 2**32, 70, dtype=np.uint64).astype(np.uint32)
    b[0] = 0xF0000000
    out = np.zeros((70, 8), np.float32)
    unpack(b, out)
    expected = (b[:, None] >> (4 * np.arange(8, dtype=np.uint32))[None, :]) & 0xF
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    ir = unpack.compile().ir()
    assert ir.startswith("ir_version 7;")
    assert "B: u32[N]" in ir


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_unsigned_arithmetic_wraps_and_divides_unsigned(dtype):
    @T.prim_func
    def ops(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), OUT: T.Tensor((N, 8), dtype)):
        with T.Kernel(T.ceildiv(N, 16), threads=16) as bx:
            for i in T.Parallel(16):
                n = bx * 16 + i
                with T.If(n < N):
                    OUT[n, 0] = A[n] + B[n]
                    OUT[n, 1] = A[n] - B[n]
                    OUT[n, 2] = A[n] * B[n]
                    OUT[n, 3] = A[n] // T.max(B[n], 1)
                    OUT[n, 4] = A[n] % T.max(B[n], 1)
                    OUT[n, 5] = A[n] >> 3
                    OUT[n, 6] = ~A[n]
                    OUT[n, 7] = T.if_then_else(A[n] < B[n], A[n], B[n])

    np_dtype = getattr(np, dtype)
    top = np.iinfo(np_dtype).max
    a = np.array([0, 1, 7, top, top // 2 + 1, 12345, top - 5], np_dtype)
    b = np.array([top, 3, 0, 2, top, 100, 1], np_dtype)
    out = np.zeros((7, 8), np_dtype)
    ops(a, b, out)
    with np.errstate(over="ignore"):
        d = np.maximum(b, np_dtype(1))
        np.testing.assert_array_equal(out[:, 0], a + b)
        np.testing.assert_array_equal(out[:, 1], a - b)
        np.testing.assert_array_equal(out[:, 2], a * b)
    np.testing.assert_array_equal(out[:, 3], a // d)
    np.testing.assert_array_equal(out[:, 4], a % d)
    np.testing.assert_array_equal(out[:, 5], a >> np_dtype(3))
    np.testing.assert_array_equal(out[:, 6], ~a)
    np.testing.assert_array_equal(out[:, 7], np.minimum(a, b))


def test_uint64_constants_past_int64_are_exact():
    """2^64 - 1 is no int64: the IR holds it as the bits of -1 reinterpreted."""
    @T.prim_func
    def top(OUT: T.Tensor((2,), "uint64")):
        with T.Kernel(1, threads=1) as bx:
            OUT[0] = T.uint64(2**64 - 1)
            OUT[1] = T.uint64(2**63) >> 1

    out = np.zeros(2, np.uint64)
    top(out)
    assert out[0] == np.uint64(2**64 - 1)
    assert out[1] == np.uint64(2**62)
    assert "reinterpret<u64>(-1_i64)" in top.compile().ir()


def test_bitand_reduction_of_uint32_starts_from_every_bit_set():
    @T.prim_func
    def rows(U: T.Tensor((4, 8), "uint32"), OUT: T.Tensor((4, 2), "uint32")):
        with T.Kernel(1, threads=32) as bx:
            u = T.alloc_fragment((4, 8), "uint32")
            all_ = T.alloc_fragment((4,), "uint32")
            most = T.alloc_fragment((4,), "uint32")
            T.copy(U, u)
            T.reduce_bitand(u, all_, dim=1)
            T.reduce_max(u, most, dim=1)
            for i in T.Parallel(4):
                OUT[i, 0] = all_[i]
                OUT[i, 1] = most[i]

    u = np.full((4, 8), 0xFFFFFFFF, np.uint32)
    u[1, 3] = 0x80000001
    u[2] = np.arange(8, dtype=np.uint32) + 0xF0000000
    out = np.zeros((4, 2), np.uint32)
    rows(u, out)
    np.testing.assert_array_equal(out[:, 0], np.bitwise_and.reduce(u, axis=1))
    np.testing.assert_array_equal(out[:, 1], u.max(axis=1))


def test_promotion_meets_tilelangs_rules():
    """TVM's rules (docs/LANGUAGE.md): a signed and an unsigned integer of one width meet at the
    unsigned one, of two widths at the wider; a float wins."""
    from tile.language import promotion  # pylint: disable=import-outside-toplevel
    assert promotion.common_type(T.uint32, T.int32) == T.uint32
    assert promotion.common_type(T.uint16, T.int32) == T.int32
    assert promotion.common_type(T.uint32, T.int64) == T.int64
    assert promotion.common_type(T.uint64, T.int64) == T.uint64
    assert promotion.common_type(T.uint8, T.uint32) == T.uint32
    assert promotion.common_type(T.uint64, T.float16) == T.float16
    assert promotion.integer_range(T.uint64) == (0, 2**64 - 1)


def test_dtype_names_and_framework_types():
    assert T.uint16 == "u16" and T.uint32 == "uint32" and repr(T.uint64) == "T.uint64"
    assert T.dtype("uint32") is T.uint32
    for ir, name in (("u16", "uint16"), ("u32", "uint32"), ("u64", "uint64")):
        assert _frameworks._dtype("numpy", ir) is getattr(np, name)  # pylint: disable=protected-access


def test_a_kernel_without_the_new_types_keeps_its_older_version():
    @T.prim_func
    def plain(A: T.Tensor((4,), "uint8")):
        with T.Kernel(1, threads=4) as bx:
            for i in T.Parallel(4):
                A[i] = A[i] >> 1

    assert plain.compile().ir().startswith("ir_version 5;")
