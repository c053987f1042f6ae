"""@tile.jit's eager form (TileLang 0.1.6's builder pattern): the decorated function declares
its kernel's parameters in its body and returns its outputs.

    @tilelang.jit
    def matmul(A, B, block_M: int = 128):
        M, N, K = T.const("M, N, K")        # sizes, taken from the call's tensors
        A: T.Tensor((M, K), T.float16)      # A is a parameter of the kernel
        B: T.Tensor((K, N), T.float16)
        C = T.empty((M, N), T.float16)      # an output, made by each call
        with T.Kernel(...):
            ...
        return C

    c = matmul(a, b)                          # traced for a's and b's shapes, run, C returned
    kernel = matmul.compile(M=1024, N=1024, K=512)   # traced for those sizes

The function's parameters that its body annotates with a T.Tensor (or a dtype, for a scalar)
are the kernel's inputs, in the function's order; T.empty's buffers are its outputs, in the
order made. The other parameters are compile-time values. T.const names sizes: a call's
tensors give their values (the first trace only reads the annotations to learn where each
size is), .compile() takes them by name; each distinct set of values and compile-time
arguments is traced once."""

import ast
import inspect
import threading

from tile.language import _where, dtypes
from tile.language import expr as expr_module
from tile.language.prim_func import PrimFunc, Tensor, symbolic
from tile.language._proto import pb
from tile.language.buffers import Buffer

_state = threading.local()


class _Discovered(Exception):
    """Ends the first trace once every tensor parameter has been annotated."""


class _Context:
    """The eager trace under way: what T.const, T.empty and the annotations read and write."""

    def __init__(self, builder, declared, consts, discovering):
        self.builder = builder
        self.declared = declared      # the parameters the body annotates, in signature order
        self.consts = consts          # name -> int, for the second trace
        self.discovering = discovering
        self.annotations = {}         # name -> T.Tensor or dtype, in the order seen
        self.inputs = {}              # Python name -> tile_ir.v1.Param
        self.outputs = []             # (Buffer, tile_ir.v1.Param)
        self.aliases = {}             # Python name -> IR name, where they differ


def _context(what):
    context = getattr(_state, "context", None)
    if context is None:
        raise RuntimeError(f"{_where.here()}: {what}: only in a function decorated with "
                           "@tile.jit (its eager form); a @T.prim_func declares its "
                           "parameters in its signature")
    return context


def const(*names):
    """TileLang's T.const("M, N, K"): sizes the call's tensors give (see the module doc)."""
    context = _context("T.const")
    split = [n for spec in names for n in spec.replace(",", " ").split()]
    if not split:
        raise ValueError(f"{_where.here()}: T.const: name at least one size, as T.const('M, N')")
    values = []
    for name in split:
        if context.discovering:
            values.append(symbolic(name))
        elif name in context.consts:
            values.append(context.consts[name])
        else:
            raise ValueError(f"{_where.here()}: T.const: no value for size '{name}': give it "
                             f"to .compile({name}=...), or call with tensors whose annotated "
                             "shapes hold it")
    return values[0] if len(values) == 1 else tuple(values)


def empty(shape, dtype="float32"):
    """TileLang's T.empty(shape, dtype): an output of the kernel, made by each call and
    returned."""
    context = _context("T.empty")
    builder = context.builder
    annotation = Tensor(shape, dtype)
    name = builder.fresh_name(_assigned_name() or f"out{len(context.outputs)}")
    _declare_dims(builder, annotation)
    buffer = Buffer(name, annotation.dtype, annotation.shape, "global", builder, _where.here())
    param = pb.Param(buffer=buffer.decl())
    context.outputs.append((buffer, param))
    return buffer


def _assigned_name():
    from tile.language import source_names  # pylint: disable=import-outside-toplevel
    return source_names.assigned_name(_where.user_frame())


def _declare_dims(builder, annotation):
    for entry in annotation.shape:
        for var in entry.vars:
            if var.kind == "dim" and var not in builder.dim_set:
                builder.claim_name(var.name, f"dim '{var.name}'")
                builder.dims.append(var)
                builder.dim_set.add(var)


def annotate(name, current_value, annotation):
    """`A: T.Tensor(shape, dtype)` in an eager body: declares parameter A (ast_rewrite.py's
    annotate). Elsewhere an annotation without a value means what it means in Python."""
    context = getattr(_state, "context", None)
    if context is None or name not in context.declared:
        return current_value
    if name in context.annotations:
        raise ValueError(f"{_where.here()}: parameter '{name}' is annotated twice")
    if isinstance(annotation, str) and annotation in dtypes._LOOKUP:  # pylint: disable=protected-access
        annotation = dtypes.parse(annotation, name)
    if not isinstance(annotation, (Tensor, dtypes.DType)):
        raise TypeError(f"{_where.here()}: parameter '{name}': annotate it T.Tensor(shape, "
                        "dtype) for a buffer or with a dtype (T.float32) for a scalar")
    context.annotations[name] = annotation
    if context.discovering:
        if len(context.annotations) == len(context.declared):
            raise _Discovered()
        return current_value
    builder = context.builder
    site = _where.here()
    python_name, name = name, builder.legal_name(name)
    if name != python_name:
        context.aliases[python_name] = name
    builder.claim_name(name, f"parameter '{python_name}'")
    if isinstance(annotation, Tensor):
        _declare_dims(builder, annotation)
        handle = Buffer(name, annotation.dtype, annotation.shape, "global", builder, site)
        context.inputs[python_name] = pb.Param(buffer=handle.decl())
    else:
        handle = expr_module.Var(name, annotation, "scalar", builder, site)
        context.inputs[python_name] = pb.Param(scalar=handle.decl())
    return handle


def declared_parameters(fn):
    """The parameters of `fn` that its body annotates without a value (its kernel's inputs),
    in signature order; None when the source cannot be read."""
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return None
    from tile.language import ast_rewrite  # pylint: disable=import-outside-toplevel
    function_def, _ = ast_rewrite.parse_function(source)
    parameters = [p for p in inspect.signature(fn).parameters]
    annotated = set()
    for node in ast.walk(function_def):
        if isinstance(node, ast.AnnAssign) and node.value is None and isinstance(
                node.target, ast.Name) and node.target.id in parameters:
            annotated.add(node.target.id)
    return [p for p in parameters if p in annotated]


def is_eager(fn):
    """Whether `fn` is written in the eager form: its body annotates a parameter, or calls
    T.const or T.empty."""
    declared = declared_parameters(fn)
    if declared:
        return True
    from tile.language import ast_rewrite  # pylint: disable=import-outside-toplevel
    try:
        tree, _ = ast_rewrite.parse_function(inspect.getsource(fn))
    except (OSError, TypeError):
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in ("const", "empty") for n in ast.walk(tree))


class EagerFunction:
    """The eager function of one @tile.jit, traced into prim_funcs."""

    def __init__(self, fn):
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.declared = declared_parameters(fn) or []

    def split(self, args, kwargs):
        """The call's tensors (by declared parameter) and its compile-time values."""
        bound = self.signature.bind_partial(*args, **kwargs)
        bound.apply_defaults()
        tensors = {n: v for n, v in bound.arguments.items() if n in self.declared}
        static = {n: v for n, v in bound.arguments.items() if n not in self.declared}
        for name, value in static.items():
            if hasattr(value, "__dlpack__"):
                raise TypeError(f"{self.fn.__name__}: parameter '{name}' got a tensor, but the "
                                f"function does not declare it (`{name}: T.Tensor(shape, "
                                "dtype)` in its body)")
        return tensors, static

    def consts_of(self, tensors, static):
        """The T.const sizes the tensors' shapes give: a first trace reads the annotations."""
        context = self._run(static, {}, discovering=True)
        consts = {}
        for name, annotation in context.annotations.items():
            value = tensors.get(name)
            if not isinstance(annotation, Tensor) or value is None:
                continue
            shape = tuple(getattr(value, "shape", ()))
            if len(shape) != len(annotation.shape):
                raise ValueError(f"{self.fn.__name__}: '{name}' is declared with "
                                 f"{len(annotation.shape)} dimensions, the call's tensor has "
                                 f"{len(shape)} ({shape})")
            for extent, actual in zip(annotation.shape, shape):
                if extent.node.WhichOneof("node") == "var":
                    consts.setdefault(extent.node.var.name, int(actual))
        return consts

    def trace(self, static, consts):
        """A PrimFunc of the body for these compile-time values and sizes, with `out_idx`
        naming T.empty's outputs."""
        prim_func = PrimFunc(
            self.fn, trace=lambda builder, fn: self._trace_into(builder, fn, static, consts))
        prim_func.param_aliases.update(self.aliases)
        return prim_func

    def _trace_into(self, builder, fn, static, consts):
        context = self._run(static, consts, discovering=False, builder=builder, fn=fn)
        missing = [n for n in self.declared if n not in context.inputs]
        if missing:
            raise ValueError(f"{self.fn.__name__}: parameter '{missing[0]}' was never "
                             "annotated by the trace (is its annotation inside a branch?)")
        builder.params.extend(context.inputs[n] for n in self.declared)
        self.aliases = context.aliases
        # Outputs in the order the function returns them, so calls return them so.
        params = {id(buffer): param for buffer, param in context.outputs}
        builder.params.extend(params[id(buffer)] for buffer in context.returned)
        count = len(self.declared)
        return list(range(count, count + len(context.outputs)))

    def _run(self, static, consts, discovering, builder=None, fn=None):
        from tile.language import ast_rewrite  # pylint: disable=import-outside-toplevel
        from tile.language.builder import KernelBuilder  # pylint: disable=import-outside-toplevel
        fn = fn or ast_rewrite.rewrite(self.fn)
        own_builder = builder is None
        if own_builder:
            code = self.fn.__code__
            builder = KernelBuilder(self.fn.__name__,
                                    _where.Site(code.co_filename, code.co_firstlineno))
        context = _Context(builder, self.declared, consts, discovering)
        previous = getattr(_state, "context", None)
        _state.context = context
        arguments = dict(static)
        arguments.update({n: None for n in self.declared})
        try:
            if own_builder:
                with builder:
                    result = fn(**arguments)
            else:
                result = fn(**arguments)
        except _Discovered:
            return context
        finally:
            _state.context = previous
        if discovering:
            return context  # fewer annotations ran than declared: _trace_into names which
        outputs = result if isinstance(result, (list, tuple)) else (
            [] if result is None else [result])
        made = [buffer for buffer, _ in context.outputs]
        for output in outputs:
            if not any(output is buffer for buffer in made):
                raise TypeError(f"{self.fn.__name__}: an eager kernel returns the buffers it "
                                f"made with T.empty, not {type(output).__name__}")
        if len(outputs) != len(made):
            raise TypeError(f"{self.fn.__name__}: it made {len(made)} outputs with T.empty and "
                            f"returned {len(outputs)}; return every output")
        context.returned = list(outputs)
        return context
