"""TileLang's implicit type rules, as TVM (which TileLang builds on) writes them:
the type two operands of one operation meet at (BinaryOpMatchTypes in
src/tirx/op/op.cc) and the conversion of a value to the type a buffer holds
(the IR builder's BufferStore, TileLang's fill.cc and atomic_add.cc). The IR
itself stays explicit: the frontend writes every conversion as a cast node.
docs/LANGUAGE.md states the rules with examples."""

import math

# TVM's type codes: f16, f32 and f64 are "float" (DataType::is_float); bf16 and the
# float8 formats each have a code of their own, ranked below "float".
_FLOAT_FAMILIES = ("float", "bfloat16", "float8")


def _family(dtype):
    if dtype.ir_name in ("f16", "f32", "f64"):
        return "float"
    if dtype.ir_name == "bf16":
        return "bfloat16"
    if dtype.is_float:
        return "float8"
    return dtype.kind  # "int", "uint" or "bool"


def common_type(a, b):
    """The type operands of types a and b meet at, or None where TVM refuses the mix
    (two different float8 formats). In TVM's order: two of f16/f32/f64 meet at the wider;
    one of them beside anything else (an integer, bool, bf16, a float8) wins; then bf16;
    then a float8; bool meets an integer at the integer; integers of one signedness meet at
    the wider; a signed and an unsigned one at the wider, the unsigned one at equal widths."""
    if a == b:
        return a
    fa, fb = _family(a), _family(b)
    for family in _FLOAT_FAMILIES:
        if fa == family and fb == family:
            return (a if a.bits >= b.bits else b) if family == "float" else None
        if fa == family:
            return a
        if fb == family:
            return b
    if fa == "bool":
        return b
    if fb == "bool":
        return a
    if fa == fb or a.bits != b.bits:
        return a if a.bits > b.bits else b
    return a if fa == "uint" else b


def loses_information(source, target):
    """Whether TVM's BufferStore warns about storing a `source` value into a `target`
    buffer: a float (or bf16) value stored into an integer buffer."""
    return source.is_float and _family(source) != "float8" and not target.is_float


def integer_range(dtype):
    """The values an integer type holds (bool: 0 and 1)."""
    if dtype.kind == "bool":
        return 0, 1
    if dtype.kind == "uint":
        return 0, 2**dtype.bits - 1
    return -2**(dtype.bits - 1), 2**(dtype.bits - 1) - 1


def fold_literal(value, dtype):
    """A literal's value as `dtype` holds it, as TVM folds the cast of a constant
    (make_const): to an integer type toward zero (C's conversion), to bool as `!= 0`,
    None where an integer type cannot hold it (TVM's IntImm refuses such a value)."""
    if dtype.kind == "bool":
        return 1 if value != 0 else 0
    if dtype.is_float:
        return float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = math.trunc(value)
    low, high = integer_range(dtype)
    return int(value) if low <= value <= high else None

