"""tile.compile and calling a compiled kernel on DLPack tensors."""

import ctypes
import numbers
import operator

from tile import _dlpack
from tile import _lib
from tile import remarks
from tile._lib import (TILE_ARG_INT, TILE_ARG_SCALAR, TILE_ARG_TENSOR, InvalidArgumentError,
                       TileArg, check, lib)

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def _scalar_arg(position, name, value):
    """The TileArg of a number: integers (bool too, as 0 and 1; numpy's) as an exact int64,
    other reals as a double. The messages are those of tile._launch."""
    if isinstance(value, numbers.Integral):
        integer = operator.index(value)
        if not INT64_MIN <= integer <= INT64_MAX:
            raise InvalidArgumentError(
                f"argument {position} ('{name}'): {_describe_integer(integer)} is out of the "
                f"range of an integer scalar, int64 [{INT64_MIN}, {INT64_MAX}] (a float "
                "parameter takes float(value))")
        arg = TileArg(TILE_ARG_INT, None)
        arg.integer = integer
        return arg
    if isinstance(value, numbers.Real):
        try:
            number = float(value)
        except OverflowError:
            raise InvalidArgumentError(
                f"argument {position} ('{name}'): the number is too large for a double"
            ) from None
        arg = TileArg(TILE_ARG_SCALAR, None)
        arg.scalar = number
        return arg
    raise TypeError(f"argument {position} ('{name}'): expected a number, got "
                    f"{type(value).__name__}")


def _describe_integer(integer):
    """The integer itself, or its size where its digits would flood the message (and Python
    refuses str() of more than 4300 digits)."""
    if integer.bit_length() <= 128:
        return str(integer)
    return f"an integer of {integer.bit_length()} bits"


# tile._launch.KernelBase makes a call with the arguments in order a C function (no Python
# frame); without the extension, calls are the Python method _call.
_KernelBase = object if _lib.launch_extension is None else _lib.launch_extension.KernelBase


class Kernel(_KernelBase):
    """A compiled kernel. Call it with one argument per parameter, in order
    or by name: tensors (anything with __dlpack__) for buffers, numbers for
    scalars. Dimensions are bound from the tensors' shapes.

    Tensors of a framework that publishes DLPack's C exchange table (torch)
    are read without a capsule and the kernel is enqueued on that framework's
    current stream, without waiting, as its own operators are; with other
    tensors (numpy, cupy, jax) the call returns when the kernel is done."""

    def __init__(self, handle, module, owned=True):
        self._handle = handle
        # A handle lent for one callback (tile_autotune's check) is not ours to free.
        self._owned = owned
        self._module = module  # not needed by the kernel; keeps repr's source
        self.name = lib.tile_kernel_name(handle).decode()
        self.signature = lib.tile_kernel_signature(handle).decode()
        count = lib.tile_kernel_num_params(handle)
        self.params = [lib.tile_kernel_param_name(handle, i).decode() for i in range(count)]
        self._is_buffer = [lib.tile_kernel_param_is_buffer(handle, i) == 1 for i in range(count)]
        extension = _lib.launch_extension
        self._launcher = None if extension is None else extension.prepare(
            handle.value, _lib.LAUNCH_ADDRESS, _lib.LAUNCH_ASYNC_ADDRESS, tuple(self.params),
            bytes(self._is_buffer))

    @property
    def _launcher(self):
        """tile._launch's launcher of this kernel, or None (the ctypes path)."""
        return getattr(self, "_launcher_capsule", None)

    @_launcher.setter
    def _launcher(self, launcher):
        self._launcher_capsule = launcher
        if _KernelBase is not object:  # the C call launches it too
            self._set_launcher(launcher, None if launcher is None else check)

    def release(self):
        """Frees the compiled kernel now rather than when the object is collected; any use
        afterwards raises ValueError. No call may be running on another thread."""
        self._launcher = None  # holds the handle's address: gone first
        if getattr(self, "_handle", None):
            if getattr(self, "_owned", True):
                lib.tile_kernel_free(self._handle)
            self._handle = None

    def __del__(self):
        self.release()

    def _live_handle(self):
        """The handle, or a ValueError saying the kernel was released (as a closed file's)."""
        if not getattr(self, "_handle", None):
            raise ValueError(f"kernel '{getattr(self, 'name', '?')}' was released "
                             "(Kernel.release()); compile it again with tile.compile")
        return self._handle

    @property
    def call_path(self):
        """'c' when calls go through tile._launch, 'ctypes' otherwise."""
        return "ctypes" if self._launcher is None else "c"

    def ir(self):
        """The kernel's canonical text, as compiled."""
        return lib.tile_kernel_ir(self._live_handle()).decode()

    def source(self):
        """The source the target compiles (CUDA C++, HIP C++, MSL, LLVM IR), lowered on the
        first request: tile_kernel_source."""
        text = lib.tile_kernel_source(self._live_handle())
        if text is None:
            raise _lib.TileError(lib.tile_last_error().decode("utf-8", "replace"))
        return text.decode()

    @property
    def cache_info(self):
        """Where the binary came from: 'cache: compiled|disk|memory, key K'."""
        return lib.tile_kernel_cache_info(self._live_handle()).decode()

    def _bind(self, args, kwargs):
        unknown = [key for key in kwargs if key not in self.params]
        if unknown:
            raise TypeError(f"kernel '{self.name}' has no parameter '{unknown[0]}' "
                            f"(its parameters: {', '.join(self.params)})")
        values, positional = [], list(args)
        for name in self.params:
            if name in kwargs:
                values.append(kwargs[name])
            elif positional:
                values.append(positional.pop(0))
            else:
                raise TypeError(f"kernel '{self.name}': no value for parameter '{name}' "
                                f"({self.signature})")
        if positional:
            raise TypeError(f"kernel '{self.name}' takes {len(self.params)} arguments "
                            f"({self.signature}), got {len(args) + len(kwargs)}")
        return values

    def _call(self, *args, **kwargs):
        """The call in Python: arguments by name, the ctypes path (KernelBase's C call comes
        here for anything but all arguments in order with the C path)."""
        handle = self._live_handle()
        # Positional arguments of the right count are already in parameter order.
        values = args if not kwargs and len(args) == len(self.params) else tuple(
            self._bind(args, kwargs))
        if self._launcher is not None:
            check(_lib.launch_extension.launch(self._launcher, values))
            return
        borrowed = []  # alive until the launch returns
        c_args = (TileArg * len(values))()
        for i, (name, value, is_buffer) in enumerate(zip(self.params, values, self._is_buffer)):
            if is_buffer:
                tensor = _dlpack.Borrowed(value, i + 1, name)
                borrowed.append(tensor)
                c_args[i] = TileArg(TILE_ARG_TENSOR, tensor.tensor)
            else:
                c_args[i] = _scalar_arg(i + 1, name, value)
        check(lib.tile_kernel_launch(handle, c_args, len(values)))

    if _KernelBase is object:
        __call__ = _call

    def __repr__(self):
        return f"<tile.Kernel {self.signature}>"


def compile(module, kernel=None, target="cpu"):  # pylint: disable=redefined-builtin
    """Compiles one kernel of `module` (a tile.Module, or a tile.language
    @T.prim_func; the only kernel when `kernel` is None) for `target` ("cpu",
    "cuda", "cuda:sm_90a") through the kernel cache."""
    module = getattr(module, "module", module)  # a PrimFunc holds its tile.Module
    if kernel is None:
        names = module.kernels
        if len(names) != 1:
            raise ValueError(f"{module.source} has {len(names)} kernels ({', '.join(names)}); "
                             "choose one with kernel=")
        kernel = names[0]
    handle = ctypes.c_void_p()
    check(lib.tile_kernel_compile(module._live_handle(), kernel.encode(), target.encode(),
                                  ctypes.byref(handle)))
    from tile import cache  # pylint: disable=import-outside-toplevel
    cache.note_compile(target)
    compiled = Kernel(handle, module)
    # Shown by default: a reduction over padding computes a wrong answer silently.
    remarks.warn_remarks(handle)
    return compiled
