"""Thread and block indices (T.get_thread_binding, T.thread_binding, T.get_block_binding,
T.Kernel(threads=(x, y))), user layouts (T.annotate_layout with T.Layout, T.Fragment,
T.make_swizzled_layout) and loops with starts and steps: the IR they write, and their values on
the CPU against numpy."""

import os

import numpy as np
import pytest

import tile.language as T

HERE = os.path.basename(__file__)
N = T.symbolic("N")


def at(message):
    return rf"{HERE}:\d+: {message}"


def poisoned(shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


# --- loops with starts and steps ------------------------------------------------------------

def test_serial_and_unroll_with_steps_count_a_trip_count_and_let_the_index():
    @T.prim_func
    def stepped(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=1):
            for i in T.serial(1, N, 3):
                B[i] = A[i] * 2.0
            for j in T.serial(11, 0, -4):
                B[j] = A[j] + 100.0
            for u in T.unroll(0, 8, 2):
                B[u] = -1.0
            for v in T.Serial(5, 7):
                B[v] = 5.0

    text = stepped.compile().ir()
    assert "for i_iter in 0 +: ceildiv(N - 1, 3) serial {\n    let i: i32 = 1 + i_iter * 3;" in text
    assert "for j_iter in 0 +: 3 serial {\n    let j: i32 = 11 - j_iter * 4;" in text
    assert "for u_iter in 0 +: 4 unrolled {\n    let u: i32 = u_iter * 2;" in text
    assert "for v in 5 +: 2 serial {" in text
    for n in (1, 2, 20, 23):
        a = np.arange(n, dtype=np.float32)
        b = np.zeros(n, np.float32)
        stepped(a, b)
        want = np.zeros(n, np.float32)
        want[1::3] = 2 * a[1::3]
        for j in range(11, 0, -4):
            if j < n:
                want[j] = a[j] + 100
        want[0:min(8, n):2] = -1
        want[5:min(7, n)] = 5
        np.testing.assert_array_equal(b, want)


def test_a_step_past_the_stop_runs_no_iteration():
    @T.prim_func
    def empty(B: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=1):
            for i in T.serial(3, 1, 2):
                B[i] = 1.0
            for j in T.serial(0, 4, -1):
                B[j] = 1.0

    assert "for i_iter in 0 +: 0 serial" in empty.compile().ir()
    b = np.zeros(4, np.float32)
    empty(b)
    np.testing.assert_array_equal(b, 0)


def test_pipelined_from_a_start():
    @T.prim_func
    def shifted_rows(A: T.Tensor((8, 16), "float32"), B: T.Tensor((8, 16), "float32")):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((1, 16), "float32")
            for k in T.Pipelined(2, 8, num_stages=2):
                T.copy(A[k, 0], s)
                T.copy(s, B[k - 2, 0])

    assert "for k in 2 +: 6 pipelined(num_stages=2) {" in shifted_rows.compile().ir()
    a = np.random.default_rng(1).random((8, 16), dtype=np.float32)
    b = np.zeros((8, 16), np.float32)
    shifted_rows(a, b)
    np.testing.assert_array_equal(b[:6], a[2:])


def test_steps_the_ir_cannot_count_are_refused():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.serial: step 0: the step is a "
                                            r"nonzero Python int")):
        @T.prim_func
        def k(A: T.Tensor((N,), "float32")):
            with T.Kernel(1):
                for s in T.serial(0, 8, 0):
                    pass
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k2': T.unroll: unroll_factor")):
        @T.prim_func
        def k2(A: T.Tensor((N,), "float32")):
            with T.Kernel(1):
                for s in T.unroll(8, unroll_factor=2):
                    pass
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k3': T.serial: annotations")):
        @T.prim_func
        def k3(A: T.Tensor((N,), "float32")):
            with T.Kernel(1):
                for s in T.serial(8, annotations={"pragma": 1}):
                    pass


# --- thread and block indices ---------------------------------------------------------------

def splitk_gemv(block_n=16, reduce_threads=4):
    """TileLang's naive split-K GEMV (examples/gemv), with threads=(x, y)."""
    @T.prim_func
    def gemv(A: T.Tensor((N,), "float32"), B: T.Tensor((64, N), "float32"),
             C: T.Tensor((64,), "float32")):
        with T.Kernel(T.ceildiv(64, block_n), threads=(block_n, reduce_threads)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.get_thread_binding(1)
            acc = T.alloc_local((1,), "float32")
            T.clear(acc)
            for bk in T.serial(T.ceildiv(N, reduce_threads)):
                with T.If(bk * reduce_threads + tk < N):
                    acc[0] += A[bk * reduce_threads + tk] * B[bn * block_n + tn,
                                                               bk * reduce_threads + tk]
            T.atomic_add(C[bn * block_n + tn], acc[0])
    return gemv


def test_thread_indices_make_the_body_per_thread_code():
    gemv = splitk_gemv()
    text = gemv.compile().ir()
    assert "grid(bn: 4) threads(16, 4) {\n  for tk in 0 +: 4 thread_bound(y) {\n" \
           "    for tn in 0 +: 16 thread_bound(x) {\n      alloc acc: local f32[1];\n" \
           "      for acc_i0 in 0 +: 1 serial {\n        acc[acc_i0] = 0.0;" in text
    assert "eval atomic_add_at(C[bn * 16 + tn], acc[0]);" in text
    rng = np.random.default_rng(7)
    for n in (8, 37):
        a, b = rng.random(n, dtype=np.float32), rng.random((64, n), dtype=np.float32)
        c = np.zeros(64, np.float32)
        gemv(a, b, c)
        np.testing.assert_allclose(c, b.astype(np.float64) @ a, rtol=1e-5)


def test_thread_binding_bindings_and_block_bindings():
    @T.prim_func
    def scale(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 64), threads=64):
            tx = T.thread_binding(0, 64, thread="threadIdx.x")
            bx = T.get_block_binding(0)
            (t,) = T.get_thread_bindings()
            (b,) = T.get_block_bindings()
            S = T.alloc_shared((64,), "float32")
            with T.If(bx * 64 + tx < N):
                S[tx] = A[b * 64 + t]
                B[bx * 64 + tx] = S[t] * 3.0

    text = scale.compile().ir()
    # Shared memory is one per block: its allocation stays outside the thread loop.
    assert "grid(bx: ceildiv(N, 64)) threads(64) {\n  alloc S: shared f32[64];\n" \
           "  for tx in 0 +: 64 thread_bound(x) {" in text
    a = np.arange(100, dtype=np.float32)
    b = poisoned(100)
    scale(a, b)
    np.testing.assert_array_equal(b, 3 * a)


def test_threads_of_three_axes_nest_z_outermost():
    @T.prim_func
    def ids(Out: T.Tensor((2, 3, 4), "int32")):
        with T.Kernel(1, threads=(4, 3, 2)):
            tx, ty, tz = T.get_thread_bindings()
            Out[tz, ty, tx] = tx + ty * 4 + tz * 12

    text = ids.compile().ir()
    assert text.index("thread_bound(z)") < text.index("thread_bound(y)") < text.index(
        "thread_bound(x)")
    out = np.full((2, 3, 4), -1, np.int32)
    ids(out)
    np.testing.assert_array_equal(out.ravel(), np.arange(24))


def test_what_per_thread_code_cannot_hold_is_refused():
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k': T.copy: in a kernel that "
                                                     r"uses its thread index \(asked for at .*"
                                                     r"\), every thread runs the body")):
        @T.prim_func
        def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
            with T.Kernel(1, threads=64):
                tx = T.get_thread_binding()
                s = T.alloc_shared((64,), "float32")
                T.copy(A, s)
                B[tx] = s[tx]
    with pytest.raises(ValueError, match=at(r"in kernel 'k2': T.get_thread_binding: the launch "
                                            r"has 1 thread axis \(\[64\]\); threadIdx.y")):
        @T.prim_func
        def k2(A: T.Tensor((64,), "float32")):
            with T.Kernel(1, threads=64):
                T.get_thread_binding(1)
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k3': T.thread_binding: "
                                                     r"range\(0, 32\) of threadIdx.x")):
        @T.prim_func
        def k3(A: T.Tensor((64,), "float32")):
            with T.Kernel(1, threads=64):
                T.thread_binding(0, 32, thread="threadIdx.x")
    with pytest.raises(ValueError, match=at(r"in kernel 'k4': T.get_block_binding: dim 1: the "
                                            r"grid has 1 axis")):
        @T.prim_func
        def k4(A: T.Tensor((64,), "float32")):
            with T.Kernel(1, threads=64):
                T.get_block_binding(1)


# --- layouts ----------------------------------------------------------------------------------

def test_swizzled_and_functional_layouts_on_shared_tiles():
    @T.prim_func
    def through_shared(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16")):
        with T.Kernel(1, threads=128):
            A_s = T.alloc_shared((64, 64), "float16")
            S3 = T.alloc_shared((2, 8, 32), "float32")
            P = T.alloc_shared((64, 64), "float16")
            T.annotate_layout({A_s: T.make_swizzled_layout(A_s),
                               S3: T.make_swizzled_layout(S3),
                               P: lambda i, j: [j, i]})
            T.copy(A, A_s)
            T.copy(A_s, P)
            T.copy(P, B)

    text = through_shared.compile().ir()
    # 128-byte rows of f16: the 16-byte chunk c of row i moves to c ^ (i % 8).
    assert "alloc A_s: shared f16[64, 64] layout((A_s_l0, A_s_l1) -> (A_s_l0, " \
           "(floordiv(A_s_l1, 8) ^ floormod(A_s_l0, 8)) * 8 + floormod(A_s_l1, 8)));" in text
    # Leading dimensions flatten into the row; 128-byte rows of f32 have 8 chunks of 4.
    assert "(floordiv(S3_l2, 4) ^ floormod(S3_l0 * 8 + S3_l1, 8)) * 4" in text
    assert "alloc P: shared f16[64, 64] layout((P_l0, P_l1) -> (P_l1, P_l0));" in text
    assert text.startswith("ir_version 2;")  # the swizzle's xor
    a = np.random.default_rng(3).random((64, 64)).astype(np.float16)
    b = np.zeros((64, 64), np.float16)
    through_shared(a, b)
    np.testing.assert_array_equal(b, a)


def test_narrower_rows_take_the_half_and_quarter_bank_swizzles():
    @T.prim_func
    def narrow(A: T.Tensor((8, 32), "float16"), B: T.Tensor((8, 16), "float16")):
        with T.Kernel(1, threads=32):
            H = T.alloc_shared((8, 32), "float16")
            Q = T.alloc_shared((8, 16), "float16")
            T.annotate_layout({H: T.make_swizzled_layout(H), Q: T.make_swizzled_layout(Q)})
            T.copy(A, H)
            T.copy(H[0:8, 0:16], Q)
            T.copy(Q, B)

    text = narrow.compile().ir()
    assert "(floordiv(H_l1, 8) ^ floordiv(floormod(H_l0, 8), 2)) * 8 + floormod(H_l1, 8)" in text
    assert "(floordiv(Q_l1, 8) ^ floordiv(floormod(Q_l0, 8), 4)) * 8 + floormod(Q_l1, 8)" in text
    a = np.random.default_rng(4).random((8, 32)).astype(np.float16)
    b = np.zeros((8, 16), np.float16)
    narrow(a, b)
    np.testing.assert_array_equal(b, a[:, :16])


def test_fragment_layouts_with_and_without_replicas():
    @T.prim_func
    def row_sums(A: T.Tensor((32, 64), "float32"), S: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=128):
            F = T.alloc_fragment((32, 64), "float32")
            R = T.alloc_fragment((32,), "float32")
            T.annotate_layout({
                F: T.Fragment((32, 64), forward_thread_fn=lambda i, j: i * 4 + j // 16,
                              forward_index_fn=lambda i, j: j % 16),
                R: T.Fragment((32,), forward_fn=lambda i, rep: (i * 4 + rep, 0), replicate=4),
            })
            T.copy(A, F)
            T.reduce_sum(F, R, dim=1)
            T.copy(R, S)

    text = row_sums.compile().ir()
    assert text.startswith("ir_version 4;")  # the replica
    assert "alloc F: fragment f32[32, 64] layout((F_l0, F_l1) -> (F_l0 * 4 + floordiv(F_l1, " \
           "16), floormod(F_l1, 16)));" in text
    assert "alloc R: fragment f32[32] layout((R_l0) replicate(R_rep: 4) -> (R_l0 * 4 + R_rep, " \
           "0));" in text
    a = np.random.default_rng(5).random((32, 64), dtype=np.float32)
    s = poisoned(32)
    row_sums(a, s)
    np.testing.assert_allclose(s, a.astype(np.float64).sum(axis=1), rtol=1e-5)


def test_a_layout_on_a_parameter_is_dropped_with_a_warning_and_values_keep_their_index():
    # TileLang's attention backward lays out its dQ accumulator in both kernels that use it.
    from tile.language.layouts import ParameterLayoutDropped
    with pytest.warns(ParameterLayoutDropped, match=at(r"T.annotate_layout: 'A' is a kernel "
                                                       r"parameter; its layout is dropped")):
        @T.prim_func
        def k(A: T.Tensor((64, 8), "float32"), B: T.Tensor((64, 8), "float32")):
            with T.Kernel(1, threads=32):
                T.annotate_layout({A: lambda i, j: [i // 8, j, i % 8]})
                for i, j in T.Parallel(64, 8):
                    B[i, j] = A[i, j] * 2.0
    a = np.random.default_rng(3).random((64, 8), dtype=np.float32)
    b = poisoned((64, 8))
    k(a, b)
    np.testing.assert_array_equal(b, a * 2.0)
    with pytest.raises(ValueError, match=r"the layout has 1 dimensions, 'A' 2"):
        @T.prim_func
        def k1(A: T.Tensor((64, 64), "float32")):
            with T.Kernel(1):
                T.annotate_layout({A: T.Layout((64,), lambda i: [i])})


def test_layouts_the_ir_cannot_express_are_refused_by_name():
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k2': T.annotate_layout: a "
                                                     r"fragment layout of 2 register "
                                                     r"coordinates")):
        @T.prim_func
        def k2(A: T.Tensor((64, 64), "float32")):
            with T.Kernel(1):
                F = T.alloc_fragment((16, 16), "float32")
                T.annotate_layout({F: T.Fragment(F.shape, forward_thread_fn=lambda i, j: i,
                                                 forward_index_fn=lambda i, j: [j // 8, j % 8])})
    with pytest.raises(TypeError, match=at(r"in kernel 'k3': T.annotate_layout: 'F' is a "
                                           r"fragment: its layout is a T.Fragment")):
        @T.prim_func
        def k3(A: T.Tensor((64, 64), "float32")):
            with T.Kernel(1):
                F = T.alloc_fragment((16, 16), "float32")
                T.annotate_layout({F: lambda i, j: [i, j]})
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k4': T.annotate_layout: 'D' "
                                                     r"\(f64\[8, 16\]\) takes TileLang's padded "
                                                     r"or fp64 layout")):
        @T.prim_func
        def k4(A: T.Tensor((64, 64), "float32")):
            with T.Kernel(1):
                D = T.alloc_shared((8, 16), "float64")
                T.annotate_layout({D: T.make_swizzled_layout(D)})


def test_annotate_layout_is_no_longer_refused():
    from tile.language import unsupported
    assert "annotate_layout" not in unsupported.REFUSED
    assert T.annotate_layout.__module__ == "tile.language.layouts"
