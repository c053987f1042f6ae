"""Tensors of the frameworks a kernel is called with (numpy, torch, cupy): their dtypes by the
IR's names, new tensors beside a call's inputs, random inputs, and float64 copies to compare.
No framework is imported until a tensor of it is seen or asked for."""

import importlib

# IR dtype names (tile_ir/dtype.h) to each framework's attribute names.
_NUMPY = {"bool": "bool_", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
          "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16",
          "f32": "float32", "f64": "float64"}
_TORCH = {**_NUMPY, "bool": "bool", "bf16": "bfloat16", "f8e4m3": "float8_e4m3fn",
          "f8e5m2": "float8_e5m2"}


def framework_of(value):
    """'torch', 'numpy', 'cupy' or None (not a tensor of a framework tile allocates for)."""
    module = type(value).__module__.split(".")[0]
    if module in ("torch", "numpy", "cupy") and hasattr(value, "shape"):
        return module
    return None


def _dtype(framework, ir_dtype):
    table = _TORCH if framework == "torch" else _NUMPY
    name = table.get(ir_dtype)
    if name is None:
        raise TypeError(f"{framework} has no {ir_dtype} tensors: call the kernel with torch "
                        "tensors for bf16 and fp8 outputs, or pass the output yourself")
    return getattr(importlib.import_module(framework), name)


def empty(framework, shape, ir_dtype, like=None):
    """An uninitialised tensor of `framework` on `like`'s device (torch, cupy) or the host."""
    module = importlib.import_module(framework)
    dtype = _dtype(framework, ir_dtype)
    if framework == "torch":
        device = like.device if like is not None else "cpu"
        return module.empty(tuple(shape), dtype=dtype, device=device)
    if framework == "cupy" and like is not None:
        with like.device:
            return module.empty(tuple(shape), dtype=dtype)
    return module.empty(tuple(shape), dtype=dtype)


def framework_for_target(target):
    """The framework new tensors for `target` are made in: torch on GPUs (TileLang's), numpy on
    the CPU."""
    return "numpy" if target.startswith("cpu") else "torch"


def random(framework, shape, ir_dtype, supply, generator, device=None):
    """A tensor drawn as TileLang's TensorSupplyType `supply` (a name: Integer, Uniform,
    Normal, Randn, Zero, One, Auto) says, from numpy's `generator`, moved into `framework`."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    shape = tuple(int(d) for d in shape)
    is_int = ir_dtype[0] in "iu" or ir_dtype == "bool"
    if supply == "Zero":
        data = np.zeros(shape)
    elif supply == "One":
        data = np.ones(shape)
    elif ir_dtype == "bool":
        data = generator.integers(0, 2, shape)
    elif ir_dtype[0] == "u":
        data = generator.integers(0, 3, shape)
    elif ir_dtype.startswith("f8"):
        data = generator.integers(-128, 128, shape) / 16.0
    elif supply == "Integer" or is_int:
        data = generator.integers(-2, 3, shape)
    elif supply == "Normal":
        data = generator.normal(-1.0, 1.0, shape)
    elif supply == "Randn":
        data = generator.standard_normal(shape)
    else:  # Uniform, Auto
        data = generator.uniform(-1.0, 1.0, shape)
    if framework == "numpy":
        return data.astype(_dtype("numpy", ir_dtype))
    module = importlib.import_module(framework)
    if framework == "torch":
        return module.from_numpy(np.ascontiguousarray(data, dtype=np.float64)).to(
            dtype=_dtype("torch", ir_dtype), device=device or "cpu")
    return module.asarray(data.astype(_dtype(framework, ir_dtype)))


def to_float64(value):
    """A float64 numpy copy of a tensor of any framework (torch's bf16 and fp8 included)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    framework = framework_of(value)
    if framework == "torch":
        return value.detach().to("cpu").double().numpy()
    if framework == "cupy":
        return value.get().astype(np.float64)
    return np.asarray(value, dtype=np.float64)


def synchronize(values):
    """Waits for work queued on the devices of `values`' tensors (torch and cupy on a GPU)."""
    for value in values:
        framework = framework_of(value)
        if framework == "torch" and value.device.type == "cuda":
            importlib.import_module("torch").cuda.synchronize(value.device)
            return
        if framework == "cupy":
            importlib.import_module("cupy").cuda.Device().synchronize()
            return


def view_as(value, shape, what):
    """`value` (a numpy or cupy array, a torch tensor) under `shape`, sharing its memory: a
    view, never a copy (a copy would lose what a kernel writes through it)."""
    shape = tuple(int(d) for d in shape)
    framework = framework_of(value)
    if framework == "torch":
        try:
            return value.view(shape)
        except RuntimeError as error:
            raise ValueError(f"{what}: the tensor of shape {tuple(value.shape)} cannot be "
                             f"viewed as {shape} without a copy ({error})") from error
    if framework in ("numpy", "cupy"):
        import math  # pylint: disable=import-outside-toplevel
        if math.prod(shape) != value.size:
            raise ValueError(f"{what}: the array of shape {value.shape} ({value.size} elements) "
                             f"cannot be viewed as {shape}")
        view = value.view()
        try:
            view.shape = shape  # raises rather than copy
        except AttributeError as error:
            raise ValueError(f"{what}: the array of shape {value.shape} cannot be viewed as "
                             f"{shape} without a copy (it is not contiguous)") from error
        return view
    raise TypeError(f"{what}: views are made of numpy, cupy and torch tensors, not "
                    f"{type(value).__name__}")
