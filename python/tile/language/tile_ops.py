"""The tile operations, named and ordered as in TileLang, each one tile_ir.v1
statement: T.copy -> Copy, T.gemm -> Gemm, T.fill / T.clear -> Fill,
T.reduce_* -> Reduce, T.atomic_add -> AtomicAdd (or the atomic_add_at
intrinsic for one element), T.atomic_max / T.atomic_min -> the atomic_max_at /
atomic_min_at intrinsics (one element), T.cumsum -> Cumsum."""

import numbers

from tile.language import buffers
from tile.language import expr as expr_module
from tile.language._proto import pb
from tile.language.builder import statement_site


class GemmWarpPolicy:
    """How the warps of a block split a gemm's output tile (tile_ir.v1.WarpPolicy)."""
    Square = pb.WARP_POLICY_SQUARE
    FullRow = pb.WARP_POLICY_FULL_ROW
    FullCol = pb.WARP_POLICY_FULL_COL


def _is_point(tile):
    return isinstance(tile, buffers.Access) and tile.is_point


def _without_ones(extents):
    return [e for e in extents if e != 1]


def copy(src, dst, coalesced_width=None, disable_tma=False, eviction_policy=None):
    """dst = src between any two scopes; a point (A[by * 128, k * 32]) takes its extents
    from the other operand. Extents must agree, unit dimensions aside. TileLang's
    disable_tma is accepted and changes nothing: the target decides how a copy moves (TMA,
    cp.async, plain loads), and every way gives the same values."""
    what = "T.copy"
    builder, site = statement_site(what)
    if coalesced_width is not None:
        raise builder.fail(NotImplementedError, what, "coalesced_width: the IR leaves vector "
                           "widths to the vectorize pass")
    if eviction_policy is not None:
        raise builder.fail(NotImplementedError, what, "eviction_policy: the IR has no cache "
                           "hints")
    if not isinstance(disable_tma, bool):
        raise builder.fail(TypeError, what, f"disable_tma is a bool, not {disable_tma!r}")
    if _is_point(src) and _is_point(dst):
        raise builder.fail(ValueError, what, "both operands are single points; give one of "
                           "them a size (a whole buffer, or a region with slices)")
    src_region, src_extents = buffers.region(builder, src, dst, what)
    dst_region, dst_extents = buffers.region(builder, dst, src, what)
    if None not in src_extents + dst_extents and \
            _without_ones(src_extents) != _without_ones(dst_extents):
        raise builder.fail(ValueError, what, f"the source {buffers.region_text(src)} is "
                           f"{src_extents} but the destination {buffers.region_text(dst)} is "
                           f"{dst_extents} (extents must agree, unit dimensions aside)")
    builder.append(pb.Stmt(copy=pb.Copy(src=src_region, dst=dst_region), loc=site.proto()))


def _matrix(builder, what, role, tile, extents):
    while len(extents) > 2 and extents[0] == 1:
        extents = extents[1:]
    if len(extents) != 2:
        raise builder.fail(ValueError, what, f"{role} ({buffers.region_text(tile)}) must be a "
                           f"2-D tile, leading unit dimensions aside, but is {extents}")
    return extents


def gemm(A, B, C, transpose_A=False, transpose_B=False, policy=GemmWarpPolicy.Square,
         clear_accum=False, k_pack=1, wg_wait=0):
    """C (+)= op(A) @ op(B), op transposing where asked. C is the accumulator: a fragment
    whose dtype is the accumulation precision (float32 for float16 inputs, say)."""
    what = "T.gemm"
    builder, site = statement_site(what)
    if k_pack != 1 or wg_wait != 0:
        raise builder.fail(NotImplementedError, what, "k_pack and wg_wait: the IR's Gemm "
                           "has no such fields; the target chooses the instruction shape "
                           "and when to wait")
    if policy not in (GemmWarpPolicy.Square, GemmWarpPolicy.FullRow, GemmWarpPolicy.FullCol):
        raise builder.fail(ValueError, what, f"policy must be a T.GemmWarpPolicy, not "
                           f"{policy!r}")
    regions, matrices = [], []
    for role, tile, scopes in (("A", A, ("shared", "fragment")), ("B", B, ("shared", "fragment")),
                               ("C", C, ("fragment", "local"))):
        region, extents = buffers.region(builder, tile, None, what)
        buffer = tile if isinstance(tile, buffers.Buffer) else tile.buffer
        if buffer.scope not in scopes:
            raise builder.fail(ValueError, what, f"{role} '{buffer.name}' is in {buffer.scope} "
                               f"memory; it must be in {' or '.join(scopes)} memory (copy it "
                               "there with T.copy)")
        regions.append(region)
        matrices.append(_matrix(builder, what, role, tile, extents))
    a, b, c = matrices
    m, k_a = (a[1], a[0]) if transpose_A else (a[0], a[1])
    k_b, n = (b[1], b[0]) if transpose_B else (b[0], b[1])
    flags = f"transpose_A={bool(transpose_A)}, transpose_B={bool(transpose_B)}"
    for name, first, first_role, second, second_role in (
            ("K", k_a, "A", k_b, "B"), ("M", m, "A", c[0], "C"), ("N", n, "B", c[1], "C")):
        if first is not None and second is not None and first != second:
            raise builder.fail(ValueError, what, f"shapes disagree: A is {a}, B is {b}, C is "
                               f"{c} ({flags}), so {name} is {first} in {first_role} but "
                               f"{second} in {second_role}")
    builder.append(pb.Stmt(gemm=pb.Gemm(a=regions[0], b=regions[1], c=regions[2],
                                        transpose_a=bool(transpose_A),
                                        transpose_b=bool(transpose_B), policy=policy,
                                        clear_accum=bool(clear_accum)), loc=site.proto()))


def fill(buffer, value):
    what = "T.fill"
    builder, site = statement_site(what)
    region, _ = buffers.region(builder, buffer, None, what)
    dtype = (buffer if isinstance(buffer, buffers.Buffer) else buffer.buffer).dtype
    value = expr_module.converted_for(value, dtype, what)  # as TileLang's fill.cc converts it
    builder.use(value, what)
    builder.append(pb.Stmt(fill=pb.Fill(dst=region, value=value.node), loc=site.proto()))


def clear(buffer):
    """fill with zero."""
    fill(buffer, 0)


# The kinds that came in ir_version 6.
_VERSION_6_REDUCTIONS = (pb.REDUCE_KIND_ABS_SUM, pb.REDUCE_KIND_PROD, pb.REDUCE_KIND_BIT_AND,
                         pb.REDUCE_KIND_BIT_OR, pb.REDUCE_KIND_BIT_XOR)


def _reduce(kind, name, integers=False):
    def reduce(buffer, out, dim=-1, clear=True):
        what = f"T.{name}"
        builder, site = statement_site(what)
        src, src_extents = buffers.region(builder, buffer, None, what)
        dst, _ = buffers.region(builder, out, None, what)
        if integers:
            for tile in (buffer, out):
                dtype = getattr(tile, "variable_buffer", tile)
                dtype = (dtype if isinstance(dtype, buffers.Buffer) else dtype.buffer).dtype
                if dtype == "bool":
                    raise builder.fail(NotImplementedError, what, f"{buffers.region_text(tile)} "
                                       "holds bool: the IR reduces numbers only (cast to an "
                                       "integer type)")
                if not dtype.is_int:
                    raise builder.fail(ValueError, what, f"{buffers.region_text(tile)} holds "
                                       f"{dtype}: a bitwise reduction needs an integer buffer")
        rank = len(src_extents)
        if not isinstance(dim, numbers.Integral) or not -rank <= dim < rank:
            raise builder.fail(ValueError, what, f"dim {dim!r} is not a dimension of the "
                               f"rank-{rank} source {buffers.region_text(buffer)}")
        if kind in _VERSION_6_REDUCTIONS:
            builder.ir_version = max(builder.ir_version, 6)
        builder.append(pb.Stmt(reduce=pb.Reduce(kind=kind, src=src, dst=dst, dim=int(dim) % rank,
                                                clear=bool(clear)), loc=site.proto()))
    reduce.__name__ = name
    reduce.__doc__ = (f"Reduces buffer over `dim` into out ({name[7:]}); with clear=False "
                      "out's old value joins the reduction.")
    return reduce


reduce_sum = _reduce(pb.REDUCE_KIND_SUM, "reduce_sum")
reduce_max = _reduce(pb.REDUCE_KIND_MAX, "reduce_max")
reduce_min = _reduce(pb.REDUCE_KIND_MIN, "reduce_min")
reduce_absmax = _reduce(pb.REDUCE_KIND_ABS_MAX, "reduce_absmax")
reduce_prod = _reduce(pb.REDUCE_KIND_PROD, "reduce_prod")
reduce_bitand = _reduce(pb.REDUCE_KIND_BIT_AND, "reduce_bitand", integers=True)
reduce_bitor = _reduce(pb.REDUCE_KIND_BIT_OR, "reduce_bitor", integers=True)
reduce_bitxor = _reduce(pb.REDUCE_KIND_BIT_XOR, "reduce_bitxor", integers=True)
_reduce_abssum = _reduce(pb.REDUCE_KIND_ABS_SUM, "reduce_abssum")


def reduce_abssum(buffer, out, dim=-1):
    """Reduces buffer over `dim` into out: the sum of magnitudes (TileLang's has no clear:
    out is overwritten)."""
    _reduce_abssum(buffer, out, dim, clear=True)


def atomic_add(dst, value, memory_order=None, return_prev=False, use_tma=False):
    """dst += value atomically (TileLang's argument order): a tile into a region of global
    or shared memory, or one number into one element. The IR's atomics are relaxed, which is
    TileLang's memory_order="relaxed" (and its default); stronger orders are refused."""
    what = "T.atomic_add"
    builder, site = statement_site(what)
    if memory_order not in (None, "relaxed"):
        raise builder.fail(NotImplementedError, what, f"memory_order={memory_order!r}: the "
                           "IR's atomic adds are relaxed ('relaxed' is accepted)")
    if return_prev:
        raise builder.fail(NotImplementedError, what, "return_prev: the IR's atomic add is a "
                           "statement and returns nothing")
    if use_tma:
        raise builder.fail(NotImplementedError, what, "use_tma: the IR has no TMA reductions")
    if _is_point(dst) and not isinstance(value, (buffers.Buffer, buffers.Access)):
        _atomic_at(builder, site, what, "atomic_add_at", dst, value)
        return
    src_region, _ = buffers.region(builder, value, dst, what)
    dst_region, _ = buffers.region(builder, dst, value, what)
    builder.append(pb.Stmt(atomic_add=pb.AtomicAdd(src=src_region, dst=dst_region),
                           loc=site.proto()))


def _atomic_at(builder, site, what, intrinsic, dst, value):
    """`eval intrinsic(dst, value)`: an atomic update of one element."""
    element = dst._load()
    # TileLang's atomics convert the value to the element's type.
    value = expr_module.converted_for(value, dst.buffer.dtype, what)
    builder.use(value, what)
    call = pb.Call(dtype=pb.DataType(scalar=pb.SCALAR_TYPE_VOID), name=intrinsic,
                   args=[element.node, value.node])
    builder.append(pb.Stmt(evaluate=pb.Evaluate(value=pb.Expr(call=call)), loc=site.proto()))


def _atomic_extreme(name, dst, value, memory_order, return_prev):
    what = f"T.{name}"
    builder, site = statement_site(what)
    if memory_order not in (None, "relaxed"):
        raise builder.fail(NotImplementedError, what, f"memory_order={memory_order!r}: the "
                           "IR's atomics are relaxed ('relaxed' is accepted)")
    if return_prev:
        raise builder.fail(NotImplementedError, what, "return_prev: the IR's atomics are "
                           "statements and return nothing")
    tile = isinstance(value, (buffers.Buffer, buffers.Access)) and not _is_point(value)
    if tile or not _is_point(dst):
        _atomic_extreme_tile(builder, what, name, dst, value)
        return
    if dst.buffer.dtype.kind == "bool":
        raise builder.fail(TypeError, what, "bool elements have no order to keep")
    builder.ir_version = max(builder.ir_version, 5)  # atomic_max_at/atomic_min_at came in v5
    _atomic_at(builder, site, what, f"{name}_at", dst, value)


def _atomic_extreme_tile(builder, what, name, dst, value):
    """The tile form of atomic_max/min (TileLang's): a T.Parallel loop over the tile's
    elements, each an atomic update of one element (the IR's tile atomic is an add only, and
    an element-wise loop is what a target would make of a tile atomic anyway). `value` is a
    tile of the same extents (unit dimensions aside) or one value for every element."""
    from tile.language import control  # pylint: disable=import-outside-toplevel
    is_tile = isinstance(value, (buffers.Buffer, buffers.Access))
    dst_buffer, dst_ranges = buffers.resolved_ranges(builder, dst, value if is_tile else None,
                                                     what)
    dst_axes = _tile_axes(builder, dst_ranges, what)
    if is_tile:
        src_buffer, src_ranges = buffers.resolved_ranges(builder, value, dst, what)
        src_axes = _tile_axes(builder, src_ranges, what)
        if [e for _, e in dst_axes] != [e for _, e in src_axes]:
            raise builder.fail(ValueError, what, f"the tiles' extents differ: "
                               f"{[e for _, e in dst_axes]} and {[e for _, e in src_axes]}")
    for index in control.Parallel(*[e for _, e in dst_axes]):
        index = index if isinstance(index, tuple) else (index,)
        element = buffers.Access(dst_buffer, _element(dst_ranges, dst_axes, index))
        update = buffers.Access(src_buffer, _element(src_ranges, src_axes, index))._load() \
            if is_tile else value
        _atomic_extreme(name, element, update, None, False)


def _tile_axes(builder, ranges, what):
    """(dimension, extent) of the dimensions of extent other than 1, each a constant."""
    axes = []
    for d, (_, extent) in enumerate(ranges):
        constant = extent.literal_value()
        if constant is None:
            raise builder.fail(ValueError, what, f"extent {d} of the tile is not a constant")
        if int(constant) != 1:
            axes.append((d, int(constant)))
    return axes or [(len(ranges) - 1, 1)]


def _element(ranges, axes, index):
    """The element of a tile at `index` (one per axis of `axes`)."""
    offsets = {d: i for (d, _), i in zip(axes, index)}
    return tuple(m + offsets[d] if d in offsets else m for d, (m, _) in enumerate(ranges))


def atomic_max(dst, value, memory_order=None, return_prev=False):
    """dst = max(dst, value) atomically, for one element (TileLang's argument order); floats
    keep the operand that is not NaN, as T.max does."""
    _atomic_extreme("atomic_max", dst, value, memory_order, return_prev)


def atomic_min(dst, value, memory_order=None, return_prev=False):
    """dst = min(dst, value) atomically, for one element (TileLang's argument order)."""
    _atomic_extreme("atomic_min", dst, value, memory_order, return_prev)


def cumsum(src, dst=None, dim=0, reverse=False):
    """Inclusive prefix sum of src along dim into dst (src itself when dst is None)."""
    what = "T.cumsum"
    builder, site = statement_site(what)
    src_region, extents = buffers.region(builder, src, None, what)
    dst_region, _ = buffers.region(builder, src if dst is None else dst, None, what)
    rank = len(extents)
    if not isinstance(dim, numbers.Integral) or not -rank <= dim < rank:
        raise builder.fail(ValueError, what, f"dim {dim!r} is not a dimension of the rank-"
                           f"{rank} source {buffers.region_text(src)}")
    builder.append(pb.Stmt(cumsum=pb.Cumsum(src=src_region, dst=dst_region, dim=int(dim) % rank,
                                            reverse=bool(reverse)), loc=site.proto()))


def _atomic_add_vector(width, dst, value, return_prev):
    """TileLang's atomic_addx2 / atomic_addx4: `width` consecutive elements (along the last
    dimension) from the element `value` names added to those from `dst`'s. Each element's add
    is atomic, as in TileLang's vector atomics (which are atomic per element too); the IR has
    no vector atomic, so a target that has one may fuse them."""
    what = f"T.atomic_addx{width}"
    builder, site = statement_site(what)
    if return_prev:
        raise builder.fail(NotImplementedError, what, "return_prev: the IR's atomic add is a "
                           "statement and returns nothing")
    for name, operand in (("dst", dst), ("value", value)):
        if not isinstance(operand, buffers.Access) or not operand.is_point:
            raise builder.fail(TypeError, what, f"{name} names one element (A[i, j]), the first "
                               f"of the {width} it covers")
    for k in range(width):
        shifted = [buffers.Access(a.buffer, tuple(i for i, _ in a.items[:-1]) +
                                  (a.items[-1][0] + k,)) for a in (dst, value)]
        _atomic_at(builder, site, what, "atomic_add_at", shifted[0], shifted[1]._load())


def atomic_addx2(dst, value, return_prev=False):
    """dst[..., j:j+2] += value[..., j:j+2], each element atomically (TileLang's)."""
    _atomic_add_vector(2, dst, value, return_prev)


def atomic_addx4(dst, value, return_prev=False):
    """dst[..., j:j+4] += value[..., j:j+4], each element atomically (TileLang's)."""
    _atomic_add_vector(4, dst, value, return_prev)
