"""A clone's Bazel outputs are found whichever configuration built last (tile/_clone.py):
bazel-bin follows the last build, so the -c opt libtile must still be found after a fastbuild
`bazel test`."""

import os
import time

from tile import _clone


def test_the_newest_of_every_configuration_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(_clone, "_ROOT", str(tmp_path))
    opt = tmp_path / "bazel-out" / "k8-opt" / "bin" / "capi"
    fast = tmp_path / "bazel-out" / "k8-fastbuild" / "bin" / "capi"
    opt.mkdir(parents=True)
    fast.mkdir(parents=True)
    (tmp_path / "bazel-bin").symlink_to(tmp_path / "bazel-out" / "k8-fastbuild" / "bin")
    # Nothing built: the bazel-bin path, for the error message.
    assert _clone.built("capi", "libtile.so") == str(tmp_path / "bazel-bin" / "capi" /
                                                     "libtile.so")
    (opt / "libtile.so").write_bytes(b"opt")
    assert _clone.built("capi", "libtile.so") == str(opt / "libtile.so")
    (fast / "libtile.so").write_bytes(b"fast")
    older = time.time() - 100
    os.utime(opt / "libtile.so", (older, older))
    found = _clone.built("capi", "libtile.so")
    assert open(found, "rb").read() == b"fast"
