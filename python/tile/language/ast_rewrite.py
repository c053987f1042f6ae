"""Python's control flow on kernel values, as TileLang programs write it. TileLang parses a
kernel's source; tile.language traces it (the function runs once), so `if row < N:` would ask
Python for the truth of a kernel value. Before tracing, the function's source is rewritten so
that each construct asks `runtime` below what to do, keeping Python's meaning for Python values:

    if c: A else: B        for b in branches(c, ...):  if b: A  else: B
                           (a Python value: one pass, Python's if; a kernel value: A traced
                           inside T.If(c), then B inside T.Else())
    x if c else y          select(c, lambda: x, lambda: y)      (T.if_then_else on a kernel c)
    a and b, a or b, not a logical_and(lambda: a, lambda: b), ...   (&, |, ~ on kernel values)
    for i in range(n)      for i in loop_range(range, n)        (T.serial when n is a kernel
                                                                 value)
    x = v, x += v          x = assign(<x's value or UNBOUND>, v) (a store when x is T.alloc_var's)
    A: T.Tensor(...)       A = annotate("A", A, T.Tensor(...))  (a parameter's declaration in
                                                                 @tile.jit's eager form)

Line numbers and columns are the original's, so errors and the IR's locations name the user's
lines. A function whose source cannot be read (defined in a REPL, or by exec) is traced as it
is."""

import ast
import builtins
import functools
import inspect
import itertools
import operator
import types

from tile.language import _where
from tile.language import expr as expr_module

RUNTIME = "__tile_rt__"
_branch_names = itertools.count()


class _Unbound:
    def __repr__(self):
        return "<unbound>"


UNBOUND = _Unbound()


def _escapes(statements, kinds):
    """Whether `statements` hold one of `kinds` (Break, Continue, Return) that would leave a
    loop wrapped around them: not inside an inner loop (for Break/Continue) or function."""
    for node in statements:
        for child in _walk_same_scope(node, loops_stop=kinds != (ast.Return,)):
            if isinstance(child, kinds):
                return True
    return False


def _walk_same_scope(node, loops_stop):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if loops_stop and isinstance(child, (ast.For, ast.While, ast.AsyncFor)):
            # A break inside an inner loop leaves that loop only; its else may still break.
            for inner in child.orelse:
                yield from _walk_same_scope(inner, loops_stop)
            continue
        yield from _walk_same_scope(child, loops_stop)


def _rt(attribute, node):
    return ast.copy_location(ast.Attribute(value=ast.Name(id=RUNTIME, ctx=ast.Load()),
                                           attr=attribute, ctx=ast.Load()), node)


def _call(attribute, args, node):
    return ast.copy_location(ast.Call(func=_rt(attribute, node), args=args, keywords=[]), node)


def _thunk(expression):
    return ast.copy_location(ast.Lambda(args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=expression), expression)


def _current_value(name, node):
    """`locals().get(name, UNBOUND)`: a local's value, or UNBOUND before its first binding."""
    return ast.copy_location(ast.Call(
        func=ast.Attribute(value=ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[],
                                          keywords=[]), attr="get", ctx=ast.Load()),
        args=[ast.Constant(value=name), _rt("UNBOUND", node)], keywords=[]), node)


# operator's in-place functions, by the augmented assignment's operator.
_AUGMENTED = {ast.Add: "iadd", ast.Sub: "isub", ast.Mult: "imul", ast.Div: "itruediv",
              ast.FloorDiv: "ifloordiv", ast.Mod: "imod", ast.Pow: "ipow",
              ast.LShift: "ilshift", ast.RShift: "irshift", ast.BitAnd: "iand",
              ast.BitOr: "ior", ast.BitXor: "ixor", ast.MatMult: "imatmul"}


class _Rewriter(ast.NodeTransformer):
    """Rewrites one function (and what is nested in it) as the module docstring says."""

    def __init__(self, parameters):
        self.parameters = parameters

    def visit_If(self, node):
        self.generic_visit(node)
        if _escapes(node.body + node.orelse, (ast.Break, ast.Continue)):
            # A loop around the branches would catch the break; Python's own if, with a
            # clear error should the test be a kernel value.
            node.test = _call("static_test", [node.test, ast.Constant(value="break or continue")],
                              node.test)
            return node
        name = f"__tile_branch_{next(_branch_names)}__"
        has_return = _escapes(node.body + node.orelse, (ast.Return,))
        inner = ast.copy_location(ast.If(test=ast.Name(id=name, ctx=ast.Load()), body=node.body,
                                         orelse=node.orelse), node)
        return ast.copy_location(ast.For(
            target=ast.Name(id=name, ctx=ast.Store()),
            iter=_call("branches", [node.test, ast.Constant(value=bool(node.orelse)),
                                    ast.Constant(value=has_return)], node.test),
            body=[inner], orelse=[]), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _call("select", [node.test, _thunk(node.body), _thunk(node.orelse)], node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        function = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        return _call(function, [_thunk(v) for v in node.values], node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call("logical_not", [node.operand], node)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        call = node.iter
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and (
                call.func.id == "range") and not call.keywords:
            node.iter = _call("loop_range", [call.func] + call.args, call)
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            node.value = _call("assign", [_current_value(name, node), node.value], node.value)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        operator_name = _AUGMENTED[type(node.op)]
        return ast.copy_location(ast.Assign(
            targets=[ast.Name(id=name, ctx=ast.Store())],
            value=_call("assign_augmented", [ast.Name(id=name, ctx=ast.Load()),
                                             ast.Constant(value=operator_name), node.value],
                        node)), node)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        if node.value is None:
            current = (ast.Name(id=name, ctx=ast.Load()) if name in self.parameters
                       else ast.Constant(value=None))
            value = _call("annotate", [ast.Constant(value=name), current, node.annotation],
                          node)
        else:
            value = _call("assign", [_current_value(name, node), node.value], node.value)
        return ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                            value=value), node)


def _parameters(function_def):
    arguments = function_def.args
    return {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}


def parse_function(source, filename="<unknown>"):
    """The FunctionDef of a function's source (as inspect gives it, decorators included) and
    how many lines were added before it to parse it: indented source (a method, a factory's
    inner function) parses under an `if 1:`, which keeps every column."""
    indented = source[:1] in (" ", "\t")
    tree = ast.parse(("if 1:\n" if indented else "") + source, filename=filename)
    node = tree.body[0].body[0] if indented else tree.body[0]
    return node, (1 if indented else 0)


@functools.lru_cache(maxsize=256)
def _rewritten_code(code, source, filename, first_line):
    """The compiled maker of the rewritten function: `def make(__tile_rt__, *freevars)`."""
    function_def, added = parse_function(source, filename)
    if not isinstance(function_def, ast.FunctionDef):
        return None
    # Decorators, annotations and defaults were evaluated where the function was defined (they
    # may name the enclosing function's locals, which are not its free variables): the
    # rewritten function takes the original's values instead of evaluating them again.
    function_def.decorator_list = []
    function_def.returns = None
    arguments = function_def.args
    for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [
            arguments.vararg, arguments.kwarg]:
        if argument is not None:
            argument.annotation = None
    arguments.defaults = []
    arguments.kw_defaults = [None] * len(arguments.kwonlyargs)
    function_def = _Rewriter(_parameters(function_def)).visit(function_def)
    ast.increment_lineno(function_def, first_line - 1 - added)
    freevars = list(code.co_freevars)
    maker = ast.FunctionDef(
        name="__tile_make__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=RUNTIME)] + [
            ast.arg(arg=v) for v in freevars], vararg=None, kwonlyargs=[], kw_defaults=[],
                           kwarg=None, defaults=[]),
        body=[function_def, ast.Return(value=ast.Name(id=function_def.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    module = ast.Module(body=[maker], type_ignores=[])
    ast.fix_missing_locations(module)
    return compile(module, filename, "exec")


def rewrite(fn):
    """`fn` with its control flow rewritten (the module docstring), or `fn` itself when its
    source cannot be read."""
    if getattr(fn, "__tile_rewritten__", False):
        return fn
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return fn
    code = fn.__code__
    maker_code = _rewritten_code(code, "".join(lines), code.co_filename, first_line)
    if maker_code is None:
        return fn
    namespace = {}
    exec(maker_code, fn.__globals__, namespace)  # pylint: disable=exec-used
    # The maker's function has the right code; it runs with the original's own closure cells
    # (so it sees later bindings of the enclosing function's variables, as the original would)
    # and one cell more for the runtime.
    made = namespace["__tile_make__"](runtime, *([None] * len(code.co_freevars)))
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    cells[RUNTIME] = types.CellType(runtime)
    try:
        closure = tuple(cells[name] for name in made.__code__.co_freevars)
    except KeyError:
        return fn
    rewritten = types.FunctionType(made.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                   closure)
    rewritten.__defaults__ = fn.__defaults__
    rewritten.__kwdefaults__ = fn.__kwdefaults__
    rewritten.__annotations__ = dict(fn.__annotations__)
    rewritten.__tile_rewritten__ = True
    rewritten.__wrapped__ = fn
    return rewritten


def _is_kernel_value(value):
    return isinstance(value, expr_module.Expr) or hasattr(value, "_load")


def _truth(value):
    """A kernel value as a condition, as Python takes a number's truth: a number is true when
    it is not zero (`if mask[i]:` on a u8 mask)."""
    value = expr_module.as_expr(value, "a condition")
    if value.dtype.kind == "bool":
        return value
    return expr_module.binary("!=", value, 0)


class runtime:  # pylint: disable=invalid-name
    """What rewritten functions call (as __tile_rt__)."""

    UNBOUND = UNBOUND

    @staticmethod
    def branches(test, has_else, has_return):
        from tile.language.control import Else, If  # pylint: disable=import-outside-toplevel
        if not _is_kernel_value(test):
            yield bool(test)
            return
        if has_return:
            raise SyntaxError(f"{_where.here()}: a `return` inside an `if` on a kernel value "
                              "cannot be traced: both branches become code of the kernel; "
                              "move the return out of the branch")
        with If(_truth(test)):
            yield True
        if has_else:
            with Else():
                yield False

    @staticmethod
    def static_test(test, why):
        if _is_kernel_value(test):
            raise SyntaxError(f"{_where.here()}: an `if` on a kernel value holds a {why} of "
                              "a Python loop around it; a traced branch cannot leave a Python "
                              "loop (use T.If, or compute the condition in Python)")
        return test

    @staticmethod
    def select(test, if_true, if_false):
        if not _is_kernel_value(test):
            return if_true() if test else if_false()
        return expr_module.select(_truth(test), if_true(), if_false())

    @staticmethod
    def logical_and(*operands):
        value = operands[0]()
        for operand in operands[1:]:
            if _is_kernel_value(value):
                value = expr_module.binary("&", _truth(value), _truth(operand()))
            elif not value:
                return value
            else:
                value = operand()
        return value

    @staticmethod
    def logical_or(*operands):
        value = operands[0]()
        for operand in operands[1:]:
            if _is_kernel_value(value):
                value = expr_module.binary("|", _truth(value), _truth(operand()))
            elif value:
                return value
            else:
                value = operand()
        return value

    @staticmethod
    def logical_not(value):
        if _is_kernel_value(value):
            return expr_module.logical_not(_truth(value))
        return not value

    @staticmethod
    def loop_range(range_function, *args):
        if range_function is builtins.range and any(_is_kernel_value(a) for a in args):
            from tile.language.control import serial  # pylint: disable=import-outside-toplevel
            return serial(*args)
        return range_function(*args)

    @staticmethod
    def assign(current, value):
        store = getattr(current, "_assign", None)
        if store is not None and not getattr(value, "_fresh_variable", False):
            store(value)
            return current
        return value

    @staticmethod
    def assign_augmented(current, operator_name, value):
        """`current <op>= value`: a store of the new value into a T.alloc_var variable, else
        Python's in-place operation."""
        store = getattr(current, "_assign", None)
        if store is not None:
            # x += v on a variable is x = x + v: the operator of its loaded value.
            store(getattr(operator, operator_name.replace("i", "", 1))(current._load(), value))
            return current
        return getattr(operator, operator_name)(current, value)

    @staticmethod
    def annotate(name, current, annotation):
        from tile.language import eager  # pylint: disable=import-outside-toplevel
        return eager.annotate(name, current, annotation)
