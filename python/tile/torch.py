"""tile.torch: a tile kernel as a PyTorch operator (torch.library), so torch.compile traces
through it with no graph break.

    kernel = tile.compile(gemm, out_idx=[-1])        # or a @tile.jit factory's kernel
    op = tile.torch.custom_op(kernel)                # torch.ops.tile.<name>
    c = op(a, b)                                     # or inside a torch.compile'd function

The operator's schema is the kernel's inputs (buffers are Tensors, scalar parameters floats,
ints or bools) and its outputs (out_idx) as results. Its fake (meta) implementation makes each
output's shape from the kernel's symbolic shapes with the dims the inputs' shapes bind, and
its dtype from the kernel's, on the first input's device, so torch.compile(fullgraph=True)
traces it, with symbolic sizes where the inputs' are dynamic. The real implementation is the
kernel's call on contiguous inputs: outputs from torch's allocator, the launch on torch's
current stream. Autograd pairs an operator with its backward, itself made of tile operators:
`op.register_autograd(backward, setup_context=...)` (torch.library's, on the returned op).

Needs torch; `import tile.torch` without it raises ImportError saying so."""

import hashlib
import importlib
import keyword
import re

try:
    import torch
except ImportError as error:  # the rest of tile needs no torch
    raise ImportError("tile.torch needs PyTorch: pip install torch") from error

from tile import _frameworks

_jit = importlib.import_module("tile.jit")  # the module: tile.jit itself is the decorator

_REGISTERED = {}  # qualified name -> (the kernel's identity, the op)


def _scalar_type(param, what):
    dtype = _jit._ir_dtype(param.scalar.dtype)  # pylint: disable=protected-access
    if dtype == "bool":
        return "bool"
    if dtype.startswith(("f", "bf")):  # the IR's names: f32, bf16, ...
        return "float"
    if dtype.startswith(("i", "u")):
        return "SymInt"
    raise TypeError(f"{what}: scalar parameter '{param.scalar.name}' is {dtype}, which a torch "
                    "operator's schema cannot take")


def _schema(kernel):
    what = f"tile.torch: kernel '{kernel.name}'"
    if not kernel.out_idx:
        raise TypeError(f"{what} has no out_idx: a torch operator returns its outputs, so "
                        "compile it with out_idx=[...] naming the buffers it writes")
    arguments = []
    for param in kernel.input_params():
        name = _jit._param_name(param)  # pylint: disable=protected-access
        if keyword.iskeyword(name) or name in ("self", "out"):
            name += "_"
        kind = "Tensor" if param.WhichOneof("kind") == "buffer" else _scalar_type(param, what)
        arguments.append(f"{kind} {name}")
    count = len(kernel.out_idx)
    results = "Tensor" if count == 1 else "(" + ", ".join(["Tensor"] * count) + ")"
    return f"({', '.join(arguments)}) -> {results}"


def _bound_dims(kernel, inputs):
    """The dims the inputs' shapes bind (an axis whose extent is a bare dim), kept as torch
    gives them: ints, or SymInts while torch.compile traces with dynamic shapes."""
    dims = {}
    for param, value in zip(kernel.input_params(), inputs):
        if param.WhichOneof("kind") != "buffer" or not isinstance(value, torch.Tensor):
            continue
        for axis, extent in enumerate(param.buffer.shape):
            if extent.WhichOneof("node") == "var" and axis < value.dim():
                dims.setdefault(extent.var.name, value.shape[axis])
    return dims


def _fake_outputs(kernel, inputs):
    tensors = [v for v in inputs if isinstance(v, torch.Tensor)]
    device = tensors[0].device if tensors else torch.device("cpu")
    dims = _bound_dims(kernel, inputs)
    outputs = []
    for param in kernel.output_params():
        buffer = param.buffer
        what = f"tile.torch: kernel '{kernel.name}': output (out_idx) '{buffer.name}'"
        shape = [_jit._eval_int(e, dims, what) for e in buffer.shape]  # pylint: disable=protected-access
        dtype = _frameworks._dtype("torch", _jit._ir_dtype(buffer.dtype))  # pylint: disable=protected-access
        outputs.append(torch.empty(shape, dtype=dtype, device=device))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _default_name(kernel):
    """The kernel's name and a hash of its IR, so that two kernels of one name (a factory's
    specializations, TileLang's `main`) are two operators."""
    digest = hashlib.sha256(kernel.prim_func.proto.SerializeToString(deterministic=True))
    digest.update(repr(kernel.out_idx).encode())
    return f"{re.sub(r'[^0-9A-Za-z_]', '_', kernel.name)}_{digest.hexdigest()[:10]}"


def custom_op(kernel, *compile_args, name=None, namespace="tile", **compile_kwargs):
    """Registers `kernel` as the torch operator `namespace::name` and returns it (a
    torch.library CustomOpDef: call it, or torch.ops.<namespace>.<name>).

    `kernel` is a tile.JITKernel with out_idx (tile.compile(prim_func, out_idx=...)), or a
    @tile.jit factory, compiled here with `compile_args` and `compile_kwargs`. The name
    defaults to the kernel's name and a hash of its IR; registering the same kernel again
    returns the same operator, a different one under a taken name raises ValueError."""
    if isinstance(kernel, _jit.JITImpl):
        kernel = kernel.compile(*compile_args, **compile_kwargs)
    elif compile_args or compile_kwargs:
        raise TypeError("tile.torch.custom_op: compile arguments are for a @tile.jit factory, "
                        f"not a {type(kernel).__name__}")
    if not isinstance(kernel, _jit.JITKernel):
        raise TypeError("tile.torch.custom_op takes a tile.JITKernel (tile.compile(prim_func, "
                        f"out_idx=...)) or a @tile.jit factory, not a {type(kernel).__name__}")
    name = name or _default_name(kernel)
    qualname = f"{namespace}::{name}"
    identity = (kernel.prim_func.proto.SerializeToString(deterministic=True),
                tuple(kernel.out_idx), repr(kernel.target), repr(sorted(kernel.pass_configs)))
    if qualname in _REGISTERED:
        registered, op = _REGISTERED[qualname]
        if registered != identity:
            raise ValueError(f"tile.torch.custom_op: '{qualname}' is registered for another "
                             "kernel; give this one another name=")
        return op

    def run(*inputs):
        # Autograd and views hand operators strided tensors (an expanded gradient has stride
        # 0); tile kernels take the row-major layout their buffers declare.
        inputs = [v.contiguous() if isinstance(v, torch.Tensor) else v for v in inputs]
        outputs = kernel(*inputs)
        return tuple(outputs) if isinstance(outputs, list) else outputs

    op = torch.library.custom_op(qualname, run, mutates_args=(), schema=_schema(kernel))
    op.register_fake(lambda *inputs: _fake_outputs(kernel, inputs))
    _REGISTERED[qualname] = (identity, op)
    return op
