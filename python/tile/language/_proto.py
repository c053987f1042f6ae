"""The tile_ir.v1 message classes this language builds modules from.

tile_ir_pb2 is generated from tile_ir/proto/tile_ir.proto at build time
(//python:tile_ir_pb2, the system protoc), never committed, so it cannot drift
from the schema. In Bazel's runfiles it sits beside this package's sources; in
a clone it is under bazel-bin/python/tile/ (or the other configuration's folder, _clone.py)."""

import importlib.util
import os

try:
    import google.protobuf  # noqa: F401  (checked first: its absence is the likelier fault)
except ImportError as error:
    import sys  # pylint: disable=import-outside-toplevel
    if sys.executable.startswith("/usr/bin/"):
        advice = "apt-get install python3-protobuf (scripts/setup.sh installs it)"
    else:  # Debian's package serves /usr/bin/python3 only, not a pyenv, venv or conda Python
        advice = (f"it is missing for this interpreter, {sys.executable}: "
                  f"'{sys.executable} -m pip install protobuf', or run /usr/bin/python3, for "
                  "which scripts/setup.sh installs python3-protobuf")
    raise ImportError(f"tile.language needs protobuf for Python: {advice}") from error


def _load():
    try:
        from tile import tile_ir_pb2
        return tile_ir_pb2
    except ImportError:
        pass
    from tile import _clone, _lib  # pylint: disable=import-outside-toplevel
    # The schema module of the build libtile came from, where it has one.
    library = os.path.abspath(_lib._library_path())  # pylint: disable=protected-access
    path = os.path.join(os.path.dirname(os.path.dirname(library)), "python", "tile",
                        "tile_ir_pb2.py")
    if not os.path.exists(path):
        path = _clone.built("python", "tile", "tile_ir_pb2.py")
    if not os.path.exists(path):
        raise ImportError(f"tile.language: the generated {path} is missing; build it with "
                          "'bazel build -c opt //capi:libtile.so //python:tile_ir_pb2' in the clone")
    spec = importlib.util.spec_from_file_location("tile.tile_ir_pb2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pb = _load()
