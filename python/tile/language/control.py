"""The launch and the control flow of a kernel: `with T.Kernel(...) as (bx, by)`,
loops (`for k in T.Pipelined(...)`, `for i, j in T.Parallel(...)`, T.serial,
T.unroll, T.vectorized) and branches (`with T.If(c):`, `with T.Else():`).

A kernel is traced: its Python function runs once, so each loop's body runs
once, between two steps of the loop's generator, which open and close the
block the body appends to."""

from tile.language import _where, dtypes, linear, source_names
from tile.language import threads as thread_indices
from tile.language import expr as expr_module
from tile.language._proto import pb
from tile.language.builder import current, statement_site


class Kernel:
    """The launch: a grid of blocks (x first; ints or expressions such as
    T.ceildiv(N, 128)) and the threads of each block. Entering it gives the
    block indices, one per grid axis."""

    def __init__(self, *blocks, threads=128, cluster_dims=None, prelude=None):
        what = "T.Kernel"
        self.builder = builder = current(what)
        self.site = _where.here()
        if prelude is not None:
            raise builder.fail(NotImplementedError, what, "prelude: the IR has no "
                               "statements outside the kernel body")
        if builder.kernel_open:
            raise builder.fail(ValueError, what, "T.Kernel blocks do not nest: this one is "
                               f"inside the one at {builder.launch_site}")
        # Several T.Kernel blocks in one prim_func are kernels launched one after another.
        self.follows = builder.launch is not None
        if not 1 <= len(blocks) <= 3:
            raise builder.fail(ValueError, what, f"the grid has 1 to 3 axes, not {len(blocks)}")
        self.threads = _extents(builder, what, "threads", threads)
        self.cluster = [] if cluster_dims is None else _extents(builder, what, "cluster_dims",
                                                                cluster_dims)
        self.extents = []
        for axis, extent in enumerate(blocks):
            extent = expr_module.typed(expr_module.as_expr(extent, what), dtypes.int32)
            if not extent.dtype.is_int:
                raise builder.fail(TypeError, what, f"grid axis {axis} is "
                                   f"{extent.dtype.ir_name}, not an integer")
            if extent.dtype != dtypes.int32:  # block indices are i32, as in the C++ DSL
                extent = expr_module.cast(extent, dtypes.int32)
            self.extents.append(builder.use(extent, what))
        names = source_names.with_targets(_where.user_frame()) or []
        if len(names) != len(blocks):
            names = ["bx", "by", "bz"][:len(blocks)]
        self.names = names

    def __enter__(self):
        builder = self.builder
        if self.follows:
            builder.start_next_kernel()
        self.vars = [expr_module.Var(builder.fresh_name(name), dtypes.int32, "grid", builder,
                                     self.site) for name in self.names]
        builder.launch = pb.Launch(
            grid=[pb.GridAxis(var=v.decl(), extent=e.node) for v, e in zip(self.vars, self.extents)],
            threads=self.threads, cluster=self.cluster)
        builder.launch_site = self.site
        builder.block_vars = self.vars  # for T.get_block_binding
        builder.kernel_open = True
        return self.vars[0] if len(self.vars) == 1 else tuple(self.vars)

    def __exit__(self, exc_type, exc, traceback):
        builder = self.builder
        if exc_type is None:
            thread_indices.bind_body(builder)  # thread-level code if it used a thread index
        builder.kernel_open = False
        builder.kernel_done = True
        if exc_type is None and len(builder.blocks) != 1 and not builder.errors:
            builder.errors.append(f"{self.site}: in kernel '{builder.name}': T.Kernel: the "
                                  "block ended inside an open loop or branch (a return or "
                                  "break out of it?)")
        return False


def _extents(builder, what, role, value):
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not 1 <= len(values) <= 3 or not all(isinstance(v, int) and v > 0 for v in values):
        raise builder.fail(ValueError, what, f"{role} must be 1 to 3 positive Python ints, "
                           f"not {value!r}")
    return values


def use_swizzle(panel_size, order="row", enable=True):
    """Block rasterization for L2 reuse: blocks walk panels of panel_size rows (or columns)."""
    what = "T.use_swizzle"
    builder, _ = statement_site(what)
    orders = {"row": pb.SWIZZLE_ORDER_ROW_MAJOR, "col": pb.SWIZZLE_ORDER_COLUMN_MAJOR,
              "column": pb.SWIZZLE_ORDER_COLUMN_MAJOR}
    if order not in orders:
        raise builder.fail(ValueError, what, f"order is 'row' or 'col', not {order!r}")
    if not isinstance(panel_size, int) or panel_size < 1:
        raise builder.fail(ValueError, what, f"panel_size must be a positive int, not "
                           f"{panel_size!r}")
    if enable:
        builder.launch.swizzle.CopyFrom(pb.BlockSwizzle(panel_size=panel_size,
                                                        order=orders[order]))


class _LoopNest:
    """Loops nested outermost first, one per (min, extent, step) of `ranges`. A loop of step
    s != 1 counts k over [0, ceildiv(stop - start, s)) and gives the body `let i = start + k *
    s` (the IR's For has no step)."""

    def __init__(self, what, kind, ranges, hints, pipeline=None):
        self.what, self.kind, self.pipeline = what, kind, pipeline
        self.builder, self.site = statement_site(what)
        names = source_names.loop_targets(_where.user_frame())
        self.names = names if names and len(names) == len(ranges) else hints[:len(ranges)]
        self.ranges = ranges

    def __iter__(self):
        builder, loops = self.builder, []
        for name, (low, extent, step) in zip(self.names, self.ranges):
            low = expr_module.as_expr(low, self.what)
            extent = expr_module.as_expr(extent, self.what)
            # Loop variables take the type of the extent (i64 extents give i64 loops).
            dtype = extent.dtype if extent.dtype.is_int and not extent.weak else dtypes.int32
            low, extent = expr_module.typed(low, dtype), expr_module.typed(extent, dtype)
            for role, e in (("start", low), ("extent", extent)):
                if e.dtype != dtype:
                    raise builder.fail(TypeError, self.what, f"the {role} is "
                                       f"{e.dtype.ir_name}, not {dtype.ir_name}")
                builder.use(e, self.what)
            if step == 1:
                var = expr_module.Var(builder.fresh_name(name), dtype, "loop", builder, self.site)
                loops.append((var, low, extent, var))
                builder.open_block()
                continue
            count = expr_module.Var(builder.fresh_name(f"{name}_iter"), dtype, "loop", builder,
                                    self.site)
            loops.append((count, expr_module.typed(expr_module.literal(0), dtype), extent))
            builder.open_block()
            var = expr_module.Var(builder.fresh_name(name), dtype, "loop", builder, self.site)
            offset = count * abs(step)
            if low.literal_value() == 0:
                value = offset if step > 0 else -offset
            else:
                value = low + offset if step > 0 else low - offset
            builder.append(pb.Stmt(let=pb.Let(var=var.decl(), value=value.node),
                                   loc=self.site.proto()))
            loops[-1] = (count, loops[-1][1], extent, var)
        depth = len(builder.blocks)
        try:
            visible = [loop[-1] for loop in loops]  # the let of a stepped loop, else its var
            yield visible[0] if len(visible) == 1 else tuple(visible)
        except GeneratorExit:
            builder.errors.append(f"{self.site}: in kernel '{builder.name}': {self.what}: the "
                                  "loop body was left early (break or return); a kernel is "
                                  "traced once, so every loop body runs to its end")
            raise
        if len(builder.blocks) != depth:
            builder.errors.append(f"{self.site}: in kernel '{builder.name}': {self.what}: the "
                                  "loop body ended inside an open loop or branch")
            return
        for var, low, extent, *_ in reversed(loops):
            loop = pb.For(var=var.decl(), min=low.node, extent=extent.node, kind=self.kind,
                          body=builder.close_block())
            if self.pipeline is not None:
                loop.pipeline.CopyFrom(self.pipeline)
            builder.append(pb.Stmt(**{"for": loop}, loc=self.site.proto()))


def _range(what, start, stop, step):
    """(start, extent, step) of TileLang's range-like loop arguments; a step is a nonzero Python
    int, and the extent of a stepped loop is its trip count."""
    if step is None:
        step = 1
    if isinstance(step, expr_module.Expr) and step.literal_value() is not None and \
            step.dtype.is_int:
        step = int(step.literal_value())
    if isinstance(step, expr_module.Expr):
        raise current(what).fail(NotImplementedError, what, "a step that is an expression: the "
                                 "IR's For has no step, so its trip count and direction are "
                                 "computed when the kernel is traced; give a Python int")
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        raise current(what).fail(ValueError, what, f"step {step!r}: the step is a nonzero "
                                 "Python int")
    if stop is None:
        if step == 1:
            return 0, start, 1
        start, stop = 0, start
    start, stop = expr_module.as_expr(start, what), expr_module.as_expr(stop, what)
    start, stop = expr_module.unify(start, stop)
    if step == 1:
        return start, linear.extent_between(start, stop), 1
    span = linear.extent_between(start, stop) if step > 0 else linear.extent_between(stop, start)
    size = abs(step)
    constant = span.literal_value() if span.dtype.is_int else None
    if constant is not None:
        trips = expr_module.typed(expr_module.literal(max(0, -(-int(constant) // size))),
                                  span.dtype)
    else:
        trips = expr_module.binary("ceildiv", span, size)
    return start, trips, step


def Parallel(*extents, coalesced_width=None):
    """Element-wise loops over a tile; layout inference maps them to threads."""
    what = "T.Parallel"
    if coalesced_width is not None:
        raise current(what).fail(NotImplementedError, what, "coalesced_width: the IR leaves "
                                 "vector widths to the vectorize pass")
    return _LoopNest(what, pb.FOR_KIND_PARALLEL, [(0, e, 1) for e in extents], ["i", "j", "k"])


def Pipelined(start, stop=None, num_stages=0, order=None, stage=None, sync=None, group=None,
              annotations=None):
    """A software-pipelined loop: the copies of later iterations overlap this one's compute."""
    what = "T.Pipelined"
    _no_annotations(what, annotations)
    if sync is not None or group is not None:
        raise current(what).fail(NotImplementedError, what, "sync and group: the IR's "
                                 "PipelineInfo has num_stages, order and stage only")
    if not isinstance(num_stages, int) or num_stages < 0:
        raise current(what).fail(ValueError, what, f"num_stages must be an int of at least 0, "
                                 f"not {num_stages!r}")
    info = pb.PipelineInfo(num_stages=num_stages, order=list(order or []),
                           stage=list(stage or []))
    return _LoopNest(what, pb.FOR_KIND_PIPELINED, [_range(what, start, stop, None)], ["k"], info)


def _no_annotations(what, annotations):
    if annotations:
        raise current(what).fail(NotImplementedError, what, f"annotations {annotations!r}: the "
                                 "IR's For carries no annotations")


def serial(start, stop=None, step=None, *, annotations=None):
    _no_annotations("T.serial", annotations)
    return _LoopNest("T.serial", pb.FOR_KIND_SERIAL, [_range("T.serial", start, stop, step)],
                     ["s"])


def unroll(start, stop=None, step=None, *, explicit=False, unroll_factor=None, annotations=None):
    """A fully unrolled loop; `explicit` (TileLang's unrolling before code generation rather
    than by the compiler's pragma) is a hint that changes no value."""
    what = "T.unroll"
    _no_annotations(what, annotations)
    if unroll_factor is not None:
        raise current(what).fail(NotImplementedError, what, "unroll_factor: the IR's unrolled "
                                 "loops unroll fully (For has no unroll factor)")
    return _LoopNest(what, pb.FOR_KIND_UNROLLED, [_range(what, start, stop, step)], ["u"])


def vectorized(start, stop=None, *, annotations=None):
    _no_annotations("T.vectorized", annotations)
    return _LoopNest("T.vectorized", pb.FOR_KIND_VECTORIZED,
                     [_range("T.vectorized", start, stop, None)], ["v"])


class If:
    """`with T.If(cond):` a branch; Python's own `if` cannot branch on kernel values."""

    def __init__(self, cond):
        what = "T.If"
        self.builder, self.site = statement_site(what)
        cond = expr_module.typed(expr_module.as_expr(cond, what), dtypes.bool_)
        if cond.dtype.kind != "bool":
            raise self.builder.fail(TypeError, what, f"the condition is {cond.dtype.ir_name}, "
                                    "not bool")
        self.cond = self.builder.use(cond, what)

    def __enter__(self):
        self.builder.open_block()

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is None:
            branch = pb.If(cond=self.cond.node, then_body=self.builder.close_block())
            self.builder.append(pb.Stmt(**{"if": branch}, loc=self.site.proto()))
        return False


class Else:
    """`with T.Else():` right after a `with T.If(...)` block."""

    def __init__(self):
        what = "T.Else"
        self.builder, self.site = statement_site(what)
        block = self.builder.blocks[-1]
        last = block[-1] if block else None
        if last is None or last.WhichOneof("node") != "if" or getattr(last, "if").HasField(
                "else_body"):
            raise self.builder.fail(ValueError, what, "must follow a `with T.If(...)` block "
                                    "directly")
        self.branch = getattr(last, "if")

    def __enter__(self):
        self.builder.open_block()

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is None:
            self.branch.else_body.CopyFrom(self.builder.close_block())
        return False


def Persistent(domain, wave_size, index, group_size=8):
    """TileLang's persistent loop: `for bx, by in T.Persistent([m, n], waves_of, block_id)`
    visits every tile of the 1- or 2-D `domain` once, spread over `wave_size` blocks, block
    `index` taking tiles index, index + wave_size, ... Two-dimensional domains are walked in
    groups of `group_size` rows (bx) for L2 reuse. It is a serial loop over the waves with the
    tile's coordinates let-bound and a guard for the last wave, so it needs nothing of the IR
    beyond a loop and a branch."""
    what = "T.Persistent"
    builder, site = statement_site(what)
    domain = list(domain) if isinstance(domain, (list, tuple)) else [domain]
    if len(domain) not in (1, 2):
        raise builder.fail(ValueError, what, f"the domain has 1 or 2 axes, not {len(domain)}")
    if not isinstance(group_size, int) or group_size < 1:
        raise builder.fail(ValueError, what, f"group_size must be a positive int, not "
                           f"{group_size!r}")
    extents = [expr_module.typed(expr_module.as_expr(e, what), dtypes.int32) for e in domain]
    total = extents[0] if len(extents) == 1 else extents[0] * extents[1]
    waves = expr_module.binary("ceildiv", total, expr_module.typed(
        expr_module.as_expr(wave_size, what), dtypes.int32))
    names = source_names.loop_targets(_where.user_frame())
    names = names if names and len(names) == len(domain) else ["bx", "by"][:len(domain)]

    def bind(name, value):
        var = expr_module.Var(builder.fresh_name(name), dtypes.int32, "loop", builder, site)
        builder.append(pb.Stmt(let=pb.Let(var=var.decl(), value=builder.use(value, what).node),
                               loc=site.proto()))
        return var

    for wave in _LoopNest(what, pb.FOR_KIND_SERIAL, [(0, waves, 1)], ["wave"]):
        tile = bind("tile_id", wave * wave_size + index)
        with If(tile < total):
            if len(extents) == 1:
                yield bind(names[0], tile)
                continue
            m, n = extents
            # Groups of group_size rows (the last group shorter), each walked column by column
            # within the group: a bijection of [0, m * n) onto the tiles.
            per_group = n * group_size
            first = (tile // per_group) * group_size
            rows = expr_module.binary("min", m - first, expr_module.typed(
                expr_module.literal(group_size), dtypes.int32))
            within = tile % per_group
            yield bind(names[0], first + within % rows), bind(names[1], within // rows)


def parallel(start, stop=None, *, annotations=None):
    """TVM's T.parallel(start, stop): one `parallel` loop over a range (T.Parallel takes
    extents)."""
    what = "T.parallel"
    _no_annotations(what, annotations)
    return _LoopNest(what, pb.FOR_KIND_PARALLEL, [_range(what, start, stop, None)], ["p"])
