"""tile.language: TileLang's kernel language over the tile IR.

    import tile.language as T

    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def gemm(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
            A_s = T.alloc_shared((128, 32), "float16")
            B_s = T.alloc_shared((32, 128), "float16")
            C_l = T.alloc_fragment((128, 128), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
                T.copy(A[by * 128, k * 32], A_s)
                T.copy(B[k * 32, bx * 128], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * 128, bx * 128])

    gemm(a, b, c)   # numpy arrays, on the CPU target; gemm.compile("cuda") for a GPU

The function runs once when decorated (it is traced): each T.* call appends
tile_ir.v1 messages (built with the classes protoc generates from
tile_ir/proto/tile_ir.proto), which libtile reads and verifies; kernels print
as the same canonical text as the C++ DSL's. Names come from the Python
variables they are bound to. What the IR cannot express is refused with a
NotImplementedError (unsupported.py)."""

import builtins as _builtins

from tile.language import unsupported as _unsupported
from tile.language.allocations import (alloc_buffer, alloc_fragment, alloc_global, alloc_local,
                                       alloc_shared)
from tile.language.control import (Else, If, Kernel, Parallel, Persistent, Pipelined, parallel,
                                   serial, unroll, use_swizzle, vectorized)
from tile.language.expr import sigmoid
from tile.language.hints import (annotate_consumer_reg_alloc, annotate_producer_reg_alloc,
                                 assume, disable_warp_group_reg_alloc, no_set_max_nreg,
                                 set_max_nreg)
from tile.language import dtypes as _dtypes_module
from tile.language.dtypes import BY_NAME as _DTYPES
from tile.language.dtypes import DType
from tile.language.expr import Expr, cast, infinity, literal_of
from tile.language.layouts import Fragment, Layout, annotate_layout, make_swizzled_layout
from tile.language.views import reshape, view
from tile.language.im2col import im2col
from tile.language.threads import (get_block_binding, get_block_bindings, get_thread_binding,
                                   get_thread_bindings, thread_binding)
from tile.language.expr import select as if_then_else
from tile.language.prim_func import PrimFunc, Tensor, dynamic, prim_func, symbolic
from tile.language.eager import const, empty
from tile.language.variables import alloc_var
from tile.language.macros import macro, sync_threads
from tile.language.tile_ops import (GemmWarpPolicy, atomic_add, clear, copy, cumsum, fill, gemm,
                                    reduce_absmax, reduce_max, reduce_min, reduce_sum)
from tile.language.tile_ops import (reduce_abssum, reduce_bitand, reduce_bitor, reduce_bitxor,
                                    reduce_prod)
from tile.language.tile_ops import atomic_addx2, atomic_addx4, atomic_max, atomic_min
from tile.language.bits import reinterpret
from tile.language.reducers import (alloc_reducer, finalize_reducer, reducer_init,
                                    reducer_update)
from tile.language import expr as _expr

Buffer = Tensor  # TileLang's older spelling of the annotation
globals().update(_DTYPES)  # T.float16, T.float32, T.int32, T.bool, ...
# TileLang's and TVM's other spellings of the same types: T.float, T.half, T.double,
# T.float8_e4m3fn.
globals().update(_dtypes_module._ALIASES)
globals().update({name: getattr(_unsupported, name) for name in _unsupported.REFUSED})


def ceildiv(a, b):
    return _expr.folded_or_binary("ceildiv", a, b, lambda x, y: -(-x // y))


def floordiv(a, b):
    return _expr.folded_or_binary("//", a, b, lambda x, y: x // y)


def floormod(a, b):
    return _expr.folded_or_binary("%", a, b, lambda x, y: x % y)


def truncdiv(a, b):
    """C's division, rounding toward zero."""
    return _expr.binary("truncdiv", a, b)


def truncmod(a, b):
    return _expr.binary("truncmod", a, b)


def max(a, b):  # pylint: disable=redefined-builtin
    return _expr.folded_or_binary("max", a, b, lambda x, y: x if x >= y else y)


def min(a, b):  # pylint: disable=redefined-builtin
    return _expr.folded_or_binary("min", a, b, lambda x, y: x if x <= y else y)


def clamp(value, lo, hi):
    """TileLang's T.clamp: min(max(value, lo), hi)."""
    return min(max(value, lo), hi)


# TileLang spells the serial loop both ways.
Serial = serial


def And(a, b):
    return _expr.binary("&", a, b)


def Or(a, b):
    return _expr.binary("|", a, b)


def Not(a):
    return _expr.logical_not(a)


def dtype(name):  # pylint: disable=redefined-outer-name
    """TVM's T.dtype("float16"): the DType of a spelling (also an annotation, `x: T.dtype`)."""
    return _dtypes_module.parse(name, "T.dtype")


def Cast(dtype, value):
    """TVM's argument order of T.cast."""
    return cast(value, dtype)


def _intrinsic(name):
    def call(*args):
        return _expr.call(name, *args)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"The {name} intrinsic (tile_ir/intrinsics.h), element by element."
    return call


for _name in _expr.INTRINSICS:
    globals()[_name] = _intrinsic(_name)
del _name

# `from tile.language import *` leaves Python's own print, max, min, abs, pow and bool
# alone; T.max and the rest are there through the module.
__all__ = [name for name in [
    "And", "Buffer", "Cast", "DType", "Else", "Expr", "GemmWarpPolicy", "If", "Kernel", "Not",
    "Or", "Parallel", "Pipelined", "PrimFunc", "Tensor", "alloc_fragment", "alloc_global",
    "alloc_local",
    "Serial", "alloc_shared", "alloc_var", "const", "empty", "atomic_add", "cast", "ceildiv", "clamp", "clear", "copy", "cumsum",
    "dtype", "dynamic", "macro", "sync_threads",
    "fill", "floordiv", "floormod", "gemm", "if_then_else", "infinity", "literal_of", "max",
    "min", "prim_func", "reduce_absmax", "reduce_max", "reduce_min", "reduce_sum", "serial",
    "symbolic", "truncdiv", "truncmod", "unroll", "use_swizzle", "vectorized",
    "Fragment", "Layout", "annotate_layout", "get_block_binding", "get_block_bindings",
    "get_thread_binding", "get_thread_bindings", "make_swizzled_layout", "thread_binding",
    "atomic_max", "atomic_min", "reinterpret",
    "reduce_abssum", "reduce_bitand", "reduce_bitor", "reduce_bitxor", "reduce_prod",
    "alloc_reducer", "finalize_reducer", "reducer_init", "reducer_update",
    "Persistent", "reshape", "view", "im2col", "parallel", "sigmoid", "atomic_addx2",
    "atomic_addx4", "alloc_buffer", "assume",
    "no_set_max_nreg", "disable_warp_group_reg_alloc", "set_max_nreg",
    "annotate_producer_reg_alloc", "annotate_consumer_reg_alloc",
] + sorted(_DTYPES) + sorted(_dtypes_module._ALIASES) + sorted(_expr.INTRINSICS) + sorted(
    _unsupported.REFUSED)
           if not hasattr(_builtins, name)]


class UnknownNameError(NotImplementedError, AttributeError):
    """A name TileLang users may reach for that tile.language does not have. A
    NotImplementedError naming the name and the user's line; also an AttributeError, so that
    hasattr(T, name) and getattr(T, name, default) keep working."""


def __getattr__(name):
    # Python's own probes (__path__, __wrapped__, ...) get the plain AttributeError they expect.
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module 'tile.language' has no attribute '{name}'")
    raise UnknownNameError(f"{_unsupported._where.here()}: T.{name}: tile.language has no such "
                           "name (TileLang's names it has: python/README.md; the language "
                           "reference: docs/LANGUAGE.md)")
