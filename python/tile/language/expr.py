"""Expressions: a tile_ir.v1.Expr message with its type, built by Python's
operators. Operands of two types meet at one by TileLang's (TVM's) rules
(promotion.py): `f32 + f16` is f32, `x / N` with N an int dim is x's float
type, a Python int is i32 and a Python float f32 as in TVM (so `h * 2.0` is
f32 when h is f16). Each conversion is an explicit cast node in the IR; a
constant is converted where it stands, as TVM folds it. Where a context fixes
the type (an index, a store, a fill) a Python number takes that type."""

import math
import numbers
import warnings

from tile.language import _where, dtypes, promotion
from tile.language import builder as builder_module
from tile.language._proto import pb


def _fail(cls, what, message):
    active = getattr(builder_module._active, "builder", None)
    if active is not None:
        return active.fail(cls, what, message)
    return cls(f"{_where.here()}: {what}: {message}")


class _Operators:
    """Python's operators on expressions and on element accesses (buffers.py)."""

    def __add__(self, other): return binary("+", self, other)
    def __radd__(self, other): return binary("+", other, self)
    def __sub__(self, other): return binary("-", self, other)
    def __rsub__(self, other): return binary("-", other, self)
    def __mul__(self, other): return binary("*", self, other)
    def __rmul__(self, other): return binary("*", other, self)
    def __truediv__(self, other): return binary("/", self, other)
    def __rtruediv__(self, other): return binary("/", other, self)
    def __floordiv__(self, other): return binary("//", self, other)
    def __rfloordiv__(self, other): return binary("//", other, self)
    def __mod__(self, other): return binary("%", self, other)
    def __rmod__(self, other): return binary("%", other, self)
    def __xor__(self, other): return binary("^", self, other)
    def __rxor__(self, other): return binary("^", other, self)
    def __and__(self, other): return binary("&", self, other)
    def __rand__(self, other): return binary("&", other, self)
    def __or__(self, other): return binary("|", self, other)
    def __ror__(self, other): return binary("|", other, self)
    def __lshift__(self, other): return binary("<<", self, other)
    def __rlshift__(self, other): return binary("<<", other, self)
    def __rshift__(self, other): return binary(">>", self, other)
    def __rrshift__(self, other): return binary(">>", other, self)
    def __lt__(self, other): return binary("<", self, other)
    def __le__(self, other): return binary("<=", self, other)
    def __gt__(self, other): return binary(">", self, other)
    def __ge__(self, other): return binary(">=", self, other)
    def __eq__(self, other): return binary("==", self, other)
    def __ne__(self, other): return binary("!=", self, other)
    def __neg__(self): return negate(self)
    def __invert__(self): return logical_not(self)

    def astype(self, dtype):
        """TileLang's x.astype(dtype): T.cast(x, dtype)."""
        return cast(self, dtype)
    __hash__ = object.__hash__

    def __bool__(self):
        raise _fail(TypeError, "a tile expression used as a Python bool",
                    "a kernel is traced once, so Python's if, while, and, or and not cannot "
                    "branch on a value of the kernel; write `with T.If(cond):` for a branch, "
                    "T.if_then_else(cond, a, b) for a value and &, |, ~ to combine conditions")


class Expr(_Operators):
    __slots__ = ("node", "dtype", "weak", "vars", "name", "kind", "owner", "site", "serial")

    def __init__(self, node, dtype, weak=False, vars=frozenset()):
        self.node = node      # tile_ir.v1.Expr
        self.dtype = dtype    # DType
        self.weak = weak      # a Python literal not yet given a type by its context
        self.vars = vars      # the variables it uses, for builder.KernelBuilder.use
        # Set on variables only (Var below): their name, kind, kernel and where declared.
        self.name = self.kind = self.owner = self.site = None
        self.serial = 0       # for dims: the order T.symbolic made them in

    def decl(self):
        return pb.VarDecl(name=self.name, dtype=self.dtype.proto())

    def astype(self, dtype):
        return cast(self, dtype)

    def literal_value(self):
        """The value of an integer or float literal, else None."""
        kind = self.node.WhichOneof("node")
        if kind == "int_imm":
            return self.node.int_imm.value
        if kind == "float_imm":
            return self.node.float_imm.value
        return None

    def __repr__(self):
        if self.name is not None:
            return f"<tile.language.Var {self.name}: {self.dtype.ir_name}>"
        return f"<tile.language.Expr {self.dtype.ir_name}>"


def Var(name, dtype, kind, owner, site):
    """A declared variable: a kernel dim ('dim'), a scalar parameter ('scalar'), a block
    index ('grid') or a loop variable ('loop'). An Expr itself, not a subclass: Python
    would try a subclass's reflected comparison first, turning `i < N` into `N > i`."""
    var = Expr(pb.Expr(var=pb.VarRef(name=name)), dtype)
    var.vars = frozenset([var])
    var.name, var.kind, var.owner, var.site = name, kind, owner, site
    return var


def _int_node(value, dtype):
    value = int(value)
    if value >= 2**63:
        # A u64 past int64: an IntImm holds an int64 in every form of the IR, so the constant is
        # the same bits as an i64, reinterpreted (ir_version 5).
        _uses_ir_version(5)
        bits = pb.Expr(int_imm=pb.IntImm(dtype=dtypes.int64.proto(), value=value - 2**64))
        return pb.Expr(call=pb.Call(dtype=dtype.proto(), name="reinterpret", args=[bits]))
    return pb.Expr(int_imm=pb.IntImm(dtype=dtype.proto(), value=value))


def _float_node(value, dtype):
    return pb.Expr(float_imm=pb.FloatImm(dtype=dtype.proto(), value=float(value)))


def literal(value):
    """A Python number as TVM converts one: bool, i32 (i64 beyond its range), f32. It is
    weak: a context that fixes the type (an index, a store, T.fill) gives it that type."""
    if isinstance(value, bool):
        return Expr(_int_node(int(value), dtypes.bool_), dtypes.bool_, weak=True)
    if isinstance(value, numbers.Integral):
        value = int(value)
        if not -2**63 <= value < 2**63:
            raise _fail(OverflowError, f"the literal {value}", "does not fit in 64 bits")
        dtype = dtypes.int32 if -2**31 <= value < 2**31 else dtypes.int64
        return Expr(_int_node(value, dtype), dtype, weak=True)
    if isinstance(value, numbers.Real):
        return Expr(_float_node(value, dtypes.float32), dtypes.float32, weak=True)
    raise TypeError(f"not a number: {value!r}")


def literal_of(value, dtype):
    """A literal of an explicit type: T.float16(0.5), T.int64(7)."""
    dtype = dtypes.parse(dtype, "a literal's dtype")
    if dtype.is_float:
        return Expr(_float_node(value, dtype), dtype)
    if dtype.kind == "bool":
        return Expr(_int_node(1 if value else 0, dtype), dtype)
    if isinstance(value, float) and not value.is_integer():
        raise _fail(ValueError, f"T.{dtype.name}({value})", "an integer type holds no fraction")
    return Expr(_int_node(value, dtype), dtype)


def as_expr(value, what):
    """An Expr of any operand: an Expr, an element access, or a Python number."""
    if isinstance(value, Expr):
        return value
    load = getattr(value, "_load", None)
    if load is not None:
        return load()
    if isinstance(value, numbers.Real):
        return literal(value)
    raise _fail(TypeError, what, f"expected an expression or a number, got "
                f"{type(value).__name__}")


def typed(e, dtype):
    """`e` as `dtype` when it is a weak literal that can take it; else `e`."""
    if not e.weak or e.dtype == dtype:
        return e
    value = e.literal_value()
    if e.node.WhichOneof("node") == "int_imm":
        if dtype.is_float:
            return Expr(_float_node(value, dtype), dtype)
        if dtype.kind == "bool":
            return Expr(_int_node(1 if value else 0, dtype), dtype)
        return Expr(_int_node(value, dtype), dtype)
    if dtype.is_float:
        return Expr(_float_node(value, dtype), dtype)
    return e


def _cast_node(dtype, e):
    return Expr(pb.Expr(cast=pb.Cast(dtype=dtype.proto(), value=e.node)), dtype, vars=e.vars)


def convert(e, dtype):
    """`e` as `dtype`: a constant converted where it stands (TVM folds the cast of a
    constant), anything else through a cast node. None for a constant that the integer
    type cannot hold (TVM refuses such an IntImm too)."""
    if e.dtype == dtype:
        return e
    value = e.literal_value()
    if value is None:
        return _cast_node(dtype, e)
    folded = promotion.fold_literal(value, dtype)
    if folded is None:
        return None
    make = _float_node if dtype.is_float else _int_node
    return Expr(make(folded, dtype), dtype)


def unify(a, b):
    """Both operands of the type TileLang gives the pair (promotion.common_type), each
    converted by `convert`. A mix TileLang refuses is left as it is, for the caller to
    refuse."""
    if a.dtype == b.dtype:
        return a, b
    dtype = promotion.common_type(a.dtype, b.dtype)
    if dtype is None:
        return a, b
    return convert(a, dtype), convert(b, dtype)


def _mix_refused(what, a, b):
    return _fail(TypeError, what, f"operands of {a.dtype.ir_name} and {b.dtype.ir_name}: "
                 "TileLang (TVM) does not mix two float8 formats either; convert both with "
                 "T.cast(x, 'float16') or 'float32'")


def converted_for(value, dtype, what):
    """`value` converted to the `dtype` of the buffer it is stored in (or fills, or is
    atomically added to), as TileLang converts it: any type to any, a Python number typed
    directly. A float stored into an integer buffer truncates toward zero; TVM warns about
    it and so does this (a RuntimeWarning naming the line)."""
    value = as_expr(value, what)
    if value.dtype == dtype and not value.weak:
        return value
    if promotion.loses_information(value.dtype, dtype):
        site = _where.here()
        warnings.warn_explicit(f"{site}: {what}: a {value.dtype.ir_name} value converted to "
                               f"{dtype.ir_name} truncates toward zero (TileLang converts it "
                               f"too, with a warning); write T.cast(x, '{dtype.name}') to say "
                               "so", RuntimeWarning, site.file, site.line)
    converted = convert(value, dtype)
    if converted is None:
        low, high = promotion.integer_range(dtype)
        raise _fail(OverflowError, what, f"the constant {value.literal_value()} does not fit "
                    f"in {dtype.ir_name} ({low} to {high})")
    return converted


_ARITHMETIC = {"+": pb.BINARY_OP_ADD, "-": pb.BINARY_OP_SUB, "*": pb.BINARY_OP_MUL,
               "/": pb.BINARY_OP_DIV, "//": pb.BINARY_OP_FLOOR_DIV, "%": pb.BINARY_OP_FLOOR_MOD,
               "^": pb.BINARY_OP_XOR, "max": pb.BINARY_OP_MAX, "min": pb.BINARY_OP_MIN,
               "ceildiv": pb.BINARY_OP_CEIL_DIV, "truncdiv": pb.BINARY_OP_DIV,
               "truncmod": pb.BINARY_OP_MOD}
_COMPARISON = {"==": pb.BINARY_OP_EQ, "!=": pb.BINARY_OP_NE, "<": pb.BINARY_OP_LT,
               "<=": pb.BINARY_OP_LE, ">": pb.BINARY_OP_GT, ">=": pb.BINARY_OP_GE}
_LOGIC = {"&": pb.BINARY_OP_AND, "|": pb.BINARY_OP_OR}
# On integers: & and | are bitwise; >> is arithmetic on signed types, logical on u8. A shift
# takes the amount modulo the width. All four came in ir_version 5.
_BITWISE = {"&": pb.BINARY_OP_BIT_AND, "|": pb.BINARY_OP_BIT_OR, "<<": pb.BINARY_OP_SHL,
            ">>": pb.BINARY_OP_SHR}


def _uses_ir_version(version):
    active = getattr(builder_module._active, "builder", None)
    if active is not None:
        active.ir_version = max(active.ir_version, version)


def binary(symbol, a, b):
    what = f"'{symbol}'"
    a, b = unify(as_expr(a, what), as_expr(b, what))
    if a.dtype != b.dtype:
        raise _mix_refused(what, a, b)
    dtype = a.dtype
    if symbol in _LOGIC and dtype.kind == "bool":
        op = _LOGIC[symbol]
    elif symbol in _BITWISE:
        if not dtype.is_int:
            raise _fail(TypeError, what, f"on {dtype.ir_name}: bitwise operators take integers "
                        "(& and | also take bool conditions)")
        op = _BITWISE[symbol]
        _uses_ir_version(5)
    elif symbol in _COMPARISON:
        op, dtype = _COMPARISON[symbol], dtypes.bool_
    else:
        op = _ARITHMETIC[symbol]
        if symbol == "/" and dtype.is_int:
            raise _fail(TypeError, what, f"on {dtype.ir_name}: use // for floor division "
                        "or T.truncdiv for C's truncating one")
        if symbol in ("//", "%") and dtype.is_float:
            spelled = "T.floor(a / b)" if symbol == "//" else "a - T.floor(a / b) * b"
            raise _fail(TypeError, what, f"on {dtype.ir_name}: the IR's floor division and "
                        f"modulo take integers; write {spelled}")
        if symbol == "^":
            if not dtype.is_int:
                raise _fail(TypeError, what, f"XOR needs integers, not {dtype.ir_name}")
            active = getattr(builder_module._active, "builder", None)
            if active is not None:
                active.ir_version = max(active.ir_version, 2)  # BINARY_OP_XOR came in v2
    node = pb.Expr(binary=pb.Binary(op=op, a=a.node, b=b.node))
    return Expr(node, dtype, vars=a.vars | b.vars)


def negate(a):
    a = as_expr(a, "unary '-'")
    value = a.literal_value()
    if value is not None:
        make = _float_node if a.dtype.is_float else _int_node
        return Expr(make(-value, a.dtype), a.dtype, weak=a.weak)
    return Expr(pb.Expr(unary=pb.Unary(op=pb.UNARY_OP_NEG, a=a.node)), a.dtype, vars=a.vars)


def logical_not(a):
    """~a: the logical not of a condition; on an integer, its bitwise not (a ^ -1, as the IR
    has no bitwise-not node; a ^ 255 on u8, every bit set on the other unsigned types)."""
    a = as_expr(a, "'~'")
    if a.dtype.is_int and not a.weak:
        if a.dtype.kind != "uint":
            return binary("^", a, -1)
        # Typed, not a Python literal: u64's 2^64 - 1 is past the literals Python may write.
        return binary("^", a, Expr(_int_node(2**a.dtype.bits - 1, a.dtype), a.dtype))
    a = typed(a, dtypes.bool_)
    if a.dtype.kind != "bool":
        raise _fail(TypeError, "'~'", f"on {a.dtype.ir_name}: ~ takes a bool condition or an "
                    "integer")
    return Expr(pb.Expr(unary=pb.Unary(op=pb.UNARY_OP_NOT, a=a.node)), a.dtype, vars=a.vars)


def cast(value, dtype):
    """`value` converted to `dtype` (TileLang's T.cast(value, dtype))."""
    dtype = dtypes.parse(dtype, "T.cast")
    e = typed(as_expr(value, "T.cast"), dtype)
    return e if e.dtype == dtype else _cast_node(dtype, e)


def select(cond, true_value, false_value):
    """cond ? true_value : false_value (TileLang's T.if_then_else)."""
    what = "T.if_then_else"
    cond = typed(as_expr(cond, what), dtypes.bool_)
    if cond.dtype.kind != "bool":
        raise _fail(TypeError, what, f"the condition is {cond.dtype.ir_name}, not bool")
    t, f = unify(as_expr(true_value, what), as_expr(false_value, what))
    if t.dtype != f.dtype:
        raise _mix_refused(what, t, f)
    node = pb.Expr(select=pb.Select(cond=cond.node, true_value=t.node, false_value=f.node))
    return Expr(node, t.dtype, vars=cond.vars | t.vars | f.vars)


def folded_or_binary(symbol, a, b, python):
    """`python(a, b)` when both are Python ints (TileLang folds T.ceildiv(256, 64) to 4),
    else the IR's operation."""
    if isinstance(a, numbers.Integral) and isinstance(b, numbers.Integral) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return python(int(a), int(b))
    return binary(symbol, a, b)


def infinity(dtype):
    dtype = dtypes.parse(dtype, "T.infinity")
    if not dtype.is_float:
        raise _fail(TypeError, "T.infinity", f"{dtype.ir_name} has no infinity")
    return Expr(_float_node(math.inf, dtype), dtype)


# Element-wise intrinsics of tile_ir/intrinsics.h: name -> (arguments, float only).
INTRINSICS = {
    "exp": (1, True), "exp2": (1, True), "exp2_ftz": (1, True), "log": (1, True), "log2": (1, True),
    "sqrt": (1, True), "rsqrt": (1, True), "tanh": (1, True), "erf": (1, True),
    "sin": (1, True), "cos": (1, True), "floor": (1, True), "ceil": (1, True),
    "pow": (2, True), "fma": (3, True), "abs": (1, False),
}


def sigmoid(x):
    """TileLang's T.sigmoid: 1 / (1 + exp(-x)), in x's floating-point type."""
    x = as_expr(x, "T.sigmoid")
    if not x.dtype.is_float:
        raise _fail(TypeError, "T.sigmoid", f"takes a floating-point argument, not "
                    f"{x.dtype.ir_name}; cast with T.cast(x, 'float32')")
    return 1.0 / (1.0 + call("exp", -x))


def call(name, *args):
    count, float_only = INTRINSICS[name]
    what = f"T.{name}"
    if len(args) != count:
        raise _fail(TypeError, what, f"takes {count} argument{'s' if count > 1 else ''}, "
                    f"got {len(args)}")
    exprs = [as_expr(a, what) for a in args]
    dtype = exprs[0].dtype
    for e in exprs[1:]:  # the arguments meet at one type, as a binary operation's do
        common = promotion.common_type(dtype, e.dtype)
        if common is None:
            raise _mix_refused(what, exprs[0], e)
        dtype = common
    exprs = [convert(e, dtype) for e in exprs]
    for e in exprs:
        if float_only and not e.dtype.is_float:
            raise _fail(TypeError, what, f"takes floating-point arguments, not "
                        f"{e.dtype.ir_name}; cast with T.cast(x, 'float32')")
    node = pb.Expr(call=pb.Call(dtype=exprs[0].dtype.proto(), name=name,
                                args=[e.node for e in exprs]))
    vars = frozenset().union(*(e.vars for e in exprs))
    return Expr(node, exprs[0].dtype, vars=vars)
