"""Buffers allocated in a kernel: T.alloc_shared (per block), T.alloc_fragment
(a register tile spread over the block's threads), T.alloc_local (per thread).
Each is named after the Python variable it is assigned to."""

import numbers

from tile.language import _where, dtypes, source_names
from tile.language import expr as expr_module
from tile.language._proto import pb
from tile.language.buffers import Buffer
from tile.language.builder import current, statement_site


def _alloc(what, scope, shape, dtype, name):
    builder, site = statement_site(what)
    dtype = dtypes.parse(dtype, f"{site}: in kernel '{builder.name}': {what}")
    entries = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    if not entries:
        raise builder.fail(ValueError, what, "the shape has no dimensions")
    extents = []
    for d, entry in enumerate(entries):
        if isinstance(entry, numbers.Integral) and not isinstance(entry, bool):
            if entry < 1:
                raise builder.fail(ValueError, what, f"dimension {d} of the shape is {entry}; "
                                   "extents are positive")
            extents.append(expr_module.literal(int(entry)))
            continue
        if not isinstance(entry, expr_module.Expr) or not entry.dtype.is_int:
            raise builder.fail(TypeError, what, f"dimension {d} of the shape is {entry!r}, "
                               "not an integer")
        # Shared memory is sized when the kernel is compiled; a register tile may follow a
        # kernel dim (a whole row), compiled in at each launch's value (capi/tile.h).
        moving = sorted(v.name for v in entry.vars if v.kind != "dim")
        if scope == "shared" or moving:
            because = (f"it uses {', '.join(moving)}, which changes within a launch" if moving
                       else "shared memory is sized when the kernel is compiled")
            raise builder.fail(ValueError, what, f"dimension {d} of the shape is not a "
                               f"constant: {because}; use a Python int")
        extents.append(builder.use(entry, what))
    base = name or source_names.assigned_name(_where.user_frame()) or scope
    buffer = Buffer(builder.fresh_name(base), dtype, extents, scope, builder, site)
    builder.append(pb.Stmt(allocate=pb.Allocate(buffer=buffer.decl()), loc=site.proto()))
    return buffer


def _scope(what, scope, accepted):
    """TileLang's scope= spelling, accepted where it names the scope the call makes."""
    if scope is not None and scope not in accepted:
        builder = current(what)
        raise builder.fail(NotImplementedError, what, f"scope={scope!r}: this call makes "
                           f"{accepted[0]!r} buffers (accepted: {', '.join(map(repr, accepted))})")


def alloc_shared(shape, dtype, name=None, scope=None):
    _scope("T.alloc_shared", scope, ("shared.dyn", "shared"))
    return _alloc("T.alloc_shared", "shared", shape, dtype, name)


def alloc_fragment(shape, dtype, name=None, scope=None):
    # TileLang's alloc_fragment(..., scope="shared") makes a shared buffer: so does this.
    if scope in ("shared", "shared.dyn"):
        return _alloc("T.alloc_fragment", "shared", shape, dtype, name)
    _scope("T.alloc_fragment", scope, ("local.fragment", "shared", "shared.dyn"))
    return _alloc("T.alloc_fragment", "fragment", shape, dtype, name)


def alloc_local(shape, dtype, name=None, scope=None):
    _scope("T.alloc_local", scope, ("local",))
    return _alloc("T.alloc_local", "local", shape, dtype, name)


def alloc_global(shape, dtype, name=None):
    """TileLang's T.alloc_global(shape, dtype): a workspace in global memory that the
    prim_func's T.Kernel blocks share (one writes it, a later one reads it). Written before the
    blocks; each call of the compiled kernel makes it (uninitialised) beside its tensors."""
    what = "T.alloc_global"
    builder = current(what)
    site = _where.here()
    if builder.kernel_open:
        raise builder.fail(ValueError, what, "a workspace is declared before the T.Kernel "
                           "blocks that use it, not inside one")
    dtype = dtypes.parse(dtype, f"{site}: in kernel '{builder.name}': {what}")
    entries = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    extents = []
    for d, entry in enumerate(entries):
        if isinstance(entry, numbers.Integral) and not isinstance(entry, bool) and entry > 0:
            extents.append(expr_module.literal(int(entry)))
        elif isinstance(entry, expr_module.Expr) and entry.dtype.is_int and all(
                v.kind == "dim" for v in entry.vars):
            extents.append(builder.use(entry, what))
        else:
            raise builder.fail(ValueError, what, f"dimension {d} of the shape is {entry!r}; "
                               "use positive ints and the parameters' dims")
    base = name or source_names.assigned_name(_where.user_frame()) or "workspace"
    buffer = Buffer(builder.fresh_name(base), dtype, extents, "global", builder, site)
    builder.workspaces.append(buffer)
    return buffer


_BUFFER_SCOPES = {"shared": "shared", "shared.dyn": "shared", "local.fragment": "fragment",
                  "local": "local", "local.var": "local"}


def alloc_buffer(shape, dtype="float32", scope="global", name=None, **_tvm_keywords):
    """TVM's T.alloc_buffer(shape, dtype, scope=...) inside a kernel: the allocation its scope
    names (shared, fragment or local). A global buffer is a workspace here (T.alloc_global,
    before the T.Kernel blocks), so scope="global" is refused with that hint."""
    what = "T.alloc_buffer"
    if scope not in _BUFFER_SCOPES:
        builder = current(what)
        raise builder.fail(NotImplementedError, what, f"scope={scope!r}: inside a kernel a buffer "
                           f"is {', '.join(map(repr, _BUFFER_SCOPES))}; a global workspace is "
                           "T.alloc_global(shape, dtype), written before the T.Kernel blocks")
    return _alloc(what, _BUFFER_SCOPES[scope], shape, dtype, name)
