"""ctypes declarations of libtile (capi/tile.h), its errors as exceptions, and
the C call path (_launch.abi3.so) where it was built.

Python over the C library, so one package serves every Python version that can
load the .so (Debian's 3.11 here, 3.12 on the GPU machine); the call path is
built for Python's stable ABI for the same reason."""

import ctypes
import importlib.machinery
import importlib.util
import os

from tile import _dlpack

API_VERSION = 4  # TILE_API_VERSION of the header this module declares (0.4)


class TileError(Exception):
    """A failure reported by libtile; the message names what and where."""


class InvalidArgumentError(TileError, ValueError):
    """A bad module, argument, tensor or name (TILE_ERROR_INVALID_ARGUMENT)."""


class NotFoundError(TileError, LookupError):
    """A file, kernel or target that does not exist (TILE_ERROR_NOT_FOUND)."""


class UnavailableError(TileError):
    """Something this machine lacks, e.g. a GPU driver (TILE_ERROR_UNAVAILABLE)."""


class InternalError(TileError):
    """A compile or launch failure (TILE_ERROR_INTERNAL)."""


_ERRORS = {1: InvalidArgumentError, 2: NotFoundError, 3: UnavailableError, 4: InternalError}

TILE_ARG_TENSOR = 0
TILE_ARG_SCALAR = 1
TILE_ARG_INT = 2  # since 0.3: an int64, exact


class _ScalarValue(ctypes.Union):
    _fields_ = [("scalar", ctypes.c_double), ("integer", ctypes.c_int64)]


class TileArg(ctypes.Structure):
    _anonymous_ = ("value",)
    _fields_ = [
        ("kind", ctypes.c_int),
        ("tensor", ctypes.POINTER(_dlpack.DLTensor)),
        ("value", _ScalarValue),
    ]


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _library_path():
    """$TILE_LIBRARY, else the copy installed with this package (the wheel's tile/libtile.so),
    else the Bazel output of a clone this package lives in."""
    explicit = os.environ.get("TILE_LIBRARY")
    if explicit:
        return explicit
    bundled = os.path.join(_PACKAGE, "libtile.so")
    if os.path.exists(bundled):
        return bundled
    from tile import _clone  # pylint: disable=import-outside-toplevel
    return _clone.built("capi", "libtile.so")


def _load():
    path = _library_path()
    if not os.path.exists(path):
        raise ImportError(
            f"tile: libtile not found at {path}; build it with "
            "'bazel build -c opt //capi:libtile.so' in the clone, or set TILE_LIBRARY, or "
            "install the wheel (scripts/build_wheel.sh, then pip install dist/tile-*.whl)")
    lib = ctypes.CDLL(path)
    handle = ctypes.c_void_p
    status = ctypes.c_int
    declarations = {
        "tile_api_version": (ctypes.c_int, []),
        "tile_last_error": (ctypes.c_char_p, []),
        "tile_module_load_file": (status, [ctypes.c_char_p, ctypes.POINTER(handle)]),
        "tile_module_load_string": (status, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                             ctypes.c_char_p, ctypes.POINTER(handle)]),
        "tile_module_free": (None, [handle]),
        "tile_module_num_kernels": (ctypes.c_size_t, [handle]),
        "tile_module_kernel_name": (ctypes.c_char_p, [handle, ctypes.c_size_t]),
        "tile_kernel_compile": (status, [handle, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.POINTER(handle)]),
        "tile_kernel_free": (None, [handle]),
        "tile_kernel_name": (ctypes.c_char_p, [handle]),
        "tile_kernel_signature": (ctypes.c_char_p, [handle]),
        "tile_kernel_ir": (ctypes.c_char_p, [handle]),
        "tile_kernel_cache_info": (ctypes.c_char_p, [handle]),
        "tile_kernel_source": (ctypes.c_char_p, [handle]),
        "tile_kernel_num_params": (ctypes.c_size_t, [handle]),
        "tile_kernel_param_name": (ctypes.c_char_p, [handle, ctypes.c_size_t]),
        "tile_kernel_param_is_buffer": (ctypes.c_int, [handle, ctypes.c_size_t]),
        "tile_kernel_launch": (status, [handle, ctypes.POINTER(TileArg), ctypes.c_size_t]),
        "tile_kernel_launch_async": (status, [handle, ctypes.POINTER(TileArg), ctypes.c_size_t,
                                              ctypes.c_void_p]),
        "tile_autotune": (status, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
                                   ctypes.POINTER(ctypes.c_void_p)]),
        "tile_string_free": (None, [ctypes.c_void_p]),
        "tile_is_identifier": (ctypes.c_int, [ctypes.c_char_p]),
    }
    for name, (restype, argtypes) in declarations.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    version = lib.tile_api_version()
    if version // 10000 != API_VERSION // 10000 or version < API_VERSION:
        raise ImportError(f"tile: {path} has API version {version}; this package needs "
                          f"{API_VERSION} (same major, at least this minor)")
    return lib


lib = _load()


def _load_launch_extension():
    """tile._launch, the C call path: $TILE_LAUNCH_EXTENSION, else the copy installed
    with this package (the wheel's tile/_launch.abi3.so), else the Bazel output beside
    libtile's (bazel-bin/python/_launch.abi3.so); None when it was not built, and calls
    take the ctypes path."""
    path = os.environ.get("TILE_LAUNCH_EXTENSION")
    if not path:
        path = os.path.join(_PACKAGE, "_launch.abi3.so")
        if not os.path.exists(path):
            library = os.path.abspath(_library_path())
            beside = os.path.join(os.path.dirname(os.path.dirname(library)), "python",
                                  "_launch.abi3.so")
            if os.path.exists(beside):
                path = beside
            else:
                from tile import _clone  # pylint: disable=import-outside-toplevel
                path = _clone.built("python", "_launch.abi3.so")
    if not os.path.exists(path):
        return None
    loader = importlib.machinery.ExtensionFileLoader("tile._launch", path)
    spec = importlib.util.spec_from_file_location("tile._launch", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


launch_extension = _load_launch_extension()
LAUNCH_ADDRESS = ctypes.cast(lib.tile_kernel_launch, ctypes.c_void_p).value
LAUNCH_ASYNC_ADDRESS = ctypes.cast(lib.tile_kernel_launch_async, ctypes.c_void_p).value


def check(status):
    """Raises the exception of a failed call with libtile's message."""
    if status != 0:
        message = lib.tile_last_error().decode("utf-8", "replace")
        raise _ERRORS.get(status, TileError)(message)
