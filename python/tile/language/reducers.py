"""TileLang's reducers: T.alloc_reducer, T.finalize_reducer, and the epoch operations
T.reducer_init and T.reducer_update, over the IR's fragments.

In TileLang each thread accumulates into its own copy of a reducer (a replicated fragment) and
finalize_reducer combines the copies across threads. The IR has no such buffer: a reducer here
is one fragment of the reducer's shape, every element of which lives with the threads its
layout gives it, and an update inside T.Parallel is a store into that element, so the
compiler runs the updates of an element on its owner, one after another (layout-inference
makes the element's owner run every iteration that updates it). Every contribution is
combined exactly once, as TileLang's finalize combines them: the values are TileLang's (a sum
of floats in another order). finalize_reducer(acc) then has nothing left to combine and writes
no statement; finalize_reducer(acc, dst) copies the result into dst."""

from tile.language import _where, allocations, buffers, dtypes, promotion
from tile.language import expr as expr_module
from tile.language.builder import current
from tile.language.tile_ops import copy, fill

_OPS = ("sum", "max", "min", "bitand", "bitor", "bitxor")
_BITWISE = ("bitand", "bitor", "bitxor")
# Each op's combine, as a binary operator of tile.language.expr.
_COMBINE = {"sum": "+", "max": "max", "min": "min", "bitand": "&", "bitor": "|",
            "bitxor": "^"}


def alloc_reducer(shape, dtype, op="sum", replication=None):
    """A reducer of `shape` combining by `op` ("sum", "max", "min", or on integers "bitand",
    "bitor", "bitxor"): a fragment (see the module's comment). replication="all" or "none"
    (TileLang's legacy reducer) changes no value here: updates combine as they are written."""
    what = "T.alloc_reducer"
    builder = current(what)
    if op not in _OPS:
        raise builder.fail(ValueError, what, f"op={op!r}: expected one of "
                           f"{', '.join(map(repr, _OPS))}")
    if replication not in (None, "all", "none"):
        raise builder.fail(ValueError, what, f"replication={replication!r}: expected 'all' or "
                           "'none' (or None)")
    element = dtypes.parse(dtype, f"{_where.here()}: in kernel '{builder.name}': {what}")
    if op in _BITWISE and not element.is_int:
        raise builder.fail(ValueError, what, f"the bitwise reducer op {op!r} needs an integer "
                           f"dtype, got {element}")
    if op in _BITWISE and replication is not None:
        raise builder.fail(ValueError, what, "TileLang's legacy reducer (replication=) "
                           "combines by sum, max or min only")
    buffer = allocations.alloc_fragment(shape, dtype)
    buffer.reducer_op = op
    return buffer


def _op_of(reducer, what):
    op = getattr(reducer, "reducer_op", None)
    if not isinstance(reducer, buffers.Buffer) or op is None:
        builder = current(what)
        raise builder.fail(TypeError, what, f"{reducer!r} is not a reducer (made by "
                           "T.alloc_reducer)")
    return op


def _identity(op, dtype):
    if op in ("sum", "bitor", "bitxor"):
        return 0
    if op == "bitand":
        # Typed, not a Python literal: u64's 2^64 - 1 is past the literals Python may write.
        return expr_module.literal_of(2**dtype.bits - 1, dtype) if dtype.kind == "uint" else -1
    if dtype.is_float:
        infinity = expr_module.infinity(dtype)
        return -infinity if op == "max" else infinity
    low, high = promotion.integer_range(dtype)
    return low if op == "max" else high


def reducer_init(reducer, init=None):
    """Opens an epoch: the reducer holds its op's identity, or `init`, which then counts as
    one contribution to every element, once (TileLang's logical starting value)."""
    op = _op_of(reducer, "T.reducer_init")
    fill(reducer, _identity(op, reducer.dtype) if init is None else init)


def reducer_update(target, value):
    """Combines `value` into the reducer element `target` (written acc[i, ...])."""
    what = "T.reducer_update"
    if not isinstance(target, buffers.Access) or not target.is_point:
        builder = current(what)
        raise builder.fail(ValueError, what, "expects acc[indices], one element of a reducer, "
                           "as its first argument")
    op = _op_of(target.buffer, what)
    value = expr_module.converted_for(value, target.buffer.dtype, what)
    target.store(expr_module.binary(_COMBINE[op], target, value))


def finalize_reducer(reducer, dst=None, batch=1, annotations=None):
    """Closes an epoch. The reducer already holds every contribution combined: with `dst`
    (TileLang's v2 form) the result is copied there; without (the legacy in-place form)
    nothing is written."""
    what = "T.finalize_reducer"
    _op_of(reducer, what)
    if not isinstance(batch, int) or batch < 1:
        builder = current(what)
        raise builder.fail(ValueError, what, f"batch must be >= 1, got {batch!r}")
    if dst is not None:
        copy(reducer, dst)
