"""Row and column reductions of a 2-D tensor with T.reduce_sum / reduce_max / reduce_min /
reduce_absmax, in the style of TileLang's reduce tests
(testing/python/language/test_tilelang_language_reduce.py), whose @tilelang.jit(out_idx=-1)
factories pick the reduction with a Python `if` on `op`. Those reduce one whole tile; here a
block walks its rows (or columns) in tiles and folds each tile in with clear=False, so any M and
N work. A ragged tile reads zeros past the tensor, which would join a max or min: for those the
padding is first set to the reduction's identity, by its global index.
Run it: python3 python/examples/tilelang/reduce_rows.py"""

import numpy as np

import tile as tilelang
import tile.language as T

from _harness import Inputs, check, f64

OPS = ("sum", "max", "min", "absmax")


def _reduce(op, src, dst, dim):
    if op == "sum":
        T.reduce_sum(src, dst, dim=dim, clear=False)
    elif op == "max":
        T.reduce_max(src, dst, dim=dim, clear=False)
    elif op == "min":
        T.reduce_min(src, dst, dim=dim, clear=False)
    elif op == "absmax":
        T.reduce_absmax(src, dst, dim=dim, clear=False)


def _identity(op, dtype):
    if op == "max":
        return -T.infinity(dtype)
    if op == "min":
        return T.infinity(dtype)
    return 0  # sum, and absmax (|x| >= 0)


@tilelang.jit(out_idx=-1)
def row_reduce(M, N, op, block_M=32, block_N=64, dtype=T.float32, threads=128):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            A_frag = T.alloc_fragment((block_M, block_N), dtype)
            acc = T.alloc_fragment((block_M,), dtype)
            T.fill(acc, _identity(op, dtype))
            for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=2):
                T.copy(A[bx * block_M, k * block_N], A_frag)
                if op in ("max", "min"):
                    for i, j in T.Parallel(block_M, block_N):
                        A_frag[i, j] = T.if_then_else(k * block_N + j < N, A_frag[i, j],
                                                      _identity(op, dtype))
                _reduce(op, A_frag, acc, dim=1)
            T.copy(acc, B[bx * block_M])

    return main


@tilelang.jit(out_idx=-1)
def col_reduce(M, N, op, block_M=32, block_N=64, dtype=T.float32, threads=128):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            A_frag = T.alloc_fragment((block_M, block_N), dtype)
            acc = T.alloc_fragment((block_N,), dtype)
            T.fill(acc, _identity(op, dtype))
            for k in T.Pipelined(T.ceildiv(M, block_M), num_stages=2):
                T.copy(A[k * block_M, bx * block_N], A_frag)
                if op in ("max", "min"):
                    for i, j in T.Parallel(block_M, block_N):
                        A_frag[i, j] = T.if_then_else(k * block_M + i < M, A_frag[i, j],
                                                      _identity(op, dtype))
                _reduce(op, A_frag, acc, dim=0)
            T.copy(acc, B[bx * block_N])

    return main


def ref_program(A, op, axis):
    return {"sum": np.sum, "max": np.max, "min": np.min,
            "absmax": lambda a, axis: np.abs(a).max(axis=axis)}[op](A, axis=axis)


# The ragged shape is one column (of a 64-wide tile) and 37 rows (a second tile of 5 of 32).
SHAPES = {"default": dict(M=256, N=320), "ragged": dict(M=37, N=1)}


def run(M, N, framework="numpy"):
    """Runs every reduction along rows and along columns; the largest error against float64."""
    a = Inputs(framework).randn((M, N), "float32")
    errors = []
    for op in OPS:
        errors.append(check(f"rows {op}", row_reduce(M, N, op)(a), ref_program(f64(a), op, 1),
                            rtol=1e-5, atol=1e-4))
        errors.append(check(f"columns {op}", col_reduce(M, N, op)(a),
                            ref_program(f64(a), op, 0), rtol=1e-5, atol=1e-4))
    return max(errors)


if __name__ == "__main__":
    print("max error", run(**SHAPES["default"]))
