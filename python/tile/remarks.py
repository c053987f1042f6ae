"""Remarks libtile makes on a compiled kernel (tile_kernel_remarks), shown as Python warnings
at the user's line: today PaddingRemark, a reduction that may combine the zeros a copy padded
a tile with past a tensor's edge (docs/TEXT_FORMAT.md "Edges")."""

import ctypes
import re
import warnings

from tile._lib import lib

# "FILE:LINE:COL: kernel 'K': MESSAGE" (FILE may hold colons; LINE and COL are the last two).
_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::\d+)?: (?P<message>.*)$")


class PaddingRemark(UserWarning):
    """A reduction (max, min, prod, bitand, or a sum of exp(x)) over a tile that may run past a
    tensor's edge without a mask: its padded zeros join the result. Silence it with
    warnings.filterwarnings("ignore", category=tile.remarks.PaddingRemark)."""


def _remarks_function():
    """libtile's tile_kernel_remarks, or None for a library older than 0.5."""
    try:
        function = lib.tile_kernel_remarks
    except AttributeError:
        return None
    function.restype = ctypes.c_char_p
    function.argtypes = [ctypes.c_void_p]
    return function


def warn_remarks(handle):
    """Issues a PaddingRemark per remark of the kernel `handle`, attributed to the remark's own
    file and line (the user's kernel source) rather than to tile's code."""
    function = _remarks_function()
    text = function(handle) if function is not None else None
    for line in (text or b"").decode("utf-8", "replace").splitlines():
        located = _LOCATED.match(line)
        if located is None:
            warnings.warn(line, PaddingRemark, stacklevel=3)
            continue
        warnings.warn_explicit(located["message"], PaddingRemark, located["file"],
                               int(located["line"]))
