"""tile: load modules, compile kernels and run them on DLPack tensors.

    import tile
    module = tile.load("my.tile")            # a path, or the text / JSON itself
    kernel = tile.compile(module, kernel="scale_add", target="cpu")
    kernel(x, y, z, alpha=0.5)               # numpy (or any __dlpack__) arrays

TileLang's JIT surface is here under TileLang's names, so that `import tile as tilelang`
serves a TileLang program: tile.jit (a kernel factory's decorator), tile.compile(prim_func,
out_idx=, target=, pass_configs=), tile.autotune, tile.profiler.do_bench,
tile.TensorSupplyType, tile.PassConfigKey, tile.cdiv, tile.testing.

A pure-Python package over libtile (capi/tile.h) through ctypes; errors are
TileError subclasses carrying libtile's messages. Compiles go through the
same kernel cache as the C++ tools ($TILE_CACHE_DIR, ~/.cache/tile)."""

from tile._version import __version__
from tile._lib import (InternalError, InvalidArgumentError, NotFoundError, TileError,
                       UnavailableError)
from tile.kernel import Kernel
from tile.module import Module, load
from tile.jit import JITImpl, JITKernel, compile, jit  # pylint: disable=redefined-builtin
from tile.autotuner import AutoTuner, autotune
from tile.cache import disable_cache, enable_cache, is_cache_enabled
from tile.remarks import PaddingRemark
from tile.math import cdiv, next_power_of_2, prev_power_of_2
from tile.transform import PassConfigKey
from tile.utils.tensor import TensorSupplyType

# TileLang's submodules, imported when first named (tilelang.layout.make_swizzled_layout,
# tilelang.language, tilelang.testing): `import tile` itself needs no protobuf.
_SUBMODULES = ("autotuner", "carver", "contrib", "language", "layout", "math", "profiler", "testing",
               "transform", "utils")


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib  # pylint: disable=import-outside-toplevel
        return importlib.import_module(f"tile.{name}")
    raise AttributeError(f"module 'tile' has no attribute '{name}'")


__all__ = [
    "AutoTuner", "InternalError", "InvalidArgumentError", "JITImpl", "JITKernel", "Kernel", "Module",
    "NotFoundError", "PaddingRemark", "PassConfigKey", "TensorSupplyType", "TileError", "UnavailableError",
    "autotune", "cdiv", "compile", "disable_cache", "enable_cache", "is_cache_enabled", "jit",
    "load", "next_power_of_2", "prev_power_of_2",
]
