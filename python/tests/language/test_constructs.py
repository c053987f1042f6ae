"""The rest of the language on small kernels run on the CPU against numpy:
element-wise math, reductions, atomic_add, cumsum, branches, serial loops,
slices, scalar parameters, and what each writes into the IR."""

import numpy as np

import tile.language as T

N = T.symbolic("N")
ROWS = T.symbolic("ROWS")


def poisoned(shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


def test_elementwise_math_with_a_scalar_and_a_ragged_tail():
    @T.prim_func
    def softplus_scaled(X: T.Tensor((N,), "float32"), alpha: T.float32,
                        Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            x = T.alloc_fragment((64,), "float32")
            y = T.alloc_fragment((64,), "float32")
            T.copy(X[bx * 64:(bx + 1) * 64], x)
            for i in T.Parallel(64):
                y[i] = alpha * T.log(1.0 + T.exp(x[i])) + T.max(x[i], 0.0) - T.abs(x[i])
            T.copy(y, Y[bx * 64])

    x = np.linspace(-4, 4, 100).astype(np.float32)
    y = poisoned(100)
    softplus_scaled(x, 0.5, y)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(y, 0.5 * np.log1p(np.exp(xd)) + np.maximum(xd, 0) - np.abs(xd),
                               rtol=1e-5, atol=1e-5)
    assert "alloc x: fragment f32[64];" in softplus_scaled.compile().ir()


def test_row_reductions_with_masked_padding():
    @T.prim_func
    def row_stats(X: T.Tensor((ROWS, 64), "float32"), MAX: T.Tensor((ROWS,), "float32"),
                  SUM: T.Tensor((ROWS,), "float32")):
        with T.Kernel(T.ceildiv(ROWS, 16), threads=128) as bx:
            x = T.alloc_fragment((16, 64), "float32")
            row_max = T.alloc_fragment((16,), "float32")
            row_sum = T.alloc_fragment((16,), "float32")
            T.copy(X[bx * 16, 0], x)
            T.reduce_max(x, row_max, dim=1)
            T.reduce_sum(x, row_sum)  # dim=-1 is the last, as in TileLang
            T.copy(row_max, MAX[bx * 16])
            T.copy(row_sum, SUM[bx * 16])

    x = np.random.default_rng(2).uniform(-3, -1, (37, 64)).astype(np.float32)
    largest, total = poisoned(37), poisoned(37)
    row_stats(x, largest, total)
    np.testing.assert_allclose(largest, x.max(axis=1), rtol=1e-6)
    np.testing.assert_allclose(total, x.astype(np.float64).sum(axis=1), rtol=1e-5)


def test_atomic_add_of_tiles_and_of_one_element():
    @T.prim_func
    def column_sums(X: T.Tensor((ROWS, 32), "float32"), OUT: T.Tensor((32,), "float32"),
                    COUNT: T.Tensor((1,), "int32")):
        with T.Kernel(T.ceildiv(ROWS, 8), threads=32) as bx:
            x = T.alloc_fragment((8, 32), "float32")
            partial = T.alloc_fragment((32,), "float32")
            T.copy(X[bx * 8, 0], x)
            T.reduce_sum(x, partial, dim=0)
            T.atomic_add(OUT[0], partial)
            T.atomic_add(COUNT[0], 1)

    x = np.random.default_rng(3).standard_normal((50, 32)).astype(np.float32)
    out, count = np.zeros(32, np.float32), np.zeros(1, np.int32)
    column_sums(x, out, count)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=0), rtol=1e-4, atol=1e-5)
    assert count[0] == 7  # ceildiv(50, 8) blocks
    assert "atomic_add_at(COUNT[0], 1)" in column_sums.compile().ir()


def test_cumsum_and_branches_and_serial_loops():
    @T.prim_func
    def prefix_then_clamp(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            x = T.alloc_shared((32,), "float32")
            y = T.alloc_fragment((32,), "float32")
            T.copy(X[0:32], x)
            T.cumsum(x, dim=0)
            T.copy(x, y)
            for i in T.Parallel(32):
                with T.If(y[i] > 2.0):
                    y[i] = 2.0
                with T.Else():
                    y[i] = y[i] * 1.0
            for s in T.serial(1, 3):
                y[0] = y[0] + T.cast(s, "float32")
            T.copy(y, Y[0:32])

    x = np.full(32, 0.25, np.float32)
    y = poisoned(32)
    prefix_then_clamp(x, y)
    expected = np.minimum(np.cumsum(x.astype(np.float64)), 2.0)
    expected[0] += 1 + 2
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    text = prefix_then_clamp.compile().ir()
    assert "for s in 1 +: 2 serial {" in text and "} else {" in text


def test_names_come_from_python_variables_and_stay_unique():
    @T.prim_func(name="twice")
    def scaled(X: T.Tensor((N,), "float16"), Y: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as block:
            tmp = T.alloc_fragment((32,), "float16")
            T.copy(X[block * 32], tmp)
            for i in T.Parallel(32):
                tmp[i] = tmp[i] * 2.0
            for i in T.Parallel(32):
                tmp[i] = tmp[i] + T.float16(0.5)
            T.copy(tmp, Y[block * 32])

    text = scaled.compile().ir()
    assert "grid(block: ceildiv(N, 32))" in text
    assert "for i in 0 +: 32 parallel" in text and "for i_1 in 0 +: 32 parallel" in text
    x = np.arange(40, dtype=np.float16)
    y = poisoned(40, np.float16)
    scaled(x, y)
    np.testing.assert_array_equal(y, x * 2 + 0.5)
