"""Views of a global buffer under another shape: TileLang's `T.Tensor(shape, dtype, buf.data)`,
`T.reshape(buf, shape)` and `T.view(buf, shape)` on kernel parameters, T.empty outputs and
T.alloc_global workspaces (its convolution reads its 4-D filter as a 2-D matrix).

A view is a buffer parameter of its own, appended after the prim_func's parameters and
workspaces; each call binds it to the base tensor reshaped (a view sharing its memory, never a
copy: tile.jit's JITKernel and _frameworks.view_as). So every target reads and writes it as any
dense parameter, with no new construct in the IR. The IR assumes parameters do not overlap, so
a kernel may not write through one of two names of the same memory and touch the other: that
is refused when the prim_func is traced (check_aliasing). Views of shared, fragment and local
buffers are not here (refused by name)."""

import numbers

from tile.language import _where, dtypes
from tile.language import expr as expr_module
from tile.language.buffers import Buffer, check_owner
from tile.language.builder import current


class BufferData:
    """TileLang's `buffer.data`: the buffer's memory, which T.Tensor(shape, dtype, data) views
    under another shape."""

    def __init__(self, buffer):
        self.buffer = buffer

    def __repr__(self):
        return f"<{self.buffer.name}.data>"


def view_of(base, shape, dtype, what):
    """A Buffer of `shape` over the memory of the global buffer `base`."""
    builder = current(what)
    if isinstance(base, BufferData):
        base = base.buffer
    if not isinstance(base, Buffer):
        raise builder.fail(TypeError, what, f"views a buffer (or buffer.data), not "
                           f"{type(base).__name__}")
    check_owner(builder, base, what)
    if base.scope != "global":
        raise builder.fail(NotImplementedError, what, f"'{base.name}' is a {base.scope} buffer: "
                           "views here are of kernel parameters, T.empty outputs and "
                           "T.alloc_global workspaces (the IR declares a shared, fragment or "
                           "local buffer with one shape)")
    base = getattr(base, "view_base", None) or base  # a view of a view views the base
    dtype = base.dtype if dtype is None else dtypes.parse(dtype, f"{_where.here()}: {what}")
    if dtype != base.dtype:
        raise builder.fail(NotImplementedError, what, f"a view as {dtype.name} of "
                           f"'{base.name}' ({base.dtype.name}): views keep the element type "
                           "(use T.reinterpret on elements)")
    extents = _extents(builder, shape, what)
    known = [_constant(e) for e in list(base._shape) + extents]  # pylint: disable=protected-access
    if None not in known:
        count = _product(known[:base.ndim])
        if _product(known[base.ndim:]) != count:
            raise builder.fail(ValueError, what, f"a view of {_product(known[base.ndim:])} "
                               f"elements of '{base.name}', which has {count}")
    name = builder.fresh_name(f"{base.name}_view")
    view = Buffer(name, base.dtype, extents, "global", builder, _where.here())
    view.view_base = base
    builder.views.append(view)
    return view


def reshape(src, shape):
    """TileLang's T.reshape(buffer, shape): the buffer's memory under another shape."""
    return view_of(src, shape, None, "T.reshape")


def view(src, shape=None, dtype=None):
    """TileLang's T.view(buffer, shape=None, dtype=None); the element type stays."""
    if shape is None:
        shape = src.shape if isinstance(src, Buffer) else src.buffer.shape
    return view_of(src, shape, dtype, "T.view")


def check_aliasing(builder, kernels):
    """Refuses a kernel that writes through a view or its base and also uses the other: the
    IR's parameters do not alias, so the compiled code may reorder those accesses."""
    names = {}
    for v in builder.views:
        names.setdefault(v.view_base.name, {v.view_base.name}).add(v.name)
    if not names:
        return
    for kernel in kernels:
        used, written = _uses(kernel.body)
        for group in names.values():
            touched = group & used
            if len(touched) > 1 and group & written:
                raise ValueError(
                    f"{builder.site}: in kernel '{kernel.name}': {', '.join(sorted(touched))} "
                    "are one buffer's memory under two shapes, and the kernel writes through "
                    f"{', '.join(sorted(group & written))}: use one name per kernel for memory "
                    "it writes (the IR's parameters do not overlap)")


def _uses(stmt):
    """The buffers a statement tree names, and those it writes: a store's buffer, the `dst` or
    gemm `c` region of a tile operation, and the buffer an atomic call updates (its first
    argument)."""
    used, written = set(), set()

    def walk(message):
        for field, value in message.ListFields():
            if field.name == "buffer" and isinstance(value, str):  # Store, BufferLoad, Region
                used.add(value)
                if type(message).__name__ == "Store":
                    written.add(value)
            elif field.name in ("dst", "c") and type(value).__name__ == "Region":
                written.add(value.buffer)
            elif field.name == "args" and type(message).__name__ == "Call" and \
                    message.name.startswith("atomic") and value and \
                    value[0].WhichOneof("node") == "buffer_load":
                written.add(value[0].buffer_load.buffer)
            # A repeated field's value is a container; protobuf's upb descriptors (5.x) have no
            # `label`, so tell containers from messages and scalars by the value.
            repeated = not hasattr(value, "ListFields") and not isinstance(
                value, (str, bytes, int, float))
            children = value if repeated else [value]
            for child in children:
                if hasattr(child, "ListFields"):
                    walk(child)
    walk(stmt)
    return used, written


def _extents(builder, shape, what):
    entries = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    extents = []
    for d, entry in enumerate(entries):
        if isinstance(entry, numbers.Integral) and not isinstance(entry, bool) and entry > 0:
            extents.append(expr_module.literal(int(entry)))
        elif isinstance(entry, expr_module.Expr) and entry.dtype.is_int and all(
                v.kind == "dim" for v in entry.vars):
            extents.append(builder.use(entry, what))
        else:
            raise builder.fail(ValueError, what, f"dimension {d} of the view's shape is "
                               f"{entry!r}; use positive ints and the parameters' dims")
    return extents


def _constant(e):
    value = e.literal_value()
    return None if value is None else int(value)


def _product(values):
    result = 1
    for v in values:
        result *= v
    return result
