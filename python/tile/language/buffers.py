"""Buffers (kernel tensors and allocations) and what indexing them gives: an
element (a load, or a store when assigned) or a region for the tile operations.
`A[by * 128, k * 32]` is both: read in an expression it is an element, given
to T.copy it is the start of a tile whose size comes from the other operand
(TileLang's rule); slices give regions with their own extents."""

from tile.language import builder as builder_module
from tile.language import expr as expr_module
from tile.language import linear
from tile.language._proto import pb

SCOPES = {"global": pb.MEMORY_SCOPE_GLOBAL, "shared": pb.MEMORY_SCOPE_SHARED,
          "fragment": pb.MEMORY_SCOPE_FRAGMENT, "local": pb.MEMORY_SCOPE_LOCAL}


class Buffer:
    def __init__(self, name, dtype, shape, scope, owner, site):
        self.name = name
        self.dtype = dtype
        self._shape = shape  # one Expr per dimension
        self.scope = scope   # a key of SCOPES
        self.owner = owner   # the KernelBuilder it belongs to
        self.site = site

    @property
    def shape(self):
        """Python ints where the extent is constant, Exprs elsewhere."""
        return tuple(_constant(e) if _constant(e) is not None else e for e in self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def data(self):
        """TileLang's buffer.data: its memory, for T.Tensor(shape, dtype, buf.data) views."""
        from tile.language.views import BufferData  # pylint: disable=import-outside-toplevel
        return BufferData(self)

    def decl(self):
        return pb.BufferDecl(name=self.name, dtype=self.dtype.proto(),
                             shape=[e.node for e in self._shape], scope=SCOPES[self.scope])

    def __getitem__(self, key):
        return Access(self, key)

    def __setitem__(self, key, value):
        Access(self, key).store(value)

    def __repr__(self):
        return f"<tile.language.Buffer {self.name}: {self.scope} {self.dtype.ir_name}>"


def _constant(e):
    value = e.literal_value() if e.dtype.is_int else None
    return int(value) if value is not None else None


def check_owner(builder, buffer, what):
    if buffer.owner is not builder:
        raise builder.fail(ValueError, what, f"buffer '{buffer.name}' belongs to kernel "
                           f"'{buffer.owner.name}' ({buffer.site}), not this one; a buffer "
                           "is used only inside the kernel that declares it")


class Access(expr_module._Operators):
    """buffer[key]: one (min, extent) per dimension; extents are all None for a point
    (every index a number or expression), whose tile size comes from the other operand."""

    def __init__(self, buffer, key):
        self.buffer = buffer
        key = key if isinstance(key, tuple) else (key,)
        what = f"{buffer.name}[...]"
        if len(key) != buffer.ndim:
            raise expr_module._fail(IndexError, what, f"'{buffer.name}' has {buffer.ndim} "
                                    f"dimension{'s' if buffer.ndim != 1 else ''} "
                                    f"({_shape_text(buffer._shape)}), indexed with {len(key)}")
        self.items = []
        for d, item in enumerate(key):
            if isinstance(item, slice):
                self.items.append(self._slice(d, item, what))
            else:
                self.items.append((expr_module.as_expr(item, f"{what} index {d}"), None))
        if not self.is_point:
            self.items = [(m, e if e is not None else expr_module.literal(1))
                          for m, e in self.items]

    def _slice(self, d, item, what):
        if item.step is not None and item.step != 1:
            raise expr_module._fail(NotImplementedError, what, f"the step of slice {d}: the "
                                    "IR's regions are dense (Range has min and extent only)")
        start = expr_module.as_expr(0 if item.start is None else item.start, what)
        stop = self.buffer._shape[d] if item.stop is None else expr_module.as_expr(item.stop,
                                                                                   what)
        start, stop = expr_module.unify(start, stop)
        return start, linear.extent_between(start, stop)

    @property
    def is_point(self):
        return all(extent is None for _, extent in self.items)

    def indices(self, builder, what):
        check_owner(builder, self.buffer, what)
        if not self.is_point:
            raise builder.fail(TypeError, what, f"{self.text()} is a region (it has slices), "
                               "not an element")
        exprs = []
        for d, (index, _) in enumerate(self.items):
            index = expr_module.typed(index, self.buffer._shape[d].dtype)
            if not index.dtype.is_int:
                raise builder.fail(TypeError, what, f"index {d} of '{self.buffer.name}' is "
                                   f"{index.dtype.ir_name}, not an integer")
            exprs.append(builder.use(index, what))
        return exprs

    def _load(self):
        what = f"a load of {self.buffer.name}"
        builder = builder_module.current(what)
        indices = self.indices(builder, what)
        node = pb.Expr(buffer_load=pb.BufferLoad(buffer=self.buffer.name,
                                                 indices=[i.node for i in indices]))
        vars = frozenset().union(*(i.vars for i in indices))
        return expr_module.Expr(node, self.buffer.dtype, vars=vars)

    def store(self, value):
        what = f"a store to {self.buffer.name}"
        builder, site = builder_module.statement_site(what)
        indices = self.indices(builder, what)
        # TileLang converts the value to the buffer's type (expr.converted_for).
        value = expr_module.converted_for(value, self.buffer.dtype, what)
        builder.use(value, what)
        builder.append(pb.Stmt(store=pb.Store(buffer=self.buffer.name,
                                              indices=[i.node for i in indices],
                                              value=value.node), loc=site.proto()))

    def text(self):
        return f"{self.buffer.name}[{', '.join('...' for _ in self.items)}]"

    def __repr__(self):
        return f"<tile.language.Access {self.buffer.name}>"


def _shape_text(shape):
    return "[" + ", ".join(str(_constant(e)) if _constant(e) is not None else "?"
                           for e in shape) + "]"


def ranges_of(tile):
    """(min, extent or None) per dimension of a Buffer (its whole) or an Access."""
    if isinstance(tile, Buffer):
        return [(expr_module.typed(expr_module.literal(0), e.dtype), e) for e in tile._shape]
    return tile.items


def resolved_ranges(builder, tile, other, what):
    """The buffer of `tile` and its (min, extent) Exprs, typed as its dimensions; a point takes
    its extents from `other`, aligned to the right, leading dimensions of extent 1
    (frontends/cpp/tile_ops.cc's Resolve)."""
    tile = getattr(tile, "variable_buffer", tile)  # a T.alloc_var is its one-element buffer
    if not isinstance(tile, (Buffer, Access)):
        raise builder.fail(TypeError, what, f"expected a buffer or a region of one "
                           f"(A, A[i, j], A[0:64, :]), got {type(tile).__name__}")
    buffer = tile if isinstance(tile, Buffer) else tile.buffer
    check_owner(builder, buffer, what)
    ranges = ranges_of(tile)
    if all(extent is None for _, extent in ranges):
        if other is None or all(e is None for _, e in ranges_of(other)):
            ranges = [(m, expr_module.literal(1)) for m, _ in ranges]
        else:
            source = [e for _, e in ranges_of(other)]
            rank = len(ranges)
            ranges = [(m, source[len(source) - (rank - d)] if rank - d <= len(source)
                       else expr_module.literal(1)) for d, (m, _) in enumerate(ranges)]
    typed = []
    for d, (m, e) in enumerate(ranges):
        dtype = buffer._shape[d].dtype
        m, e = expr_module.typed(m, dtype), expr_module.typed(e, dtype)
        builder.use(m, what)
        builder.use(e, what)
        typed.append((m, e))
    return buffer, typed


def region(builder, tile, other, what):
    """The tile_ir.v1.Region of `tile` (resolved_ranges) and its extents (ints, or None where
    not constant)."""
    buffer, ranges = resolved_ranges(builder, tile, other, what)
    pb_ranges = [pb.Range(min=m.node, extent=e.node) for m, e in ranges]
    return pb.Region(buffer=buffer.name, ranges=pb_ranges), [_constant(e) for _, e in ranges]


def region_text(tile):
    return tile.name if isinstance(tile, Buffer) else tile.text()
