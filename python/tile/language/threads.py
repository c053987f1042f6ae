"""The thread and block indices of a kernel: T.get_thread_binding(dim), T.get_thread_bindings(),
T.thread_binding(start, stop, thread), T.get_block_binding(dim), T.get_block_bindings().

TileLang's thread index is threadIdx: every thread of a block runs the kernel body, each with
its own index (SIMT). The tile IR's thread index is the variable of a thread_bound loop, so a
kernel that asks for one becomes thread-level code: when its T.Kernel block closes, its body
goes inside `for tz, ty, tx thread_bound(...)` loops over the launch's thread axes (x
innermost, the order thread-binding makes), its top-level shared allocations before them
(shared memory is one per block, not per thread). Tile operations and T.Parallel loops divide
a tile among threads, so inside those loops they are refused by name, except T.clear and
T.fill of a thread's own local buffer, written as the serial loops of stores they are."""

from tile.language import _where, dtypes, source_names
from tile.language import expr as expr_module
from tile.language._proto import pb
from tile.language.builder import statement_site

_AXES = ("x", "y", "z")
_PROTO_AXES = (pb.THREAD_AXIS_X, pb.THREAD_AXIS_Y, pb.THREAD_AXIS_Z)
_DEFAULT_NAMES = ("tx", "ty", "tz")


class _ThreadIndices:
    """A kernel's thread variables, one per launch thread axis, made on first use."""

    def __init__(self, builder, site):
        self.site = site                        # the first call that asked for one
        self.vars = [None] * len(builder.launch.threads)


def _indices(builder, site):
    indices = getattr(builder, "thread_indices", None)
    if indices is None:
        indices = builder.thread_indices = _ThreadIndices(builder, site)
    return indices


def _axis(builder, what, dim):
    if isinstance(dim, str):
        names = {f"threadIdx.{a}": d for d, a in enumerate(_AXES)}
        if dim not in names:
            raise builder.fail(ValueError, what, f"thread {dim!r}: TileLang's thread names are "
                               "threadIdx.x, threadIdx.y and threadIdx.z")
        dim = names[dim]
    if not isinstance(dim, int) or isinstance(dim, bool) or not 0 <= dim <= 2:
        raise builder.fail(ValueError, what, f"dim must be 0, 1 or 2, not {dim!r}")
    return dim


def _thread_var(builder, what, site, dim, name=None):
    indices = _indices(builder, site)
    threads = list(builder.launch.threads)
    if dim >= len(threads):
        raise builder.fail(ValueError, what, f"the launch has {len(threads)} thread "
                           f"ax{'is' if len(threads) == 1 else 'es'} ({threads}); "
                           f"threadIdx.{_AXES[dim]} is not one of them; give T.Kernel "
                           "threads=(x, y[, z])")
    if indices.vars[dim] is None:
        base = name or _DEFAULT_NAMES[dim]
        indices.vars[dim] = expr_module.Var(builder.fresh_name(base), dtypes.int32, "thread",
                                            builder, site)
    return indices.vars[dim]


def get_thread_binding(dim=0):
    """threadIdx.x (dim 0), .y (1) or .z (2): the index of the thread running the body."""
    what = "T.get_thread_binding"
    builder, site = statement_site(what)
    dim = _axis(builder, what, dim)
    return _thread_var(builder, what, site, dim, source_names.assigned_name(_where.user_frame()))


def get_thread_bindings():
    """The thread indices of every thread axis of the launch, x first."""
    what = "T.get_thread_bindings"
    builder, site = statement_site(what)
    return [_thread_var(builder, what, site, d) for d in range(len(builder.launch.threads))]


def thread_binding(start, stop=None, thread=None, *, annotations=None):
    """TileLang's `tx = T.thread_binding(0, threads, thread="threadIdx.x")`: the launch's
    thread index of that axis, which must cover the whole axis from 0."""
    what = "T.thread_binding"
    builder, site = statement_site(what)
    if annotations:
        raise builder.fail(NotImplementedError, what, f"annotations {annotations!r}: the IR's "
                           "For carries no annotations")
    if thread is None:
        raise builder.fail(ValueError, what, "name the thread: thread=\"threadIdx.x\"")
    dim = _axis(builder, what, thread)
    if stop is None:
        start, stop = 0, start
    threads = list(builder.launch.threads)
    extent = threads[dim] if dim < len(threads) else None
    if start != 0 or stop != extent:
        raise builder.fail(NotImplementedError, what, f"range({start!r}, {stop!r}) of "
                           f"{thread}: the IR's thread index is the launch's, so the range is "
                           f"the whole axis, range(0, {extent}) (T.Kernel's threads=)")
    return _thread_var(builder, what, site, dim, source_names.assigned_name(_where.user_frame()))


def get_block_binding(dim=0):
    """blockIdx.x (dim 0), .y (1) or .z (2): the variables `with T.Kernel(...) as (bx, by)`
    gives."""
    what = "T.get_block_binding"
    builder, _ = statement_site(what)
    blocks = getattr(builder, "block_vars", [])
    if not isinstance(dim, int) or isinstance(dim, bool) or not 0 <= dim < len(blocks):
        raise builder.fail(ValueError, what, f"dim {dim!r}: the grid has {len(blocks)} "
                           f"ax{'is' if len(blocks) == 1 else 'es'}")
    return blocks[dim]


def get_block_bindings():
    what = "T.get_block_bindings"
    builder, _ = statement_site(what)
    return list(getattr(builder, "block_vars", []))


# --- the body as thread-level code ---------------------------------------------------------

_TILE_OPS = {"copy": "T.copy", "gemm": "T.gemm", "reduce": "T.reduce_*",
             "atomic_add": "T.atomic_add of a region", "cumsum": "T.cumsum",
             "fill": "T.fill / T.clear"}


def _site_text(stmt):
    loc = stmt.loc
    return f"{loc.file}:{loc.line}" if loc.file else "?"


def _fill_as_stores(builder, stmt, declared):
    """A fill of a local buffer as the serial loops of stores it is; None when it is not."""
    fill = stmt.fill
    if declared[fill.dst.buffer].scope != pb.MEMORY_SCOPE_LOCAL:
        return None
    loops = []
    indices = []
    for r in fill.dst.ranges:
        if r.extent.WhichOneof("node") != "int_imm" or r.min.WhichOneof("node") != "int_imm":
            return None
        var = pb.VarDecl(name=builder.fresh_name(f"{fill.dst.buffer}_i{len(loops)}"),
                         dtype=r.extent.int_imm.dtype)
        loops.append((var, r))
        ref = pb.Expr(var=pb.VarRef(name=var.name))
        indices.append(ref if r.min.int_imm.value == 0 else
                       pb.Expr(binary=pb.Binary(op=pb.BINARY_OP_ADD, a=r.min, b=ref)))
    body = pb.Stmt(store=pb.Store(buffer=fill.dst.buffer, indices=indices, value=fill.value),
                   loc=stmt.loc)
    for var, r in reversed(loops):
        zero = pb.Expr(int_imm=pb.IntImm(dtype=r.extent.int_imm.dtype, value=0))
        loop = pb.For(var=var, min=zero, extent=r.extent, kind=pb.FOR_KIND_SERIAL, body=body)
        body = pb.Stmt(**{"for": loop}, loc=stmt.loc)
    return body


def _is_element(region):
    return all(r.extent.WhichOneof("node") == "int_imm" and r.extent.int_imm.value == 1
               for r in region.ranges)


def _element_atomic(declared, stmt):
    """T.atomic_add(C[i], acc[0]) of two elements: the element atomic `atomic_add_at` every
    thread makes on its own, the value converted to the destination's type as TileLang does."""
    add = stmt.atomic_add

    def load(region):
        return pb.Expr(buffer_load=pb.BufferLoad(buffer=region.buffer,
                                                 indices=[r.min for r in region.ranges]))

    value = load(add.src)
    src_type, dst_type = declared[add.src.buffer].dtype, declared[add.dst.buffer].dtype
    if src_type != dst_type:
        value = pb.Expr(cast=pb.Cast(dtype=dst_type, value=value))
    call = pb.Call(dtype=pb.DataType(scalar=pb.SCALAR_TYPE_VOID), name="atomic_add_at",
                   args=[load(add.dst), value])
    return pb.Stmt(evaluate=pb.Evaluate(value=pb.Expr(call=call)), loc=stmt.loc)


def _thread_level(builder, indices, stmts, declared):
    """`stmts` with local fills as stores; a tile operation, T.Parallel or fragment refused."""
    out = []
    for stmt in stmts:
        kind = stmt.WhichOneof("node")
        if kind == "allocate":
            declared[stmt.allocate.buffer.name] = stmt.allocate.buffer
        if kind == "fill":
            lowered = _fill_as_stores(builder, stmt, declared)
            if lowered is not None:
                out.append(lowered)
                continue
        if kind == "atomic_add" and _is_element(stmt.atomic_add.src) and \
                _is_element(stmt.atomic_add.dst):
            out.append(_element_atomic(declared, stmt))
            continue
        if kind in _TILE_OPS or (kind == "for" and getattr(stmt, "for").kind ==
                                 pb.FOR_KIND_PARALLEL) or (
                kind == "allocate" and stmt.allocate.buffer.scope == pb.MEMORY_SCOPE_FRAGMENT):
            construct = {"for": "T.Parallel", "allocate": "T.alloc_fragment"}.get(
                kind, _TILE_OPS.get(kind))
            raise builder.fail(NotImplementedError, construct, "in a kernel that uses its thread "
                               f"index (asked for at {indices.site}), every thread runs the "
                               "body: the IR's thread index is the variable of thread_bound "
                               "loops around it, and tile operations, T.Parallel loops and "
                               "fragments, which divide a tile among the threads, are not "
                               "lowered inside them; write it as T.serial loops of element "
                               "loads and stores on local and shared buffers",
                               _where.Site(stmt.loc.file, stmt.loc.line))
        for field in ("seq", "for", "if"):
            if kind != field:
                continue
            node = getattr(stmt, field)
            if field == "seq":
                rebuilt = _thread_level(builder, indices, list(node.stmts), declared)
                del node.stmts[:]
                node.stmts.extend(rebuilt)
            else:
                for body in (("body",) if field == "for" else ("then_body", "else_body")):
                    if node.HasField(body):
                        _thread_level(builder, indices, [getattr(node, body)], declared)
        out.append(stmt)
    return out


def bind_body(builder):
    """At the end of T.Kernel: the body inside the thread loops when it used a thread index."""
    indices = getattr(builder, "thread_indices", None)
    if indices is None or len(builder.blocks) != 1:
        return
    declared = {p.buffer.name: p.buffer for p in builder.params if p.HasField("buffer")}
    declared.update({w.name: w.decl() for w in builder.workspaces})
    stmts = _thread_level(builder, indices, builder.blocks[0], declared)
    shared, per_thread = [], []
    for stmt in stmts:
        is_shared = stmt.WhichOneof("node") == "allocate" and \
            stmt.allocate.buffer.scope == pb.MEMORY_SCOPE_SHARED
        (shared if is_shared else per_thread).append(stmt)
    body = pb.Stmt(seq=pb.Seq(stmts=per_thread))
    for dim, extent in enumerate(builder.launch.threads):
        if indices.vars[dim] is None:
            indices.vars[dim] = expr_module.Var(builder.fresh_name(_DEFAULT_NAMES[dim]),
                                                dtypes.int32, "thread", builder, indices.site)
        loop = pb.For(var=indices.vars[dim].decl(), min=expr_module.literal(0).node,
                      extent=expr_module.literal(extent).node, kind=pb.FOR_KIND_THREAD_BOUND,
                      thread_axis=_PROTO_AXES[dim], body=body)
        body = pb.Stmt(**{"for": loop}, loc=indices.site.proto())
    builder.blocks[0] = shared + [body]
