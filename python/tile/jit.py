"""TileLang's JIT surface: @tile.jit (usable as @tilelang.jit after `import tile as tilelang`),
tile.compile(prim_func, out_idx=, target=, pass_configs=) and the kernel it returns.

    @tile.jit(out_idx=[-1])
    def matmul(M, N, K, block_M, block_N, block_K, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
                 C: T.Tensor((M, N), dtype)):
            ...
        return main

    kernel = matmul(1024, 1024, 1024, 128, 128, 32)   # traced once per arguments
    c = kernel(a, b)                                  # C is made beside a and returned

The factory's arguments are compile-time values: each distinct call traces the factory once
(kept by the JIT object), and the kernel compiles through libtile's kernel cache (memory and
disk) for the target each call's tensors live on. Without `out_idx` a kernel takes every
buffer, as tile.Kernel does."""

import functools
import inspect
import numbers

from tile import _frameworks, _targets
from tile.kernel import Kernel
from tile.kernel import compile as _compile_kernel


def _eval_int(node, dims, what):
    """The value of an integer shape expression of tile_ir.v1 under `dims`."""
    kind = node.WhichOneof("node")
    if kind == "int_imm":
        return node.int_imm.value
    if kind == "var":
        if node.var.name not in dims:
            raise ValueError(f"{what}: its dim '{node.var.name}' is not the extent of any input "
                             "tensor's axis, so the output's shape is not known; pass the "
                             "output yourself (leave it out of out_idx)")
        return dims[node.var.name]
    if kind == "cast":
        return _eval_int(node.cast.value, dims, what)
    if kind == "binary":
        from tile.language._proto import pb  # pylint: disable=import-outside-toplevel
        a = _eval_int(node.binary.a, dims, what)
        b = _eval_int(node.binary.b, dims, what)
        operations = {
            pb.BINARY_OP_ADD: lambda: a + b, pb.BINARY_OP_SUB: lambda: a - b,
            pb.BINARY_OP_MUL: lambda: a * b, pb.BINARY_OP_FLOOR_DIV: lambda: a // b,
            pb.BINARY_OP_FLOOR_MOD: lambda: a % b, pb.BINARY_OP_CEIL_DIV: lambda: -(-a // b),
            pb.BINARY_OP_MIN: lambda: min(a, b), pb.BINARY_OP_MAX: lambda: max(a, b),
        }
        if node.binary.op in operations:
            return operations[node.binary.op]()
    raise ValueError(f"{what}: its shape is an expression tile cannot evaluate before the "
                     "call; pass the output yourself (leave it out of out_idx)")


def _normalize_out_idx(out_idx, params, name):
    """out_idx as a sorted list of parameter positions (TileLang's: an int or a list of ints,
    negative from the end), each a buffer parameter."""
    if out_idx is None:
        return []
    entries = [out_idx] if isinstance(out_idx, numbers.Integral) else list(out_idx)
    positions = []
    for entry in entries:
        if not isinstance(entry, numbers.Integral) or isinstance(entry, bool):
            raise TypeError(f"kernel '{name}': out_idx entries are ints, not {entry!r}")
        position = int(entry) + (len(params) if entry < 0 else 0)
        if not 0 <= position < len(params):
            raise ValueError(f"kernel '{name}': out_idx {entry} is out of range for its "
                             f"{len(params)} parameters")
        if params[position].WhichOneof("kind") != "buffer":
            raise ValueError(f"kernel '{name}': out_idx {entry} names the scalar parameter "
                             f"'{params[position].scalar.name}'; outputs are buffers")
        if position in positions:
            raise ValueError(f"kernel '{name}': out_idx names parameter {position} twice")
        positions.append(position)
    return sorted(positions)


class JITKernel:
    """A kernel of a tile.language prim_func with TileLang's calling convention: the
    parameters named by out_idx are made at each call (on the inputs' device, in their
    framework) and returned (one output alone, several as a list); the others are the call's
    arguments, in order or by name. Compiled for each target its calls need; "auto" follows
    the tensors' device."""

    def __init__(self, prim_func, out_idx=None, target="auto", pass_configs=None,
                 execution_backend=None, verbose=False, **unused):
        _check_backend(execution_backend)
        kernel = prim_func.proto.kernels[0]
        self.prim_func = prim_func
        self.name = prim_func.name
        self.target = target
        self.pass_configs = dict(pass_configs or {})
        self.verbose = verbose
        # The prim_func's own parameters, the T.alloc_global workspaces each call makes, then
        # the views each call binds to a reshaped parameter or workspace (language/views.py).
        count = getattr(prim_func, "num_params", len(kernel.params))
        workspaces = getattr(prim_func, "num_workspaces", len(kernel.params) - count)
        self._params = list(kernel.params)[:count]
        self._workspaces = [p.buffer for p in list(kernel.params)[count:count + workspaces]]
        self._views = list(zip(getattr(prim_func, "view_bases", []),
                               [p.buffer for p in list(kernel.params)[count + workspaces:]]))
        self.kernel_names = list(getattr(prim_func, "kernel_names", [self.name]))
        self._dim_names = {d.name for d in kernel.dims}
        self.out_idx = _normalize_out_idx(out_idx, self._params, self.name)
        self.params = [_param_name(p) for p in self._params]
        self._inputs = [i for i in range(len(self._params)) if i not in self.out_idx]
        self._kernels = {}
        _targets.options_of(self.pass_configs, "")  # refuses unknown keys now, not at a call

    # -- compiling

    def _target_name(self, tensors=()):
        target = _targets.resolve(self.target, tensors)
        return _targets.with_options(target, _targets.options_of(self.pass_configs, target))

    def compiled_all(self, target=None):
        """The tile.Kernels for `target` (a resolved name; the default target when None), one
        per T.Kernel block, in launch order."""
        name = target or self._target_name()
        if name not in self._kernels:
            if self.verbose:
                print(f"tile.jit: compiling '{self.name}' for {name}")
            self._kernels[name] = [_compile_kernel(self.prim_func.module, kernel=kernel,
                                                   target=name)
                                   for kernel in self.kernel_names]
        return self._kernels[name]

    def compiled(self, target=None):
        """The (first) tile.Kernel for `target`."""
        return self.compiled_all(target)[0]

    # -- calling

    def _bind_inputs(self, args, kwargs):
        aliases = getattr(self.prim_func, "param_aliases", {})
        kwargs = {aliases.get(k, k): v for k, v in kwargs.items()}
        names = [self.params[i] for i in self._inputs]
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            outputs = [self.params[i] for i in self.out_idx]
            extra = (f" ('{unknown[0]}' is an output, made by the call: out_idx)"
                     if unknown[0] in outputs else "")
            raise TypeError(f"kernel '{self.name}' has no input '{unknown[0]}'{extra} (its "
                            f"inputs: {', '.join(names)})")
        if len(args) > len(names):
            raise TypeError(f"kernel '{self.name}' takes {len(names)} inputs ({', '.join(names)}"
                            f"; outputs {[self.params[i] for i in self.out_idx]} are made by the "
                            f"call), got {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in values:
                raise TypeError(f"kernel '{self.name}': input '{key}' given twice")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"kernel '{self.name}': no value for input '{missing[0]}' (its "
                            f"inputs: {', '.join(names)})")
        return [values[n] for n in names]

    def _dims_from(self, inputs):
        """The dims each input tensor's shape binds (an axis whose extent is a bare dim)."""
        dims = {}
        for position, value in zip(self._inputs, inputs):
            param = self._params[position]
            if param.WhichOneof("kind") != "buffer" or not hasattr(value, "shape"):
                continue
            for axis, extent in enumerate(param.buffer.shape):
                if extent.WhichOneof("node") == "var" and axis < len(value.shape):
                    dims.setdefault(extent.var.name, int(value.shape[axis]))
        return dims

    def _made_for(self, inputs, target):
        """The outputs (out_idx) and workspaces (T.alloc_global) of a call, made beside its
        inputs: in their framework, on their device."""
        tensors = [v for v in inputs if _frameworks.framework_of(v)]
        framework = (_frameworks.framework_of(tensors[0]) if tensors
                     else _frameworks.framework_for_target(target))
        like = tensors[0] if tensors else None
        dims = self._dims_from(inputs)

        def make(buffer, role):
            what = f"kernel '{self.name}': {role} '{buffer.name}'"
            shape = [_eval_int(e, dims, what) for e in buffer.shape]
            return _frameworks.empty(framework, shape, _ir_dtype(buffer.dtype), like)

        outputs = [make(self._params[p].buffer, "output (out_idx)") for p in self.out_idx]
        workspaces = [make(w, "workspace (T.alloc_global)") for w in self._workspaces]
        return outputs, workspaces

    def __call__(self, *args, **kwargs):
        inputs = self._bind_inputs(args, kwargs)
        target = self._target_name(inputs)
        kernels = self.compiled_all(target)
        outputs, workspaces = (self._made_for(inputs, target)
                               if self.out_idx or self._workspaces else ([], []))
        values, ins, outs = [], iter(inputs), iter(outputs)
        for i in range(len(self._params)):
            values.append(next(outs) if i in self.out_idx else next(ins))
        values += workspaces
        if self._views:
            dims = self._dims_from(inputs)
            for base, view in self._views:
                what = f"kernel '{self.name}': view '{view.name}'"
                values.append(_frameworks.view_as(
                    values[base], [_eval_int(e, dims, what) for e in view.shape], what))
        for kernel in kernels:  # in order: torch's stream orders them; others return when done
            kernel(*values)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else outputs

    # -- inspecting

    def get_kernel_source(self, target=None):
        """The source the target compiles (CUDA C++, HIP C++, MSL, LLVM IR), each T.Kernel
        block's in turn."""
        return "\n".join(k.source() for k in self.compiled_all(target))

    def get_host_source(self):
        """There is no generated host code: launches go through libtile (capi/tile.h)."""
        raise NotImplementedError("tile generates no host source: kernels are launched by "
                                  "libtile's runtime (capi/tile.h); get_kernel_source() is the "
                                  "device code")

    def ir(self, target=None):
        """The kernel's canonical text, as compiled (each T.Kernel block's in turn)."""
        return "\n".join(k.ir() for k in self.compiled_all(target))

    def get_profiler(self, tensor_supply_type=None):
        """A tile.profiler.Profiler of this kernel (do_bench, assert_allclose)."""
        from tile.profiler import Profiler  # pylint: disable=import-outside-toplevel
        return Profiler(self, tensor_supply_type)

    @property
    def signature(self):
        return self.compiled().signature

    @property
    def kernel_source(self):
        return self.get_kernel_source()

    def input_params(self):
        """The inputs' tile_ir.v1.Param messages, in call order."""
        return [self._params[i] for i in self._inputs]

    def output_params(self):
        return [self._params[i] for i in self.out_idx]

    def __repr__(self):
        outputs = ", ".join(self.params[i] for i in self.out_idx) or "none"
        return f"<tile.JITKernel {self.name}: outputs {outputs}, target {self.target}>"


def _param_name(param):
    return param.buffer.name if param.WhichOneof("kind") == "buffer" else param.scalar.name


def _ir_dtype(datatype):
    from tile.language import dtypes  # pylint: disable=import-outside-toplevel
    for dtype in dtypes.BY_NAME.values():
        if dtype.scalar == datatype.scalar:
            return dtype.ir_name
    raise ValueError(f"unknown scalar type {datatype.scalar}")


def _check_backend(execution_backend):
    if execution_backend not in (None, "auto", "cython", "tvm_ffi", "ctypes", "nvrtc"):
        raise NotImplementedError(
            f"execution_backend={execution_backend!r}: tile launches through libtile's runtime "
            "only (execution_backend 'auto', or one of TileLang's host wrappers, which all "
            "mean libtile here)")


def compile(func, out_idx=None, target="auto", pass_configs=None,  # pylint: disable=redefined-builtin
            execution_backend=None, target_host=None, verbose=False, **tilelang_keywords):
    """TileLang's tilelang.compile: a JITKernel of a tile.language prim_func. A tile.Module
    (or a prim_func with kernel=) compiles as tile.compile always did, to a tile.Kernel."""
    from tile.language.prim_func import PrimFunc  # pylint: disable=import-outside-toplevel
    if not isinstance(func, PrimFunc):
        if out_idx is not None or pass_configs:
            raise TypeError("tile.compile: out_idx and pass_configs need a tile.language "
                            f"prim_func, not {type(func).__name__}")
        kernel = tilelang_keywords.pop("kernel", None)
        _refuse_keywords(tilelang_keywords, "tile.compile")
        return _compile_kernel(func, kernel=kernel,
                               target=_targets.resolve("cpu" if target == "auto" else target))
    kernel = tilelang_keywords.pop("kernel", None)
    if kernel is not None and kernel != func.name:
        raise ValueError(f"tile.compile: the prim_func's kernel is '{func.name}', not '{kernel}'")
    _refuse_keywords(tilelang_keywords, "tile.compile")
    del target_host  # the host is the machine that calls
    return JITKernel(func, out_idx=out_idx, target=target, pass_configs=pass_configs,
                     execution_backend=execution_backend, verbose=verbose)


# TileLang keywords of jit/compile that change nothing here: the debug dump folder and extra
# device compiler flags are refused; others are named in _refuse_keywords.
_ACCEPTED_KEYWORDS = {"debug_root_path"}


def _refuse_keywords(keywords, what):
    for key, value in keywords.items():
        if key in _ACCEPTED_KEYWORDS or value is None:
            continue
        raise TypeError(f"{what}: the keyword {key}= is not taken by tile (it takes out_idx, "
                        "target, pass_configs, execution_backend, target_host, verbose)")


class JITImpl:
    """What @tile.jit makes of a kernel factory: calling it with compile-time arguments traces
    the factory (once per distinct arguments) and returns its JITKernel."""

    def __init__(self, func, **compile_args):
        from tile.language import eager  # pylint: disable=import-outside-toplevel
        self.func = func
        self.compile_args = compile_args
        self._kernels = {}
        self._consts = {}  # the sizes each call form's tensors give (eager form)
        # The eager form declares its parameters in its body (tile/language/eager.py).
        self._eager = eager.EagerFunction(func) if eager.is_eager(func) else None
        if self._eager is not None and compile_args.get("out_idx") is not None:
            raise ValueError(f"@tile.jit: '{func.__name__}' makes its outputs with T.empty; "
                             "out_idx is for factories that return a prim_func")
        functools.update_wrapper(self, func)

    def _key(self, args, kwargs):
        bound = inspect.signature(self.func).bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple((name, _hashable(value)) for name, value in bound.arguments.items())

    def get_tir(self, *args, **kwargs):
        """The factory's prim_func for these arguments."""
        result = self.func(*args, **kwargs)
        from tile.language.prim_func import PrimFunc  # pylint: disable=import-outside-toplevel
        if not isinstance(result, PrimFunc):
            raise TypeError(f"@tile.jit: '{self.func.__name__}' returned "
                            f"{type(result).__name__}; a kernel factory returns the "
                            "@T.prim_func it defines")
        return result

    def compile(self, *args, **kwargs):
        """The JITKernel of these compile-time arguments (and, in the eager form, T.const
        sizes by name)."""
        if self._eager is not None:
            parameters = self._eager.signature.parameters
            consts = {k: v for k, v in kwargs.items() if k not in parameters}
            kwargs = {k: v for k, v in kwargs.items() if k in parameters}
            _, static = self._eager.split(args, kwargs)
            return self._eager_kernel(static, consts)
        key = self._key(args, kwargs)
        if key not in self._kernels:
            self._kernels[key] = JITKernel(self.get_tir(*args, **kwargs), **self.compile_args)
        return self._kernels[key]

    def _eager_kernel(self, static, consts):
        key = ("eager", tuple(sorted((k, _hashable(v)) for k, v in static.items())),
               tuple(sorted(consts.items())))
        if key not in self._kernels:
            prim_func = self._eager.trace(static, consts)
            compile_args = dict(self.compile_args, out_idx=prim_func.out_idx)
            self._kernels[key] = JITKernel(prim_func, **compile_args)
        return self._kernels[key]

    def __call__(self, *args, **kwargs):
        """Lazy form: the JITKernel (compile). Eager form: the kernel traced for these
        tensors' sizes, run on them; its outputs are returned."""
        if self._eager is None:
            return self.compile(*args, **kwargs)
        tensors, static = self._eager.split(args, kwargs)
        shapes = tuple((n, tuple(getattr(t, "shape", ())), str(getattr(t, "dtype", "")))
                       for n, t in tensors.items())
        consts = self._consts.get((shapes, _hashable(tuple(static.items()))))
        if consts is None:
            consts = self._eager.consts_of(tensors, static)
            self._consts[(shapes, _hashable(tuple(static.items())))] = consts
        kernel = self._eager_kernel(static, consts)
        return kernel(*[tensors[n] for n in self._eager.declared])

    def get_kernel_source(self, *args, **kwargs):
        return self.compile(*args, **kwargs).get_kernel_source()

    def __repr__(self):
        return f"<tile.jit {self.func.__name__}>"


def _hashable(value):
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def jit(func=None, *, out_idx=None, target="auto", target_host=None, execution_backend=None,
        verbose=False, pass_configs=None, debug_root_path=None, compile_flags=None):
    """@tile.jit or @tile.jit(out_idx=..., target=..., pass_configs=...): TileLang's decorator
    of a kernel factory (lazy mode: the function returns its @T.prim_func)."""
    if compile_flags:
        raise NotImplementedError("tile.jit: compile_flags= has no meaning here (the targets "
                                  "choose their compiler options); leave it out")
    _check_backend(execution_backend)
    del target_host, debug_root_path
    compile_args = dict(out_idx=out_idx, target=target, pass_configs=pass_configs,
                        execution_backend=execution_backend, verbose=verbose)
    if func is not None:
        return JITImpl(func, **compile_args)
    return lambda f: JITImpl(f, **compile_args)


__all__ = ["JITImpl", "JITKernel", "Kernel", "compile", "jit"]
