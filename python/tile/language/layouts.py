"""Layouts a user gives buffers: T.annotate_layout({buf: layout}), T.Layout(shape, fn),
T.Fragment(shape, forward_thread_fn=..., forward_index_fn=...) and T.make_swizzled_layout(buf).

The IR's layout (tile_ir.v1.Layout) is an index map on a shared, fragment or local buffer's
declaration: a shared one maps a tile index to physical coordinates, a fragment one to (thread,
register), optionally replicated over threads (ir_version 4). What it cannot express (a register
index of several coordinates, padding) is refused by name; a layout on a kernel parameter is
dropped with a warning (_drop_parameter_layout says why that keeps values right). The
functions run when the layout is annotated, on variables named after the buffer as the C++ DSL's
annotate_layout names them (A_s_l0, A_s_l1, ...)."""

import warnings

from tile.language import _where, dtypes
from tile.language import expr as expr_module
from tile.language._proto import pb
from tile.language.buffers import Buffer, check_owner
from tile.language.builder import statement_site


def _shape_of(shape):
    if isinstance(shape, Buffer):
        shape = shape.shape
    return tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)


def _outputs(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class Layout:
    """TileLang's T.Layout: `forward_fn(*indices)` gives the physical coordinates."""

    def __init__(self, shape, forward_fn):
        self.shape = _shape_of(shape)
        self.forward_fn = forward_fn

    def build(self, builder, buffer, what):
        inputs = _inputs(builder, buffer)
        outputs = _outputs(self.forward_fn(*inputs))
        return pb.Layout(inputs=[v.decl() for v in inputs],
                         outputs=_checked(builder, what, outputs, buffer))

    def __repr__(self):
        return f"<tile.language.Layout {list(self.shape)}>"


class Fragment(Layout):
    """TileLang's T.Fragment: each element on a thread (forward_thread_fn, or the first of
    forward_fn's pair) in one register (forward_index_fn, or the second), optionally on
    `replicate` threads at once, the thread function then taking the replica last."""

    def __init__(self, shape, forward_fn=None, forward_thread_fn=None, replicate=1,
                 forward_index_fn=None):
        super().__init__(shape, None)
        if forward_fn is None and forward_thread_fn is None:
            raise TypeError("T.Fragment: give forward_fn or forward_thread_fn")
        if not isinstance(replicate, int) or replicate < 1:
            raise ValueError(f"T.Fragment: replicate must be a positive int, not {replicate!r}")
        self.pair_fn, self.thread_fn, self.index_fn = forward_fn, forward_thread_fn, \
            forward_index_fn
        self.replicate = replicate

    def build(self, builder, buffer, what):
        inputs = _inputs(builder, buffer)
        replica = None
        extra = []
        if self.replicate > 1:
            replica = expr_module.Var(builder.fresh_name(f"{buffer.name}_rep"), dtypes.int32,
                                      "layout", builder, buffer.site)
            extra = [replica]
            builder.ir_version = max(builder.ir_version, 4)  # replicated layouts came in v4
        if self.pair_fn is not None:
            thread, index = self.pair_fn(*inputs, *extra)
        else:
            thread = self.thread_fn(*inputs, *extra)
            index = self.index_fn(*inputs) if self.index_fn is not None else None
        index = [] if index is None else _outputs(index)
        if len(index) != 1:
            raise builder.fail(NotImplementedError, what, f"a fragment layout of {len(index)} "
                               "register coordinates: the IR's fragment layout gives each "
                               "element one register index (thread, register); combine them "
                               "into one")
        layout = pb.Layout(inputs=[v.decl() for v in inputs],
                           outputs=_checked(builder, what, [thread] + index, buffer))
        if replica is not None:
            layout.replica.CopyFrom(pb.LayoutReplica(var=replica.decl(), count=self.replicate))
        return layout

    def __repr__(self):
        return f"<tile.language.Fragment {list(self.shape)}>"


def _inputs(builder, buffer):
    return [expr_module.Var(builder.fresh_name(f"{buffer.name}_l{d}"), dtypes.int32, "layout",
                            builder, buffer.site) for d in range(buffer.ndim)]


def _checked(builder, what, outputs, buffer):
    nodes = []
    for n, out in enumerate(outputs):
        out = expr_module.typed(expr_module.as_expr(out, what), dtypes.int32)
        if out.dtype != dtypes.int32:
            raise builder.fail(TypeError, what, f"output {n} of the layout of '{buffer.name}' "
                               f"is {out.dtype.ir_name}, not int32")
        nodes.append(out.node)
    return nodes


def make_swizzled_layout(buffer, k_major=True, allow_pad=True):
    """TileLang's swizzle of a shared tile for bank-conflict-free vector access: with V the
    elements of 16 bytes and C the last dimension, the 16-byte chunk c of row r (the leading
    dimensions flattened) within each group of 8, 4 or 2 chunks (128-, 64- or 32-byte rows,
    the widest that divides C) moves to c ^ (r % 8 / (8 / group)), TileLang's choice of the
    same widths. Written as the tile's own coordinates with the last one swizzled."""
    return _Swizzle(buffer, k_major, allow_pad)


class _Swizzle(Layout):
    def __init__(self, buffer, k_major, allow_pad):
        super().__init__(buffer, None)
        self.buffer, self.k_major, self.allow_pad = buffer, k_major, allow_pad

    def build(self, builder, buffer, what):
        shape = [buffer.shape[d] for d in range(buffer.ndim)]
        if any(not isinstance(e, int) for e in shape) or len(shape) < 2:
            raise builder.fail(ValueError, what, f"swizzles a constant tile of 2 or more "
                               f"dimensions; '{buffer.name}' is {list(buffer.shape)}")
        bits = buffer.dtype.bits
        vector = 128 // bits if bits <= 128 else 1
        continuous = shape[-1]
        rows = 1
        for extent in shape[:-1]:
            rows *= extent
        group = next((g for g in (8, 4, 2) if continuous % (vector * g) == 0), None)
        if bits == 64 or (not self.k_major and bits == 8) or group is None or rows % 8:
            if continuous % vector == 0 and not self.allow_pad:
                return None  # TileLang's linear layout: the buffer as it is
            raise builder.fail(NotImplementedError, what, f"'{buffer.name}' "
                               f"({buffer.dtype.ir_name}{shape}) takes TileLang's padded or "
                               "fp64 layout, which the IR's layouts cannot express (they map "
                               "indices but give no padded physical shape)")
        inputs = _inputs(builder, buffer)
        row = inputs[0]
        for d in range(1, len(inputs) - 1):
            row = row * shape[d] + inputs[d]
        j = inputs[-1]
        span = vector * group  # the bytes one swizzle pattern covers, in elements
        chunk = (j // vector) % group if continuous > span else j // vector
        phase = row % 8 if group == 8 else (row % 8) // (8 // group)
        column = (chunk ^ phase) * vector + j % vector
        if continuous > span:
            column = (j // span) * span + column
        return pb.Layout(inputs=[v.decl() for v in inputs],
                         outputs=_checked(builder, what, inputs[:-1] + [column], buffer))

    def __repr__(self):
        return f"<tile.language.make_swizzled_layout {self.buffer!r}>"


def annotate_layout(layout_map):
    """Gives each buffer of `layout_map` its layout (a Layout, a Fragment, or a function of
    the indices), in its declaration. Call it in the block that allocated the buffer."""
    what = "T.annotate_layout"
    builder, _ = statement_site(what)
    if not isinstance(layout_map, dict):
        raise builder.fail(TypeError, what, "takes a dict {buffer: layout}")
    for buffer, layout in layout_map.items():
        if not isinstance(buffer, Buffer):
            raise builder.fail(TypeError, what, f"the keys are buffers, not "
                               f"{type(buffer).__name__}")
        check_owner(builder, buffer, what)
        if callable(layout) and not isinstance(layout, Layout):
            layout = Layout(buffer.shape, layout)
        if buffer.scope == "global":
            _drop_parameter_layout(builder, buffer, layout, what)
            continue
        if not isinstance(layout, Layout):
            raise builder.fail(TypeError, what, f"the layout of '{buffer.name}' is "
                               f"{type(layout).__name__}; give T.Layout, T.Fragment or a "
                               "function of the indices")
        if buffer.scope == "fragment" and not isinstance(layout, Fragment):
            raise builder.fail(TypeError, what, f"'{buffer.name}' is a fragment: its layout "
                               "is a T.Fragment (thread, register)")
        if buffer.scope != "fragment" and isinstance(layout, Fragment):
            raise builder.fail(TypeError, what, f"'{buffer.name}' is {buffer.scope}: a "
                               "T.Fragment lays out fragments only")
        if len(layout.shape) != buffer.ndim:
            raise builder.fail(ValueError, what, f"the layout has {len(layout.shape)} "
                               f"dimensions, '{buffer.name}' {buffer.ndim}")
        decl = _declaration(builder, buffer, what)
        proto = layout.build(builder, buffer, what)
        if proto is not None:
            decl.layout.CopyFrom(proto)


class ParameterLayoutDropped(UserWarning):
    """A layout on a kernel parameter, which the IR's parameters do not take, was dropped."""


def _drop_parameter_layout(builder, buffer, layout, what):
    """TileLang lets a layout permute a global buffer's storage (its attention backward lays
    out the dQ accumulator so that atomic adds follow the gemm fragment). The IR's parameters
    are dense or strided, so the layout is checked and dropped with a warning naming the line:
    every access in the kernels still reads and writes the element of its logical index, so
    kernels that share the buffer agree; only a host reading the buffer directly sees
    row-major order where TileLang's storage would be permuted."""
    if not isinstance(layout, Layout) or isinstance(layout, Fragment):
        raise builder.fail(TypeError, what, f"the layout of '{buffer.name}' is "
                           f"{type(layout).__name__}; a kernel parameter takes T.Layout or a "
                           "function of the indices")
    if len(layout.shape) != buffer.ndim:
        raise builder.fail(ValueError, what, f"the layout has {len(layout.shape)} "
                           f"dimensions, '{buffer.name}' {buffer.ndim}")
    site = _where.here()
    warnings.warn_explicit(
        f"{site}: {what}: '{buffer.name}' is a kernel parameter; its layout is dropped (the "
        "IR's parameters are row-major or strided): accesses in the kernel use the logical "
        f"index, so results are unchanged unless the host reads '{buffer.name}' itself, where "
        "TileLang's storage order would be the layout's", ParameterLayoutDropped, site.file,
        site.line)


def _declaration(builder, buffer, what):
    """The BufferDecl of `buffer`'s Allocate, in a block still being written."""
    for block in builder.blocks:
        for stmt in block:
            if stmt.WhichOneof("node") == "allocate" and stmt.allocate.buffer.name == buffer.name:
                if stmt.allocate.buffer.HasField("layout"):
                    raise builder.fail(ValueError, what, f"'{buffer.name}' already has a "
                                       "layout; annotate each buffer once")
                return stmt.allocate.buffer
    raise builder.fail(ValueError, what, f"'{buffer.name}' was allocated in a block that has "
                       "ended; annotate its layout in the block that allocates it")
