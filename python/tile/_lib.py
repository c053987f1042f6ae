"""ctypes declarations of libtile (capi/tile.h) and its errors as exceptions.

Pure Python over the C library, so one package serves every Python version
that can load the .so (Debian's 3.11 here, 3.12 on the GPU machine)."""

import ctypes
import os

from tile import _dlpack

API_VERSION = 1  # TILE_API_VERSION of the header this module declares


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


class TileArg(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("tensor", ctypes.POINTER(_dlpack.DLTensor)),
        ("scalar", ctypes.c_double),
    ]


def _library_path():
    """$TILE_LIBRARY, else the Bazel output of a clone this package lives in."""
    explicit = os.environ.get("TILE_LIBRARY")
    if explicit:
        return explicit
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "bazel-bin", "capi", "libtile.so")


def _load():
    path = _library_path()
    if not os.path.exists(path):
        raise ImportError(
            f"tile: libtile not found at {path}; build it with "
            "'bazel build -c opt //capi:libtile.so' in the clone, or set TILE_LIBRARY")
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
        "tile_kernel_num_params": (ctypes.c_size_t, [handle]),
        "tile_kernel_param_name": (ctypes.c_char_p, [handle, ctypes.c_size_t]),
        "tile_kernel_param_is_buffer": (ctypes.c_int, [handle, ctypes.c_size_t]),
        "tile_kernel_launch": (status, [handle, ctypes.POINTER(TileArg), ctypes.c_size_t]),
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


def check(status):
    """Raises the exception of a failed call with libtile's message."""
    if status != 0:
        message = lib.tile_last_error().decode("utf-8", "replace")
        raise _ERRORS.get(status, TileError)(message)
