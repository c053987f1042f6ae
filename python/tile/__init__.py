"""tile: load modules, compile kernels and run them on DLPack tensors.

    import tile
    module = tile.load("my.tile")            # a path, or the text / JSON itself
    kernel = tile.compile(module, kernel="scale_add", target="cpu")
    kernel(x, y, z, alpha=0.5)               # numpy (or any __dlpack__) arrays

A pure-Python package over libtile (capi/tile.h) through ctypes; errors are
TileError subclasses carrying libtile's messages. Compiles go through the
same kernel cache as the C++ tools ($TILE_CACHE_DIR, ~/.cache/tile)."""

from tile._lib import (InternalError, InvalidArgumentError, NotFoundError, TileError,
                       UnavailableError)
from tile.kernel import Kernel, compile
from tile.module import Module, load

__all__ = [
    "InternalError", "InvalidArgumentError", "Kernel", "Module", "NotFoundError", "TileError",
    "UnavailableError", "compile", "load",
]
