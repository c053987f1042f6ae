"""TileLang's other reductions (T.reduce_abssum, T.reduce_prod, T.reduce_bitand / bitor /
bitxor, ir_version 6) and its reducers (T.alloc_reducer, T.finalize_reducer, T.reducer_init,
T.reducer_update) on small kernels run on the CPU against numpy, what they write into the IR,
and what they refuse. (T.print and T.device_assert are not there yet.)"""

import numpy as np
import pytest

import tile.language as T
from tile.language._proto import pb

M = T.symbolic("M")


def _row_reductions(block_M, threads):
    @T.prim_func
    def rows(X: T.Tensor((M, 16), "float32"), F: T.Tensor((M, 16), "int32"),
             U: T.Tensor((M, 16), "uint8"), OUT: T.Tensor((M, 2), "float32"),
             BITS: T.Tensor((M, 3), "int32"), UBITS: T.Tensor((M, 3), "uint8")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, 16), "float32")
            f = T.alloc_fragment((block_M, 16), "int32")
            u = T.alloc_shared((block_M, 16), "uint8")
            abssum = T.alloc_fragment((block_M,), "float32")
            prod = T.alloc_fragment((block_M,), "float32")
            all_ = T.alloc_fragment((block_M,), "int32")
            any_ = T.alloc_fragment((block_M,), "int32")
            parity = T.alloc_fragment((block_M,), "int32")
            uall = T.alloc_fragment((block_M,), "uint8")
            uany = T.alloc_fragment((block_M,), "uint8")
            uparity = T.alloc_fragment((block_M,), "uint8")
            T.copy(X[bx * block_M, 0], x)
            T.copy(F[bx * block_M, 0], f)
            T.copy(U[bx * block_M, 0], u)
            T.reduce_abssum(x, abssum, dim=1)
            T.reduce_prod(x, prod, dim=1)
            T.reduce_bitand(f, all_, dim=1)
            T.reduce_bitor(f, any_, dim=1)
            T.reduce_bitxor(f, parity, dim=-1)
            T.reduce_bitand(u, uall, dim=1)
            T.reduce_bitor(u, uany, dim=1)
            T.fill(uparity, 0x5A)
            T.reduce_bitxor(u, uparity, dim=1, clear=False)
            for i in T.Parallel(block_M):
                OUT[bx * block_M + i, 0] = abssum[i]
                OUT[bx * block_M + i, 1] = prod[i]
                BITS[bx * block_M + i, 0] = all_[i]
                BITS[bx * block_M + i, 1] = any_[i]
                BITS[bx * block_M + i, 2] = parity[i]
                UBITS[bx * block_M + i, 0] = uall[i]
                UBITS[bx * block_M + i, 1] = uany[i]
                UBITS[bx * block_M + i, 2] = uparity[i]
    return rows


@pytest.mark.parametrize("threads", [1, 64])
def test_row_reductions_match_numpy(threads):
    rows = _row_reductions(8, threads)
    rng = np.random.default_rng(6)
    m = 24
    x = rng.uniform(0.5, 1.5, (m, 16)).astype(np.float32) * rng.choice([-1, 1], (m, 16))
    x = x.astype(np.float32)
    f = rng.integers(-2**31, 2**31, (m, 16), dtype=np.int64).astype(np.int32)
    f[:, :8] |= 0x00010001  # a bit every element of a row shares, for bitand
    u = rng.integers(0, 256, (m, 16), dtype=np.int64).astype(np.uint8)
    u[:, :] |= 0x40
    out = np.full((m, 2), np.nan, np.float32)
    bits = np.zeros((m, 3), np.int32)
    ubits = np.zeros((m, 3), np.uint8)
    rows(x, f, u, out, bits, ubits)
    np.testing.assert_allclose(out[:, 0], np.abs(x.astype(np.float64)).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(out[:, 1], x.astype(np.float64).prod(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(bits[:, 0], np.bitwise_and.reduce(f, axis=1))
    np.testing.assert_array_equal(bits[:, 1], np.bitwise_or.reduce(f, axis=1))
    np.testing.assert_array_equal(bits[:, 2], np.bitwise_xor.reduce(f, axis=1))
    np.testing.assert_array_equal(ubits[:, 0], np.bitwise_and.reduce(u, axis=1))
    np.testing.assert_array_equal(ubits[:, 1], np.bitwise_or.reduce(u, axis=1))
    np.testing.assert_array_equal(ubits[:, 2], np.bitwise_xor.reduce(u, axis=1) ^ 0x5A)


def test_the_ir_carries_the_kinds_and_version_6():
    rows = _row_reductions(8, 64)
    kinds = []

    def walk(stmt):
        which = stmt.WhichOneof("node")
        if which == "reduce":
            kinds.append((stmt.reduce.kind, stmt.reduce.clear))
        elif which == "seq":
            for s in stmt.seq.stmts:
                walk(s)
        elif which == "for":
            walk(stmt.__getattribute__("for").body)

    walk(rows.proto.kernels[0].body)
    assert kinds == [(pb.REDUCE_KIND_ABS_SUM, True), (pb.REDUCE_KIND_PROD, True),
                     (pb.REDUCE_KIND_BIT_AND, True), (pb.REDUCE_KIND_BIT_OR, True),
                     (pb.REDUCE_KIND_BIT_XOR, True), (pb.REDUCE_KIND_BIT_AND, True),
                     (pb.REDUCE_KIND_BIT_OR, True), (pb.REDUCE_KIND_BIT_XOR, False)]
    assert rows.proto.ir_version == 6
    text = rows.compile("cpu").ir()
    assert text.startswith("ir_version 6;"), text[:40]
    assert "reduce abssum x -> abssum {dim=1, clear=true};" in text
    assert "reduce bitxor u -> uparity {dim=1, clear=false};" in text


def test_bitwise_reductions_refuse_floats_and_bool():
    with pytest.raises(ValueError, match=r"T.reduce_bitor: x holds float32: a bitwise "
                                         r"reduction needs an integer buffer"):
        @T.prim_func
        def floats(X: T.Tensor((8, 8), "float32")):
            with T.Kernel(1, threads=1):
                x = T.alloc_fragment((8, 8), "float32")
                r = T.alloc_fragment((8,), "int32")
                T.reduce_bitor(x, r, dim=1)
    with pytest.raises(NotImplementedError, match=r"T.reduce_bitand: b holds bool: the IR "
                                                  r"reduces numbers only"):
        @T.prim_func
        def bools(X: T.Tensor((8, 8), "int32")):
            with T.Kernel(1, threads=1):
                b = T.alloc_fragment((8, 8), "bool")
                r = T.alloc_fragment((8,), "int32")
                T.reduce_bitand(b, r, dim=1)


def test_reduce_abssum_takes_tilelangs_arguments():
    with pytest.raises(TypeError):
        T.reduce_abssum(None, None, 1, True)  # TileLang's has no clear


# TileLang's examples/gemv/example_gemv.py gemv_alloc_reducer (the legacy reducer, finalized in
# place), at a ragged size.
def _gemv_alloc_reducer(block_M, block_N, threads, op):
    N_ = T.symbolic("N")

    @T.prim_func
    def gemv(a: T.Tensor((M, N_), "float32"), x: T.Tensor((N_,), "float32"),
             o: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as i0_m:
            o_reducer = T.alloc_reducer(block_M, "float32", op=op, replication="all")
            if op == "sum":
                T.clear(o_reducer)
            else:
                T.fill(o_reducer, -T.infinity("float32"))
            for i0_n in T.Pipelined(T.ceildiv(N_, block_N), num_stages=2):
                a_smem = T.alloc_shared((block_M, block_N), "float32")
                T.copy(a[i0_m * block_M, i0_n * block_N], a_smem)
                a_frag = T.alloc_fragment((block_M, block_N), "float32")
                T.copy(a_smem, a_frag)
                x_frag = T.alloc_fragment(block_N, "float32")
                T.copy(x[i0_n * block_N], x_frag)
                for i1_m, i1_n in T.Parallel(block_M, block_N):
                    if op == "sum":
                        o_reducer[i1_m] += a_frag[i1_m, i1_n] * x_frag[i1_n]
                    else:
                        o_reducer[i1_m] = T.max(o_reducer[i1_m],
                                                a_frag[i1_m, i1_n] * x_frag[i1_n])
            T.finalize_reducer(o_reducer)
            T.copy(o_reducer, o[i0_m * block_M])
    return gemv


@pytest.mark.parametrize("op", ["sum", "max"])
def test_gemv_alloc_reducer_matches_numpy(op):
    gemv = _gemv_alloc_reducer(16, 32, 128, op)
    rng = np.random.default_rng(3)
    m, n = 40, 96  # the last block of rows is ragged
    a = rng.standard_normal((m, n)).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    o = np.full(m, np.nan, np.float32)
    gemv(a, x, o)
    products = a.astype(np.float64) * x.astype(np.float64)
    want = products.sum(axis=1) if op == "sum" else products.max(axis=1)
    np.testing.assert_allclose(o, want, rtol=1e-4, atol=1e-4)
    assert "alloc o_reducer: fragment f32[16];" in gemv.compile("cpu").ir()


# TileLang's reducer epoch: reducer_init (with a starting value, counted once), reducer_update
# inside T.Parallel, finalize_reducer into a destination fragment.
@pytest.mark.parametrize("op", ["sum", "min", "bitxor"])
def test_reducer_epoch_matches_numpy(op):
    dtype = "int32" if op == "bitxor" else "float32"
    init = {"sum": 1.5, "min": None, "bitxor": 0x5A}[op]

    @T.prim_func
    def rows(X: T.Tensor((M, 32), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, 8), threads=64) as bx:
            acc = T.alloc_reducer((8,), dtype, op=op)
            T.reducer_init(acc, init)
            for i, j in T.Parallel(8, 32):
                T.reducer_update(acc[i], X[bx * 8 + i, j])
            out = T.alloc_fragment((8,), dtype)
            T.finalize_reducer(acc, out)
            for i in T.Parallel(8):
                Y[bx * 8 + i] = out[i]

    rng = np.random.default_rng(9)
    m = 16
    if op == "bitxor":
        x = rng.integers(-2**31, 2**31, (m, 32), dtype=np.int64).astype(np.int32)
    else:
        x = rng.standard_normal((m, 32)).astype(np.float32)
    y = np.zeros(m, x.dtype)
    rows(x, y)
    if op == "sum":
        np.testing.assert_allclose(y, 1.5 + x.astype(np.float64).sum(axis=1), rtol=1e-5,
                                   atol=1e-5)
    elif op == "min":
        np.testing.assert_array_equal(y, x.min(axis=1))
    else:
        np.testing.assert_array_equal(y, np.bitwise_xor.reduce(x, axis=1) ^ 0x5A)


def test_reducers_refuse_what_tilelang_refuses():
    with pytest.raises(ValueError, match=r"T.alloc_reducer: op='prod': expected one of"):
        @T.prim_func
        def prod(X: T.Tensor((8,), "float32")):
            with T.Kernel(1, threads=1):
                T.alloc_reducer((8,), "float32", op="prod")
    with pytest.raises(ValueError, match=r"the bitwise reducer op 'bitor' needs an integer "
                                         r"dtype, got float32"):
        @T.prim_func
        def bitor(X: T.Tensor((8,), "float32")):
            with T.Kernel(1, threads=1):
                T.alloc_reducer((8,), "float32", op="bitor")
    with pytest.raises(TypeError, match=r"T.finalize_reducer: .* is not a reducer"):
        @T.prim_func
        def plain(X: T.Tensor((8,), "float32")):
            with T.Kernel(1, threads=1):
                f = T.alloc_fragment((8,), "float32")
                T.finalize_reducer(f)
