"""T.reinterpret: a value's bits read as another type of the same width (the IR's reinterpret
intrinsic, ir_version 5). TileLang's argument order, (value, dtype), as T.cast's."""

from tile.language import dtypes
from tile.language import builder as builder_module
from tile.language import expr as expr_module
from tile.language._proto import pb


def reinterpret(value, dtype):
    """`value`'s bits read as `dtype`, which must have its width: T.reinterpret(x, "int32") of a
    float32 x. A Python number beside it is refused, as it has no type of its own to read."""
    what = "T.reinterpret"
    if isinstance(value, (str, dtypes.DType)) and not isinstance(dtype, (str, dtypes.DType)):
        value, dtype = dtype, value  # TileLang still takes the old (dtype, value) order
    dtype = dtypes.parse(dtype, what)
    if not isinstance(value, expr_module.Expr) and getattr(value, "_load", None) is None:
        raise expr_module._fail(TypeError, what, f"expected an expression of the kernel, got "
                                f"{value!r}; a Python number has no bits of its own (write "
                                "T.int32(...) or T.float32(...) first)")
    value = expr_module.as_expr(value, what)
    source = value.dtype
    if source.kind == "bool" or dtype.kind == "bool":
        raise expr_module._fail(TypeError, what, "bool has no bit pattern to read; use T.cast")
    if source.bits != dtype.bits:
        raise expr_module._fail(TypeError, what, f"{source.ir_name} has {source.bits} bits and "
                                f"{dtype.ir_name} {dtype.bits}: reinterpret keeps the width "
                                "(T.cast converts the value)")
    active = getattr(builder_module._active, "builder", None)
    if active is not None:
        active.ir_version = max(active.ir_version, 5)  # reinterpret came in v5
    node = pb.Expr(call=pb.Call(dtype=dtype.proto(), name="reinterpret", args=[value.node]))
    return expr_module.Expr(node, dtype, vars=value.vars)
