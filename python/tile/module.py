"""tile.load: a module from a path, text, JSON or protobuf bytes."""

import ctypes
import os

from tile._lib import check, lib

_FORMAT_AUTO = 0


class Module:
    """A verified module; its kernels compile with tile.compile."""

    def __init__(self, handle, source):
        self._handle = handle
        self.source = source

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.tile_module_free(self._handle)
            self._handle = None

    @property
    def kernels(self):
        """The kernels' names, in order."""
        count = lib.tile_module_num_kernels(self._handle)
        return [lib.tile_module_kernel_name(self._handle, i).decode() for i in range(count)]

    def __repr__(self):
        return f"<tile.Module {self.source}: {', '.join(self.kernels)}>"


def load(path_or_text, name=None):
    """A module from a file (.tile, .tilepb, .json), or from the module itself:
    str text or JSON, bytes in any form. `name` names a string's source in
    error messages."""
    handle = ctypes.c_void_p()
    if isinstance(path_or_text, os.PathLike) or (
            isinstance(path_or_text, str) and "\n" not in path_or_text
            and not path_or_text.lstrip().startswith("{")):
        path = os.fspath(path_or_text)
        check(lib.tile_module_load_file(path.encode(), ctypes.byref(handle)))
        return Module(handle, path)
    data = path_or_text.encode() if isinstance(path_or_text, str) else bytes(path_or_text)
    source = name or "<string>"
    check(lib.tile_module_load_string(data, len(data), _FORMAT_AUTO, source.encode(),
                                      ctypes.byref(handle)))
    return Module(handle, source)
