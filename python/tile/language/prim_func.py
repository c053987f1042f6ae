"""@T.prim_func: a kernel from a Python function whose parameters are annotated
T.Tensor(shape, dtype) (global buffers) or with a dtype (scalars). The
function runs once, building a tile_ir.v1.Module, which libtile then reads
and verifies (tile.load) and compiles (tile.compile) like any other."""

import inspect
import itertools
import keyword
import numbers
import re

import tile
from tile.language import _where, ast_rewrite, dtypes, views
from tile.language import expr as expr_module
from tile.language._proto import pb
from tile.language.buffers import Buffer
from tile.language.builder import KernelBuilder

PRODUCER = "tile-python"
PRODUCER_VERSION = "0.1.0"

_dim_serial = itertools.count()  # dims are listed in the order they were made
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def symbolic(name, dtype="int32"):
    """A symbolic dimension, bound from the tensors' shapes at each launch."""
    what = f"T.symbolic({name!r})"
    if not isinstance(name, str) or not _NAME.match(name) or keyword.iskeyword(name):
        raise ValueError(f"{_where.here()}: {what}: the name must be an identifier")
    dtype = dtypes.parse(dtype, f"{_where.here()}: {what}")
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"{_where.here()}: {what}: dims are int32 or int64, not {dtype.name}")
    dim = expr_module.Var(name, dtype, "dim", None, _where.here())
    dim.serial = next(_dim_serial)
    return dim


dynamic = symbolic


class Tensor:
    """The annotation of a global buffer parameter: T.Tensor((M, K), "float16"), or TileLang's
    subscript form T.Tensor[(M, K), "float16"]."""

    def __class_getitem__(cls, key):
        return cls(*key) if isinstance(key, tuple) else cls(key)

    def __new__(cls, shape, dtype="float32", data=None, **_ignored):
        if data is not None:  # T.Tensor(shape, dtype, buf.data): a view (views.py)
            return views.view_of(data, shape, dtype, "T.Tensor")
        return super().__new__(cls)

    def __init__(self, shape, dtype="float32", data=None, **_ignored):
        site = _where.here()
        self.dtype = dtypes.parse(dtype, f"{site}: T.Tensor")
        entries = list(shape) if isinstance(shape, (list, tuple)) else [shape]
        self.shape = []
        for d, entry in enumerate(entries):
            if isinstance(entry, numbers.Integral) and not isinstance(entry, bool) and entry > 0:
                self.shape.append(expr_module.literal(int(entry)))
            elif isinstance(entry, expr_module.Expr) and entry.dtype.is_int and all(
                    v.kind == "dim" for v in entry.vars):
                self.shape.append(entry)
            else:
                raise ValueError(f"{site}: T.Tensor: dimension {d} of the shape is {entry!r}; "
                                 "use positive ints and T.symbolic dims")


class PrimFunc:
    """A traced kernel: `.proto` (tile_ir.v1.Module), `.module` (a verified tile.Module),
    `.compile(target)` (a tile.Kernel); calling it runs it on the CPU target."""

    def __init__(self, fn, name=None, trace=None):
        code = fn.__code__
        self.name = name or fn.__name__
        self.site = _where.Site(code.co_filename, code.co_firstlineno)
        # Python's if, and/or/not, range and assignments on kernel values (ast_rewrite.py).
        traced = ast_rewrite.rewrite(fn)
        builder = KernelBuilder(self.name, self.site)
        # The parameters made outputs by the function itself (@tile.jit's eager form).
        self.out_idx = None
        self.param_aliases = {}  # Python name -> IR name, where they differ
        with builder:
            if trace is not None:
                self.out_idx = trace(builder, traced)
                result = None
            else:
                handles = self._params(builder, traced)
                result = traced(*handles)
        if result is not None:
            raise TypeError(f"{self.site}: kernel '{self.name}': a @T.prim_func function "
                            f"returns nothing, but this one returned {type(result).__name__}")
        if builder.errors:
            raise ValueError("\n".join(builder.errors))
        if builder.launch is None:
            raise ValueError(f"{self.site}: kernel '{self.name}' has no `with T.Kernel(...)` "
                             "block")
        # One IR kernel per T.Kernel block, launched in order; each takes the prim_func's
        # parameters and then its T.alloc_global workspaces.
        launches = builder.finished + [(builder.launch, builder.blocks[0], builder.launch_site)]
        self.kernel_names = [self.name] + [f"{self.name}_{i}" for i in range(1, len(launches))]
        self.num_params = len(builder.params)
        self.num_workspaces = len(builder.workspaces)
        params = list(builder.params) + [pb.Param(buffer=w.decl()) for w in builder.workspaces]
        # Views (views.py) come last, each bound at the call to its base's memory: the
        # position of each base among the parameters and workspaces.
        positions = {(p.buffer.name if p.WhichOneof("kind") == "buffer" else None): i
                     for i, p in enumerate(params)}
        self.view_bases = [positions[v.view_base.name] for v in builder.views]
        params += [pb.Param(buffer=v.decl()) for v in builder.views]
        kernels = [pb.Kernel(name=name, dims=[d.decl() for d in builder.dims], params=params,
                             launch=launch,
                             body=pb.Stmt(seq=pb.Seq(stmts=stmts), loc=self.site.proto()),
                             loc=self.site.proto())
                   for name, (launch, stmts, _) in zip(self.kernel_names, launches)]
        views.check_aliasing(builder, kernels)
        self.proto = pb.Module(ir_version=builder.ir_version, producer=PRODUCER,
                               producer_version=PRODUCER_VERSION, kernels=kernels)
        self.module = tile.load(self.proto.SerializeToString(), name=self.site.file,
                                format="proto")
        self._compiled = {}

    def _params(self, builder, fn):
        annotated = []
        for param in inspect.signature(fn).parameters.values():
            annotation = param.annotation
            what = f"parameter '{param.name}'"
            if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                raise builder.fail(TypeError, what, "*args and **kwargs cannot be kernel "
                                   "parameters", self.site)
            if isinstance(annotation, str) and dtypes._LOOKUP.get(annotation):
                annotation = dtypes.parse(annotation, what)
            if isinstance(annotation, str) and not isinstance(annotation, dtypes.DType):
                raise builder.fail(TypeError, what, f"its annotation is the string "
                                   f"{annotation!r}; tile.language needs annotations evaluated "
                                   "(drop `from __future__ import annotations`)", self.site)
            if not isinstance(annotation, (Tensor, dtypes.DType)):
                raise builder.fail(TypeError, what, "annotate it T.Tensor(shape, dtype) for a "
                                   "buffer or with a dtype (T.float32) for a scalar", self.site)
            annotated.append((param.name, annotation))
        # Dims are declared before parameters (the C++ DSL's order, so names agree).
        dims = {}
        for _, annotation in annotated:
            for entry in getattr(annotation, "shape", []):
                for var in entry.vars:
                    dims[id(var)] = var
        builder.dims = sorted(dims.values(), key=lambda d: d.serial)
        builder.dim_set = set(builder.dims)
        for dim in builder.dims:
            builder.claim_name(dim.name, f"dim '{dim.name}'")
        handles = []
        for python_name, annotation in annotated:
            # A parameter named like a keyword of the text form ("kernel") is renamed in the IR;
            # calls by keyword still take the Python name (param_aliases).
            name = builder.legal_name(python_name)
            if name != python_name:
                self.param_aliases[python_name] = name
            builder.claim_name(name, f"parameter '{python_name}'")
            if isinstance(annotation, Tensor):
                buffer = Buffer(name, annotation.dtype, annotation.shape, "global", builder,
                                self.site)
                builder.params.append(pb.Param(buffer=buffer.decl()))
                handles.append(buffer)
            else:
                scalar = expr_module.Var(name, annotation, "scalar", builder, self.site)
                builder.params.append(pb.Param(scalar=scalar.decl()))
                handles.append(scalar)
        return handles

    def serialize(self):
        """The module as .tilepb bytes."""
        return self.proto.SerializeToString()

    def compile(self, target="cpu"):
        if len(self.kernel_names) > 1:
            raise ValueError(f"{self.site}: '{self.name}' has {len(self.kernel_names)} T.Kernel "
                             "blocks; tile.compile(prim_func) gives a kernel that launches them "
                             "in order")
        if self.view_bases:
            raise ValueError(f"{self.site}: '{self.name}' views a buffer under another shape; "
                             "tile.compile(prim_func) gives a kernel that binds the views")
        if target not in self._compiled:
            self._compiled[target] = tile.compile(self.module, kernel=self.name, target=target)
        return self._compiled[target]

    def __call__(self, *args, **kwargs):
        """Runs the kernel (its T.Kernel blocks in order) on the CPU target."""
        if getattr(self, "_cpu_runner", None) is None:
            from tile.jit import JITKernel  # pylint: disable=import-outside-toplevel
            self._cpu_runner = JITKernel(self, target="cpu")
        self._cpu_runner(*args, **kwargs)

    def __repr__(self):
        return f"<tile.language.PrimFunc {self.name}>"


def prim_func(fn=None, *, name=None):
    """@T.prim_func or @T.prim_func(name="gemm_f16"): the kernel is named after the
    function unless `name` is given."""
    if fn is None:
        return lambda f: PrimFunc(f, name)
    return PrimFunc(fn, name)
