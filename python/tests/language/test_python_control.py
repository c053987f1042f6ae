"""Python's control flow on kernel values (ast_rewrite.py): `if`/`elif`/`else`, and/or/not,
conditional expressions, `range` over kernel values and T.alloc_var assignments trace into the
IR's branches, selects, loops and stores; on Python values they keep Python's meaning. Each
kernel runs on the CPU against the same computation in float64 numpy."""

import numpy as np
import pytest

import tile.language as T

N = T.symbolic("N")
RNG = np.random.default_rng(7)


def test_if_elif_else_and_boolean_operators():
    @T.prim_func
    def k(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            acc = T.alloc_var("float32", init=0)
            for i in T.serial(N):
                if X[i] > 0 and i % 2 == 0:
                    acc += X[i]
                elif not X[i] < -1 or i == 3:
                    acc = acc - 1
                else:
                    acc = acc * 0.5
                Y[i] = acc if i < 30 else -acc

    for n in (1, 37, 64):
        x = RNG.standard_normal(n).astype(np.float32)
        y = np.full(n, np.nan, np.float32)
        k(x, y)
        acc, want = 0.0, []
        for i in range(n):
            if x[i] > 0 and i % 2 == 0:
                acc += float(x[i])
            elif not x[i] < -1 or i == 3:
                acc -= 1
            else:
                acc *= 0.5
            want.append(acc if i < 30 else -acc)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    text = k.compile().ir()
    assert "if (" in text and "} else {" in text and "select(i < 30" in text


def test_python_values_keep_pythons_meaning():
    def make(negate, scale):
        @T.prim_func
        def k(X: T.Tensor((N,), "float32")):
            with T.Kernel(1, threads=32):
                for i in T.serial(N):
                    if negate and scale > 1:       # Python bools: one branch traced
                        X[i] = -X[i] * scale
                    else:
                        X[i] = X[i] * (scale if scale else 1.0)
        return k

    x = RNG.standard_normal(9).astype(np.float32)
    for negate, scale in ((True, 2.0), (False, 3.0), (True, 0.0)):
        kernel = make(negate, scale)
        assert "if (" not in kernel.compile().ir()
        y = x.copy()
        kernel(y)
        want = -x * scale if negate and scale > 1 else x * (scale if scale else 1.0)
        np.testing.assert_allclose(y, want, rtol=1e-6)


def test_range_over_a_kernel_value_is_a_serial_loop():
    @T.prim_func
    def k(X: T.Tensor((N,), "float32"), S: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=32):
            total = T.alloc_var("float32", init=0)
            for i in range(N):
                total += X[i]
            for j in range(2):                     # a Python range of ints stays Python's
                total = total * 2
            S[0] = total

    x = RNG.standard_normal(50).astype(np.float32)
    s = np.zeros(1, np.float32)
    k(x, s)
    np.testing.assert_allclose(s[0], 4 * x.astype(np.float64).sum(), rtol=1e-5)


def test_a_return_or_break_in_a_kernel_branch_is_refused_by_line():
    with pytest.raises(SyntaxError, match=r"test_python_control.py:\d+: a `return` inside an "
                                          r"`if` on a kernel value"):
        @T.prim_func
        def k(X: T.Tensor((N,), "float32")):
            with T.Kernel(1):
                for i in T.serial(N):
                    if X[i] > 0:
                        return
    with pytest.raises(SyntaxError, match=r"test_python_control.py:\d+: an `if` on a kernel "
                                          r"value holds a break or continue"):
        @T.prim_func
        def k2(X: T.Tensor((N,), "float32")):
            with T.Kernel(1):
                for i in T.serial(N):
                    for j in range(3):
                        if X[i] > j:
                            break


def test_variables_take_assignments_as_stores():
    @T.prim_func
    def k(X: T.Tensor((N,), "int32"), Y: T.Tensor((2,), "int32")):
        with T.Kernel(1, threads=32):
            count = T.alloc_var("int32")
            best = T.alloc_var(T.int32, init=-1000)
            count = 0
            for i in T.serial(N):
                if X[i] > 0:
                    count += 1
                best = T.max(best, X[i])
            Y[0] = count
            Y[1] = best

    x = RNG.integers(-5, 6, 41).astype(np.int32)
    y = np.zeros(2, np.int32)
    k(x, y)
    assert y.tolist() == [int((x > 0).sum()), int(x.max())]


def test_numbers_as_conditions_and_astype_and_clearing_a_variable():
    @T.prim_func
    def k(M8: T.Tensor((N,), "uint8"), X: T.Tensor((N,), "float16"),
          Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            total = T.alloc_var("float32")
            T.clear(total)                        # TileLang clears a variable like a buffer
            for i in T.serial(N):
                if M8[i] and not M8[i] == 2:      # a u8 is true when not zero, as in Python
                    total += X[i].astype("float32")
                Y[i] = total

    m = RNG.integers(0, 3, 40).astype(np.uint8)
    x = RNG.standard_normal(40).astype(np.float16)
    y = np.full(40, np.nan, np.float32)
    k(m, x, y)
    keep = (m != 0) & (m != 2)
    np.testing.assert_allclose(y, np.cumsum(np.where(keep, x.astype(np.float64), 0)), rtol=1e-5,
                               atol=1e-5)


def test_macros_subscript_tensors_and_late_bound_closures():
    scale = None  # bound after the kernel function is defined, as a closure sees it

    @T.macro
    def add_scaled(dst, src, i):
        if src[i] > 0:
            dst[i] = dst[i] + src[i] * scale
        else:
            dst[i] = dst[i] - 1

    def kernel_function(X: T.Tensor[(N,), "float32"], Y: T.Tensor[(N,), "float32"]):
        with T.Kernel(1, threads=32):
            for i in T.serial(N):
                add_scaled(Y, X, i)
            T.sync_threads()

    scale = 3.0
    k = T.prim_func(kernel_function)
    assert "barrier(block);" in k.compile().ir()
    x = RNG.standard_normal(30).astype(np.float32)
    y = np.ones(30, np.float32)
    k(x, y)
    np.testing.assert_allclose(y, np.where(x > 0, 1 + 3.0 * x, 0.0), rtol=1e-6)
