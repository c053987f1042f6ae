"""Where in the user's source a construct was written: the first frame outside
this package, as a tile_ir.v1.SourceLocation and as "file:line" for messages."""

import os
import sys

from tile.language._proto import pb

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def user_frame():
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) \
            == _PACKAGE:
        frame = frame.f_back
    return frame


class Site:
    """A position in the user's code: file, 1-based line and column (0: unknown)."""

    def __init__(self, file, line, col=0):
        self.file, self.line, self.col = file, line, col

    def proto(self):
        return pb.SourceLocation(file=self.file, line=self.line, col=self.col)

    def __str__(self):
        return f"{self.file}:{self.line}"


def here():
    """The Site of the user's call into the language."""
    frame = user_frame()
    if frame is None:
        return Site("<unknown>", 0)
    col = 0
    try:
        # Python 3.11 and later know the column of the instruction running.
        positions = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        if positions[0] == frame.f_lineno and positions[2] is not None:
            col = positions[2] + 1
    except (AttributeError, IndexError):
        pass
    return Site(frame.f_code.co_filename, frame.f_lineno, col)
