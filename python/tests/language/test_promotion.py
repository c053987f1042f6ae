"""TileLang's implicit promotion and store conversion (docs/LANGUAGE.md, "Types"):
each rule traced into explicit casts in the IR, then run on the CPU against
float64 numpy."""

import re
import warnings

import numpy as np
import pytest

import tile.language as T
from tile.language import dtypes, promotion

HERE = re.escape(__file__)


def at(message):
    return rf"{HERE}:\d+: {message}"


def poisoned(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return np.full(shape, np.nan, dtype)
    return np.full(shape, 123, dtype)


def ir(func):
    return func.compile().ir()


def t(name):
    return dtypes.parse(name, "test")


# (a, b, the type they meet at): TVM's BinaryOpMatchTypes, case by case.
TABLE = [
    ("f16", "f32", "f32"), ("f32", "f64", "f64"), ("f16", "f64", "f64"),
    ("i32", "f32", "f32"), ("i64", "f16", "f16"), ("u8", "f32", "f32"), ("bool", "f16", "f16"),
    ("bf16", "f16", "f16"), ("bf16", "f32", "f32"), ("f8e4m3", "f16", "f16"),
    ("f8e5m2", "f32", "f32"), ("i32", "bf16", "bf16"), ("f8e4m3", "bf16", "bf16"),
    ("i8", "f8e5m2", "f8e5m2"), ("bool", "bf16", "bf16"),
    ("i8", "i32", "i32"), ("i4", "i64", "i64"), ("i16", "i8", "i16"),
    ("u8", "i8", "u8"), ("u8", "i16", "i16"), ("i4", "u8", "u8"), ("u8", "i32", "i32"),
    ("bool", "i32", "i32"), ("u8", "bool", "u8"), ("bool", "i8", "i8"),
    ("f8e4m3", "f8e5m2", None),
]


@pytest.mark.parametrize("a,b,expected", TABLE)
def test_the_type_two_operands_meet_at(a, b, expected):
    for x, y in ((a, b), (b, a)):
        common = promotion.common_type(t(x), t(y))
        assert (common.ir_name if common else None) == expected, (x, y)


def test_f32_accumulates_f16_values():
    @T.prim_func
    def k(H: T.Tensor((64,), "float16"), Y: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            acc = T.alloc_fragment((64,), "float32")
            T.clear(acc)
            for r in T.serial(3):
                for i in T.Parallel(64):
                    acc[i] += H[i] * (r + 1)
            T.copy(acc, Y)

    text = ir(k)
    # H[i] * (r + 1): the i32 meets the f16 at f16, then the f16 product meets acc's f32.
    assert "acc[i] = acc[i] + cast<f32>(H[i] * cast<f16>(r + 1));" in text
    h = (np.arange(64, dtype=np.float64) / 8 - 3).astype(np.float16)
    y = poisoned(64)
    k(h, y)
    np.testing.assert_allclose(y, h.astype(np.float64) * 6, rtol=1e-6)


def test_a_float_divided_by_an_int_dim():
    N = T.symbolic("N")

    @T.prim_func
    def mean(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"),
             Z: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            for i in T.Parallel(64):
                with T.If(bx * 64 + i < N):
                    Y[bx * 64 + i] = X[bx * 64 + i] / N
                    Z[bx * 64 + i] = N / 2.0 + i  # an int dim divided by a float
    text = ir(mean)
    assert "X[bx * 64 + i] / cast<f32>(N)" in text
    assert "cast<f32>(N) / 2.0 + cast<f32>(i)" in text
    x = np.linspace(-1, 1, 100)
    y, z = poisoned(100), poisoned(100)
    mean(x.astype(np.float32), y, z)
    np.testing.assert_allclose(y, x.astype(np.float32).astype(np.float64) / 100, rtol=1e-6)
    np.testing.assert_allclose(z, 50 + np.arange(100) % 64, rtol=1e-6)


def test_a_store_converts_to_the_buffers_type():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float16")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[i] = X[i] * 3.0

    assert "Y[i] = cast<f16>(X[i] * 3.0);" in ir(k)
    x = np.linspace(-2, 2, 64)
    y = poisoned(64, np.float16)
    k(x.astype(np.float32), y)
    np.testing.assert_array_equal(y, (x.astype(np.float32).astype(np.float64) * 3)
                                  .astype(np.float16))


def test_a_python_float_is_f32_beside_f16_as_in_tvm():
    @T.prim_func
    def k(H: T.Tensor((64,), "float16"), Y: T.Tensor((64,), "float32"),
          Z: T.Tensor((64,), "float16")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[i] = H[i] * 0.1       # f32: 0.1 is an f32 constant, H[i] is converted
                Z[i] = H[i] + 1         # f16: a Python int beside a float takes its type

    text = ir(k)
    assert "Y[i] = cast<f32>(H[i]) * 0.1;" in text
    assert "Z[i] = H[i] + 1.0_f16;" in text
    h = np.linspace(-4, 4, 64).astype(np.float16)
    y, z = poisoned(64), poisoned(64, np.float16)
    k(h, y, z)
    np.testing.assert_allclose(y, h.astype(np.float64) * np.float64(np.float32(0.1)), rtol=1e-6)
    np.testing.assert_array_equal(z, h + np.float16(1))


def test_integer_widths_and_signedness():
    @T.prim_func
    def k(A: T.Tensor((64,), "int8"), U: T.Tensor((64,), "uint8"),
          W: T.Tensor((64,), "int32"), Y: T.Tensor((64,), "int32"),
          Z: T.Tensor((64,), "int32"), B: T.Tensor((64,), "int8")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[i] = A[i] * 100 + W[i]      # i8 meets the i32 literal at i32: no wrap
                Z[i] = U[i] + A[i]            # u8 and i8 meet at u8 (TVM: equal widths)
                B[i] = A[i] + A[i]            # i8 stays i8 and wraps, as in C

    text = ir(k)
    assert "Y[i] = cast<i32>(A[i]) * 100 + W[i];" in text
    assert "Z[i] = cast<i32>(U[i] + cast<u8>(A[i]));" in text
    assert "B[i] = A[i] + A[i];" in text
    a = np.arange(-32, 32, dtype=np.int8) * 3
    u = np.arange(64, dtype=np.uint8) * 4
    w = np.arange(64, dtype=np.int32) * 1000
    y, z, b = poisoned(64, np.int32), poisoned(64, np.int32), poisoned(64, np.int8)
    k(a, u, w, y, z, b)
    np.testing.assert_array_equal(y, a.astype(np.int64) * 100 + w)
    np.testing.assert_array_equal(z, (u.astype(np.int64) + a.astype(np.int64)) % 256)
    np.testing.assert_array_equal(b, ((a.astype(np.int64) * 2 + 128) % 256 - 128))


def test_bool_meets_an_integer_and_a_float():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32"), C: T.Tensor((64,), "int32"),
          Y: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                C[i] = (X[i] > 0.0) + 10
                Y[i] = (X[i] < 0.0) * X[i]

    text = ir(k)
    assert "C[i] = cast<i32>(X[i] > 0.0) + 10;" in text
    assert "Y[i] = cast<f32>(X[i] < 0.0) * X[i];" in text
    x = np.linspace(-1, 1, 64)
    c, y = poisoned(64, np.int32), poisoned(64)
    k(x.astype(np.float32), c, y)
    np.testing.assert_array_equal(c, (x > 0) + 10)
    np.testing.assert_allclose(y, np.where(x < 0, x.astype(np.float32), 0), rtol=1e-6)


def test_bf16_beside_f16_is_f16_as_in_tvm():
    @T.prim_func
    def k(B: T.Tensor((64,), "bfloat16"), H: T.Tensor((64,), "float16"),
          Y: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[i] = B[i] + H[i]

    assert "Y[i] = cast<f32>(cast<f16>(B[i]) + H[i]);" in ir(k)


def test_a_float_stored_into_an_int_buffer_truncates_with_a_warning():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "int32")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                with pytest.warns(RuntimeWarning, match=at(r"a store to Y: a f32 value "
                                                           r"converted to i32 truncates")):
                    Y[i] = X[i] * 2.0

    assert "Y[i] = cast<i32>(X[i] * 2.0);" in ir(k)
    x = np.linspace(-3, 3, 64)
    y = poisoned(64, np.int32)
    k(x.astype(np.float32), y)
    np.testing.assert_array_equal(y, np.trunc(x.astype(np.float32) * np.float32(2)))


def test_fill_and_atomic_add_convert_their_value():
    @T.prim_func
    def k(s: T.float32, H: T.Tensor((64,), "float16"), Y: T.Tensor((64,), "float16"),
          S: T.Tensor((1,), "float32"), C: T.Tensor((64,), "int32")):
        with T.Kernel(1, threads=64):
            h = T.alloc_fragment((64,), "float16")
            c = T.alloc_fragment((64,), "int32")
            T.fill(h, s * 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                T.fill(c, 2.75)
            T.copy(h, Y)
            T.copy(c, C)
            for i in T.Parallel(64):
                T.atomic_add(S[0], H[i] + H[i])  # an f16 value into an f32 element
                T.atomic_add(S[0], H[i])          # an f16 tile of one into an f32 one

    text = ir(k)
    assert "fill h = cast<f16>(s * 2.0);" in text
    assert "fill c = 2;" in text  # 2.75 truncated where it stands, as TVM folds it
    assert "atomic_add_at(S[0], cast<f32>(H[i] + H[i]))" in text
    assert "atomic_add H[i +: 1] -> S;" in text
    h = np.linspace(0, 1, 64).astype(np.float16)
    y, c = poisoned(64, np.float16), poisoned(64, np.int32)
    s = np.zeros(1, np.float32)
    k(1.25, h, y, s, c)
    np.testing.assert_array_equal(y, np.full(64, 2.5, np.float16))
    np.testing.assert_array_equal(c, np.full(64, 2))
    np.testing.assert_allclose(s, [3 * h.astype(np.float64).sum()], rtol=1e-5)


def test_select_and_intrinsics_promote_their_arguments():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32"), H: T.Tensor((64,), "float16"),
          Y: T.Tensor((64,), "float32"), Z: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[i] = T.if_then_else(i < 32, H[i], X[i])
                Z[i] = T.max(X[i], H[i]) + T.pow(H[i], 2)

    text = ir(k)
    assert "select(i < 32, cast<f32>(H[i]), X[i])" in text
    # pow(H[i], 2): the Python int meets the f16 at f16; the f16 power then meets the f32 max.
    assert "Z[i] = max(X[i], cast<f32>(H[i])) + cast<f32>(pow(H[i], 2.0_f16));" in text
    x = np.linspace(-1, 1, 64)
    h = np.linspace(1, -1, 64).astype(np.float16)
    y, z = poisoned(64), poisoned(64)
    k(x.astype(np.float32), h, y, z)
    x32, h64 = x.astype(np.float32).astype(np.float64), h.astype(np.float64)
    np.testing.assert_allclose(y, np.where(np.arange(64) < 32, h64, x32), rtol=1e-6)
    # The power is an f16 one.
    np.testing.assert_allclose(z, np.maximum(x32, h64) + (h64 ** 2).astype(np.float16),
                               rtol=1e-6)


def test_a_large_python_int_is_i64():
    @T.prim_func
    def k(Y: T.Tensor((64,), "int64")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[i] = i + 2**40

    assert "Y[i] = cast<i64>(i) + 1099511627776_i64;" in ir(k)
    y = poisoned(64, np.int64)
    k(y)
    np.testing.assert_array_equal(y, np.arange(64) + 2**40)


def test_what_stays_refused():
    with pytest.raises(TypeError, match=at(r"in kernel 'k': '\+': operands of f8e4m3 and "
                                           r"f8e5m2: TileLang \(TVM\) does not mix two float8 "
                                           r"formats either")):
        @T.prim_func
        def k(A: T.Tensor((64,), "float8_e4m3"), B: T.Tensor((64,), "float8_e5m2"),
              Y: T.Tensor((64,), "float32")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    Y[i] = A[i] + B[i]
    with pytest.raises(TypeError, match=at(r"in kernel 'k2': '/': on i32: use // for floor "
                                           r"division")):
        @T.prim_func
        def k2(Y: T.Tensor((64,), "int32")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    Y[i] = i / 2
    with pytest.raises(TypeError, match=at(r"in kernel 'k3': '//': on f32: the IR's floor "
                                           r"division and modulo take integers; write "
                                           r"T.floor\(a / b\)")):
        @T.prim_func
        def k3(Y: T.Tensor((64,), "float32")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    Y[i] = Y[i] // 2
    with pytest.raises(OverflowError, match=at(r"in kernel 'k4': a store to Y: the constant 300 "
                                               r"does not fit in i8 \(-128 to 127\)")):
        @T.prim_func
        def k4(Y: T.Tensor((64,), "int8")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    Y[i] = 300
    with pytest.raises(TypeError, match=at(r"in kernel 'k5': T.exp2: takes floating-point "
                                           r"arguments, not i32")):
        @T.prim_func
        def k5(Y: T.Tensor((64,), "float32")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    Y[i] = T.exp2(i)
