"""tile.load: a module from a path, text, JSON or protobuf bytes."""

import ctypes
import os

from tile._lib import check, lib

# tile_format of capi/tile.h. Bytes of a protobuf module need not hold a NUL
# byte, so a producer that has them names the format rather than trusting AUTO.
_FORMATS = {"auto": 0, "text": 1, "proto": 2, "json": 3}


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


def load(path_or_text, name=None, format="auto"):  # pylint: disable=redefined-builtin
    """A module from a file (.tile, .tilepb, .json), or from the module itself:
    str text or JSON, bytes in any form. `name` names a string's source in
    error messages; `format` ("auto", "text", "proto", "json") says what a
    string or bytes hold (files go by their extension)."""
    if format not in _FORMATS:
        raise ValueError(f"tile.load: format is one of {', '.join(_FORMATS)}, not {format!r}")
    handle = ctypes.c_void_p()
    if isinstance(path_or_text, os.PathLike) or (
            isinstance(path_or_text, str) and format == "auto" and "\n" not in path_or_text
            and not path_or_text.lstrip().startswith("{")):
        path = os.fspath(path_or_text)
        check(lib.tile_module_load_file(path.encode(), ctypes.byref(handle)))
        return Module(handle, path)
    data = path_or_text.encode() if isinstance(path_or_text, str) else bytes(path_or_text)
    source = name or "<string>"
    check(lib.tile_module_load_string(data, len(data), _FORMATS[format], source.encode(),
                                      ctypes.byref(handle)))
    return Module(handle, source)
