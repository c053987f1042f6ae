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

    def release(self):
        """Frees the module now rather than when the object is collected (kernels compiled
        from it stay usable); any use afterwards raises ValueError."""
        if getattr(self, "_handle", None):
            lib.tile_module_free(self._handle)
            self._handle = None

    def __del__(self):
        self.release()

    def _live_handle(self):
        """The handle, or a ValueError saying the module was released."""
        if not getattr(self, "_handle", None):
            raise ValueError(f"module {getattr(self, 'source', '?')} was released "
                             "(Module.release()); load it again with tile.load")
        return self._handle

    @property
    def kernels(self):
        """The kernels' names, in order."""
        handle = self._live_handle()
        count = lib.tile_module_num_kernels(handle)
        return [lib.tile_module_kernel_name(handle, i).decode() for i in range(count)]

    def __repr__(self):
        if not getattr(self, "_handle", None):
            return f"<tile.Module {self.source} (released)>"
        return f"<tile.Module {self.source}: {', '.join(self.kernels)}>"


def load(path_or_text, name=None, format="auto"):  # pylint: disable=redefined-builtin
    """A module from a file (.tile, .tilepb, .json), or from the module itself:
    str text or JSON, bytes in any form. `name` names a string's source in
    error messages; `format` ("auto", "text", "proto", "json") says what a
    string or bytes hold (files go by their extension)."""
    if format not in _FORMATS:
        raise ValueError(f"tile.load: format is one of {', '.join(_FORMATS)}, not {format!r}")
    if isinstance(path_or_text, (str, os.PathLike)) and not os.fspath(path_or_text):
        raise ValueError("tile.load: an empty path was given (expected a file name, or a "
                         "module's text, JSON or bytes)")
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
